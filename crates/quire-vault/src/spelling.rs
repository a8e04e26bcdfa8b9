//! How files are named on disk when that is not their `PagePath`: names in another Unicode
//! normalization than NFC, and files no path can address because their names differ from
//! another entry's only by normalization.

use std::collections::BTreeMap;

use unicode_normalization::char::is_combining_mark;

use crate::PagePath;

/// The names on disk that a `PagePath` does not spell as they are. Filled by the store's
/// listing of the root; the planner reads it to refuse destinations that would give a second
/// file a name differing only by normalization.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskNames {
    /// Files whose root-relative name on disk is not NFC: their path (the NFC form) → the
    /// name on disk.
    pub non_nfc: BTreeMap<PagePath, String>,
    /// Files that no path addresses, sorted.
    pub shadowed: Vec<Shadowed>,
}

/// A file that no `PagePath` addresses: its name (or a folder's above it) differs from a
/// sibling's only by Unicode normalization, and the path addresses the sibling. It stays on
/// disk untouched.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shadowed {
    /// The shadowed file's path: the NFC form of its name on disk.
    pub path: PagePath,
    /// The shadowed file's root-relative name on disk.
    pub disk: String,
    /// The root-relative name on disk of the entry its path leads to instead: the file, or
    /// the folder above it, whose name normalizes to the same.
    pub by: String,
}

impl Shadowed {
    /// One sentence for logs and a plan's `integrity.normalization`, with combining marks
    /// written as escapes so the two spellings can be told apart.
    pub fn note(&self) -> String {
        format!(
            "`{}` is shadowed by `{}`: their names differ only by Unicode normalization and \
             the path `{}` addresses the latter; the shadowed file is kept on disk, but quire \
             cannot read, write or move it until one of them is renamed",
            spelled(&self.disk),
            spelled(&self.by),
            self.path
        )
    }
}

/// `name` with every combining mark written as `\u{…}`, so that `cafe\u{301}` (NFD) and
/// `café` (NFC) read differently.
pub fn spelled(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if is_combining_mark(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelled_escapes_combining_marks_only() {
        assert_eq!(spelled("cafe\u{301}.md"), "cafe\\u{301}.md");
        assert_eq!(spelled("café.md"), "café.md");
        assert_eq!(spelled("日本.md"), "日本.md");
    }
}
