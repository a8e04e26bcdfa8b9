//! dav-server's file-system trait over the service's [`FileSystem`] layer: every call runs on a
//! blocking thread (a write is a pipeline pass, a move a restructuring) and reaches the space
//! the path names.

use std::sync::Arc;
use std::time::SystemTime;

use dav_server::davpath::DavPath;
use dav_server::fs::{
    DavDirEntry, DavFile, DavMetaData, DavProp, FsError, FsFuture, FsResult, FsStream,
    GuardedFileSystem, OpenOptions, ReadDirMeta,
};
use futures_util::FutureExt;
use quire_service::{ErrorCode, FsEntry, FsKind, Protocol, Service, Space};

use crate::buffer::Meta;
use crate::calls::Caller;
use crate::calls::{blocking, fs_error};
use crate::props::Props;

/// The spaces of a service as one WebDAV tree: the default space at `/`, each other space
/// under `/<name>/` (a space's name hides a top folder of the default space of the same name).
#[derive(Clone)]
pub struct QuireFs {
    service: Arc<Service>,
    props: Arc<Props>,
}

impl QuireFs {
    pub fn new(service: Arc<Service>) -> QuireFs {
        QuireFs {
            service,
            props: Arc::default(),
        }
    }
}

/// A path resolved to its space.
struct Target {
    space: Arc<Space>,
    /// The path inside the space (`""`: its top folder).
    path: String,
    /// The path is `/`: the default space's top, which also lists the other spaces.
    top: bool,
}

impl QuireFs {
    fn resolve(&self, path: &DavPath, caller: &Caller) -> FsResult<Target> {
        let bytes = path.as_bytes();
        let text = std::str::from_utf8(bytes).map_err(|_| FsError::NotFound)?;
        let text = text.trim_matches('/');
        let (first, rest) = text.split_once('/').unwrap_or((text, ""));
        let default = self.service.default_space();
        let (space, inner) = match self.service.space(first) {
            Some(space) if !first.is_empty() && space.name() != default.name() => {
                (space, rest.to_string())
            }
            _ => (default.clone(), text.to_string()),
        };
        if let Some(only) = &caller.space {
            if only != space.name() {
                return Err(FsError::Forbidden);
            }
        }
        Ok(Target {
            space,
            top: text.is_empty(),
            path: inner,
        })
    }

    /// The other spaces, shown as folders at `/`.
    fn other_spaces(&self, caller: &Caller) -> Vec<FsEntry> {
        let default = self.service.default_space().name().to_string();
        self.service
            .spaces()
            .into_iter()
            .filter(|s| s.name() != default)
            .filter(|s| caller.space.as_deref().is_none_or(|only| only == s.name()))
            .map(|s| FsEntry {
                path: s.name().to_string(),
                name: s.name().to_string(),
                kind: FsKind::Folder,
                size: 0,
                modified: SystemTime::now(),
                scratch: false,
            })
            .collect()
    }
}

struct DirEntry(FsEntry);

impl DavDirEntry for DirEntry {
    fn name(&self) -> Vec<u8> {
        self.0.name.as_bytes().to_vec()
    }
    fn metadata(&self) -> FsFuture<'_, Box<dyn DavMetaData>> {
        let meta: Box<dyn DavMetaData> = Box::new(Meta::of(&self.0));
        Box::pin(futures_util::future::ready(Ok(meta)))
    }
}

