//! The knowledge root folder: path safety, atomic writes, removal, listing.
//!
//! Every operation takes a root-relative path and turns it into a filesystem path with
//! [`Root::locate`], which refuses anything that could reach outside the root: `..`
//! components and symbolic links (anywhere on the path) whose target lies outside.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use crate::error::StoreError;
use crate::fault;

/// Folder (below the root) that holds the temporary files of atomic writes. Keeping it inside
/// the root puts it on the same filesystem, so the final `rename` is atomic.
pub(crate) const TMP_DIR: &str = ".quire/state/tmp";

/// What a path names on disk, without following a final symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
}

/// How hard [`Root::write`] works to survive a power loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Temp file + rename, no fsync. Readers never see a half-written file and a crashed
    /// process leaves either the old or the new content. A power loss may lose the most recent
    /// writes; the git history (or cow snapshots) is the place to recover from. This is the
    /// default because an fsync costs milliseconds per write on ordinary disks, which would
    /// dominate the write pipeline and cap commits per second far below the target.
    #[default]
    Rename,
    /// Also fsync the file before the rename and its folder after it.
    Fsync,
}

/// One node of a folder listing (the spec's "Tree node").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeNode {
    /// Root-relative path with `/`.
    pub path: String,
    /// Last path component.
    pub name: String,
    #[serde(rename = "isDir")]
    pub is_dir: bool,
    /// Bytes; 0 for folders.
    pub size: u64,
    /// Folder contents; `None` for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<TreeNode>>,
}

/// Whether [`Root::locate`] must also check a symbolic link in the last component. Operations
/// that only look at the link itself (readlink, remove, kind) never follow it, so an outside
/// target is harmless to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LastLink {
    Check,
    Ignore,
}

/// The knowledge root: a canonical folder path plus how writes are made durable.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
    tmp: PathBuf,
    durability: Durability,
}

