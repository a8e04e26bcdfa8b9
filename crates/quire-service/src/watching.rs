//! Watching a space's root while it is served: every batch of changes the store's watcher
//! sees on disk goes through [`crate::Space::record_outside_changes`]; or, for a read-only
//! space (the language server), is only reported to its reader.

use std::sync::{Arc, Weak};

use quire_store::watch::{RootWatcher, WatchBatch, WatchOptions};

use crate::error::Result;
use crate::outside::OutsideChanges;
use crate::space::Space;

/// A running watch; dropping it stops it.
pub struct Watching {
    _watcher: RootWatcher,
}

impl Space {
    /// Starts watching the root for edits made outside quire; they are recorded as they come
    /// (debounced), as one change per batch by `quire`.
    pub fn watch(self: &Arc<Self>) -> Result<Watching> {
        let space: Weak<Space> = Arc::downgrade(self);
        let watcher = RootWatcher::start(self.root(), WatchOptions::default(), move |batch| {
            let Some(space) = space.upgrade() else { return };
            record(&space, batch);
        })?;
        Ok(Watching { _watcher: watcher })
    }

    /// Watches the root and only reports, for a reader that keeps a read-only space current
    /// itself ([`Space::reread`]; the language server): `on_change` is called from the watch
    /// thread with each debounced batch of paths that may have changed (a folder standing for
    /// everything below it), or `None` when events were lost and anything may have changed.
    pub fn watch_changes(
        &self,
        mut on_change: impl FnMut(Option<Vec<quire_vault::PagePath>>) + Send + 'static,
    ) -> Result<Watching> {
        let watcher = RootWatcher::start(self.root(), WatchOptions::default(), move |batch| {
            if batch.rescan {
                on_change(None);
            } else if !batch.paths.is_empty() {
                on_change(Some(batch.paths));
            }
        })?;
        Ok(Watching { _watcher: watcher })
    }
}

fn record(space: &Space, batch: WatchBatch) {
    let seen = OutsideChanges {
        paths: batch.paths,
        moves: batch.moves,
        // Lost events: look at everything. A moved git ref alone needs nothing: files a
        // `git pull` or `checkout` changes are reported as paths, and their commit is
        // already made.
        everything: batch.rescan,
    };
    match space.record_outside_changes(&seen) {
        Ok(done) if !done.is_empty() => tracing::info!(
            space = %space.name(),
            written = done.written.len(),
            deleted = done.deleted.len(),
            moved = done.moves.len(),
            "recorded changes made outside quire"
        ),
        Ok(_) => {}
        Err(e) => {
            let detail = e.detail.clone().unwrap_or_default();
            tracing::error!(space = %space.name(), "recording changes made outside quire failed: {e} {detail}");
        }
    }
}
