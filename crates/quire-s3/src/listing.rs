//! A bucket's keys as S3 lists them: the files below a prefix in byte order, grouped by a
//! delimiter into common prefixes, a page at a time. Pure: the folders are read through the
//! closure [`rows`] is given, so the tests need no space.

use std::time::SystemTime;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// One file of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub key: String,
    pub size: u64,
    pub modified: SystemTime,
}

/// One row of a listing: a key, or a common prefix standing for every key that starts with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    Object(Item),
    Prefix(String),
}

impl Row {
    /// What the row sorts and pages by.
    pub fn name(&self) -> &str {
        match self {
            Row::Object(item) => &item.key,
            Row::Prefix(prefix) => prefix,
        }
    }
}

/// What a folder holds, as [`rows`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Child {
    File(Item),
    /// A folder, by its path (no trailing `/`).
    Folder(String),
}

/// The folder `prefix` starts in: the part before its last `/` (`""`: the top folder).
pub fn start_folder(prefix: &str) -> &str {
    prefix.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// Every row under `prefix`, grouped by `delimiter`, in byte order. `list` reads one folder
/// (`""`: the top) and answers nothing for a folder that does not exist.
///
/// With `/` as delimiter one folder is read; otherwise every folder that can hold a key
/// starting with `prefix` is walked. Folders without files show only as common prefixes.
pub fn rows<E>(
    prefix: &str,
    delimiter: Option<&str>,
    mut list: impl FnMut(&str) -> Result<Vec<Child>, E>,
) -> Result<Vec<Row>, E> {
    let delimiter = delimiter.filter(|d| !d.is_empty());
    if delimiter == Some("/") {
        let mut rows = Vec::new();
        for child in list(start_folder(prefix))? {
            match child {
                Child::File(item) if item.key.starts_with(prefix) => rows.push(Row::Object(item)),
                Child::Folder(path) => {
                    let common = format!("{path}/");
                    if common.starts_with(prefix) {
                        rows.push(Row::Prefix(common));
                    }
                }
                Child::File(_) => {}
            }
        }
        rows.sort_by(|a, b| a.name().cmp(b.name()));
        return Ok(rows);
    }
    let mut items = Vec::new();
    let mut folders = vec![start_folder(prefix).to_string()];
    while let Some(folder) = folders.pop() {
        for child in list(&folder)? {
            match child {
                Child::File(item) if item.key.starts_with(prefix) => items.push(item),
                Child::File(_) => {}
                Child::Folder(path) => {
                    let inside = format!("{path}/");
                    if inside.starts_with(prefix) || prefix.starts_with(&inside) {
                        folders.push(path);
                    }
                }
            }
        }
    }
    items.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(group(items, prefix, delimiter))
}

/// Sorted items grouped by `delimiter`: a key with the delimiter after `prefix` becomes the
/// common prefix up to and including it (once).
pub fn group(items: Vec<Item>, prefix: &str, delimiter: Option<&str>) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::with_capacity(items.len());
    for item in items {
        let Some(rest) = item.key.strip_prefix(prefix) else {
            continue;
        };
        let common = delimiter
            .filter(|d| !d.is_empty())
            .and_then(|d| rest.find(d).map(|i| prefix.len() + i + d.len()));
        match common {
            Some(end) => {
                let common = &item.key[..end];
                // The keys sharing a common prefix are next to each other in byte order.
                if !matches!(rows.last(), Some(Row::Prefix(p)) if p == common) {
                    rows.push(Row::Prefix(common.to_string()));
                }
            }
            None => rows.push(Row::Object(item)),
        }
    }
    rows
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub rows: Vec<Row>,
    /// More rows follow; they start after the last row of this page.
    pub truncated: bool,
}

/// The rows after `after` (exclusive), at most `max`. A common prefix given as `after` skips
/// itself and so every key it stands for.
pub fn page(rows: Vec<Row>, after: Option<&str>, max: usize) -> Page {
    let mut rest = rows
        .into_iter()
        .filter(|row| after.is_none_or(|after| row.name() > after))
        .peekable();
    let rows: Vec<Row> = rest.by_ref().take(max).collect();
    let truncated = max > 0 && rest.peek().is_some();
    Page { rows, truncated }
}

/// The continuation token naming the last row of a page (opaque to clients).
pub fn token(last: &str) -> String {
    URL_SAFE_NO_PAD.encode(last.as_bytes())
}

/// The row a continuation token names, `None` for a token this server did not hand out.
pub fn untoken(token: &str) -> Option<String> {
    let bytes = URL_SAFE_NO_PAD.decode(token.trim()).ok()?;
    String::from_utf8(bytes).ok()
}

