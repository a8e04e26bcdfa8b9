//! nfsserve's file-system trait over the service's [`FileSystem`] layer. Every call of the
//! layer runs on a blocking thread (a write is a pipeline pass, a rename a restructuring).
//!
//! **Writes are buffered.** NFS writes a file in pieces at offsets and has no "close"; a write
//! of each piece through the pipeline would commit every piece. So a WRITE, a CREATE and a
//! SETATTR of the size change a buffer of the whole file held here ([`Pending`]), which
//! GETATTR, LOOKUP, READ and READDIR see at once; the buffer is written through the layer —
//! one pass of the pipeline, one commit — when the client asks (its COMMIT, or a WRITE that is
//! not UNSTABLE: nfsserve tells us neither, the [`crate::relay`] does), once the file has been
//! quiet for [`QUIET`] (clients that never COMMIT), before a rename or remove that involves
//! it, and when the server stops. A file created and removed before that is never committed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use nfsserve::nfs::{
    fattr3, fileid3, filename3, ftype3, nfspath3, nfsstat3, nfstime3, sattr3, set_size3, specdata3,
};
use nfsserve::vfs::{DirEntry, NFSFileSystem, ReadDirResult, VFSCapabilities};
use quire_service::{ErrorCode, FsEntry, FsKind, Protocol, Service, Space};

use crate::ids::{is_under, join, Ids, ROOT_ID};

/// How long a written file stays quiet before its buffer is committed.
pub const QUIET: Duration = Duration::from_millis(300);
/// The largest file a client may write, as over REST.
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// How the NFS server writes.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The author of every commit an NFS write makes.
    pub actor: String,
    /// Refuse every change (NFS3ERR_ROFS).
    pub read_only: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            actor: Protocol::Nfs.name().to_string(),
            read_only: false,
        }
    }
}

/// The spaces of a service as one NFS tree: the default space at `/`, each other space under
/// `/<name>/` (a space's name hides a top folder of the default space of the same name).
#[derive(Clone)]
pub struct QuireNfs {
    inner: Arc<Inner>,
}

struct Inner {
    service: Arc<Service>,
    settings: Settings,
    ids: Ids,
    /// Written files not committed yet, by id.
    pending: Mutex<HashMap<u64, Pending>>,
    /// Held by each flush: two flushes of one buffer (the quiet timer's and a COMMIT's)
    /// would write it twice.
    flushing: Mutex<()>,
}

/// A file's bytes as the client has written them, not committed yet.
struct Pending {
    bytes: Vec<u8>,
    /// The last change, for the quiet period.
    touched: Instant,
    modified: SystemTime,
    /// Bumped by every change: a flush removes the buffer only if nothing changed meanwhile.
    generation: u64,
}

/// A tree path resolved to its space.
struct Target {
    space: Arc<Space>,
    /// The path inside the space (`""`: its top folder).
    path: String,
    /// The tree path is a space's top folder (the export root or `/<space>`).
    top: bool,
}

type NfsResult<T> = Result<T, nfsstat3>;

/// The service's error as an NFS status.
fn nfs_error(e: quire_service::Error) -> nfsstat3 {
    match e.code {
        ErrorCode::NotFound => nfsstat3::NFS3ERR_NOENT,
        ErrorCode::Conflict => nfsstat3::NFS3ERR_EXIST,
        ErrorCode::Forbidden | ErrorCode::Unauthorized => nfsstat3::NFS3ERR_ACCES,
        ErrorCode::TooLarge => nfsstat3::NFS3ERR_FBIG,
        ErrorCode::BadRequest | ErrorCode::Unprocessable | ErrorCode::ApprovalRequired => {
            nfsstat3::NFS3ERR_INVAL
        }
        ErrorCode::NotImplemented => nfsstat3::NFS3ERR_NOTSUPP,
        _ => {
            tracing::warn!("nfs: {}", e.message);
            nfsstat3::NFS3ERR_IO
        }
    }
}

