//! File ids ↔ paths. NFS names everything by a 64-bit file id (the handle a client keeps);
//! quire names files by path. The table gives a path an id the first time a client sees it and
//! keeps it for the life of the server: a rename moves the id (and, for a folder, the ids of
//! everything below it), so a handle a client holds follows the file. Ids are never reused;
//! a server restart changes the handles' generation, and clients look paths up again.
//!
//! Paths here are *tree* paths: `""` is the export root (id 1), `notes/a.md` a file of the
//! default space, `<space>/x.md` a file of another space.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// The id of the export root.
pub const ROOT_ID: u64 = 1;

#[derive(Debug)]
pub struct Ids {
    inner: Mutex<Table>,
}

#[derive(Debug)]
struct Table {
    /// Sorted, so everything below a folder is one range.
    by_path: BTreeMap<String, u64>,
    by_id: HashMap<u64, String>,
    next: u64,
}

impl Default for Ids {
    fn default() -> Self {
        let mut by_path = BTreeMap::new();
        let mut by_id = HashMap::new();
        by_path.insert(String::new(), ROOT_ID);
        by_id.insert(ROOT_ID, String::new());
        Ids {
            inner: Mutex::new(Table {
                by_path,
                by_id,
                next: ROOT_ID + 1,
            }),
        }
    }
}

/// `folder/name`, or `name` at the root.
pub fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// Whether `path` is `folder` or below it.
pub fn is_under(path: &str, folder: &str) -> bool {
    folder.is_empty()
        || path == folder
        || (path.len() > folder.len()
            && path.starts_with(folder)
            && path.as_bytes()[folder.len()] == b'/')
}

impl Ids {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The id of `path`, given one now if it has none.
    pub fn id(&self, path: &str) -> u64 {
        let mut table = self.lock();
        if let Some(&id) = table.by_path.get(path) {
            return id;
        }
        let id = table.next;
        table.next += 1;
        table.by_path.insert(path.to_string(), id);
        table.by_id.insert(id, path.to_string());
        id
    }

    /// The id `path` has, if any.
    pub fn known(&self, path: &str) -> Option<u64> {
        self.lock().by_path.get(path).copied()
    }

    /// The path of an id (`None`: never given, or forgotten — a stale handle).
    pub fn path(&self, id: u64) -> Option<String> {
        self.lock().by_id.get(&id).cloned()
    }

    /// `from` (a file, or a folder with everything below it) is now `to`: the ids move with
    /// it. What had an id at `to` or below was replaced, and its ids are forgotten.
    pub fn rename(&self, from: &str, to: &str) {
        if from == to || from.is_empty() {
            return;
        }
        let mut table = self.lock();
        let replaced: Vec<String> = below(&table.by_path, to);
        for path in replaced {
            if let Some(id) = table.by_path.remove(&path) {
                table.by_id.remove(&id);
            }
        }
        let moved: Vec<String> = below(&table.by_path, from);
        for old in moved {
            let Some(id) = table.by_path.remove(&old) else {
                continue;
            };
            let new = format!("{to}{}", &old[from.len()..]);
            table.by_id.insert(id, new.clone());
            table.by_path.insert(new, id);
        }
    }

    /// `path` (and everything below it) is gone: its ids are forgotten, so a handle to it is
    /// stale, and a new file at the path gets a new id.
    pub fn forget(&self, path: &str) {
        if path.is_empty() {
            return;
        }
        let mut table = self.lock();
        for old in below(&table.by_path, path) {
            if let Some(id) = table.by_path.remove(&old) {
                table.by_id.remove(&id);
            }
        }
    }
}

/// The paths of `table` at `folder` or below it.
fn below(table: &BTreeMap<String, u64>, folder: &str) -> Vec<String> {
    table
        .range(folder.to_string()..)
        .map(|(p, _)| p)
        .take_while(|p| p.starts_with(folder))
        .filter(|p| is_under(p, folder))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