/// A key, prefix or delimiter as `encoding-type=url` asks: every byte percent-encoded but the
/// unreserved ones and `/`.
pub fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn item(key: &str) -> Item {
        Item {
            key: key.to_string(),
            size: key.len() as u64,
            modified: SystemTime::UNIX_EPOCH,
        }
    }

    /// A tree of files (and empty folders, written with a trailing `/`) read one folder at a
    /// time, counting the folders read.
    struct Tree {
        files: Vec<String>,
        folders: Vec<String>,
        reads: usize,
    }

    impl Tree {
        fn new(paths: &[&str]) -> Tree {
            let mut files = Vec::new();
            let mut folders = Vec::new();
            for path in paths {
                let (file, folder) = match path.strip_suffix('/') {
                    Some(folder) => (None, folder),
                    None => (Some(*path), start_folder(path)),
                };
                files.extend(file.map(str::to_string));
                let mut f = folder;
                while !f.is_empty() {
                    folders.push(f.to_string());
                    f = start_folder(f);
                }
            }
            folders.sort();
            folders.dedup();
            Tree {
                files,
                folders,
                reads: 0,
            }
        }

        fn list(&mut self, folder: &str) -> Result<Vec<Child>, ()> {
            self.reads += 1;
            let mut children = BTreeMap::new();
            for f in &self.files {
                if start_folder(f) == folder {
                    children.insert(f.clone(), Child::File(item(f)));
                }
            }
            for f in &self.folders {
                if start_folder(f) == folder {
                    children.insert(f.clone(), Child::Folder(f.clone()));
                }
            }
            Ok(children.into_values().collect())
        }

        fn names(&mut self, prefix: &str, delimiter: Option<&str>) -> Vec<String> {
            rows(prefix, delimiter, |f| self.list(f))
                .unwrap()
                .iter()
                .map(|r| r.name().to_string())
                .collect()
        }
    }

    const VAULT: &[&str] = &[
        "a.md",
        "a-b.md",
        "a/x.md",
        "a/y/z.md",
        "notes/alpha.md",
        "notes/alpha/one.md",
        "notes/beta.md",
        "empty/",
        "Z.md",
    ];

    #[test]
    fn keys_come_in_byte_order_across_folders() {
        let mut tree = Tree::new(VAULT);
        // '-' (0x2d) sorts before '/' (0x2f) and '.' (0x2e): a walk folder by folder would not.
        assert_eq!(
            tree.names("", None),
            [
                "Z.md",
                "a-b.md",
                "a.md",
                "a/x.md",
                "a/y/z.md",
                "notes/alpha.md",
                "notes/alpha/one.md",
                "notes/beta.md"
            ]
        );
    }

    #[test]
    fn a_slash_delimiter_reads_one_folder_and_shows_folders_as_common_prefixes() {
        let mut tree = Tree::new(VAULT);
        assert_eq!(
            tree.names("", Some("/")),
            ["Z.md", "a-b.md", "a.md", "a/", "empty/", "notes/"]
        );
        assert_eq!(tree.reads, 1);
        assert_eq!(
            tree.names("notes/", Some("/")),
            ["notes/alpha.md", "notes/alpha/", "notes/beta.md"]
        );
        assert_eq!(
            tree.names("notes/al", Some("/")),
            ["notes/alpha.md", "notes/alpha/"]
        );
        assert!(tree.names("missing/", Some("/")).is_empty());
    }

    #[test]
    fn a_prefix_walks_only_the_folders_that_can_hold_it() {
        let mut tree = Tree::new(VAULT);
        assert_eq!(
            tree.names("notes/alpha", None),
            ["notes/alpha.md", "notes/alpha/one.md"]
        );
        // notes, then notes/alpha: not the top folder, a/, a/y/ nor empty/.
        assert_eq!(tree.reads, 2);
        let mut tree = Tree::new(VAULT);
        assert_eq!(tree.names("a/", None), ["a/x.md", "a/y/z.md"]);
        assert_eq!(tree.reads, 2);
    }

    #[test]
    fn another_delimiter_groups_after_the_prefix() {
        let mut tree = Tree::new(VAULT);
        assert_eq!(
            tree.names("", Some(".")),
            [
                "Z.",
                "a-b.",
                "a.",
                "a/x.",
                "a/y/z.",
                "notes/alpha.",
                "notes/alpha/one.",
                "notes/beta."
            ]
        );
        assert_eq!(tree.names("notes/", Some("a")), ["notes/a", "notes/beta"]);
    }

    #[test]
    fn pages_follow_each_other_without_gap_or_repeat() {
        let keys: Vec<String> = (0..25).map(|i| format!("k/{i:03}.md")).collect();
        let items: Vec<Item> = keys.iter().map(|k| item(k)).collect();
        let all = group(items, "", None);
        let mut seen = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let p = page(all.clone(), after.as_deref(), 10);
            seen.extend(p.rows.iter().map(|r| r.name().to_string()));
            if !p.truncated {
                break;
            }
            // The token round-trips the last row.
            let t = token(p.rows.last().unwrap().name());
            after = untoken(&t);
        }
        assert_eq!(seen, keys);
    }

    #[test]
    fn a_common_prefix_as_continuation_skips_its_keys() {
        let items: Vec<Item> = ["a/1", "a/2", "b/1", "c"].iter().map(|k| item(k)).collect();
        let all = group(items, "", Some("/"));
        let first = page(all.clone(), None, 1);
        assert_eq!(first.rows, [Row::Prefix("a/".into())]);
        assert!(first.truncated);
        let second = page(all.clone(), Some("a/"), 1);
        assert_eq!(second.rows, [Row::Prefix("b/".into())]);
        let last = page(all, Some("b/"), 5);
        assert_eq!(last.rows, [Row::Object(item("c"))]);
        assert!(!last.truncated);
    }

    #[test]
    fn max_keys_zero_answers_an_empty_page_that_is_not_truncated() {
        let all = group(vec![item("a")], "", None);
        assert_eq!(
            page(all, None, 0),
            Page {
                rows: vec![],
                truncated: false
            }
        );
    }

    #[test]
    fn start_after_is_exclusive_and_may_name_no_key() {
        let items: Vec<Item> = ["a", "b", "c"].iter().map(|k| item(k)).collect();
        let all = group(items, "", None);
        let names = |p: Page| {
            p.rows
                .iter()
                .map(|r| r.name().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(page(all.clone(), Some("a"), 10)), ["b", "c"]);
        assert_eq!(names(page(all, Some("bb"), 10)), ["c"]);
    }

    #[test]
    fn url_encoding_keeps_slashes_and_unreserved_bytes() {
        assert_eq!(url_encode("notes/a b+c%.md"), "notes/a%20b%2Bc%25.md");
        assert_eq!(url_encode("é"), "%C3%A9");
        assert_eq!(untoken("not base64 !"), None);
    }
}
