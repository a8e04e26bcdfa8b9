//! A space as a mounted folder (FUSE, with `fuser`; no libfuse needed, `fusermount3` mounts).
//! Every change made in the folder is a call of the service's file-system layer
//! ([`quire_service::FileSystem`]): a file written and closed is one pass of the pipeline, a
//! rename of a page or folder a restructuring that keeps every link, editors' temp files stay
//! in memory. The calls go to the process that holds the root: this one ([`SpaceFiles`], for
//! `quire mount` of a free root or `quire serve` with `[protocols.fuse] mountpoint`), or the
//! server holding it, through any [`Files`] that relays them (`quire mount` of a held root).

mod files;
mod fs;
mod inodes;

use std::io;
use std::path::Path;
use std::sync::Arc;

use fuser::{BackgroundSession, Config, MountOption};
use quire_service::Space;

pub use files::{Files, SpaceFiles};
pub use fs::MAX_FILE_BYTES;

/// A mounted space; [`Mounted::unmount`] writes what is open and unmounts.
pub struct Mounted {
    session: Option<BackgroundSession>,
    shared: Arc<fs::Shared>,
}

/// Mounts `space` at `mountpoint` (an existing, empty folder). Writes are authored by `actor`
/// (`None`: `fuse`).
pub fn mount(space: Arc<Space>, mountpoint: &Path, actor: Option<String>) -> io::Result<Mounted> {
    mount_files(Box::new(SpaceFiles::new(space, actor)), mountpoint)
}

/// Mounts `files` at `mountpoint` (an existing, empty folder).
pub fn mount_files(files: Box<dyn Files>, mountpoint: &Path) -> io::Result<Mounted> {
    let shared = Arc::new(fs::Shared::new(files));
    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::FSName("quire".into()),
        MountOption::Subtype("quire".into()),
        MountOption::DefaultPermissions,
        MountOption::NoExec,
    ];
    let session = fuser::spawn_mount(fs::Mount(shared.clone()), mountpoint, &config)?;
    Ok(Mounted {
        session: Some(session),
        shared,
    })
}

impl Mounted {
    /// Writes every open file that holds unwritten bytes, then unmounts: nothing is left
    /// pending.
    pub fn unmount(mut self) -> io::Result<()> {
        self.shared.flush_all();
        match self.session.take() {
            Some(session) => session.umount_and_join(),
            None => Ok(()),
        }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            self.shared.flush_all();
            if let Err(e) = session.umount_and_join() {
                tracing::error!("unmounting failed: {e}");
            }
        }
    }
}
