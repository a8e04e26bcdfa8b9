//! fuser's `Filesystem` over the service's file-system layer. An open file is buffered in
//! memory and written through the pipeline, whole, when it is flushed (`close`), so `echo x >
//! page.md` is one commit; renames go through the layer (links rewritten).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    OpenAccMode, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory,
    ReplyEmpty, ReplyEntry, ReplyOpen, ReplyWrite, Request, TimeOrNow, WriteFlags,
};
use quire_service::{ErrorCode, FsEntry, FsKind};

use crate::files::Files;

use crate::inodes::{join, Inodes, ROOT};

/// How long the kernel may keep what it was told: short, the root changes from elsewhere too.
const TTL: Duration = Duration::from_secs(1);

/// The largest file written through the mount, as over REST.
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// An open file.
struct Handle {
    path: String,
    /// The bytes, once read or written.
    bytes: Option<Vec<u8>>,
    /// Differs from what the space holds (created, truncated or written).
    dirty: bool,
    /// `write` was called since the last flush. A shell's `>` opens the file, duplicates the
    /// descriptor and closes the first: that close flushes a file not written yet, which
    /// must not become a commit of its own; such a file is written at its last close
    /// (`release`) or at the flush after a write.
    written: bool,
}

/// What the mount keeps besides the space.
#[derive(Default)]
pub(crate) struct State {
    inodes: Inodes,
    handles: HashMap<u64, Handle>,
    next_handle: u64,
}

/// The mounted files; shared with the unmounting side, which flushes what is open.
pub(crate) struct Shared {
    pub(crate) files: Box<dyn Files>,
    pub(crate) state: Mutex<State>,
    uid: u32,
    gid: u32,
}