fn name_of(name: &filename3) -> NfsResult<&str> {
    let name = std::str::from_utf8(name).map_err(|_| nfsstat3::NFS3ERR_INVAL)?;
    if name.is_empty() || name.contains('/') {
        return Err(nfsstat3::NFS3ERR_INVAL);
    }
    Ok(name)
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

fn time_of(t: SystemTime) -> nfstime3 {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    nfstime3 {
        seconds: d.as_secs() as u32,
        nseconds: d.subsec_nanos(),
    }
}

fn attrs(id: u64, folder: bool, size: u64, modified: SystemTime) -> fattr3 {
    let time = time_of(modified);
    fattr3 {
        ftype: if folder {
            ftype3::NF3DIR
        } else {
            ftype3::NF3REG
        },
        mode: if folder { 0o755 } else { 0o644 },
        nlink: if folder { 2 } else { 1 },
        uid: 0,
        gid: 0,
        size,
        used: size,
        rdev: specdata3::default(),
        fsid: 0,
        fileid: id,
        atime: time,
        mtime: time,
        ctime: time,
    }
}

impl QuireNfs {
    pub fn new(service: Arc<Service>, settings: Settings) -> QuireNfs {
        QuireNfs {
            inner: Arc::new(Inner {
                service,
                settings,
                ids: Ids::default(),
                pending: Mutex::default(),
                flushing: Mutex::default(),
            }),
        }
    }

    /// Commits every buffer quiet for [`QUIET`] (all of them with `all`). Blocking.
    pub fn flush_quiet(&self, all: bool) {
        let due: Vec<u64> = {
            let pending = self.inner.pending();
            pending
                .iter()
                .filter(|(_, p)| all || p.touched.elapsed() >= QUIET)
                .map(|(&id, _)| id)
                .collect()
        };
        for id in due {
            if let Err(e) = self.inner.flush(id) {
                tracing::warn!("nfs: a buffered write could not be committed: {e:?}");
            }
        }
    }

    /// Whether any written file waits to be committed.
    pub fn has_pending(&self) -> bool {
        !self.inner.pending().is_empty()
    }

    /// Commits the buffer of file `id` now — of every buffered file with `None` — as the
    /// client's COMMIT (or a stable WRITE) asks; the first error, if any.
    pub(crate) async fn commit(&self, id: Option<u64>) -> NfsResult<()> {
        self.blocking(move |inner| match id {
            Some(id) => inner.flush(id),
            None => {
                // Every one, even after one fails.
                let ids: Vec<u64> = inner.pending().keys().copied().collect();
                let mut result = Ok(());
                for id in ids {
                    let flushed = inner.flush(id);
                    result = result.and(flushed);
                }
                result
            }
        })
        .await
    }

    /// The file id in one of our handles (nfsserve's encoding); `None` if it is not one, or
    /// is from an earlier run of the server.
    pub(crate) fn file_of(&self, handle: &[u8]) -> Option<u64> {
        let handle = nfsserve::nfs::nfs_fh3 {
            data: handle.to_vec(),
        };
        self.fh_to_id(&handle).ok()
    }

    /// Runs `call` on a blocking thread: every call of the layer (a write is a pipeline
    /// pass, a rename a restructuring) and every disk read.
    async fn blocking<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Inner) -> NfsResult<T> + Send + 'static,
    ) -> NfsResult<T> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || call(&inner))
            .await
            .unwrap_or(Err(nfsstat3::NFS3ERR_SERVERFAULT))
    }
}

impl Inner {
    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn opts(&self, space: &Space) -> quire_service::WriteOptions {
        space
            .file_system(Protocol::Nfs)
            .options(Some(&self.settings.actor))
    }

    /// The space and inner path of a tree path.
    fn resolve(&self, tree: &str) -> Target {
        let (first, rest) = tree.split_once('/').unwrap_or((tree, ""));
        let default = self.service.default_space();
        match self.service.space(first) {
            Some(space) if !first.is_empty() && space.name() != default.name() => Target {
                top: rest.is_empty(),
                space,
                path: rest.to_string(),
            },
            _ => Target {
                space: default.clone(),
                path: tree.to_string(),
                top: tree.is_empty(),
            },
        }
    }

    fn path(&self, id: u64) -> NfsResult<String> {
        self.ids.path(id).ok_or(nfsstat3::NFS3ERR_STALE)
    }

