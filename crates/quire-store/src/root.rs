//! The knowledge root folder: path safety, atomic writes, removal, listing.
//!
//! Every operation takes a root-relative path and turns it into a filesystem path with
//! [`Root::locate`], which refuses anything that could reach outside the root: `..`
//! components and symbolic links (anywhere on the path) whose target lies outside.
//!
//! Paths are NFC; names on disk need not be (macOS and many sync tools write NFD). A path
//! addresses the entry spelled exactly like it when there is one, otherwise the entry whose
//! name normalizes to it (the byte-smallest of several). Any other entry whose name normalizes
//! to the same is *shadowed*: listed as such, never read, written or removed.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use quire_vault::{DiskNames, PagePath, Shadowed};
use serde::Serialize;
use unicode_normalization::{is_nfc, UnicodeNormalization};

use crate::disk::canonical;
pub use crate::disk::DiskName;
use crate::error::StoreError;
use crate::fault;
use crate::lock::WriterLock;
use crate::seen::FileStat;
use crate::spares::Spares;

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
pub(crate) enum LastLink {
    Check,
    Ignore,
}

/// How a root-relative name is matched against the names on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// A `PagePath` (NFC): a non-ASCII component that is not on disk as written leads to the
    /// entry whose name normalizes to it.
    Nfc,
    /// Exactly as written: a name the store took from the disk (journal, rollback), which must
    /// never lead to another entry.
    Exact,
}

/// Every file of the root under its path, and the names on disk that are not their path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// Sorted by path.
    pub files: Vec<PagePath>,
    pub names: DiskNames,
}

/// The knowledge root: a canonical folder path plus how writes are made durable.
///
/// A root opened with [`Root::open`] holds the root's [`WriterLock`] (every clone shares it)
/// and may write; one opened with [`Root::open_read_only`] reads only and refuses every write
/// with [`StoreError::ReadOnly`].
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
    tmp: PathBuf,
    /// Old inodes kept to take the next rewrites' bytes (see `spares.rs`).
    spares: Arc<Spares>,
    durability: Durability,
    /// `None`: opened read-only.
    writer: Option<WriterLock>,
}