/// Distinguishes temp files of concurrent writes in one process; the pid separates processes.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Root {
    /// Opens an existing folder as the knowledge root. Canonicalises it, creates
    /// `.quire/state/tmp` and removes temp files a crashed write left behind.
    pub fn open(dir: &Path) -> Result<Root, StoreError> {
        let bad = |reason: String| StoreError::BadRoot {
            dir: dir.to_path_buf(),
            reason,
        };
        let dir = fs::canonicalize(dir).map_err(|e| bad(e.to_string()))?;
        if !dir.is_dir() {
            return Err(bad("is not a folder".into()));
        }
        let tmp = dir.join(TMP_DIR);
        fs::create_dir_all(&tmp).map_err(|e| StoreError::io(TMP_DIR, e))?;
        let entries = fs::read_dir(&tmp).map_err(|e| StoreError::io(TMP_DIR, e))?;
        for entry in entries.flatten() {
            let path = entry.path();
            // Only plain files are ours; anything else was put there by someone else.
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                tracing::info!(file = %path.display(), "removing temp file left by a crash");
                if let Err(e) = fs::remove_file(&path) {
                    tracing::warn!(file = %path.display(), error = %e, "cannot remove temp file");
                }
            }
        }
        Ok(Root {
            dir,
            tmp,
            durability: Durability::default(),
        })
    }

    /// The same root with another durability for writes.
    pub fn with_durability(mut self, durability: Durability) -> Root {
        self.durability = durability;
        self
    }

    /// The canonical folder of the root.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads a file. A symbolic link inside the root that points inside the root is followed.
    pub fn read(&self, p: &quire_vault::PagePath) -> Result<Vec<u8>, StoreError> {
        self.read_rel(p.as_str())
    }

    /// Writes a file atomically (temp file in `.quire/state/tmp`, then rename), creating parent
    /// folders. A symbolic link at the path itself is replaced by the file, never written
    /// through, so the path's history stays the path's.
    pub fn write(&self, p: &quire_vault::PagePath, bytes: &[u8]) -> Result<(), StoreError> {
        self.write_rel(p.as_str(), bytes)
    }

    /// Removes a file (or a symbolic link itself) and then every parent folder the removal left
    /// empty, stopping below the root.
    pub fn remove(&self, p: &quire_vault::PagePath) -> Result<(), StoreError> {
        self.remove_rel(p.as_str())
    }

    /// What the path names, without following a final symbolic link; `None` when nothing is
    /// there.
    pub fn kind(&self, p: &quire_vault::PagePath) -> Result<Option<EntryKind>, StoreError> {
        self.kind_rel(p.as_str())
    }

    /// The folder tree below `under` (the whole root when `None`), sorted by name. Entries
    /// whose name starts with `.` are not listed; symbolic links are listed as files and not
    /// followed.
    pub fn tree(&self, under: Option<&quire_vault::PagePath>) -> Result<Vec<TreeNode>, StoreError> {
        self.tree_rel(under.map(|p| p.as_str()))
    }

    /// Every regular file below the root, sorted by path, skipping `.git/` folders, the
    /// top-level `.quire/`, symbolic links and names that are not valid paths.
    pub fn files(&self) -> Result<Vec<quire_vault::PagePath>, StoreError> {
        let mut out = Vec::new();
        for rel in self.files_rel()? {
            match quire_vault::PagePath::new(&rel) {
                // A name stored in another Unicode form than NFC could not be opened again
                // through its normalised path, so it is not offered.
                Ok(p) if p.as_str() == rel => out.push(p),
                Ok(_) => tracing::warn!(path = %rel, "skipping a file whose name is not NFC"),
                Err(e) => {
                    tracing::warn!(path = %rel, error = %e, "skipping a file with an invalid path")
                }
            }
        }
        Ok(out)
    }

    /// The text of a symbolic link.
    pub fn readlink(&self, p: &quire_vault::PagePath) -> Result<String, StoreError> {
        self.readlink_rel(p.as_str())
    }

    pub(crate) fn read_rel(&self, rel: &str) -> Result<Vec<u8>, StoreError> {
        let path = self.locate(rel, LastLink::Check)?;
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => Err(StoreError::IsFolder { path: rel.into() }),
            Ok(_) => fs::read(&path).map_err(|e| map_io(rel, e)),
            Err(e) => Err(map_io(rel, e)),
        }
    }

    pub(crate) fn write_rel(&self, rel: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.locate(rel, LastLink::Check)?;
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            return Err(StoreError::IsFolder { path: rel.into() });
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| map_io(rel, e))?;
        }
        let tmp = self.tmp.join(format!(
            "{}-{}.tmp",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let result = self.write_tmp(&tmp, bytes).and_then(|()| {
            fault::point("store.write.before_rename");
            fs::rename(&tmp, &path)
        });
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(map_io(rel, e));
        }
        if self.durability == Durability::Fsync {
            if let Some(parent) = path.parent() {
                fs::File::open(parent)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| map_io(rel, e))?;
            }
        }
        Ok(())
    }

    fn write_tmp(&self, tmp: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(tmp)?;
        file.write_all(bytes)?;
        if self.durability == Durability::Fsync {
            file.sync_all()?;
        }
        Ok(())
    }

    pub(crate) fn remove_rel(&self, rel: &str) -> Result<(), StoreError> {
        let path = self.locate(rel, LastLink::Ignore)?;
        let meta = fs::symlink_metadata(&path).map_err(|e| map_io(rel, e))?;
        if meta.is_dir() {
            return Err(StoreError::IsFolder { path: rel.into() });
        }
        fs::remove_file(&path).map_err(|e| map_io(rel, e))?;
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == self.dir || !d.starts_with(&self.dir) {
                break;
            }
            // remove_dir refuses non-empty folders, which is exactly where pruning stops.
            if fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }

    pub(crate) fn kind_rel(&self, rel: &str) -> Result<Option<EntryKind>, StoreError> {
        let path = match self.locate(rel, LastLink::Ignore) {
            Ok(path) => path,
            Err(StoreError::ParentIsFile { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => Ok(Some(EntryKind::Symlink)),
            Ok(m) if m.is_dir() => Ok(Some(EntryKind::Dir)),
            Ok(_) => Ok(Some(EntryKind::File)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(map_io(rel, e)),
        }
    }

    pub(crate) fn tree_rel(&self, under: Option<&str>) -> Result<Vec<TreeNode>, StoreError> {
        let (dir, prefix) = match under {
            None | Some("") => (self.dir.clone(), String::new()),
            Some(rel) => {
                let path = self.locate(rel, LastLink::Check)?;
                match fs::metadata(&path) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => return Err(StoreError::NotFolder { path: rel.into() }),
                    Err(e) => return Err(map_io(rel, e)),
                }
                (path, format!("{rel}/"))
            }
        };
        list_tree(&dir, &prefix)
    }

    pub(crate) fn files_rel(&self) -> Result<Vec<String>, StoreError> {
        let mut out = Vec::new();
        walk_files(&self.dir, "", &mut out)?;
        out.sort();
        Ok(out)
    }

    pub(crate) fn readlink_rel(&self, rel: &str) -> Result<String, StoreError> {
        let path = self.locate(rel, LastLink::Ignore)?;
        let meta = fs::symlink_metadata(&path).map_err(|e| map_io(rel, e))?;
        if !meta.file_type().is_symlink() {
            return Err(StoreError::NotSymlink { path: rel.into() });
        }
        let target = fs::read_link(&path).map_err(|e| map_io(rel, e))?;
        Ok(target.to_string_lossy().into_owned())
    }

    /// Turns a root-relative path into a filesystem path, refusing `..`, absolute paths, paths
    /// into a `.git` folder and symbolic links that lead outside the root, and reporting a
    /// parent that is a file.
    /// Components that do not exist yet end the checks: nothing below them can exist either.
    fn locate(&self, rel: &str, last_link: LastLink) -> Result<PathBuf, StoreError> {
        let outside = || StoreError::OutsideRoot { path: rel.into() };
        let components: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
        // A `.git` folder is the history's, not knowledge: writing there could corrupt it.
        if rel.starts_with('/')
            || components
                .iter()
                .any(|c| matches!(*c, "." | "..") || c.eq_ignore_ascii_case(".git"))
        {
            return Err(outside());
        }
        let mut cur = self.dir.clone();
        let mut exists = true;
        for (i, component) in components.iter().enumerate() {
            cur.push(component);
            if !exists {
                continue;
            }
            let last = i + 1 == components.len();
            let meta = match fs::symlink_metadata(&cur) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    exists = false;
                    continue;
                }
                Err(e) => return Err(map_io(rel, e)),
            };
            if meta.file_type().is_symlink() {
                if !last || last_link == LastLink::Check {
                    self.ensure_link_inside(&cur, rel)?;
                }
                if !last {
                    match fs::metadata(&cur) {
                        Ok(m) if m.is_dir() => {}
                        Ok(_) => return Err(StoreError::ParentIsFile { path: rel.into() }),
                        // A dangling link as a parent: nothing below it exists.
                        Err(_) => exists = false,
                    }
                }
            } else if !last && !meta.is_dir() {
                return Err(StoreError::ParentIsFile { path: rel.into() });
            }
        }
        Ok(cur)
    }

    /// Refuses a symbolic link whose (possibly dangling) target lies outside the root.
    fn ensure_link_inside(&self, link: &Path, rel: &str) -> Result<(), StoreError> {
        let target = match fs::canonicalize(link) {
            Ok(target) => target,
            Err(_) => {
                // Dangling: judge the link text against the real folder holding the link.
                let text = fs::read_link(link).map_err(|e| map_io(rel, e))?;
                let base = link
                    .parent()
                    .and_then(|p| fs::canonicalize(p).ok())
                    .unwrap_or_else(|| self.dir.clone());
                normalize(&base.join(text))
            }
        };
        if target.starts_with(&self.dir) {
            Ok(())
        } else {
            Err(StoreError::OutsideRoot { path: rel.into() })
        }
    }
}

