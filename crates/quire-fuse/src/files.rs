//! What a mount calls: the service's file-system layer, in this process or in the server that
//! holds the root.

use std::sync::Arc;

use quire_service::{FileSystem, FsEntry, Protocol, Result, Space, WriteOptions};

/// The calls a mount makes, each one call of [`quire_service::FileSystem`] as protocol
/// `fuse`: in this process ([`SpaceFiles`]), or relayed to the server that holds the root
/// (`quire mount` on a held root). Paths are space-relative, `""` is the top folder.
pub trait Files: Send + Sync + 'static {
    fn stat(&self, path: &str) -> Result<Option<FsEntry>>;
    fn list(&self, folder: &str) -> Result<Vec<FsEntry>>;
    fn read(&self, path: &str) -> Result<Vec<u8>>;
    /// The whole new content of a file whose folder exists.
    fn write(&self, path: &str, bytes: Vec<u8>) -> Result<()>;
    fn create_folder(&self, path: &str) -> Result<()>;
    /// A file, or a folder with everything below it.
    fn delete(&self, path: &str) -> Result<()>;
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()>;
}

/// A space of this process; writes authored by `actor` (`None`: `fuse`).
pub struct SpaceFiles {
    space: Arc<Space>,
    actor: Option<String>,
}

impl SpaceFiles {
    pub fn new(space: Arc<Space>, actor: Option<String>) -> SpaceFiles {
        SpaceFiles { space, actor }
    }

    fn fs(&self) -> FileSystem<'_> {
        self.space.file_system(Protocol::Fuse)
    }

    fn options(&self) -> WriteOptions {
        self.fs().options(self.actor.as_deref())
    }
}

impl Files for SpaceFiles {
    fn stat(&self, path: &str) -> Result<Option<FsEntry>> {
        self.fs().stat(path)
    }

    fn list(&self, folder: &str) -> Result<Vec<FsEntry>> {
        self.fs().list(folder)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>> {
        self.fs().read(path)
    }

    fn write(&self, path: &str, bytes: Vec<u8>) -> Result<()> {
        self.fs().write(path, bytes, &self.options()).map(|_| ())
    }

    fn create_folder(&self, path: &str) -> Result<()> {
        self.fs().create_folder(path)
    }

    fn delete(&self, path: &str) -> Result<()> {
        self.fs().delete(path, &self.options())
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.fs().rename(from, to, overwrite, &self.options())
    }
}
