//! Selection: which files a move or relink entry names (file, folder, glob, regex) and the
//! destination each one gets, always against the paths as they were before the manifest.

use regex::Regex;

use quire_vault::PagePath;

use crate::manifest::MoveEntry;

/// One selected file and its destination as text (checked later, so that a bad
/// destination becomes a conflict rather than a parse error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selected {
    pub(crate) from: PagePath,
    pub(crate) to: String,
}

/// What an entry selected: the files, or why it selects nothing.
pub(crate) type Selection = Result<Vec<Selected>, String>;

/// The files of the root in byte order, with prefix lookups.
pub(crate) struct FileList<'a> {
    files: &'a [PagePath],
}

impl<'a> FileList<'a> {
    pub(crate) fn new(files: &'a [PagePath]) -> Self {
        FileList { files }
    }

    pub(crate) fn contains(&self, path: &str) -> bool {
        self.files
            .binary_search_by(|probe| probe.as_str().cmp(path))
            .is_ok()
    }

    /// Files whose path starts with `prefix` (a folder prefix ending in `/`).
    pub(crate) fn under(&self, prefix: &str) -> &'a [PagePath] {
        let start = self.files.partition_point(|p| p.as_str() < prefix);
        let len = self.files[start..].partition_point(|p| p.as_str().starts_with(prefix));
        &self.files[start..start + len]
    }

    pub(crate) fn all(&self) -> &'a [PagePath] {
        self.files
    }
}

/// A destination ending in `/` is a folder that keeps the file's name.
fn land(to: &str, name: &str) -> String {
    if to.ends_with('/') {
        format!("{to}{name}")
    } else {
        to.to_owned()
    }
}

/// Strips the one leading `/` a root-relative path may carry.
pub(crate) fn rootless(text: &str) -> &str {
    text.strip_prefix('/').unwrap_or(text)
}

/// Does `text` use glob syntax?
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?'])
}

/// The files a move entry selects, with destinations.
pub(crate) fn select_move(entry: &MoveEntry, files: &FileList) -> Selection {
    let to = rootless(entry.to.trim());
    if let Some(pattern) = &entry.from_regex {
        return select_regex(pattern, to, files);
    }
    let from = rootless(entry.from.as_deref().unwrap_or_default().trim());
    if let Some(folder) = from.strip_suffix('/') {
        let prefix = format!("{folder}/");
        let found = files.under(&prefix);
        if found.is_empty() {
            return Err(format!("folder `{from}` holds no files"));
        }
        let to_folder = to.strip_suffix('/').unwrap_or(to);
        return Ok(found
            .iter()
            .map(|path| Selected {
                from: path.clone(),
                to: format!("{to_folder}/{}", &path.as_str()[prefix.len()..]),
            })
            .collect());
    }
    if is_glob(from) {
        let matcher = glob_regex(from);
        let found: Vec<Selected> = files
            .all()
            .iter()
            .filter(|path| matcher.is_match(path.as_str()))
            .map(|path| Selected {
                from: path.clone(),
                to: land(to, path.name()),
            })
            .collect();
        if found.is_empty() {
            return Err(format!("glob `{from}` matches no file"));
        }
        return Ok(found);
    }
    let Ok(path) = PagePath::new(from) else {
        return Err(format!("`{from}` is not a valid path"));
    };
    if !files.contains(path.as_str()) {
        if !files.under(&format!("{path}/")).is_empty() {
            return Err(format!("`{from}` is a folder; write `{from}/` to move it"));
        }
        return Err(format!("`{from}` does not exist"));
    }
    let to = land(to, path.name());
    Ok(vec![Selected { from: path, to }])
}