/// Resolves `.` and `..` without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Maps OS errors to the store's vocabulary where a caller would branch on them.
fn map_io(rel: &str, e: io::Error) -> StoreError {
    match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: rel.into() },
        _ => StoreError::io(rel, e),
    }
}

fn list_tree(dir: &Path, prefix: &str) -> Result<Vec<TreeNode>, StoreError> {
    let entries = fs::read_dir(dir).map_err(|e| map_io(prefix.trim_end_matches('/'), e))?;
    let mut nodes = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| map_io(prefix.trim_end_matches('/'), e))?;
        let Ok(name) = entry.file_name().into_string() else {
            tracing::warn!(file = %entry.path().display(), "skipping a name that is not UTF-8");
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let path = format!("{prefix}{name}");
        let meta = fs::symlink_metadata(entry.path()).map_err(|e| map_io(&path, e))?;
        let node = if meta.is_dir() {
            let children = list_tree(&entry.path(), &format!("{path}/"))?;
            TreeNode {
                path,
                name,
                is_dir: true,
                size: 0,
                children: Some(children),
            }
        } else {
            TreeNode {
                path,
                name,
                is_dir: false,
                size: meta.len(),
                children: None,
            }
        };
        nodes.push(node);
    }
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(nodes)
}

fn walk_files(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), StoreError> {
    let entries = fs::read_dir(dir).map_err(|e| map_io(prefix.trim_end_matches('/'), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| map_io(prefix.trim_end_matches('/'), e))?;
        let Ok(name) = entry.file_name().into_string() else {
            tracing::warn!(file = %entry.path().display(), "skipping a name that is not UTF-8");
            continue;
        };
        if name == ".git" || (prefix.is_empty() && name == ".quire") {
            continue;
        }
        let path = format!("{prefix}{name}");
        let file_type = entry.file_type().map_err(|e| map_io(&path, e))?;
        if file_type.is_dir() {
            walk_files(&entry.path(), &format!("{path}/"), out)?;
        } else if file_type.is_file() {
            out.push(path);
        }
    }
    Ok(())
}
