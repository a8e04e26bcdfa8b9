//! The lookup tables resolution reads: every file under its path, path-suffix and name keys,
//! at three strictness levels, kept up to date one file at a time.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::path::{name_of, PagePath};

/// How strictly a key compares to a target; each level is a resolution fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    /// Bytes as they are (after NFC).
    Exact,
    /// Lowercased.
    Case,
    /// Lowercased, and every run of `-`, `_`, space written as one `-`.
    Separators,
}

impl Fold {
    pub(crate) const ALL: [Fold; 3] = [Fold::Exact, Fold::Case, Fold::Separators];

    /// `text` brought to this level; borrows whenever nothing changes.
    pub(crate) fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Fold::Exact => Cow::Borrowed(text),
            Fold::Case => lowercase(text),
            Fold::Separators => {
                let lower = lowercase(text);
                if !needs_separator_fold(&lower) {
                    return lower;
                }
                let mut out = String::with_capacity(lower.len());
                let mut in_run = false;
                for c in lower.chars() {
                    if is_separator(c) {
                        if !in_run {
                            out.push('-');
                        }
                        in_run = true;
                    } else {
                        out.push(c);
                        in_run = false;
                    }
                }
                Cow::Owned(out)
            }
        }
    }

    fn slot(self) -> usize {
        match self {
            Fold::Exact => 0,
            Fold::Case => 1,
            Fold::Separators => 2,
        }
    }
}

fn is_separator(c: char) -> bool {
    matches!(c, '-' | '_' | ' ')
}

/// True when folding would change `text`: it has `_`, a space, or two separators in a row.
fn needs_separator_fold(text: &str) -> bool {
    let mut previous = false;
    for c in text.chars() {
        let separator = is_separator(c);
        if c == '_' || c == ' ' || (separator && previous) {
            return true;
        }
        previous = separator;
    }
    false
}

fn lowercase(text: &str) -> Cow<'_, str> {
    let unchanged = if text.is_ascii() {
        !text.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        text.chars().all(|c| {
            let mut lower = c.to_lowercase();
            lower.next() == Some(c) && lower.next().is_none()
        })
    };
    if unchanged {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

/// Which kind of key a table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    /// The whole path, and for pages the whole path without `.md`.
    Paths,
    /// Every proper suffix of two or more components (`b/c.md` of `a/b/c.md`),
    /// and for pages the same without `.md`.
    Suffixes,
    /// The name, and for pages the stem.
    Names,
}

impl Table {
    fn slot(self) -> usize {
        match self {
            Table::Paths => 0,
            Table::Suffixes => 1,
            Table::Names => 2,
        }
    }
}

/// A file in a bucket, with what the tie-break needs measured once at insert time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) path: PagePath,
    /// Byte length of the folder part (`"a/b"` of `a/b/c.md`).
    pub(crate) folder_len: usize,
    /// Number of components.
    pub(crate) depth: usize,
}

impl Hit {
    fn new(path: &PagePath) -> Hit {
        Hit {
            path: path.clone(),
            folder_len: path.folder().len(),
            depth: path.depth(),
        }
    }

    pub(crate) fn folder(&self) -> &str {
        &self.path.as_str()[..self.folder_len]
    }
}

type Buckets = HashMap<Box<str>, Vec<Hit>>;

/// Nine tables (three kinds × three folds) from key to the files carrying it.
///
/// Buckets are unordered; resolution sorts its hits, so the order of inserts and removes
/// never shows in a result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    tables: [[Buckets; 3]; 3],
}

impl Index {
    pub(crate) fn lookup(&self, table: Table, fold: Fold, key: &str) -> &[Hit] {
        self.tables[table.slot()][fold.slot()]
            .get(key)
            .map_or(&[], Vec::as_slice)
    }

    pub(crate) fn insert(&mut self, path: &PagePath) {
        for_each_key(path, |table, fold, key| {
            let bucket = self.tables[table.slot()][fold.slot()]
                .entry(Box::from(key))
                .or_default();
            // Keeps a bucket a set even if two keys of one file ever fold to one string,
            // so a file is never its own rival.
            if !bucket.iter().any(|hit| hit.path == *path) {
                bucket.push(Hit::new(path));
            }
        });
    }

    pub(crate) fn remove(&mut self, path: &PagePath) {
        for_each_key(path, |table, fold, key| {
            let buckets = &mut self.tables[table.slot()][fold.slot()];
            if let Some(bucket) = buckets.get_mut(key) {
                bucket.retain(|hit| hit.path != *path);
                if bucket.is_empty() {
                    buckets.remove(key);
                }
            }
        });
    }
}

/// Calls `visit` with every (table, fold, key) under which `path` is found.
fn for_each_key(path: &PagePath, mut visit: impl FnMut(Table, Fold, &str)) {
    let text = path.as_str();
    let page = path.is_page();
    let mut emit = |table: Table, raw: &str| {
        for fold in Fold::ALL {
            visit(table, fold, &fold.apply(raw));
            if page {
                visit(table, fold, &fold.apply(&raw[..raw.len() - 3]));
            }
        }
    };
    emit(Table::Paths, text);
    emit(Table::Names, name_of(text));
    // Suffixes start after each `/` except the last one (that one gives the bare name).
    let last = text.rfind('/');
    for (i, _) in text.match_indices('/') {
        if Some(i) != last {
            emit(Table::Suffixes, &text[i + 1..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_levels_normalise_as_documented() {
        let cases = [
            (Fold::Exact, "My Note", "My Note"),
            (Fold::Case, "My Note", "my note"),
            (Fold::Case, "ÄRGER", "ärger"),
            (Fold::Separators, "My Note", "my-note"),
            (Fold::Separators, "my__note", "my-note"),
            (Fold::Separators, "a - _b", "a-b"),
            (Fold::Separators, "a/b c.md", "a/b-c.md"),
            (Fold::Separators, "plain-name", "plain-name"),
        ];
        for (fold, input, expected) in cases {
            assert_eq!(fold.apply(input), expected, "{fold:?} {input:?}");
        }
    }

    #[test]
    fn page_is_found_under_path_suffix_and_name_keys() {
        let mut index = Index::default();
        let path = PagePath::new("a/b/Note.md").unwrap();
        index.insert(&path);
        let cases = [
            (Table::Paths, Fold::Exact, "a/b/Note.md"),
            (Table::Paths, Fold::Exact, "a/b/Note"),
            (Table::Suffixes, Fold::Exact, "b/Note"),
            (Table::Suffixes, Fold::Exact, "b/Note.md"),
            (Table::Names, Fold::Exact, "Note"),
            (Table::Names, Fold::Exact, "Note.md"),
            (Table::Names, Fold::Case, "note"),
            (Table::Suffixes, Fold::Case, "b/note"),
        ];
        for (table, fold, key) in cases {
            assert_eq!(index.lookup(table, fold, key), [Hit::new(&path)], "{key}");
        }
        assert!(index
            .lookup(Table::Suffixes, Fold::Exact, "Note")
            .is_empty());
        assert!(index
            .lookup(Table::Suffixes, Fold::Exact, "a/b/Note")
            .is_empty());
        index.remove(&path);
        assert!(index.tables.iter().flatten().all(HashMap::is_empty));
    }
}