fn select_regex(pattern: &str, to: &str, files: &FileList) -> Selection {
    // The manifest was validated, so the pattern compiles; anchoring makes it match the
    // whole root-relative path.
    let regex = Regex::new(&format!("^(?:{pattern})$"))
        .map_err(|err| format!("from_regex `{pattern}` is not a valid regex: {err}"))?;
    let mut found = Vec::new();
    for path in files.all() {
        if let Some(captures) = regex.captures(path.as_str()) {
            let mut expanded = String::new();
            captures.expand(to, &mut expanded);
            found.push(Selected {
                from: path.clone(),
                to: land(rootless(&expanded), path.name()),
            });
        }
    }
    if found.is_empty() {
        return Err(format!("from_regex `{pattern}` matches no file"));
    }
    Ok(found)
}

/// The files a relink entry names: `from` is where they were, `to` where they are now.
/// Relinks take a file or a folder (`a/`); the files must exist at `to` now.
pub(crate) fn select_relink(entry: &MoveEntry, files: &FileList) -> Selection {
    let Some(from) = entry.from.as_deref().map(|f| rootless(f.trim())) else {
        return Err(
            "relinks take `from` (a file or a folder ending in `/`), not `from_regex`".into(),
        );
    };
    if is_glob(from) {
        return Err(format!(
            "relink `{from}`: relinks take a file or a folder ending in `/`, not a glob"
        ));
    }
    let to = rootless(entry.to.trim());
    if let Some(folder) = from.strip_suffix('/') {
        let to_folder = to.strip_suffix('/').unwrap_or(to);
        let prefix = format!("{to_folder}/");
        let found = files.under(&prefix);
        if found.is_empty() {
            return Err(format!("relink destination folder `{to}` holds no files"));
        }
        let mut out = Vec::with_capacity(found.len());
        for path in found {
            let old = format!("{folder}/{}", &path.as_str()[prefix.len()..]);
            let Ok(old) = PagePath::new(&old) else {
                return Err(format!("relink source `{old}` is not a valid path"));
            };
            out.push(Selected {
                from: old,
                to: path.to_string(),
            });
        }
        return Ok(out);
    }
    let Ok(old) = PagePath::new(from) else {
        return Err(format!("relink source `{from}` is not a valid path"));
    };
    let to = land(to, old.name());
    if !files.contains(rootless(&to)) {
        return Err(format!(
            "relink destination `{to}` does not exist; relinks repair moves already made"
        ));
    }
    Ok(vec![Selected { from: old, to }])
}

/// A glob as an anchored regex: `**/` spans zero or more folders, `**` anything,
/// `*` anything within one component, `?` one character of a component.
pub fn glob_regex(glob: &str) -> Regex {
    let mut out = String::from("^");
    let mut rest = glob;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("**/") {
            out.push_str("(?:.*/)?");
            rest = after;
            continue;
        }
        if let Some(after) = rest.strip_prefix("**") {
            out.push_str(".*");
            rest = after;
            continue;
        }
        match c {
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            c => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
        rest = &rest[c.len_utf8()..];
    }
    out.push('$');
    // Every character outside the glob syntax was escaped, so this always compiles.
    Regex::new(&out).unwrap_or_else(|_| Regex::new("^$").expect("empty regex compiles"))
}

/// Does `path` match any of the globs? A glob without a wildcard also covers what is
/// below it when it names a folder (`private` protects `private/x.md`).
pub(crate) fn matches_any(globs: &[Regex], folders: &[String], path: &str) -> bool {
    globs.iter().any(|glob| glob.is_match(path))
        || folders
            .iter()
            .any(|folder| path.starts_with(folder.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_syntax_matches_as_documented() {
        let cases = [
            ("notes/*.md", "notes/a.md", true),
            ("notes/*.md", "notes/x/a.md", false),
            ("notes/**/*.md", "notes/a.md", true),
            ("notes/**/*.md", "notes/x/y/a.md", true),
            ("**/*.png", "a.png", true),
            ("**/*.png", "a/b/c.png", true),
            ("n?te.md", "note.md", true),
            ("n?te.md", "n/te.md", false),
            ("a+b (1).md", "a+b (1).md", true),
            ("archive/**", "archive/x/y.md", true),
        ];
        for (glob, path, want) in cases {
            assert_eq!(glob_regex(glob).is_match(path), want, "{glob} {path}");
        }
    }
}
