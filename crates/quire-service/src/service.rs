//! The set of spaces a server hosts, and creating a new knowledge root.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use quire_store::HistoryOptions;

use crate::error::{Error, Result};
use crate::settings::{Access, SpaceSettings};
use crate::space::Space;

/// Every space of one server; the first is the default (spec: routing falls back to it).
pub struct Service {
    spaces: Vec<Arc<Space>>,
}

impl Service {
    /// Opens every space for writing, as a server.
    pub fn open(settings: Vec<SpaceSettings>) -> Result<Service> {
        Service::open_as(settings, &Access::serve())
    }

    /// Opens every space with the given access.
    pub fn open_as(settings: Vec<SpaceSettings>, access: &Access) -> Result<Service> {
        if settings.is_empty() {
            return Err(Error::bad_request("a server needs at least one space"));
        }
        let mut spaces: Vec<Arc<Space>> = Vec::with_capacity(settings.len());
        for s in settings {
            if spaces.iter().any(|sp| sp.name() == s.name) {
                return Err(Error::bad_request(format!(
                    "two spaces are named {:?}; space names must be unique",
                    s.name
                )));
            }
            spaces.push(Arc::new(Space::open_as(s, access)?));
        }
        Ok(Service { spaces })
    }

    /// Closes the service of a process that exits next: every space closes as when dropped
    /// (queued commits made, `.git/index` saved, indexes closed, writer lock released),
    /// except that the memory of the link models is left to the operating system. Freeing a
    /// large vault's many small allocations one by one would take a short command longer
    /// than a good part of its work.
    pub fn close_for_exit(self) {
        let models: Vec<_> = self.spaces.iter().map(|s| s.link_model()).collect();
        drop(self);
        std::mem::forget(models);
    }

    pub fn default_space(&self) -> &Arc<Space> {
        &self.spaces[0]
    }

    pub fn space(&self, name: &str) -> Option<&Arc<Space>> {
        self.spaces.iter().find(|s| s.name() == name)
    }

    pub fn spaces(&self) -> &[Arc<Space>] {
        &self.spaces
    }

    /// Records in every space's writer lock where this server answers.
    pub fn announce_api(&self, url: &str) -> Result<()> {
        for space in &self.spaces {
            space.announce_api(url)?;
        }
        Ok(())
    }

    /// Commits everything queued by async batching (at shutdown).
    pub fn flush(&self) {
        for space in &self.spaces {
            if let Err(e) = space.flush() {
                tracing::error!("flushing space {}: {e}", space.name());
            }
        }
    }
}

/// Who holds the writer lock of the knowledge root `dir` (a server, with the address it
/// answers at, or a command), if anyone: a process that wants to work on the root talks to
/// that server instead, or waits. Looking changes nothing on disk.
pub fn root_holder(dir: &Path) -> Result<Option<quire_store::LockHolder>> {
    Ok(quire_store::WriterLock::holder(dir)?)
}

/// What `quire init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initialised {
    pub root: PathBuf,
    pub wrote_config: bool,
}

/// Creates a knowledge root: the folder, `.quire/config.toml` with commented defaults, and a
/// git repository whose first commit holds what the folder contains. Safe to run on an
/// existing root: an existing configuration is kept.
pub fn init_root(dir: &Path) -> Result<Initialised> {
    std::fs::create_dir_all(dir.join(".quire"))
        .map_err(|e| Error::bad_request(format!("cannot create {}: {e}", dir.display())))?;
    let config = dir.join(".quire").join("config.toml");
    let wrote_config = !config.exists();
    if wrote_config {
        std::fs::write(&config, quire_config::default_config_toml())
            .map_err(|e| Error::bad_request(format!("cannot write {}: {e}", config.display())))?;
    }
    let lock = quire_store::WriterLock::acquire(dir, "init")?;
    let root = quire_store::Root::open(dir, &lock)?;
    let history = quire_store::History::open(
        &root,
        &lock,
        HistoryOptions {
            async_commit: false,
            ..HistoryOptions::default()
        },
    )?;
    history.flush()?;
    Ok(Initialised {
        root: root.dir().to_path_buf(),
        wrote_config,
    })
}