    /// The attributes of a buffered file, if `id` is one.
    fn pending_attrs(&self, id: u64) -> Option<fattr3> {
        let pending = self.pending();
        let p = pending.get(&id)?;
        Some(attrs(id, false, p.bytes.len() as u64, p.modified))
    }

    /// What a tree path is (blocking).
    fn stat(&self, tree: &str) -> NfsResult<Option<FsEntry>> {
        let target = self.resolve(tree);
        target
            .space
            .file_system(Protocol::Nfs)
            .stat(&target.path)
            .map_err(nfs_error)
    }

    fn entry_attrs(&self, tree: &str, entry: &FsEntry) -> fattr3 {
        let id = self.ids.id(tree);
        if let Some(a) = self.pending_attrs(id) {
            return a;
        }
        attrs(id, entry.kind == FsKind::Folder, entry.size, entry.modified)
    }

    /// The attributes of an id (blocking unless it is buffered).
    fn getattr(&self, id: u64) -> NfsResult<fattr3> {
        if let Some(a) = self.pending_attrs(id) {
            return Ok(a);
        }
        let tree = self.path(id)?;
        let entry = self.stat(&tree)?.ok_or(nfsstat3::NFS3ERR_STALE)?;
        Ok(attrs(
            id,
            entry.kind == FsKind::Folder,
            entry.size,
            entry.modified,
        ))
    }

    /// The folder an id names (NOTDIR for a file).
    fn folder(&self, id: u64) -> NfsResult<String> {
        let tree = self.path(id)?;
        if self.pending().contains_key(&id) {
            return Err(nfsstat3::NFS3ERR_NOTDIR);
        }
        match self.stat(&tree)? {
            Some(e) if e.kind == FsKind::Folder => Ok(tree),
            Some(_) => Err(nfsstat3::NFS3ERR_NOTDIR),
            None => Err(nfsstat3::NFS3ERR_STALE),
        }
    }

    /// Whether a tree path exists, buffered or in the space.
    fn exists(&self, tree: &str) -> NfsResult<Option<FsKind>> {
        if let Some(id) = self.ids.known(tree) {
            if self.pending().contains_key(&id) {
                return Ok(Some(FsKind::File));
            }
        }
        Ok(self.stat(tree)?.map(|e| e.kind))
    }

    /// Applies `change` to the buffer of file `id`, reading the file first if it has none.
    fn change(&self, id: u64, change: impl FnOnce(&mut Vec<u8>)) -> NfsResult<fattr3> {
        if !self.pending().contains_key(&id) {
            let tree = self.path(id)?;
            let target = self.resolve(&tree);
            if target.top {
                return Err(nfsstat3::NFS3ERR_ISDIR);
            }
            let fs = target.space.file_system(Protocol::Nfs);
            let (bytes, modified) = match fs.stat(&target.path).map_err(nfs_error)? {
                Some(e) if e.kind == FsKind::Folder => return Err(nfsstat3::NFS3ERR_ISDIR),
                Some(e) => (fs.read(&target.path).map_err(nfs_error)?, e.modified),
                None => return Err(nfsstat3::NFS3ERR_STALE),
            };
            self.pending().entry(id).or_insert(Pending {
                bytes,
                touched: Instant::now(),
                modified,
                generation: 0,
            });
        }
        let mut pending = self.pending();
        let p = pending.get_mut(&id).ok_or(nfsstat3::NFS3ERR_STALE)?;
        change(&mut p.bytes);
        if p.bytes.len() > MAX_FILE_BYTES {
            p.bytes.truncate(MAX_FILE_BYTES);
            return Err(nfsstat3::NFS3ERR_FBIG);
        }
        p.touched = Instant::now();
        p.modified = SystemTime::now();
        p.generation += 1;
        Ok(attrs(id, false, p.bytes.len() as u64, p.modified))
    }

    /// Starts a buffer for a new, empty file.
    fn start(&self, tree: &str) -> fattr3 {
        let id = self.ids.id(tree);
        let now = SystemTime::now();
        self.pending().insert(
            id,
            Pending {
                bytes: Vec::new(),
                touched: Instant::now(),
                modified: now,
                generation: 1,
            },
        );
        attrs(id, false, 0, now)
    }

