//! Inode numbers ↔ paths for the life of a mount. The kernel keeps the numbers it was given,
//! so a rename moves the numbers of what moved (a folder's whole subtree) to the new paths.

use std::collections::HashMap;

/// The mount's top folder.
pub const ROOT: u64 = 1;

#[derive(Debug)]
pub struct Inodes {
    paths: HashMap<u64, String>,
    numbers: HashMap<String, u64>,
    next: u64,
}

impl Default for Inodes {
    fn default() -> Self {
        let mut inodes = Inodes {
            paths: HashMap::new(),
            numbers: HashMap::new(),
            next: ROOT + 1,
        };
        inodes.paths.insert(ROOT, String::new());
        inodes.numbers.insert(String::new(), ROOT);
        inodes
    }
}

/// `parent/name`, or `name` at the top.
pub fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

impl Inodes {
    pub fn path(&self, ino: u64) -> Option<&str> {
        self.paths.get(&ino).map(String::as_str)
    }

    /// The number of `path`, given one if it has none yet.
    pub fn number(&mut self, path: &str) -> u64 {
        if let Some(&ino) = self.numbers.get(path) {
            return ino;
        }
        let ino = self.next;
        self.next += 1;
        self.paths.insert(ino, path.to_string());
        self.numbers.insert(path.to_string(), ino);
        ino
    }

    /// `from` and everything below it now live at `to`; what was at `to` is forgotten.
    pub fn moved(&mut self, from: &str, to: &str) {
        self.forget(to);
        let prefix = format!("{from}/");
        let moving: Vec<(String, u64)> = self
            .numbers
            .iter()
            .filter(|(p, _)| *p == from || p.starts_with(&prefix))
            .map(|(p, &i)| (p.clone(), i))
            .collect();
        for (path, ino) in moving {
            let new = format!("{to}{}", &path[from.len()..]);
            self.numbers.remove(&path);
            self.numbers.insert(new.clone(), ino);
            self.paths.insert(ino, new);
        }
    }

    /// Drops `path` and everything below it (deleted).
    pub fn forget(&mut self, path: &str) {
        let prefix = format!("{path}/");
        let gone: Vec<String> = self
            .numbers
            .keys()
            .filter(|p| *p == path || p.starts_with(&prefix))
            .cloned()
            .collect();
        for p in gone {
            if let Some(ino) = self.numbers.remove(&p) {
                if ino != ROOT {
                    self.paths.remove(&ino);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_move_carries_the_numbers_below_it() {
        let mut inodes = Inodes::default();
        let folder = inodes.number("notes");
        let page = inodes.number("notes/a.md");
        let other = inodes.number("notesx.md");
        let replaced = inodes.number("archive");
        inodes.moved("notes", "archive");
        assert_eq!(inodes.path(folder), Some("archive"));
        assert_eq!(inodes.path(page), Some("archive/a.md"));
        assert_eq!(inodes.path(other), Some("notesx.md"));
        assert_eq!(inodes.path(replaced), None);
        assert_eq!(inodes.number("archive/a.md"), page);
        inodes.forget("archive");
        assert_eq!(inodes.path(page), None);
        assert_eq!(inodes.path(ROOT), Some(""));
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("x", "a"), "x/a");
    }
}