/// Distinguishes temp files of concurrent writes in one process; the pid separates processes.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Root {
    /// Opens an existing folder as the knowledge root for writing, under its writer lock
    /// (which the root keeps). Canonicalises the folder, creates `.quire/state/tmp` and
    /// removes temp files a crashed write left behind: only the lock's holder knows that no
    /// other process is writing one at this moment.
    pub fn open(dir: &Path, lock: &WriterLock) -> Result<Root, StoreError> {
        let dir = canonical(dir)?;
        if lock.dir() != dir {
            return Err(StoreError::BadRoot {
                dir,
                reason: format!(
                    "the writer lock given is the lock of another root ({})",
                    lock.dir().display()
                ),
            });
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
            spares: Arc::new(Spares::new(tmp.clone())),
            tmp,
            durability: Durability::default(),
            writer: Some(lock.clone()),
        })
    }

    /// Opens an existing folder as the knowledge root for reading only, whoever holds its
    /// writer lock. Changes nothing on disk: no folder is created and no temp file removed.
    pub fn open_read_only(dir: &Path) -> Result<Root, StoreError> {
        let dir = canonical(dir)?;
        Ok(Root {
            tmp: dir.join(TMP_DIR),
            spares: Arc::new(Spares::new(dir.join(TMP_DIR))),
            dir,
            durability: Durability::default(),
            writer: None,
        })
    }

    /// Whether the root was opened with [`Root::open_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.writer.is_none()
    }

    /// The writer lock a writable root holds; `None` when read-only.
    pub fn writer_lock(&self) -> Option<&WriterLock> {
        self.writer.as_ref()
    }

    /// Refuses a write through a read-only root.
    pub(crate) fn ensure_writable(&self, rel: &str) -> Result<(), StoreError> {
        match self.writer {
            Some(_) => Ok(()),
            None => Err(StoreError::ReadOnly { path: rel.into() }),
        }
    }

    /// Whether a write fsyncs the file and its folder ([`Durability::Fsync`]).
    pub fn fsyncs(&self) -> bool {
        self.durability == Durability::Fsync
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
    pub fn read(&self, p: &PagePath) -> Result<Vec<u8>, StoreError> {
        self.read_rel(p.as_str(), Spelling::Nfc)
    }

    /// Writes a file atomically (temp file in `.quire/state/tmp`, then rename), creating parent
    /// folders. A symbolic link at the path itself is replaced by the file, never written
    /// through, so the path's history stays the path's.
    /// A file that exists under another spelling of the path is written in place, keeping its
    /// name; a new file gets the path's (NFC) name.
    pub fn write(&self, p: &PagePath, bytes: &[u8]) -> Result<(), StoreError> {
        self.write_rel(p.as_str(), bytes, Spelling::Nfc)
    }

    /// [`Root::write`] for bookkeeping that holds secrets (share links under
    /// `.quire/state/`): the file is created readable and writable by its owner only (0600)
    /// before any byte is written, and replaces the old one atomically.
    pub fn write_private(&self, p: &PagePath, bytes: &[u8]) -> Result<(), StoreError> {
        self.write_rel_mode(p.as_str(), bytes, Spelling::Nfc, 0o600)
    }

    /// Removes a file (or a symbolic link itself) and then every parent folder the removal left
    /// empty, stopping below the root.
    pub fn remove(&self, p: &PagePath) -> Result<(), StoreError> {
        self.remove_rel(p.as_str(), Spelling::Nfc)
    }

    /// The root-relative name on disk of what `p` addresses: `p` itself unless an entry on the
    /// way is named in another Unicode normalization. Components that do not exist keep the
    /// path's spelling, which is the name a write would create. ASCII paths cost nothing.
    pub fn disk_name(&self, p: &PagePath) -> Result<DiskName, StoreError> {
        if p.as_str().is_ascii() {
            return Ok(DiskName::from(p));
        }
        let path = self.locate(p.as_str(), LastLink::Ignore, Spelling::Nfc)?;
        let rel = path
            .strip_prefix(&self.dir)
            .ok()
            .and_then(Path::to_str)
            .map(str::to_owned);
        Ok(rel.map_or_else(|| DiskName::from(p), DiskName::new))
    }

    /// Reads a file by its name on disk (no other spelling is tried).
    pub fn read_on_disk(&self, name: &DiskName) -> Result<Vec<u8>, StoreError> {
        self.read_rel(name.as_str(), Spelling::Exact)
    }

    /// Reads a file that a [`Listing`] of this root has just reported, by its name on disk,
    /// with the stat data of what was read (taken from the open file before its bytes).
    ///
    /// The walk that listed the file found a regular file below the root without following
    /// symbolic links, so the per-folder checks of [`Root::read`] are left out; the file
    /// itself is opened without following a link. A file that has become a link (or anything
    /// else) since is read the checked way, without stat data.
    pub fn read_listed(&self, name: &DiskName) -> Result<(Vec<u8>, Option<FileStat>), StoreError> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;

        let rel = name.as_str();
        if rel.starts_with('/')
            || rel
                .split('/')
                .any(|c| matches!(c, "" | "." | "..") || c.eq_ignore_ascii_case(".git"))
        {
            return Err(StoreError::OutsideRoot { path: rel.into() });
        }
        let opened = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.dir.join(rel));
        let mut file = match opened {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(map_io(rel, e)),
            Err(_) => return Ok((self.read_on_disk(name)?, None)),
        };
        let meta = file.metadata().map_err(|e| map_io(rel, e))?;
        if !meta.is_file() {
            return Ok((self.read_on_disk(name)?, None));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        // Through `take`: `File::read_to_end` would ask the file's size again.
        Read::take(&mut file, u64::MAX)
            .read_to_end(&mut bytes)
            .map_err(|e| map_io(rel, e))?;
        Ok((bytes, Some(FileStat::of(&meta))))
    }

    /// Writes a file by its name on disk, like [`Root::write`]; never another spelling.
    pub fn write_on_disk(&self, name: &DiskName, bytes: &[u8]) -> Result<(), StoreError> {
        self.write_rel(name.as_str(), bytes, Spelling::Exact)
    }

    /// Removes a file by its name on disk, like [`Root::remove`]; never another spelling.
    pub fn remove_on_disk(&self, name: &DiskName) -> Result<(), StoreError> {
        self.remove_rel(name.as_str(), Spelling::Exact)
    }

    /// What the path names, without following a final symbolic link; `None` when nothing is
    /// there.
    pub fn kind(&self, p: &PagePath) -> Result<Option<EntryKind>, StoreError> {
        self.kind_rel(p.as_str())
    }

    /// When the file named `name` was last modified, as the disk says; `None` when it is
    /// gone or the disk cannot say. Read as the name is spelled, without the path checks of
    /// a read (the caller read or wrote that name just now).
    pub fn modified(&self, name: &DiskName) -> Option<std::time::SystemTime> {
        fs::metadata(self.dir.join(name.as_str()))
            .and_then(|m| m.modified())
            .ok()
    }

    /// The folder tree below `under` (the whole root when `None`), sorted by name. Entries
    /// whose name starts with `.` are not listed; symbolic links are listed as files and not
    /// followed. Names and paths are NFC, so every path listed reads back; shadowed entries
    /// are not listed.
    pub fn tree(&self, under: Option<&PagePath>) -> Result<Vec<TreeNode>, StoreError> {
        self.tree_rel(under.map(|p| p.as_str()))
    }

    /// Every regular file below the root, sorted by path, skipping `.git/` folders, the
    /// top-level `.quire/`, symbolic links, names that are not valid paths and shadowed files.
    pub fn files(&self) -> Result<Vec<PagePath>, StoreError> {
        Ok(self.listing()?.files)
    }

    /// [`Root::files`], with the files whose names on disk are not NFC and the shadowed ones.
    pub fn listing(&self) -> Result<Listing, StoreError> {
        let mut listing = Listing::default();
        walk_files(&self.dir, "", "", None, &mut listing)?;
        listing.files.sort();
        listing.names.shadowed.sort();
        Ok(listing)
    }

    /// The text of a symbolic link.
    pub fn readlink(&self, p: &PagePath) -> Result<String, StoreError> {
        self.readlink_rel(p.as_str())
    }

    pub(crate) fn read_rel(&self, rel: &str, spelling: Spelling) -> Result<Vec<u8>, StoreError> {
        let path = self.locate(rel, LastLink::Check, spelling)?;
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => Err(StoreError::IsFolder { path: rel.into() }),
            Ok(_) => fs::read(&path).map_err(|e| map_io(rel, e)),
            Err(e) => Err(map_io(rel, e)),
        }
    }

    pub(crate) fn write_rel(
        &self,
        rel: &str,
        bytes: &[u8],
        spelling: Spelling,
    ) -> Result<(), StoreError> {
        self.write_rel_mode(rel, bytes, spelling, 0o666)
    }

    /// [`Root::write_rel`] creating the file with `mode` (less the umask).
    fn write_rel_mode(
        &self,
        rel: &str,
        bytes: &[u8],
        spelling: Spelling,
        mode: u32,
    ) -> Result<(), StoreError> {
        self.ensure_writable(rel)?;
        let path = self.locate(rel, LastLink::Check, spelling)?;
        let existing = fs::symlink_metadata(&path).ok();
        if existing.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(StoreError::IsFolder { path: rel.into() });
        }
        match existing {
            // A rewrite of a page: swapped in, no inode made or freed (`spares.rs`).
            Some(old) if old.file_type().is_file() && mode == 0o666 => {
                return self.rewrite(rel, &path, bytes, &old);
            }
            Some(_) => {}
            None => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent).map_err(|e| map_io(rel, e))?;
                }
            }
        }
        let tmp = self.tmp.join(format!(
            "{}-{}.tmp",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let result = self.write_tmp(&tmp, bytes, mode).and_then(|()| {
            fault::point("store.write.before_rename");
            fs::rename(&tmp, &path)
        });
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(map_io(rel, e));
        }
        self.sync_parent(rel, &path)
    }

    /// Replaces the existing file at `path` (metadata `old`) with `bytes`: written into a spare
    /// (or a new temp file), given the old file's permissions, then swapped with the old file,
    /// which becomes a spare. Falls back to a rename where the filesystem cannot swap.
    fn rewrite(
        &self,
        rel: &str,
        path: &Path,
        bytes: &[u8],
        old: &fs::Metadata,
    ) -> Result<(), StoreError> {
        use std::os::unix::fs::PermissionsExt;
        let (tmp, reused) = match self.spares.take() {
            Some((tmp, file)) => ((tmp, file), true),
            None => {
                let tmp = self.spares.fresh_name();
                let file = open_new(&tmp, 0o666).map_err(|e| map_io(rel, e))?;
                ((tmp, file), false)
            }
        };
        let (tmp, mut file) = tmp;
        let result = (|| {
            file.write_all(bytes)?;
            if reused {
                file.set_len(bytes.len() as u64)?;
            }
            let want = old.permissions().mode() & 0o7777;
            if file.metadata()?.permissions().mode() & 0o7777 != want {
                file.set_permissions(fs::Permissions::from_mode(want))?;
            }
            if self.durability == Durability::Fsync {
                file.sync_all()?;
            }
            drop(file);
            fault::point("store.write.before_rename");
            match self.spares.exchange(&tmp, path) {
                Ok(true) => Ok(()),
                Ok(false) => fs::rename(&tmp, path),
                // The old file went away meanwhile: a plain rename puts the new one there.
                Err(e) if e.kind() == io::ErrorKind::NotFound => fs::rename(&tmp, path),
                Err(e) => Err(e),
            }
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(map_io(rel, e));
        }
        self.sync_parent(rel, path)
    }

    /// With [`Durability::Fsync`], fsyncs the folder of `path` (after a rename into it).
    fn sync_parent(&self, rel: &str, path: &Path) -> Result<(), StoreError> {
        if self.durability == Durability::Fsync {
            if let Some(parent) = path.parent() {
                fs::File::open(parent)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| map_io(rel, e))?;
            }
        }
        Ok(())
    }

    fn write_tmp(&self, tmp: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
        let mut file = open_new(tmp, mode)?;
        file.write_all(bytes)?;
        if self.durability == Durability::Fsync {
            file.sync_all()?;
        }
        Ok(())
    }

    pub(crate) fn remove_rel(&self, rel: &str, spelling: Spelling) -> Result<(), StoreError> {
        self.ensure_writable(rel)?;
        let path = self.locate(rel, LastLink::Ignore, spelling)?;
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
        let path = match self.locate(rel, LastLink::Ignore, Spelling::Nfc) {
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
                let path = self.locate(rel, LastLink::Check, Spelling::Nfc)?;
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

    pub(crate) fn readlink_rel(&self, rel: &str) -> Result<String, StoreError> {
        let path = self.locate(rel, LastLink::Ignore, Spelling::Nfc)?;
        let meta = fs::symlink_metadata(&path).map_err(|e| map_io(rel, e))?;
        if !meta.file_type().is_symlink() {
            return Err(StoreError::NotSymlink { path: rel.into() });
        }
        let target = fs::read_link(&path).map_err(|e| map_io(rel, e))?;
        Ok(target.to_string_lossy().into_owned())
    }

    /// Turns a root-relative path into a filesystem path, refusing `..`, absolute paths, paths
    /// into a `.git` folder and symbolic links that lead outside the root, and reporting a
    /// parent that is a file. With [`Spelling::Nfc`] a non-ASCII component missing as written
    /// is looked up once among its folder's names (see the module comment).
    /// Components that do not exist yet end the checks: nothing below them can exist either.
    pub(crate) fn locate(
        &self,
        rel: &str,
        last_link: LastLink,
        spelling: Spelling,
    ) -> Result<PathBuf, StoreError> {
        let outside = || StoreError::OutsideRoot { path: rel.into() };
        let components: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
        // Refused before any system call: the OS's "name too long" would otherwise surface
        // from whichever call meets it first, as an error of the server.
        if self.dir.as_os_str().len() + 1 + rel.len() >= crate::error::PATH_MAX
            || components.iter().any(|c| c.len() > crate::error::NAME_MAX)
        {
            return Err(StoreError::NameTooLong { bytes: rel.len() });
        }
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
            let mut found = entry_metadata(&cur).map_err(|e| map_io(rel, e))?;
            if found.is_none() && spelling == Spelling::Nfc && !component.is_ascii() {
                cur.pop();
                match respelled(&cur, component).map_err(|e| map_io(rel, e))? {
                    Some(name) => {
                        cur.push(name);
                        found = entry_metadata(&cur).map_err(|e| map_io(rel, e))?;
                    }
                    None => cur.push(component),
                }
            }
            let Some(meta) = found else {
                exists = false;
                continue;
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

/// What `path` names, without following a final symbolic link; `None` when nothing is there.
fn entry_metadata(path: &Path) -> io::Result<Option<fs::Metadata>> {
    match fs::symlink_metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The name in `dir` that the NFC name `component` addresses when no entry is spelled like
/// it: the byte-smallest name that is not NFC and normalizes to it. One scan of the folder.
fn respelled(dir: &Path, component: &str) -> io::Result<Option<String>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut best: Option<String> = None;
    for entry in entries {
        let Ok(name) = entry?.file_name().into_string() else {
            continue;
        };
        // An NFC name equal to `component` would have been found as written.
        if name.is_ascii() || is_nfc(&name) || !name.nfc().eq(component.chars()) {
            continue;
        }
        if best.as_ref().is_none_or(|b| name < *b) {
            best = Some(name);
        }
    }
    Ok(best)
}

/// One entry of a folder with the NFC form of its name.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) nfc: String,
    pub(crate) file_type: fs::FileType,
    pub(crate) path: PathBuf,
}

/// A folder's entries, split as paths address them.
#[derive(Default)]
pub(crate) struct Folder {
    /// Entries some path addresses.
    pub(crate) addressed: Vec<Entry>,
    /// Entries no path addresses, each with the name of the entry its path addresses instead.
    shadowed: Vec<(Entry, String)>,
    /// Names that are not NFC but whose NFC form is ASCII: lookups of ASCII paths never try
    /// other spellings, so nothing can address them.
    unreachable: Vec<Entry>,
}

/// Reads a folder and sorts its entries into addressed and shadowed ones, exactly as
/// [`Root::locate`] resolves names: the entry spelled in NFC wins, otherwise the byte-smallest
/// name. `skip` leaves out names before anything else (`.git`, …). Names that are not UTF-8
/// are skipped with a warning.
pub(crate) fn read_folder(
    dir: &Path,
    shown: &str,
    skip: impl Fn(&str) -> bool,
) -> Result<Folder, StoreError> {
    let entries = fs::read_dir(dir).map_err(|e| map_io(shown, e))?;
    let mut all = Vec::new();
    let mut all_nfc = true;
    for entry in entries {
        let entry = entry.map_err(|e| map_io(shown, e))?;
        let Ok(name) = entry.file_name().into_string() else {
            tracing::warn!(file = %entry.path().display(), "skipping a name that is not UTF-8");
            continue;
        };
        if skip(&name) {
            continue;
        }
        let file_type = entry.file_type().map_err(|e| map_io(shown, e))?;
        let nfc = if name.is_ascii() || is_nfc(&name) {
            name.clone()
        } else {
            all_nfc = false;
            name.nfc().collect()
        };
        all.push(Entry {
            name,
            nfc,
            file_type,
            path: entry.path(),
        });
    }
    let mut folder = Folder::default();
    if all_nfc {
        // Distinct NFC names never normalize to the same: nothing collides.
        folder.addressed = all;
        return Ok(folder);
    }
    // The winner of each NFC form: the entry spelled in NFC, else the byte-smallest name.
    let mut winners: HashMap<&str, &str> = HashMap::new();
    for entry in &all {
        let better = match winners.get(entry.nfc.as_str()) {
            None => true,
            Some(current) => {
                *current != entry.nfc.as_str()
                    && (entry.name == entry.nfc || entry.name.as_str() < *current)
            }
        };
        if better {
            winners.insert(&entry.nfc, &entry.name);
        }
    }
    let winners: HashMap<String, String> = winners
        .into_iter()
        .map(|(nfc, name)| (nfc.to_owned(), name.to_owned()))
        .collect();
    for entry in all {
        let winner = &winners[&entry.nfc];
        if *winner != entry.name {
            folder.shadowed.push((entry, winner.clone()));
        } else if entry.name != entry.nfc && entry.nfc.is_ascii() {
            folder.unreachable.push(entry);
        } else {
            folder.addressed.push(entry);
        }
    }
    Ok(folder)
}

/// Maps OS errors to the store's vocabulary where a caller would branch on them.
pub(crate) fn map_io(rel: &str, e: io::Error) -> StoreError {
    match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: rel.into() },
        io::ErrorKind::InvalidFilename => StoreError::NameTooLong { bytes: rel.len() },
        _ => StoreError::io(rel, e),
    }
}

fn list_tree(dir: &Path, prefix: &str) -> Result<Vec<TreeNode>, StoreError> {
    let folder = read_folder(dir, prefix.trim_end_matches('/'), |name| {
        name.starts_with('.')
    })?;
    let mut nodes = Vec::new();
    for entry in folder.addressed {
        let path = format!("{prefix}{}", entry.nfc);
        let meta = fs::symlink_metadata(&entry.path).map_err(|e| map_io(&path, e))?;
        let node = if meta.is_dir() {
            let children = list_tree(&entry.path, &format!("{path}/"))?;
            TreeNode {
                path,
                name: entry.nfc,
                is_dir: true,
                size: 0,
                children: Some(children),
            }
        } else {
            TreeNode {
                path,
                name: entry.nfc,
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

/// Collects the files below `dir` into `listing`. `prefix` is the folder's path (NFC) and
/// `disk_prefix` its name on disk, both empty or ending in `/`; `shadowed_by` is set inside a
/// shadowed folder and names the entry that shadows it.
fn walk_files(
    dir: &Path,
    prefix: &str,
    disk_prefix: &str,
    shadowed_by: Option<&str>,
    listing: &mut Listing,
) -> Result<(), StoreError> {
    let top = disk_prefix.is_empty();
    let folder = read_folder(dir, disk_prefix.trim_end_matches('/'), |name| {
        name == ".git" || (top && name == ".quire")
    })?;
    for entry in &folder.unreachable {
        tracing::warn!(
            file = %format!("{disk_prefix}{}", entry.name),
            "skipping a name that is not NFC and whose NFC form is ASCII: no path can address it"
        );
    }
    let entries = folder
        .addressed
        .into_iter()
        .map(|entry| (entry, None))
        .chain(
            folder
                .shadowed
                .into_iter()
                .map(|(entry, by)| (entry, Some(format!("{disk_prefix}{by}")))),
        );
    for (entry, by) in entries {
        let path = format!("{prefix}{}", entry.nfc);
        let disk = format!("{disk_prefix}{}", entry.name);
        let by = shadowed_by.map(str::to_owned).or(by);
        if entry.file_type.is_dir() {
            let (path, disk) = (format!("{path}/"), format!("{disk}/"));
            walk_files(&entry.path, &path, &disk, by.as_deref(), listing)?;
            continue;
        }
        if !entry.file_type.is_file() {
            continue;
        }
        let page = match PagePath::new(&path) {
            Ok(page) => page,
            Err(e) => {
                tracing::warn!(path = %disk, error = %e, "skipping a file with an invalid path");
                continue;
            }
        };
        match by {
            Some(by) => listing.names.shadowed.push(Shadowed {
                path: page,
                disk,
                by,
            }),
            None => {
                if disk != page.as_str() {
                    listing.names.non_nfc.insert(page.clone(), disk);
                }
                listing.files.push(page);
            }
        }
    }
    Ok(())
}

/// Creates a new file at `path` with `mode` (less the umask), open for writing.
fn open_new(path: &Path, mode: u32) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}