    /// Writes the buffer of `id` through the layer: one pass of the pipeline (blocking).
    fn flush(&self, id: u64) -> NfsResult<()> {
        let _flushing = self.flushing.lock().unwrap_or_else(|p| p.into_inner());
        let Some((bytes, generation)) = self
            .pending()
            .get(&id)
            .map(|p| (p.bytes.clone(), p.generation))
        else {
            return Ok(());
        };
        let Some(tree) = self.ids.path(id) else {
            self.pending().remove(&id);
            return Ok(());
        };
        let target = self.resolve(&tree);
        let fs = target.space.file_system(Protocol::Nfs);
        let opts = self.opts(&target.space);
        let written = fs.write(&target.path, bytes, &opts).map_err(nfs_error);
        let mut pending = self.pending();
        if written.is_err() || pending.get(&id).is_some_and(|p| p.generation == generation) {
            // A buffer the layer refuses is dropped: keeping it would retry forever.
            pending.remove(&id);
        }
        written.map(|_| ())
    }

    /// The buffered ids at `tree` or below it.
    fn pending_under(&self, tree: &str) -> Vec<u64> {
        let ids: Vec<u64> = self.pending().keys().copied().collect();
        ids.into_iter()
            .filter(|&id| self.ids.path(id).is_some_and(|p| is_under(&p, tree)))
            .collect()
    }

    fn check_writable(&self) -> NfsResult<()> {
        if self.settings.read_only {
            Err(nfsstat3::NFS3ERR_ROFS)
        } else {
            Ok(())
        }
    }

