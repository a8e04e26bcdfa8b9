//! The set of spaces a server hosts, and creating a new knowledge root.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use quire_config::Config;
use quire_store::{HistoryOptions, Strategy};

use crate::error::{Error, Result};
use crate::space::{AssetRules, Space, SpaceSettings};

/// Every space of one server; the first is the default (spec: routing falls back to it).
pub struct Service {
    spaces: Vec<Arc<Space>>,
}

impl Service {
    pub fn open(settings: Vec<SpaceSettings>) -> Result<Service> {
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
            spaces.push(Arc::new(Space::open(s)?));
        }
        Ok(Service { spaces })
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

    /// Commits everything queued by async batching (at shutdown).
    pub fn flush(&self) {
        for space in &self.spaces {
            if let Err(e) = space.history().flush() {
                tracing::error!("flushing space {}: {e}", space.name());
            }
        }
    }
}

/// The name of the space served from the main root.
pub const DEFAULT_SPACE: &str = "default";

/// Settings of every space from the configuration of the main root: the main root first,
/// then each `[[spaces]]` entry (relative roots are relative to the main root).
pub fn settings_from_config(root: &Path, config: &Config) -> Vec<SpaceSettings> {
    let v = &config.versioning;
    let history = HistoryOptions {
        strategy: match v.strategy {
            quire_config::VersioningStrategy::Git => Strategy::Git,
            quire_config::VersioningStrategy::Cow => Strategy::Cow,
            quire_config::VersioningStrategy::None => Strategy::None,
        },
        async_commit: v.async_commit,
        batch_window: Duration::from_millis(v.batch_window_ms),
        batch_max_size: (v.batch_max_size as usize).max(1),
        max_versions: (v.max_versions as usize).max(1),
    };
    let assets = AssetRules {
        max_file_size: config.assets.max_file_size.bytes(),
        allowed_types: config.assets.allowed_types.clone(),
    };
    let mut out = vec![SpaceSettings {
        name: DEFAULT_SPACE.to_string(),
        root: root.to_path_buf(),
        history: history.clone(),
        assets: assets.clone(),
        refactor: config.refactor.clone(),
        claims: config.claims.clone(),
    }];
    for s in &config.spaces {
        let dir = PathBuf::from(&s.root);
        out.push(SpaceSettings {
            name: s.name.clone(),
            root: if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            },
            history: history.clone(),
            assets: assets.clone(),
            refactor: config.refactor.clone(),
            claims: config.claims.clone(),
        });
    }
    out
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
    let root = quire_store::Root::open(dir)?;
    let history = quire_store::History::open(
        &root,
        HistoryOptions {
            strategy: Strategy::Git,
            async_commit: false,
            batch_window: Duration::from_millis(200),
            batch_max_size: 50,
            max_versions: 100,
        },
    )?;
    history.flush()?;
    Ok(Initialised {
        root: root.dir().to_path_buf(),
        wrote_config,
    })
}
