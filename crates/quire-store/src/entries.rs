//! One folder level at a time, for the file protocols (WebDAV, S3, NFS, FUSE): what a folder
//! holds, what one path is, and folders as such (git keeps no empty folder, a file protocol
//! does). Every path goes through [`Root::locate`], like the rest of the store.

use std::fs;
use std::io;
use std::time::SystemTime;

use quire_vault::PagePath;

use crate::error::StoreError;
use crate::root::{map_io, read_folder, EntryKind, LastLink, Root, Spelling};

/// One entry of a folder as a file protocol shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderEntry {
    /// Root-relative path (NFC, `/`-separated); `""` for the root itself.
    pub path: String,
    /// Last component (NFC); `""` for the root.
    pub name: String,
    pub kind: EntryKind,
    /// Bytes; 0 for folders.
    pub size: u64,
    pub modified: SystemTime,
}

/// Whether a protocol may see a name: never a `.git` folder, and not the root's own `.quire/`
/// (the server's settings and state are reached through its API).
pub fn is_hidden(path: &str) -> bool {
    let mut parts = path.split('/');
    parts.next().is_some_and(|first| first == ".quire")
        || path.split('/').any(|c| c.eq_ignore_ascii_case(".git"))
}

impl Root {
    /// The entries of the folder `under` (the root when `None`), one level, sorted by name;
    /// symbolic links as themselves, hidden names ([`is_hidden`]) and shadowed spellings left
    /// out.
    pub fn entries(&self, under: Option<&PagePath>) -> Result<Vec<FolderEntry>, StoreError> {
        let (dir, prefix, shown) = match under {
            None => (self.dir().to_path_buf(), String::new(), ""),
            Some(p) => {
                let dir = self.locate(p.as_str(), LastLink::Check, Spelling::Nfc)?;
                match fs::metadata(&dir) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => {
                        return Err(StoreError::NotFolder {
                            path: p.to_string(),
                        })
                    }
                    Err(e) => return Err(map_io(p.as_str(), e)),
                }
                (dir, format!("{p}/"), p.as_str())
            }
        };
        let folder = read_folder(&dir, shown, |name| {
            name.eq_ignore_ascii_case(".git") || (prefix.is_empty() && name == ".quire")
        })?;
        let mut entries = Vec::with_capacity(folder.addressed.len());
        for entry in folder.addressed {
            let path = format!("{prefix}{}", entry.nfc);
            let meta = match fs::symlink_metadata(&entry.path) {
                Ok(meta) => meta,
                // Gone since the folder was read.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(map_io(&path, e)),
            };
            entries.push(entry_of(path, entry.nfc, &meta));
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// What `p` names (without following a final symbolic link), `None` when nothing is there
    /// or a parent is a file. The root itself is `stat(None)`.
    pub fn stat(&self, p: Option<&PagePath>) -> Result<Option<FolderEntry>, StoreError> {
        let Some(p) = p else {
            let meta = fs::metadata(self.dir()).map_err(|e| map_io("", e))?;
            return Ok(Some(entry_of(String::new(), String::new(), &meta)));
        };
        if is_hidden(p.as_str()) {
            return Ok(None);
        }
        let path = match self.locate(p.as_str(), LastLink::Ignore, Spelling::Nfc) {
            Ok(path) => path,
            Err(StoreError::ParentIsFile { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        match fs::symlink_metadata(&path) {
            Ok(meta) => {
                let name = p.as_str().rsplit('/').next().unwrap_or_default().to_owned();
                Ok(Some(entry_of(p.to_string(), name, &meta)))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(map_io(p.as_str(), e)),
        }
    }

    /// Creates the folder `p`. Its parent must exist (a folder); `p` must not.
    pub fn create_dir(&self, p: &PagePath) -> Result<(), StoreError> {
        self.writable(p)?;
        let path = self.locate(p.as_str(), LastLink::Ignore, Spelling::Nfc)?;
        match fs::create_dir(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(StoreError::Exists {
                path: p.to_string(),
            }),
            Err(e) => Err(map_io(p.as_str(), e)),
        }
    }

    /// Removes the folder `p` when it is empty; a folder that still holds something is
    /// left as it is (`Ok(false)`).
    pub fn remove_empty_dir(&self, p: &PagePath) -> Result<bool, StoreError> {
        self.writable(p)?;
        let path = self.locate(p.as_str(), LastLink::Ignore, Spelling::Nfc)?;
        match fs::remove_dir(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::DirectoryNotEmpty => Ok(false),
            Err(e) => Err(map_io(p.as_str(), e)),
        }
    }

    /// Moves a folder that holds no file (only empty folders, or nothing) to `to`, whose
    /// parent must exist and which must not. Folders with files move through the
    /// restructuring engine, which rewrites their links.
    pub fn move_empty_dir(&self, from: &PagePath, to: &PagePath) -> Result<(), StoreError> {
        self.writable(from)?;
        self.writable(to)?;
        let source = self.locate(from.as_str(), LastLink::Ignore, Spelling::Nfc)?;
        let target = self.locate(to.as_str(), LastLink::Ignore, Spelling::Nfc)?;
        if fs::symlink_metadata(&target).is_ok() {
            return Err(StoreError::Exists {
                path: to.to_string(),
            });
        }
        if holds_a_file(&source).map_err(|e| map_io(from.as_str(), e))? {
            return Err(StoreError::NotEmpty {
                path: from.to_string(),
            });
        }
        fs::rename(&source, &target).map_err(|e| map_io(from.as_str(), e))
    }

    fn writable(&self, p: &PagePath) -> Result<(), StoreError> {
        if self.is_read_only() {
            return Err(StoreError::ReadOnly {
                path: p.to_string(),
            });
        }
        if is_hidden(p.as_str()) {
            return Err(StoreError::OutsideRoot {
                path: p.to_string(),
            });
        }
        Ok(())
    }
}

fn entry_of(path: String, name: String, meta: &fs::Metadata) -> FolderEntry {
    let kind = if meta.file_type().is_symlink() {
        EntryKind::Symlink
    } else if meta.is_dir() {
        EntryKind::Dir
    } else {
        EntryKind::File
    };
    FolderEntry {
        path,
        name,
        kind,
        size: if kind == EntryKind::Dir {
            0
        } else {
            meta.len()
        },
        modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    }
}

fn holds_a_file(dir: &std::path::Path) -> io::Result<bool> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            if holds_a_file(&entry.path())? {
                return Ok(true);
            }
        } else {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open_read_only(dir.path()).unwrap();
        (dir, root)
    }

    fn p(s: &str) -> PagePath {
        PagePath::new(s).unwrap()
    }

    #[test]
    fn lists_one_level_without_git_and_quire() {
        let (dir, root) = root();
        for d in [".git", ".quire", "notes/sub"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        fs::write(dir.path().join("a.md"), "hi").unwrap();
        fs::write(dir.path().join(".DS_Store"), "x").unwrap();
        fs::write(dir.path().join("notes/b.md"), "bee").unwrap();
        let top: Vec<_> = root
            .entries(None)
            .unwrap()
            .into_iter()
            .map(|e| (e.path, e.kind, e.size))
            .collect();
        assert_eq!(
            top,
            vec![
                (".DS_Store".into(), EntryKind::File, 1),
                ("a.md".into(), EntryKind::File, 2),
                ("notes".into(), EntryKind::Dir, 0),
            ]
        );
        let notes: Vec<_> = root
            .entries(Some(&p("notes")))
            .unwrap()
            .into_iter()
            .map(|e| e.path)
            .collect();
        assert_eq!(notes, vec!["notes/b.md", "notes/sub"]);
        assert!(root.stat(Some(&p(".quire"))).unwrap().is_none());
        assert!(root.stat(Some(&p("a.md/x"))).unwrap().is_none());
        assert_eq!(
            root.stat(Some(&p("notes/sub"))).unwrap().unwrap().kind,
            EntryKind::Dir
        );
        assert!(matches!(
            root.entries(Some(&p("a.md"))),
            Err(StoreError::NotFolder { .. })
        ));
    }

    #[test]
    fn a_read_only_root_creates_no_folder() {
        let (_dir, root) = root();
        assert!(matches!(
            root.create_dir(&p("new")),
            Err(StoreError::ReadOnly { .. })
        ));
    }

    #[test]
    fn hidden_names() {
        assert!(is_hidden(".quire/config.toml"));
        assert!(is_hidden("a/.git/HEAD"));
        assert!(!is_hidden("a/.quire/x"));
        assert!(!is_hidden("notes/a.md"));
    }
}
