//! Raw moves: files moved without their links being rewritten — seen on disk by the watcher
//! (`via: watcher`), or renamed with relinking switched off (`via: links-kept`). They are kept
//! as data in `.quire/state/raw-moves.json` so the links to the old paths can be repaired later
//! (a `relinks` manifest).

use quire_vault::PagePath;
use serde::{Deserialize, Serialize};

use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// Where raw moves live (DECISIONS §2, §4).
pub const RAW_MOVES_PATH: &str = ".quire/state/raw-moves.json";

/// How a raw move happened (restructuring spec, "Raw move").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// A protocol rename (WebDAV, S3, NFS …).
    Rename,
    /// A rename that asked not to relink.
    LinksKept,
    /// A move seen on disk by the watcher.
    Watcher,
    /// A file protocol's move that was no rename: a copy, then a delete of the source
    /// (S3's only way to move; any protocol's client may do the same).
    S3,
    #[serde(rename = "webdav")]
    WebDav,
    Nfs,
    Fuse,
}

/// One raw move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawMove {
    pub from: String,
    pub to: String,
    pub actor: String,
    /// RFC 3339.
    pub at: String,
    pub via: Via,
}

impl SpaceCore {
    /// Records moves made without relinking. Never fails the change that made them: the
    /// record is bookkeeping, so a write error is logged.
    pub(crate) fn record_raw_moves(&self, moves: &[(PagePath, PagePath)], actor: &str, via: Via) {
        if moves.is_empty() {
            return;
        }
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let result = self.with_raw_moves(|list| {
            for (from, to) in moves {
                list.push(RawMove {
                    from: from.to_string(),
                    to: to.to_string(),
                    actor: actor.to_string(),
                    at: at.clone(),
                    via,
                });
            }
        });
        if let Err(e) = result {
            tracing::error!("recording raw moves failed: {e}");
        }
    }

    /// Every recorded raw move, oldest first.
    pub(crate) fn raw_moves(&self) -> Result<Vec<RawMove>> {
        self.with_raw_moves(|list| list.clone())
    }

    /// Drops the raw moves `keep` refuses (nothing references their old paths any more).
    pub(crate) fn prune_raw_moves(&self, keep: &dyn Fn(&RawMove) -> bool) -> Result<()> {
        self.with_raw_moves(|list| list.retain(|m| keep(m)))
    }

    fn with_raw_moves<T>(&self, change: impl FnOnce(&mut Vec<RawMove>) -> T) -> Result<T> {
        let _guard = self.state_lock.lock().unwrap_or_else(|p| p.into_inner());
        let path = PagePath::new(RAW_MOVES_PATH).expect("constant path is valid");
        let mut list: Vec<RawMove> = match self.root.read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!("{RAW_MOVES_PATH} is unreadable ({e}); starting afresh");
                Vec::new()
            }),
            Err(quire_store::StoreError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let before = list.len();
        let out = change(&mut list);
        if list.len() != before {
            let bytes = serde_json::to_vec_pretty(&list).map_err(Error::internal)?;
            self.root.write(&path, &bytes)?;
        }
        Ok(out)
    }
}
