//! The lookup tables resolution reads: every file under its path, path-suffix and name keys,
//! at three strictness levels, kept up to date one file at a time.

use hashbrown::hash_map::EntryRef;
use hashbrown::HashMap;

use crate::fold::Fold;
use crate::path::{name_of, PagePath};

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
    pub(crate) fn new(path: &PagePath) -> Hit {
        Hit {
            path: path.clone(),
            folder_len: path.folder().len(),
            depth: path.depth(),
        }
    }

    #[inline]
    pub(crate) fn folder(&self) -> &str {
        &self.path.as_str()[..self.folder_len]
    }
}

/// hashbrown's map: keys hashed with foldhash (seeded per process), and a key looked up by
/// `&str` is allocated only when it is new. A vault of 10,000 files holds some 180,000 keys,
/// and building them is part of every cold start.
type Buckets = HashMap<Box<str>, Bucket>;

/// The files under one key. Nearly every key names one file, which is kept inline: a vault
/// of 10,000 files saves some 180,000 allocations.
#[derive(Debug, Clone)]
enum Bucket {
    One(Hit),
    Many(Vec<Hit>),
}

impl Bucket {
    fn as_slice(&self) -> &[Hit] {
        match self {
            Bucket::One(hit) => std::slice::from_ref(hit),
            Bucket::Many(hits) => hits,
        }
    }

    /// Adds the file unless it is there (a bucket is a set even if two keys of one file
    /// ever fold to one string, so a file is never its own rival).
    fn add(&mut self, path: &PagePath) {
        if self.as_slice().iter().any(|hit| hit.path == *path) {
            return;
        }
        match self {
            Bucket::One(first) => {
                *self = Bucket::Many(vec![first.clone(), Hit::new(path)]);
            }
            Bucket::Many(hits) => hits.push(Hit::new(path)),
        }
    }

    /// Removes the file; `true` when the bucket is empty afterwards.
    fn remove(&mut self, path: &PagePath) -> bool {
        match self {
            Bucket::One(hit) => hit.path == *path,
            Bucket::Many(hits) => {
                hits.retain(|hit| hit.path != *path);
                if let [only] = hits.as_slice() {
                    *self = Bucket::One(only.clone());
                }
                matches!(self, Bucket::Many(hits) if hits.is_empty())
            }
        }
    }
}

/// Nine tables (three kinds × three folds) from key to the files carrying it.
///
/// Buckets are unordered; resolution sorts its hits, so the order of inserts and removes
/// never shows in a result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    tables: [[Buckets; 3]; 3],
}

/// A set of files resolution can search: the vault's own index, or an overlay of planned
/// changes on it. Every rule below reads files only through this, so both answer alike.
pub(crate) trait Lookup {
    /// The files carrying `key` in `table` at `fold`, each once, in no particular order.
    fn hits<'a>(
        &'a self,
        table: Table,
        fold: Fold,
        key: &str,
    ) -> impl Iterator<Item = &'a Hit> + use<'a, Self>;
}

impl Lookup for Index {
    #[inline]
    fn hits<'a>(
        &'a self,
        table: Table,
        fold: Fold,
        key: &str,
    ) -> impl Iterator<Item = &'a Hit> + use<'a> {
        self.tables[table.slot()][fold.slot()]
            .get(key)
            .map_or(&[][..], Bucket::as_slice)
            .iter()
    }
}

impl Index {
    pub(crate) fn insert(&mut self, path: &PagePath) {
        for_each_key(path, |table, fold, key| {
            let buckets = &mut self.tables[table.slot()][fold.slot()];
            match buckets.entry_ref(key) {
                EntryRef::Occupied(mut bucket) => bucket.get_mut().add(path),
                EntryRef::Vacant(slot) => {
                    slot.insert(Bucket::One(Hit::new(path)));
                }
            }
        });
    }

    pub(crate) fn remove(&mut self, path: &PagePath) {
        for_each_key(path, |table, fold, key| {
            let buckets = &mut self.tables[table.slot()][fold.slot()];
            if let Some(bucket) = buckets.get_mut(key) {
                if bucket.remove(path) {
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
            let found: Vec<&Hit> = index.hits(table, fold, key).collect();
            assert_eq!(found, [&Hit::new(&path)], "{key}");
        }
        assert_eq!(index.hits(Table::Suffixes, Fold::Exact, "Note").count(), 0);
        assert_eq!(
            index.hits(Table::Suffixes, Fold::Exact, "a/b/Note").count(),
            0
        );
        index.remove(&path);
        assert!(index.tables.iter().flatten().all(HashMap::is_empty));
    }
}
