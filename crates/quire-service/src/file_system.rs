//! The files of a space as the file protocols see them (WebDAV, S3, NFS, FUSE): folders that
//! exist on their own, parents that must exist, renames and copies. One layer for all of them,
//! so each protocol crate only translates its wire operations into these calls.
//!
//! * Every write, delete, copy and rename of a file is one pass of the write pipeline (one
//!   commit by the caller's actor, index, event, webhooks); a rename goes through the
//!   restructuring engine and rewrites links exactly as `POST /rename` does.
//! * **Scratch files** — what editors and operating systems write around a save
//!   (`.DS_Store`, `._name`, `~$name`, `name~`, `.name.swp`, `name.tmp`, …; see
//!   [`is_scratch`]) — stay in memory and are never committed: a temp file renamed over a page
//!   is one clean write of the page. A page renamed to a scratch name is *set aside*: it looks
//!   gone, and a write of the page within [`SET_ASIDE_WINDOW`] is one write, not a delete and a
//!   create; after the window its delete is committed.
//! * A copy followed within [`COPY_MOVE_WINDOW`] by a delete of its source (S3's only way to
//!   move) is recorded as a raw move, with the protocol as `via`.
//! * Folders: git keeps no empty folder, so creating one touches the disk only; a folder
//!   disappears when its last file is deleted.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use quire_store::{etag, EntryKind, FolderEntry};
use quire_vault::PagePath;

use crate::change::{Announce, Change, CommitMode, Expect, FileOp, WriteOptions};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::files::Files;
use crate::raw_moves::Via;
use crate::restructure::{Relink, Restructure};

/// How long a page renamed to a scratch name waits for the write that replaces it.
pub const SET_ASIDE_WINDOW: Duration = Duration::from_secs(30);
/// How long after a copy a delete of its source counts as a move.
pub const COPY_MOVE_WINDOW: Duration = Duration::from_secs(30);
/// How much scratch data a space keeps in memory, all files together.
pub const SCRATCH_LIMIT: usize = 256 << 20;
/// A scratch file nobody touched for this long is dropped.
pub const SCRATCH_TTL: Duration = Duration::from_secs(3600);

/// The protocol a call comes through: its name is the default author of its writes and the
/// `via` of the raw moves it makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    WebDav,
    S3,
    Nfs,
    Fuse,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::WebDav => "webdav",
            Protocol::S3 => "s3",
            Protocol::Nfs => "nfs",
            Protocol::Fuse => "fuse",
        }
    }

    fn via(self) -> Via {
        match self {
            Protocol::WebDav => Via::WebDav,
            Protocol::S3 => Via::S3,
            Protocol::Nfs => Via::Nfs,
            Protocol::Fuse => Via::Fuse,
        }
    }
}

/// What a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Folder,
}

/// One file or folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Space-relative path; `""` for the space's top folder.
    pub path: String,
    pub name: String,
    pub kind: Kind,
    pub size: u64,
    pub modified: SystemTime,
    /// Kept in memory only ([`is_scratch`]).
    pub scratch: bool,
}

/// Whether a file name is one editors and operating systems write around a save, kept in
/// memory and never committed.
pub fn is_scratch(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        ".ds_store" | "thumbs.db" | "desktop.ini" | "4913"
    ) || name.starts_with("._")
        || name.starts_with("~$")
        || name.starts_with(".~lock.")
        || name.starts_with(".#")
        || name.starts_with(".goutputstream-")
        || (name.starts_with('#') && name.ends_with('#') && name.len() > 1)
        || name.ends_with('~')
        || lower.ends_with(".tmp")
        || lower.ends_with(".temp")
        || (name.starts_with('.') && [".swp", ".swo", ".swx"].iter().any(|s| lower.ends_with(s)))
        || is_textedit_temp(name)
}

/// TextEdit and other Cocoa apps save through `name.sb-<hex>-<random>`.
fn is_textedit_temp(name: &str) -> bool {
    name.rsplit_once(".sb-")
        .is_some_and(|(_, rest)| rest.contains('-') && !rest.contains('/'))
}

fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// The file-protocol state of a space: scratch files, pages set aside, recent copies.
#[derive(Default)]
pub(crate) struct Scratch {
    state: Mutex<ScratchState>,
}