impl GuardedFileSystem<Caller> for QuireFs {
    fn open<'a>(
        &'a self,
        path: &'a DavPath,
        options: OpenOptions,
        caller: &'a Caller,
    ) -> FsFuture<'a, Box<dyn DavFile>> {
        async move {
            let target = self.resolve(path, caller)?;
            if target.path.is_empty() {
                return Err(FsError::Forbidden);
            }
            let caller = caller.clone();
            blocking(move || {
                let fs = target.space.file_system(Protocol::WebDav);
                let existing = fs.stat(&target.path).map_err(fs_error)?;
                match &existing {
                    Some(e) if e.kind == FsKind::Folder => return Err(FsError::Forbidden),
                    Some(_) if options.create_new => return Err(FsError::Exists),
                    None if !(options.create || options.create_new) => {
                        return Err(FsError::NotFound)
                    }
                    None => {
                        // A new file needs its folder (dav-server answers 409).
                        let parent = target.path.rsplit_once('/').map_or("", |(p, _)| p);
                        match fs.stat(parent).map_err(fs_error)? {
                            Some(p) if p.kind == FsKind::Folder => {}
                            _ => return Err(FsError::NotFound),
                        }
                    }
                    _ => {}
                }
                // A write that keeps what was there reads it first (ranges, appends).
                let keeps = existing.is_some() && !options.truncate;
                let bytes = if keeps || !options.write {
                    match fs.read(&target.path) {
                        Ok(bytes) => bytes,
                        Err(e) if e.code == ErrorCode::NotFound => Vec::new(),
                        Err(e) => return Err(fs_error(e)),
                    }
                } else {
                    Vec::new()
                };
                let modified = existing
                    .as_ref()
                    .map_or_else(SystemTime::now, |e| e.modified);
                let file: Box<dyn DavFile> = Box::new(crate::file::OpenFile::new(
                    target.space.clone(),
                    target.path,
                    caller,
                    bytes,
                    modified,
                    options.write,
                    options.append,
                ));
                Ok(file)
            })
            .await
        }
        .boxed()
    }

    fn read_dir<'a>(
        &'a self,
        path: &'a DavPath,
        _meta: ReadDirMeta,
        caller: &'a Caller,
    ) -> FsFuture<'a, FsStream<Box<dyn DavDirEntry>>> {
        async move {
            let target = self.resolve(path, caller)?;
            let mut extra = if target.top {
                self.other_spaces(caller)
            } else {
                Vec::new()
            };
            let entries = blocking(move || {
                let fs = target.space.file_system(Protocol::WebDav);
                fs.list(&target.path).map_err(fs_error)
            })
            .await?;
            let shown: Vec<FsEntry> = entries
                .into_iter()
                .filter(|e| !extra.iter().any(|s| s.name == e.name))
                .collect();
            extra.extend(shown);
            let items: Vec<FsResult<Box<dyn DavDirEntry>>> = extra
                .into_iter()
                .map(|e| Ok(Box::new(DirEntry(e)) as Box<dyn DavDirEntry>))
                .collect();
            let stream: FsStream<Box<dyn DavDirEntry>> =
                Box::pin(futures_util::stream::iter(items));
            Ok(stream)
        }
        .boxed()
    }

    fn metadata<'a>(
        &'a self,
        path: &'a DavPath,
        caller: &'a Caller,
    ) -> FsFuture<'a, Box<dyn DavMetaData>> {
        async move {
            let target = self.resolve(path, caller)?;
            let entry = blocking(move || {
                let fs = target.space.file_system(Protocol::WebDav);
                fs.stat(&target.path).map_err(fs_error)
            })
            .await?;
            let entry = entry.ok_or(FsError::NotFound)?;
            let meta: Box<dyn DavMetaData> = Box::new(Meta::of(&entry));
            Ok(meta)
        }
        .boxed()
    }

    fn create_dir<'a>(&'a self, path: &'a DavPath, caller: &'a Caller) -> FsFuture<'a, ()> {
        self.change(path, caller, |fs, path, _| fs.create_folder(path))
    }

    fn remove_dir<'a>(&'a self, path: &'a DavPath, caller: &'a Caller) -> FsFuture<'a, ()> {
        self.remove(path, caller)
    }

    fn remove_file<'a>(&'a self, path: &'a DavPath, caller: &'a Caller) -> FsFuture<'a, ()> {
        self.remove(path, caller)
    }

    fn rename<'a>(
        &'a self,
        from: &'a DavPath,
        to: &'a DavPath,
        caller: &'a Caller,
    ) -> FsFuture<'a, ()> {
        self.change_two(from, to, caller, false, |fs, from, to, opts| {
            fs.rename(from, to, false, opts)
        })
    }

    fn copy<'a>(
        &'a self,
        from: &'a DavPath,
        to: &'a DavPath,
        caller: &'a Caller,
    ) -> FsFuture<'a, ()> {
        // dav-server removed an existing target first when `Overwrite` allowed it.
        self.change_two(from, to, caller, true, |fs, from, to, opts| {
            fs.copy(from, to, true, opts)
        })
    }

    fn have_props<'a>(
        &'a self,
        path: &'a DavPath,
        caller: &'a Caller,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send + 'a>> {
        let has = self
            .resolve(path, caller)
            .is_ok_and(|t| self.props.has(t.space.name(), &t.path));
        Box::pin(futures_util::future::ready(has))
    }

    fn patch_props<'a>(
        &'a self,
        path: &'a DavPath,
        patch: Vec<(bool, DavProp)>,
        caller: &'a Caller,
    ) -> FsFuture<'a, Vec<(http::StatusCode, DavProp)>> {
        async move {
            let target = self.existing(path, caller).await?;
            Ok(self.props.patch(target.space.name(), &target.path, patch))
        }
        .boxed()
    }

    fn get_props<'a>(
        &'a self,
        path: &'a DavPath,
        do_content: bool,
        caller: &'a Caller,
    ) -> FsFuture<'a, Vec<DavProp>> {
        async move {
            let target = self.resolve(path, caller)?;
            Ok(self
                .props
                .all(target.space.name(), &target.path, do_content))
        }
        .boxed()
    }

    fn get_prop<'a>(
        &'a self,
        path: &'a DavPath,
        prop: DavProp,
        caller: &'a Caller,
    ) -> FsFuture<'a, Vec<u8>> {
        async move {
            let target = self.resolve(path, caller)?;
            self.props
                .one(target.space.name(), &target.path, &prop)
                .ok_or(FsError::NotFound)
        }
        .boxed()
    }

    fn get_quota<'a>(&'a self, _caller: &'a Caller) -> FsFuture<'a, (u64, Option<u64>)> {
        Box::pin(futures_util::future::ready(Err(FsError::NotImplemented)))
    }
}