    /// The entries of a folder, sorted by name, with the other spaces at the root and the
    /// buffered new files (blocking).
    fn list(&self, tree: &str) -> NfsResult<Vec<(String, fattr3)>> {
        let target = self.resolve(tree);
        let fs = target.space.file_system(Protocol::Nfs);
        let mut out: Vec<(String, fattr3)> = Vec::new();
        if tree.is_empty() {
            let default = self.service.default_space().name().to_string();
            for space in self.service.spaces() {
                if space.name() == default {
                    continue;
                }
                let modified = space
                    .file_system(Protocol::Nfs)
                    .stat("")
                    .ok()
                    .flatten()
                    .map_or_else(SystemTime::now, |e| e.modified);
                let id = self.ids.id(space.name());
                out.push((space.name().to_string(), attrs(id, true, 0, modified)));
            }
        }
        for entry in fs.list(&target.path).map_err(nfs_error)? {
            if out.iter().any(|(name, _)| name == &entry.name) {
                continue;
            }
            let child = join(tree, &entry.name);
            out.push((entry.name.clone(), self.entry_attrs(&child, &entry)));
        }
        let buffered: Vec<(u64, String)> = {
            let ids: Vec<u64> = self.pending().keys().copied().collect();
            ids.into_iter()
                .filter_map(|id| self.ids.path(id).map(|p| (id, p)))
                .filter(|(_, p)| !p.is_empty() && parent_of(p) == tree)
                .collect()
        };
        for (id, path) in buffered {
            let name = path.rsplit('/').next().unwrap_or(&path).to_string();
            if out.iter().any(|(n, _)| n == &name) {
                continue;
            }
            if let Some(a) = self.pending_attrs(id) {
                out.push((name, a));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

#[async_trait]
impl NFSFileSystem for QuireNfs {
    /// Always read-write: a read-only export refuses each change itself (NFS3ERR_ROFS), as
    /// nfsserve's own read-only answer to RENAME is malformed (one `wcc_data` where the reply
    /// has two) and libnfs rejects it.
    fn capabilities(&self) -> VFSCapabilities {
        VFSCapabilities::ReadWrite
    }

    fn root_dir(&self) -> fileid3 {
        ROOT_ID
    }

    async fn lookup(&self, dirid: fileid3, filename: &filename3) -> NfsResult<fileid3> {
        let dir = self.inner.path(dirid)?;
        let name = std::str::from_utf8(filename).map_err(|_| nfsstat3::NFS3ERR_NOENT)?;
        match name {
            "." => return Ok(dirid),
            ".." => return Ok(self.inner.ids.id(parent_of(&dir))),
            _ => {}
        }
        let tree = join(&dir, name);
        self.blocking(move |inner| {
            inner.folder(dirid)?;
            match inner.exists(&tree)? {
                Some(_) => Ok(inner.ids.id(&tree)),
                None => Err(nfsstat3::NFS3ERR_NOENT),
            }
        })
        .await
    }

    async fn getattr(&self, id: fileid3) -> NfsResult<fattr3> {
        if let Some(a) = self.inner.pending_attrs(id) {
            return Ok(a);
        }
        self.blocking(move |inner| inner.getattr(id)).await
    }

    /// A size changes the file (through its buffer: one commit with the writes around it);
    /// mode, owner and times are accepted and ignored (git keeps none of them).
    async fn setattr(&self, id: fileid3, setattr: sattr3) -> NfsResult<fattr3> {
        self.inner.check_writable()?;
        self.blocking(move |inner| match setattr.size {
            set_size3::size(size) => {
                if size as usize > MAX_FILE_BYTES {
                    return Err(nfsstat3::NFS3ERR_FBIG);
                }
                inner.change(id, |bytes| bytes.resize(size as usize, 0))
            }
            set_size3::Void => inner.getattr(id),
        })
        .await
    }

    async fn read(&self, id: fileid3, offset: u64, count: u32) -> NfsResult<(Vec<u8>, bool)> {
        let slice = move |bytes: &[u8]| {
            let start = (offset as usize).min(bytes.len());
            let end = start.saturating_add(count as usize).min(bytes.len());
            (bytes[start..end].to_vec(), end >= bytes.len())
        };
        if let Some(p) = self.inner.pending().get(&id) {
            return Ok(slice(&p.bytes));
        }
        self.blocking(move |inner| {
            let tree = inner.path(id)?;
            let target = inner.resolve(&tree);
            if target.top {
                return Err(nfsstat3::NFS3ERR_ISDIR);
            }
            let fs = target.space.file_system(Protocol::Nfs);
            match fs.stat(&target.path).map_err(nfs_error)? {
                Some(e) if e.kind == FsKind::Folder => Err(nfsstat3::NFS3ERR_ISDIR),
                Some(_) => Ok(slice(&fs.read(&target.path).map_err(nfs_error)?)),
                None => Err(nfsstat3::NFS3ERR_STALE),
            }
        })
        .await
    }

    async fn write(&self, id: fileid3, offset: u64, data: &[u8]) -> NfsResult<fattr3> {
        self.inner.check_writable()?;
        let end = (offset as usize).saturating_add(data.len());
        if end > MAX_FILE_BYTES {
            return Err(nfsstat3::NFS3ERR_FBIG);
        }
        let data = data.to_vec();
        let write = move |bytes: &mut Vec<u8>| {
            let at = offset as usize;
            if bytes.len() < end {
                bytes.resize(end, 0);
            }
            bytes[at..end].copy_from_slice(&data);
        };
        if self.inner.pending().contains_key(&id) {
            return self.inner.change(id, write);
        }
        self.blocking(move |inner| inner.change(id, write)).await
    }

    async fn create(
        &self,
        dirid: fileid3,
        filename: &filename3,
        attr: sattr3,
    ) -> NfsResult<(fileid3, fattr3)> {
        self.inner.check_writable()?;
        let name = name_of(filename)?.to_string();
        self.blocking(move |inner| {
            let dir = inner.folder(dirid)?;
            let tree = join(&dir, &name);
            match inner.exists(&tree)? {
                Some(FsKind::Folder) => Err(nfsstat3::NFS3ERR_ISDIR),
                Some(FsKind::File) => {
                    let id = inner.ids.id(&tree);
                    let a = match attr.size {
                        set_size3::size(size) if size as usize <= MAX_FILE_BYTES => {
                            inner.change(id, |b| b.resize(size as usize, 0))?
                        }
                        set_size3::size(_) => return Err(nfsstat3::NFS3ERR_FBIG),
                        set_size3::Void => inner.getattr(id)?,
                    };
                    Ok((id, a))
                }
                None => {
                    if dir.is_empty() && inner.service.space(&name).is_some() {
                        return Err(nfsstat3::NFS3ERR_EXIST);
                    }
                    let a = inner.start(&tree);
                    Ok((a.fileid, a))
                }
            }
        })
        .await
    }

    async fn create_exclusive(&self, dirid: fileid3, filename: &filename3) -> NfsResult<fileid3> {
        self.inner.check_writable()?;
        let name = name_of(filename)?.to_string();
        self.blocking(move |inner| {
            let dir = inner.folder(dirid)?;
            let tree = join(&dir, &name);
            if inner.exists(&tree)?.is_some()
                || (dir.is_empty() && inner.service.space(&name).is_some())
            {
                return Err(nfsstat3::NFS3ERR_EXIST);
            }
            Ok(inner.start(&tree).fileid)
        })
        .await
    }

    async fn mkdir(&self, dirid: fileid3, dirname: &filename3) -> NfsResult<(fileid3, fattr3)> {
        self.inner.check_writable()?;
        let name = name_of(dirname)?.to_string();
        self.blocking(move |inner| {
            let dir = inner.folder(dirid)?;
            let tree = join(&dir, &name);
            if inner.exists(&tree)?.is_some()
                || (dir.is_empty() && inner.service.space(&name).is_some())
            {
                return Err(nfsstat3::NFS3ERR_EXIST);
            }
            let target = inner.resolve(&tree);
            let fs = target.space.file_system(Protocol::Nfs);
            fs.create_folder(&target.path).map_err(nfs_error)?;
            let entry = fs
                .stat(&target.path)
                .map_err(nfs_error)?
                .ok_or(nfsstat3::NFS3ERR_IO)?;
            let id = inner.ids.id(&tree);
            Ok((id, attrs(id, true, 0, entry.modified)))
        })
        .await
    }

    /// REMOVE and RMDIR both: a file, or an empty folder (NOTEMPTY otherwise).
    async fn remove(&self, dirid: fileid3, filename: &filename3) -> NfsResult<()> {
        self.inner.check_writable()?;
        let name = name_of(filename)?.to_string();
        self.blocking(move |inner| {
            let dir = inner.folder(dirid)?;
            let tree = join(&dir, &name);
            let target = inner.resolve(&tree);
            if target.top {
                return Err(nfsstat3::NFS3ERR_ACCES);
            }
            // What was written and not committed is dropped, not committed and deleted.
            let buffered = inner.pending_under(&tree);
            {
                let mut pending = inner.pending();
                for id in &buffered {
                    pending.remove(id);
                }
            }
            let fs = target.space.file_system(Protocol::Nfs);
            match fs.stat(&target.path).map_err(nfs_error)? {
                None if !buffered.is_empty() => {}
                None => return Err(nfsstat3::NFS3ERR_NOENT),
                Some(e) => {
                    if e.kind == FsKind::Folder
                        && !fs.list(&target.path).map_err(nfs_error)?.is_empty()
                    {
                        return Err(nfsstat3::NFS3ERR_NOTEMPTY);
                    }
                    fs.delete(&target.path, &inner.opts(&target.space))
                        .map_err(nfs_error)?;
                }
            }
            inner.ids.forget(&tree);
            Ok(())
        })
        .await
    }

    /// Through the layer: a page or a folder of pages moves through the restructuring engine
    /// and every link to it is rewritten (one commit), as `POST /rename` does.
    async fn rename(
        &self,
        from_dirid: fileid3,
        from_filename: &filename3,
        to_dirid: fileid3,
        to_filename: &filename3,
    ) -> NfsResult<()> {
        self.inner.check_writable()?;
        let (from_name, to_name) = (
            name_of(from_filename)?.to_string(),
            name_of(to_filename)?.to_string(),
        );
        self.blocking(move |inner| {
            let from = join(&inner.folder(from_dirid)?, &from_name);
            let to = join(&inner.folder(to_dirid)?, &to_name);
            if from == to {
                return Ok(());
            }
            let (source, target) = (inner.resolve(&from), inner.resolve(&to));
            if source.top || target.top {
                return Err(nfsstat3::NFS3ERR_ACCES);
            }
            if source.space.name() != target.space.name() {
                // Between spaces is between repositories: no move keeps the links.
                return Err(nfsstat3::NFS3ERR_XDEV);
            }
            let fs = source.space.file_system(Protocol::Nfs);
            let on_disk = fs.stat(&source.path).map_err(nfs_error)?;
            let from_id = inner.ids.known(&from);
            let buffered = from_id.is_some_and(|id| inner.pending().contains_key(&id));
            match fs.stat(&target.path).map_err(nfs_error)? {
                Some(e) if e.kind == FsKind::Folder => {
                    if on_disk.as_ref().is_none_or(|s| s.kind != FsKind::Folder) {
                        return Err(nfsstat3::NFS3ERR_ISDIR);
                    }
                    if !fs.list(&target.path).map_err(nfs_error)?.is_empty() {
                        return Err(nfsstat3::NFS3ERR_NOTEMPTY);
                    }
                }
                Some(_) if on_disk.as_ref().is_some_and(|s| s.kind == FsKind::Folder) => {
                    return Err(nfsstat3::NFS3ERR_NOTDIR);
                }
                _ => {}
            }
            // A buffered write to the target is replaced by the rename.
            for id in inner.pending_under(&to) {
                inner.pending().remove(&id);
            }
            if on_disk.is_none() && buffered {
                // A file written here and not committed yet: its buffer moves, and is
                // committed once, at its new path.
                if fs
                    .stat(parent_of(&target.path))
                    .map_err(nfs_error)?
                    .is_none()
                {
                    return Err(nfsstat3::NFS3ERR_NOENT);
                }
                inner.ids.rename(&from, &to);
                return Ok(());
            }
            if on_disk.is_none() {
                return Err(nfsstat3::NFS3ERR_NOENT);
            }
            for id in inner.pending_under(&from) {
                inner.flush(id)?;
            }
            fs.rename(&source.path, &target.path, true, &inner.opts(&source.space))
                .map_err(nfs_error)?;
            inner.ids.rename(&from, &to);
            Ok(())
        })
        .await
    }

    /// Cookies are file ids: the listing is sorted by name, and a listing resumes after the
    /// entry whose id the cookie is (or, if that entry is gone, after its name).
    async fn readdir(
        &self,
        dirid: fileid3,
        start_after: fileid3,
        max_entries: usize,
    ) -> NfsResult<ReadDirResult> {
        self.blocking(move |inner| {
            let dir = inner.folder(dirid)?;
            let all = inner.list(&dir)?;
            let start = if start_after == 0 {
                0
            } else if let Some(i) = all.iter().position(|(_, a)| a.fileid == start_after) {
                i + 1
            } else {
                let name = inner
                    .ids
                    .path(start_after)
                    .filter(|p| parent_of(p) == dir)
                    .ok_or(nfsstat3::NFS3ERR_BAD_COOKIE)?;
                let name = name.rsplit('/').next().unwrap_or(&name).to_string();
                all.iter().position(|(n, _)| *n > name).unwrap_or(all.len())
            };
            let entries: Vec<DirEntry> = all[start..]
                .iter()
                .take(max_entries)
                .map(|(name, a)| DirEntry {
                    fileid: a.fileid,
                    name: name.as_bytes().into(),
                    attr: *a,
                })
                .collect();
            let end = start + entries.len() >= all.len();
            Ok(ReadDirResult { entries, end })
        })
        .await
    }

    async fn symlink(
        &self,
        _dirid: fileid3,
        _linkname: &filename3,
        _symlink: &nfspath3,
        _attr: &sattr3,
    ) -> NfsResult<(fileid3, fattr3)> {
        Err(nfsstat3::NFS3ERR_NOTSUPP)
    }

    async fn readlink(&self, _id: fileid3) -> NfsResult<nfspath3> {
        Err(nfsstat3::NFS3ERR_NOTSUPP)
    }
}

#[cfg(test)]
mod tests;