#[derive(Default)]
struct ScratchState {
    files: BTreeMap<String, ScratchFile>,
    bytes: usize,
    /// Pages renamed to a scratch name: page path → when.
    set_aside: HashMap<String, SetAside>,
    /// Recent copies: source → (target, when, protocol).
    copies: Vec<(String, String, Instant)>,
}

struct ScratchFile {
    bytes: Vec<u8>,
    modified: SystemTime,
    touched: Instant,
}

struct SetAside {
    at: Instant,
    opts: WriteOptions,
}

impl Scratch {
    fn lock(&self) -> std::sync::MutexGuard<'_, ScratchState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The files of one space as one protocol sees them.
pub struct FileSystem<'a> {
    pub(crate) core: &'a SpaceCore,
    pub(crate) scratch: &'a Scratch,
    pub(crate) restructure: Restructure<'a>,
    pub(crate) protocol: Protocol,
}

impl FileSystem<'_> {
    /// The protocol's default author for `actor` (`None`: the protocol's name).
    pub fn options(&self, actor: Option<&str>) -> WriteOptions {
        WriteOptions::by(actor.unwrap_or(self.protocol.name()))
    }

    /// What `path` is (`""`: the top folder), `None` when nothing is there.
    pub fn stat(&self, path: &str) -> Result<Option<Entry>> {
        self.settle();
        let path = path.trim_matches('/');
        if path.is_empty() {
            return Ok(self.core.root.stat(None)?.map(|e| entry(e, false)));
        }
        {
            let state = self.scratch.lock();
            if let Some(file) = state.files.get(path) {
                return Ok(Some(scratch_entry(path, file)));
            }
            if state.set_aside.contains_key(path) {
                return Ok(None);
            }
        }
        let Ok(p) = PagePath::new(path) else {
            return Ok(None);
        };
        Ok(self.core.root.stat(Some(&p))?.map(|e| entry(e, false)))
    }

    /// The entries of a folder (`""`: the top folder), sorted by name.
    pub fn list(&self, folder: &str) -> Result<Vec<Entry>> {
        self.settle();
        let folder = folder.trim_matches('/');
        let under = (!folder.is_empty())
            .then(|| PagePath::new(folder))
            .transpose()?;
        let on_disk = self.core.root.entries(under.as_ref())?;
        let state = self.scratch.lock();
        let mut entries: Vec<Entry> = on_disk
            .into_iter()
            .filter(|e| !state.set_aside.contains_key(&e.path))
            .map(|e| entry(e, false))
            .collect();
        for (path, file) in &state.files {
            if parent_of(path) == folder && !entries.iter().any(|e| &e.path == path) {
                entries.push(scratch_entry(path, file));
            }
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// A file's bytes.
    pub fn read(&self, path: &str) -> Result<Vec<u8>> {
        let path = path.trim_matches('/');
        {
            let mut state = self.scratch.lock();
            if let Some(file) = state.files.get_mut(path) {
                file.touched = Instant::now();
                return Ok(file.bytes.clone());
            }
            if state.set_aside.contains_key(path) {
                return Err(Error::not_found(format!("{path}: no such file")));
            }
        }
        Ok(Files(self.core).read(path)?.bytes)
    }

    /// A file's ETag (its git blob id, for scratch files too).
    pub fn etag(&self, path: &str) -> Result<String> {
        Ok(etag(&self.read(path)?))
    }

    /// Creates or replaces a file whose folder exists (a conflict otherwise, as WebDAV and
    /// NFS want). Returns the new ETag.
    pub fn write(&self, path: &str, bytes: Vec<u8>, opts: &WriteOptions) -> Result<String> {
        let path = self.writable(path)?;
        self.folder_must_exist(parent_of(&path))?;
        self.write_any(&path, bytes, opts)
    }

    /// Creates or replaces a file, creating its folders (S3, which has no folders).
    pub fn put(&self, path: &str, bytes: Vec<u8>, opts: &WriteOptions) -> Result<String> {
        let path = self.writable(path)?;
        if let Some(Entry {
            kind: Kind::Folder, ..
        }) = self.stat(&path)?
        {
            return Err(Error::conflict(format!("{path} is a folder")));
        }
        self.write_any(&path, bytes, opts)
    }

    fn write_any(&self, path: &str, bytes: Vec<u8>, opts: &WriteOptions) -> Result<String> {
        self.settle();
        if is_scratch(name_of(path)) {
            return self.write_scratch(path, bytes);
        }
        let tag = Files(self.core).write(path, bytes, opts)?.etag;
        self.scratch.lock().set_aside.remove(path);
        Ok(tag)
    }

    fn write_scratch(&self, path: &str, bytes: Vec<u8>) -> Result<String> {
        let mut state = self.scratch.lock();
        let old = state.files.get(path).map_or(0, |f| f.bytes.len());
        if state.bytes - old + bytes.len() > SCRATCH_LIMIT {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "{path} is an editor's or the system's scratch file, kept in memory only, and \
                     scratch files may hold {} MiB in all",
                    SCRATCH_LIMIT >> 20
                ),
            ));
        }
        let tag = etag(&bytes);
        state.bytes = state.bytes - old + bytes.len();
        state.files.insert(
            path.to_string(),
            ScratchFile {
                bytes,
                modified: SystemTime::now(),
                touched: Instant::now(),
            },
        );
        Ok(tag)
    }

    /// Creates a folder; its parent must exist, the folder must not.
    pub fn create_folder(&self, path: &str) -> Result<()> {
        let path = self.writable(path)?;
        self.folder_must_exist(parent_of(&path))?;
        if self.stat(&path)?.is_some() {
            return Err(Error::conflict(format!("{path} already exists")));
        }
        Ok(self.core.root.create_dir(&PagePath::new(&path)?)?)
    }

    /// Deletes a file, or a folder with everything below it (one commit).
    pub fn delete(&self, path: &str, opts: &WriteOptions) -> Result<()> {
        let path = self.writable(path)?;
        {
            let mut state = self.scratch.lock();
            if let Some(file) = state.files.remove(&path) {
                state.bytes -= file.bytes.len();
                return Ok(());
            }
        }
        match self.stat(&path)? {
            None => Err(Error::not_found(format!("{path}: no such file or folder"))),
            Some(Entry {
                kind: Kind::File, ..
            }) => {
                Files(self.core).delete(&path, opts)?;
                self.keep_folder(parent_of(&path))?;
                self.after_delete(&path, opts);
                Ok(())
            }
            Some(Entry {
                kind: Kind::Folder, ..
            }) => self.delete_folder(&path, opts),
        }
    }

    /// Puts back a folder the store removed with its last file: over a file protocol a folder
    /// lives until it is deleted itself.
    fn keep_folder(&self, folder: &str) -> Result<()> {
        if folder.is_empty() {
            return Ok(());
        }
        let mut at = String::new();
        for part in folder.split('/') {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            let path = PagePath::new(&at)?;
            if self.core.root.stat(Some(&path))?.is_none() {
                match self.core.root.create_dir(&path) {
                    Ok(()) | Err(quire_store::StoreError::Exists { .. }) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    }

    fn delete_folder(&self, path: &str, opts: &WriteOptions) -> Result<()> {
        let mut files = Vec::new();
        let mut folders = Vec::new();
        self.walk(path, &mut files, &mut folders)?;
        {
            let mut state = self.scratch.lock();
            let prefix = format!("{path}/");
            let gone: Vec<String> = state
                .files
                .keys()
                .filter(|k| k.starts_with(&prefix))
                .cloned()
                .collect();
            for key in gone {
                if let Some(file) = state.files.remove(&key) {
                    state.bytes -= file.bytes.len();
                }
            }
        }
        if !files.is_empty() {
            let ops = files
                .iter()
                .map(|f| {
                    Ok(FileOp {
                        path: PagePath::new(f)?,
                        content: None,
                        expect: Expect::Anything,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            self.core.apply(Change {
                ops,
                actor: opts.actor(),
                message: opts.message_or(|| format!("Delete folder {path}")),
                announce: Announce::PerFile,
                commit: CommitMode::AsConfigured,
            })?;
        }
        // Deepest first: the folders the deletes left behind, then the folder itself.
        folders.push(path.to_string());
        folders.sort_by_key(|f| std::cmp::Reverse(f.matches('/').count()));
        for folder in folders {
            self.core.root.remove_empty_dir(&PagePath::new(&folder)?)?;
        }
        Ok(())
    }

    /// The files (not scratch) and folders below `path`.
    fn walk(&self, path: &str, files: &mut Vec<String>, folders: &mut Vec<String>) -> Result<()> {
        let p = PagePath::new(path)?;
        for e in self.core.root.entries(Some(&p))? {
            match e.kind {
                EntryKind::Dir => {
                    folders.push(e.path.clone());
                    self.walk(&e.path, files, folders)?;
                }
                EntryKind::File | EntryKind::Symlink => files.push(e.path),
            }
        }
        Ok(())
    }

    /// Moves a file or folder. A page or a folder of pages moves through the restructuring
    /// engine: every link to what moved keeps its target, in one commit. With `overwrite`, a
    /// file at `to` is replaced (deleted first); without it, an existing `to` is a conflict.
    pub fn rename(&self, from: &str, to: &str, overwrite: bool, opts: &WriteOptions) -> Result<()> {
        let from = self.writable(from)?;
        let to = self.writable(to)?;
        if from == to {
            return Ok(());
        }
        if to.starts_with(&format!("{from}/")) {
            return Err(Error::bad_request(format!(
                "cannot move {from} into itself"
            )));
        }
        let Some(source) = self.stat(&from)? else {
            return Err(Error::not_found(format!("{from}: no such file or folder")));
        };
        self.folder_must_exist(parent_of(&to))?;
        let (from_scratch, to_scratch) = (source.scratch, is_scratch(name_of(&to)));
        // A temp file saved over the page writes the page: one change, no delete first.
        let written_over = source.kind == Kind::File && from_scratch && !to_scratch;
        self.make_room(&to, overwrite, written_over, opts)?;
        self.move_entry(&from, &to, source.kind, from_scratch, to_scratch, opts)?;
        self.keep_folder(parent_of(&from))
    }

    fn move_entry(
        &self,
        from: &str,
        to: &str,
        kind: Kind,
        from_scratch: bool,
        to_scratch: bool,
        opts: &WriteOptions,
    ) -> Result<()> {
        let (from, to) = (from.to_string(), to.to_string());
        match (kind, from_scratch, to_scratch) {
            (Kind::File, true, true) => {
                let mut state = self.scratch.lock();
                if let Some(file) = state.files.remove(&from) {
                    state.files.insert(to, file);
                }
                Ok(())
            }
            // An editor's temp file saved over the page: one write of the page.
            (Kind::File, true, false) => {
                let bytes = self.read(&from)?;
                self.write_any(&to, bytes, opts)?;
                let mut state = self.scratch.lock();
                if let Some(file) = state.files.remove(&from) {
                    state.bytes -= file.bytes.len();
                }
                Ok(())
            }
            // A page moved out of the way before its new version is written.
            (Kind::File, false, true) => {
                let bytes = self.read(&from)?;
                self.write_scratch(&to, bytes)?;
                self.scratch.lock().set_aside.insert(
                    from,
                    SetAside {
                        at: Instant::now(),
                        opts: opts.clone(),
                    },
                );
                Ok(())
            }
            (Kind::File, false, false) => self
                .restructure
                .rename(&from, &to, Relink::Yes, opts)
                .map(|_| ()),
            (Kind::Folder, ..) => self.rename_folder(&from, &to, opts),
        }
    }

    fn rename_folder(&self, from: &str, to: &str, opts: &WriteOptions) -> Result<()> {
        let (mut files, mut folders) = (Vec::new(), Vec::new());
        self.walk(from, &mut files, &mut folders)?;
        if files.is_empty() {
            self.core
                .root
                .move_empty_dir(&PagePath::new(from)?, &PagePath::new(to)?)?;
        } else {
            self.restructure.rename_dir(from, to, opts)?;
            // Folders without files stay behind a move of the files: they follow.
            let from_path = PagePath::new(from)?;
            if self.core.root.stat(Some(&from_path))?.is_some() {
                for folder in &folders {
                    let target = format!("{to}{}", &folder[from.len()..]);
                    let target = PagePath::new(&target)?;
                    if self.core.root.stat(Some(&target))?.is_none() {
                        self.core.root.create_dir(&target)?;
                    }
                }
                folders.push(from.to_string());
                folders.sort_by_key(|f| std::cmp::Reverse(f.matches('/').count()));
                for folder in folders {
                    self.core.root.remove_empty_dir(&PagePath::new(&folder)?)?;
                }
            }
        }
        let mut state = self.scratch.lock();
        let prefix = format!("{from}/");
        let moved: Vec<String> = state
            .files
            .keys()
            .filter(|k| k.starts_with(&prefix))
            .cloned()
            .collect();
        for key in moved {
            if let Some(file) = state.files.remove(&key) {
                state
                    .files
                    .insert(format!("{to}/{}", &key[prefix.len()..]), file);
            }
        }
        Ok(())
    }

    /// Copies a file, or a folder with everything below it (one commit). With `overwrite`,
    /// what is at `to` is replaced; without it, an existing `to` is a conflict.
    pub fn copy(&self, from: &str, to: &str, overwrite: bool, opts: &WriteOptions) -> Result<()> {
        let from = self.writable(from)?;
        let to = self.writable(to)?;
        if from == to {
            return Err(Error::bad_request("a copy needs another destination"));
        }
        let Some(source) = self.stat(&from)? else {
            return Err(Error::not_found(format!("{from}: no such file or folder")));
        };
        self.folder_must_exist(parent_of(&to))?;
        self.copy_checked(&from, &to, source.kind, overwrite, opts)
    }

    /// [`FileSystem::copy`] creating the target's folders (S3's CopyObject).
    pub fn copy_object(&self, from: &str, to: &str, opts: &WriteOptions) -> Result<String> {
        let from = self.writable(from)?;
        let to = self.writable(to)?;
        match self.stat(&from)? {
            Some(Entry {
                kind: Kind::File, ..
            }) => {}
            _ => return Err(Error::not_found(format!("{from}: no such file"))),
        }
        let bytes = self.read(&from)?;
        let tag = if from == to {
            etag(&bytes)
        } else {
            self.put(&to, bytes, opts)?
        };
        self.note_copy(&from, &to);
        Ok(tag)
    }

    fn copy_checked(
        &self,
        from: &str,
        to: &str,
        kind: Kind,
        overwrite: bool,
        opts: &WriteOptions,
    ) -> Result<()> {
        if to.starts_with(&format!("{from}/")) {
            return Err(Error::bad_request(format!(
                "cannot copy {from} into itself"
            )));
        }
        self.make_room(to, overwrite, kind == Kind::File, opts)?;
        match kind {
            Kind::File => {
                let bytes = self.read(from)?;
                self.write_any(to, bytes, opts)?;
                self.note_copy(from, to);
            }
            Kind::Folder => {
                let (mut files, mut folders) = (Vec::new(), Vec::new());
                self.walk(from, &mut files, &mut folders)?;
                self.core.root.create_dir(&PagePath::new(to)?)?;
                folders.sort();
                for folder in &folders {
                    let target = format!("{to}{}", &folder[from.len()..]);
                    self.core.root.create_dir(&PagePath::new(&target)?)?;
                }
                let mut copied = Vec::with_capacity(files.len());
                for file in &files {
                    let target = format!("{to}{}", &file[from.len()..]);
                    copied.push((target, self.read(file)?));
                }
                if !copied.is_empty() {
                    Files(self.core).bulk(copied, opts)?;
                }
            }
        }
        Ok(())
    }

    /// Clears `to` for a move or copy: nothing there, or (with `overwrite`) deleted — unless
    /// a file there is about to be `written_over`, which replaces it in one change.
    fn make_room(
        &self,
        to: &str,
        overwrite: bool,
        written_over: bool,
        opts: &WriteOptions,
    ) -> Result<()> {
        match self.stat(to)? {
            None => Ok(()),
            Some(_) if !overwrite => Err(Error::conflict(format!("{to} already exists"))),
            Some(Entry {
                kind: Kind::File, ..
            }) if written_over => Ok(()),
            Some(_) => self.delete(to, opts),
        }
        .and_then(|()| self.keep_folder(parent_of(to)))
    }

    fn note_copy(&self, from: &str, to: &str) {
        let mut state = self.scratch.lock();
        state
            .copies
            .retain(|(_, _, at)| at.elapsed() < COPY_MOVE_WINDOW);
        state
            .copies
            .push((from.to_string(), to.to_string(), Instant::now()));
    }

    /// After a file's delete: a recent copy of it makes the pair a raw move.
    fn after_delete(&self, path: &str, opts: &WriteOptions) {
        let copy = {
            let mut state = self.scratch.lock();
            state
                .copies
                .retain(|(_, _, at)| at.elapsed() < COPY_MOVE_WINDOW);
            let found = state.copies.iter().rposition(|(from, _, _)| from == path);
            found.map(|i| state.copies.remove(i))
        };
        if let Some((from, to, _)) = copy {
            if let (Ok(from), Ok(to)) = (PagePath::new(&from), PagePath::new(&to)) {
                self.core
                    .record_raw_moves(&[(from, to)], &opts.actor(), self.protocol.via());
            }
        }
    }

    /// Commits the deletes of pages set aside longer than the window, and drops scratch
    /// files nobody touched for [`SCRATCH_TTL`].
    pub fn settle(&self) {
        let due = {
            let mut state = self.scratch.lock();
            let due: Vec<(String, WriteOptions)> = state
                .set_aside
                .iter()
                .filter(|(_, s)| s.at.elapsed() >= SET_ASIDE_WINDOW)
                .map(|(p, s)| (p.clone(), s.opts.clone()))
                .collect();
            for (p, _) in &due {
                state.set_aside.remove(p);
            }
            let stale: Vec<String> = state
                .files
                .iter()
                .filter(|(_, f)| f.touched.elapsed() >= SCRATCH_TTL)
                .map(|(p, _)| p.clone())
                .collect();
            for p in stale {
                if let Some(file) = state.files.remove(&p) {
                    state.bytes -= file.bytes.len();
                }
            }
            due
        };
        for (path, opts) in due {
            match Files(self.core).delete(&path, &opts) {
                Ok(_) => {
                    if let Err(e) = self.keep_folder(parent_of(&path)) {
                        tracing::warn!("keeping the folder of {path}: {e}");
                    }
                }
                Err(e) if e.code == ErrorCode::NotFound => {}
                Err(e) => tracing::warn!("committing the delete of {path} (set aside): {e}"),
            }
        }
    }

    /// A path a protocol may write: valid, not the server's own (`.quire/`, `.git/`).
    fn writable(&self, path: &str) -> Result<String> {
        let path = path.trim_matches('/');
        if path.is_empty() {
            return Err(Error::new(
                ErrorCode::Forbidden,
                "the top folder itself cannot be written, moved or deleted",
            ));
        }
        if quire_store::is_hidden(path) {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!("{path}: the server's own files are reached through its API"),
            ));
        }
        Ok(PagePath::new(path)?.to_string())
    }

    fn folder_must_exist(&self, folder: &str) -> Result<()> {
        if folder.is_empty() {
            return Ok(());
        }
        match self.stat(folder)? {
            Some(Entry {
                kind: Kind::Folder, ..
            }) => Ok(()),
            Some(_) => Err(Error::conflict(format!("{folder} is not a folder"))),
            None => Err(Error::not_found(format!(
                "the folder {folder} does not exist"
            ))),
        }
    }
}

fn entry(e: FolderEntry, scratch: bool) -> Entry {
    Entry {
        kind: if e.kind == EntryKind::Dir {
            Kind::Folder
        } else {
            Kind::File
        },
        path: e.path,
        name: e.name,
        size: e.size,
        modified: e.modified,
        scratch,
    }
}

fn scratch_entry(path: &str, file: &ScratchFile) -> Entry {
    Entry {
        path: path.to_string(),
        name: name_of(path).to_string(),
        kind: Kind::File,
        size: file.bytes.len() as u64,
        modified: file.modified,
        scratch: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names() {
        for name in [
            ".DS_Store",
            "._notes.md",
            "~$report.docx",
            ".~lock.a.odt#",
            "a.md~",
            ".a.md.swp",
            "a.md.tmp",
            "4913",
            ".#a.md",
            "#a.md#",
            "a.md.sb-3f2a1b-XyZ",
            ".goutputstream-ABC",
            "Thumbs.db",
        ] {
            assert!(is_scratch(name), "{name}");
        }
        for name in [
            "a.md",
            "notes.txt",
            ".obsidian",
            "#tag.md",
            "swp.md",
            "a.sb.md",
        ] {
            assert!(!is_scratch(name), "{name}");
        }
    }
}