impl Shared {
    pub(crate) fn new(files: Box<dyn Files>) -> Shared {
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Shared {
            files,
            state: Mutex::default(),
            uid,
            gid,
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes every open file that holds unwritten bytes (before unmounting).
    pub(crate) fn flush_all(&self) {
        let dirty: Vec<u64> = self
            .lock()
            .handles
            .iter()
            .filter(|(_, h)| h.dirty)
            .map(|(&fh, _)| fh)
            .collect();
        for fh in dirty {
            if let Err(e) = self.flush_handle(fh, true) {
                tracing::error!("fuse: writing an open file at unmount failed: {e:?}");
            }
        }
    }

    /// Writes an open file's bytes through the pipeline if they changed; a flush that is not
    /// the last (`last = false`) waits for a write first (see [`Handle::written`]).
    fn flush_handle(&self, fh: u64, last: bool) -> Result<(), Errno> {
        let (path, bytes) = {
            let mut state = self.lock();
            let Some(handle) = state.handles.get_mut(&fh) else {
                return Ok(());
            };
            if !handle.dirty || !(last || handle.written) {
                return Ok(());
            }
            handle.dirty = false;
            handle.written = false;
            (
                handle.path.clone(),
                handle.bytes.clone().unwrap_or_default(),
            )
        };
        match self.files.write(&path, bytes) {
            Ok(_) => Ok(()),
            Err(e) => {
                if let Some(handle) = self.lock().handles.get_mut(&fh) {
                    handle.dirty = true;
                }
                Err(errno(&e))
            }
        }
    }

    fn path_of(&self, ino: INodeNo) -> Result<String, Errno> {
        self.lock()
            .inodes
            .path(ino.0)
            .map(str::to_string)
            .ok_or(Errno::ENOENT)
    }

    fn child(&self, parent: INodeNo, name: &OsStr) -> Result<String, Errno> {
        let name = name.to_str().ok_or(Errno::EINVAL)?;
        Ok(join(&self.path_of(parent)?, name))
    }

    /// The attributes of `path`: a file open with unwritten bytes shows them.
    fn attr(&self, path: &str) -> Result<FileAttr, Errno> {
        let pending = {
            let state = self.lock();
            state
                .handles
                .values()
                .filter(|h| h.path == path && h.dirty)
                .find_map(|h| h.bytes.as_ref().map(|b| b.len() as u64))
        };
        let entry = match self.files.stat(path).map_err(|e| errno(&e))? {
            Some(entry) => entry,
            None if pending.is_some() => FsEntry {
                path: path.to_string(),
                name: path.rsplit('/').next().unwrap_or(path).to_string(),
                kind: FsKind::File,
                size: 0,
                modified: SystemTime::now(),
                scratch: false,
            },
            None => return Err(Errno::ENOENT),
        };
        let ino = self.lock().inodes.number(path);
        Ok(self.file_attr(ino, &entry, pending))
    }

    fn file_attr(&self, ino: u64, entry: &FsEntry, pending: Option<u64>) -> FileAttr {
        let folder = entry.kind == FsKind::Folder;
        let size = pending.unwrap_or(entry.size);
        FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: size.div_ceil(512),
            atime: entry.modified,
            mtime: entry.modified,
            ctime: entry.modified,
            crtime: entry.modified,
            kind: if folder {
                FileType::Directory
            } else {
                FileType::RegularFile
            },
            perm: if folder { 0o755 } else { 0o644 },
            nlink: if folder { 2 } else { 1 },
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }

    fn open_handle(&self, path: String, bytes: Option<Vec<u8>>, dirty: bool) -> u64 {
        let mut state = self.lock();
        state.next_handle += 1;
        let fh = state.next_handle;
        state.handles.insert(
            fh,
            Handle {
                path,
                bytes,
                dirty,
                written: false,
            },
        );
        fh
    }

    /// The bytes of an open file, read from the space the first time.
    fn loaded(&self, fh: u64) -> Result<(), Errno> {
        let path = {
            let state = self.lock();
            let handle = state.handles.get(&fh).ok_or(Errno::EBADF)?;
            if handle.bytes.is_some() {
                return Ok(());
            }
            let path = handle.path.clone();
            // Another open file of the path holds bytes not written yet: those.
            let pending = state
                .handles
                .values()
                .find(|h| h.path == path && h.dirty && h.bytes.is_some())
                .and_then(|h| h.bytes.clone());
            if let Some(bytes) = pending {
                drop(state);
                if let Some(handle) = self.lock().handles.get_mut(&fh) {
                    handle.bytes.get_or_insert(bytes);
                }
                return Ok(());
            }
            path
        };
        let bytes = match self.files.read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.code == ErrorCode::NotFound => Vec::new(),
            Err(e) => return Err(errno(&e)),
        };
        if let Some(handle) = self.lock().handles.get_mut(&fh) {
            handle.bytes.get_or_insert(bytes);
        }
        Ok(())
    }

    /// Writes the open files of `path` first, so a rename or delete sees their bytes.
    fn settle_path(&self, path: &str) -> Result<(), Errno> {
        let open: Vec<u64> = self
            .lock()
            .handles
            .iter()
            .filter(|(_, h)| h.path == path && h.dirty)
            .map(|(&fh, _)| fh)
            .collect();
        for fh in open {
            self.flush_handle(fh, true)?;
        }
        Ok(())
    }
}

/// The service's error as an errno.
fn errno(e: &quire_service::Error) -> Errno {
    match e.code {
        ErrorCode::NotFound => Errno::ENOENT,
        ErrorCode::Conflict => Errno::EEXIST,
        ErrorCode::Forbidden | ErrorCode::Unauthorized => Errno::EACCES,
        ErrorCode::BadRequest | ErrorCode::Unprocessable | ErrorCode::ApprovalRequired => {
            Errno::EINVAL
        }
        ErrorCode::TooLarge => Errno::EFBIG,
        ErrorCode::NotImplemented => Errno::ENOSYS,
        _ => {
            tracing::warn!("fuse: {}", e.message);
            Errno::EIO
        }
    }
}

/// The filesystem fuser runs.
pub(crate) struct Mount(pub(crate) Arc<Shared>);

impl Filesystem for Mount {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.0.child(parent, name).and_then(|p| self.0.attr(&p)) {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.0.path_of(ino).and_then(|p| self.0.attr(&p)) {
            Ok(attr) => reply.attr(&TTL, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let result = (|| {
            let path = self.0.path_of(ino)?;
            // Modes, owners and times are not kept: git keeps none of them.
            if let Some(size) = size {
                // truncate(2) on a path has no open file: one of its own, written at once.
                let (fh, own) = match fh {
                    Some(fh) => (fh.0, false),
                    None => (self.0.open_handle(path.clone(), None, false), true),
                };
                self.0.loaded(fh)?;
                if let Some(handle) = self.0.lock().handles.get_mut(&fh) {
                    if let Some(bytes) = handle.bytes.as_mut() {
                        if bytes.len() as u64 != size {
                            bytes.resize(size as usize, 0);
                            handle.dirty = true;
                        }
                    }
                }
                if own {
                    let written = self.0.flush_handle(fh, true);
                    self.0.lock().handles.remove(&fh);
                    written?;
                }
            }
            self.0.attr(&path)
        })();
        match result {
            Ok(attr) => reply.attr(&TTL, &attr),
            Err(e) => reply.error(e),
        }
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        reply: ReplyEntry,
    ) {
        let result = self.0.child(parent, name).and_then(|path| {
            self.0.files.create_folder(&path).map_err(|e| errno(&e))?;
            self.0.attr(&path)
        });
        match result {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let result = self.0.child(parent, name).and_then(|path| {
            match self.0.files.stat(&path).map_err(|e| errno(&e))? {
                Some(e) if e.kind == FsKind::Folder => return Err(Errno::EISDIR),
                None => {
                    // Created and not written yet: only the open file knows it.
                    let mut state = self.0.lock();
                    let before = state.handles.len();
                    state.handles.retain(|_, h| h.path != path);
                    return if state.handles.len() < before {
                        Ok(())
                    } else {
                        Err(Errno::ENOENT)
                    };
                }
                Some(_) => {}
            }
            self.0.settle_path(&path)?;
            self.0.files.delete(&path).map_err(|e| errno(&e))?;
            self.0.lock().inodes.forget(&path);
            Ok(())
        });
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let result = self.0.child(parent, name).and_then(|path| {
            let fs = &self.0.files;
            match fs.stat(&path).map_err(|e| errno(&e))? {
                Some(e) if e.kind == FsKind::Folder => {}
                Some(_) => return Err(Errno::ENOTDIR),
                None => return Err(Errno::ENOENT),
            }
            if !fs.list(&path).map_err(|e| errno(&e))?.is_empty() {
                return Err(Errno::ENOTEMPTY);
            }
            fs.delete(&path).map_err(|e| errno(&e))?;
            self.0.lock().inodes.forget(&path);
            Ok(())
        });
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        let result = (|| {
            let from = self.0.child(parent, name)?;
            let to = self.0.child(newparent, newname)?;
            // RENAME_NOREPLACE: never over an existing path; plain rename replaces.
            let overwrite = flags.bits() & libc::RENAME_NOREPLACE == 0;
            self.0.settle_path(&from)?;
            self.0
                .files
                .rename(&from, &to, overwrite)
                .map_err(|e| errno(&e))?;
            let mut state = self.0.lock();
            state.inodes.moved(&from, &to);
            for handle in state.handles.values_mut() {
                if handle.path == from {
                    handle.path = to.clone();
                } else if let Some(rest) = handle.path.strip_prefix(&format!("{from}/")) {
                    handle.path = format!("{to}/{rest}");
                }
            }
            Ok(())
        })();
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        let result = self.0.path_of(ino).map(|path| {
            let truncate =
                flags.0 & libc::O_TRUNC != 0 && flags.acc_mode() != OpenAccMode::O_RDONLY;
            if truncate {
                self.0.open_handle(path, Some(Vec::new()), true)
            } else {
                self.0.open_handle(path, None, false)
            }
        });
        match result {
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        _mode: u32,
        _umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let result = (|| {
            let path = self.0.child(parent, name)?;
            let exists = self.0.files.stat(&path).map_err(|e| errno(&e))?.is_some();
            if exists && flags & libc::O_EXCL != 0 {
                return Err(Errno::EEXIST);
            }
            // The file exists once it is flushed: one write, however it is written.
            let fh = self.0.open_handle(path.clone(), Some(Vec::new()), true);
            let attr = self.0.attr(&path)?;
            Ok((fh, attr))
        })();
        match result {
            Ok((fh, attr)) => reply.created(
                &TTL,
                &attr,
                Generation(0),
                FileHandle(fh),
                FopenFlags::empty(),
            ),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let result = self.0.loaded(fh.0).and_then(|()| {
            let state = self.0.lock();
            let bytes = state
                .handles
                .get(&fh.0)
                .and_then(|h| h.bytes.as_ref())
                .ok_or(Errno::EBADF)?;
            let start = (offset as usize).min(bytes.len());
            let end = start.saturating_add(size as usize).min(bytes.len());
            Ok(bytes[start..end].to_vec())
        });
        match result {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let result = self.0.loaded(fh.0).and_then(|()| {
            let mut state = self.0.lock();
            let handle = state.handles.get_mut(&fh.0).ok_or(Errno::EBADF)?;
            let bytes = handle.bytes.get_or_insert_with(Vec::new);
            let at = offset as usize;
            let end = at.checked_add(data.len()).ok_or(Errno::EFBIG)?;
            if end > MAX_FILE_BYTES {
                return Err(Errno::EFBIG);
            }
            if bytes.len() < end {
                bytes.resize(end, 0);
            }
            bytes[at..end].copy_from_slice(data);
            handle.dirty = true;
            handle.written = true;
            Ok(data.len() as u32)
        });
        match result {
            Ok(n) => reply.written(n),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        match self.0.flush_handle(fh.0, false) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        match self.0.flush_handle(fh.0, true) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        let result = self.0.flush_handle(fh.0, true);
        self.0.lock().handles.remove(&fh.0);
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let result = self.0.path_of(ino).and_then(|path| {
            let entries = self.0.files.list(&path).map_err(|e| errno(&e))?;
            let mut state = self.0.lock();
            let parent = match path.rsplit_once('/') {
                Some((p, _)) => state.inodes.number(p),
                None => ROOT,
            };
            let mut all = vec![
                (ino.0, FileType::Directory, ".".to_string()),
                (parent, FileType::Directory, "..".to_string()),
            ];
            for entry in entries {
                let kind = if entry.kind == FsKind::Folder {
                    FileType::Directory
                } else {
                    FileType::RegularFile
                };
                all.push((state.inodes.number(&entry.path), kind, entry.name));
            }
            Ok(all)
        });
        match result {
            Ok(all) => {
                for (i, (ino, kind, name)) in all.into_iter().enumerate().skip(offset as usize) {
                    if reply.add(INodeNo(ino), (i + 1) as u64, kind, name) {
                        break;
                    }
                }
                reply.ok();
            }
            Err(e) => reply.error(e),
        }
    }

    fn access(&self, _req: &Request, _ino: INodeNo, _mask: fuser::AccessFlags, reply: ReplyEmpty) {
        reply.ok();
    }
}