type Change = fn(
    &quire_service::FileSystem<'_>,
    &str,
    &quire_service::WriteOptions,
) -> quire_service::Result<()>;
type ChangeTwo = fn(
    &quire_service::FileSystem<'_>,
    &str,
    &str,
    &quire_service::WriteOptions,
) -> quire_service::Result<()>;

impl QuireFs {
    fn change<'a>(
        &'a self,
        path: &'a DavPath,
        caller: &'a Caller,
        call: Change,
    ) -> FsFuture<'a, ()> {
        async move {
            let target = self.resolve(path, caller)?;
            let actor = caller.actor.clone();
            blocking(move || {
                let fs = target.space.file_system(Protocol::WebDav);
                let opts = fs.options(actor.as_deref());
                call(&fs, &target.path, &opts).map_err(fs_error)
            })
            .await
        }
        .boxed()
    }

    /// A COPY of a file over an existing file, or a MOVE of an editor's temp file over the
    /// page it saves: one write of the target, where dav-server would delete the target
    /// first and commit twice. `Ok(false)` when the request is not one of those (dav-server
    /// answers it as usual).
    pub(crate) async fn write_over(
        &self,
        from: &DavPath,
        to: &DavPath,
        copy: bool,
        caller: &Caller,
    ) -> FsResult<bool> {
        let source = self.resolve(from, caller)?;
        let target = self.resolve(to, caller)?;
        if source.space.name() != target.space.name() || source.path.is_empty() {
            return Ok(false);
        }
        let actor = caller.actor.clone();
        let (space, from_path, to_path) = (
            source.space.clone(),
            source.path.clone(),
            target.path.clone(),
        );
        let done = blocking(move || {
            let fs = space.file_system(Protocol::WebDav);
            let (Some(src), Some(dst)) = (
                fs.stat(&from_path).map_err(fs_error)?,
                fs.stat(&to_path).map_err(fs_error)?,
            ) else {
                return Ok(false);
            };
            let save = src.scratch && !quire_service::is_scratch(&dst.name);
            if src.kind != FsKind::File || dst.kind != FsKind::File || !(copy || save) {
                return Ok(false);
            }
            let opts = fs.options(actor.as_deref());
            if copy {
                fs.copy(&from_path, &to_path, true, &opts)
                    .map_err(fs_error)?;
            } else {
                fs.rename(&from_path, &to_path, true, &opts)
                    .map_err(fs_error)?;
            }
            Ok(true)
        })
        .await?;
        if done {
            self.props
                .carry(source.space.name(), &source.path, &target.path, copy);
        }
        Ok(done)
    }

    /// A path that exists, resolved.
    async fn existing(&self, path: &DavPath, caller: &Caller) -> FsResult<Target> {
        let target = self.resolve(path, caller)?;
        let (space, inner) = (target.space.clone(), target.path.clone());
        let found = blocking(move || {
            space
                .file_system(Protocol::WebDav)
                .stat(&inner)
                .map_err(fs_error)
        })
        .await?;
        found.map(|_| target).ok_or(FsError::NotFound)
    }

    fn remove<'a>(&'a self, path: &'a DavPath, caller: &'a Caller) -> FsFuture<'a, ()> {
        async move {
            self.change(path, caller, |fs, path, opts| fs.delete(path, opts))
                .await?;
            if let Ok(target) = self.resolve(path, caller) {
                self.props.forget(target.space.name(), &target.path);
            }
            Ok(())
        }
        .boxed()
    }

    fn change_two<'a>(
        &'a self,
        from: &'a DavPath,
        to: &'a DavPath,
        caller: &'a Caller,
        copy: bool,
        call: ChangeTwo,
    ) -> FsFuture<'a, ()> {
        async move {
            let source = self.resolve(from, caller)?;
            let target = self.resolve(to, caller)?;
            if source.space.name() != target.space.name() {
                // Between spaces is between repositories: no move keeps the links.
                return Err(FsError::IsRemote);
            }
            let actor = caller.actor.clone();
            let (space, from_path, to_path) = (
                source.space.clone(),
                source.path.clone(),
                target.path.clone(),
            );
            blocking(move || {
                let fs = space.file_system(Protocol::WebDav);
                let opts = fs.options(actor.as_deref());
                call(&fs, &from_path, &to_path, &opts).map_err(fs_error)
            })
            .await?;
            self.props
                .carry(source.space.name(), &source.path, &target.path, copy);
            Ok(())
        }
        .boxed()
    }
}
