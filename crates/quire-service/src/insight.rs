//! Analytics and health of a space: the dashboard, page health, stale pages, the janitor
//! report, contradictions, velocity (from the history), the memory report, the context texts,
//! eligible tasks, search evaluation, and search analytics (the `searches` table of the
//! index).
//!
//! Everything here reads: the catalog the index thread keeps (frontmatter, word counts,
//! times, links), the in-memory vault (link resolution), the history, and the index. Only
//! dismissing a content gap writes, and only to the derived index. The rules themselves are
//! pure functions in [`rules`].

mod agents;
mod health;
mod rules;
mod search;
mod velocity;

pub use velocity::VelocityQuery;

use std::sync::{Arc, RwLockReadGuard};

use quire_api::QueryCount;
use quire_index::Index;
use quire_query::dql::PageData;
use quire_vault::{PagePath, Vault};

use crate::core::SpaceCore;
use crate::error::{Error, Result};
use crate::find::Find;

/// Analytics and health: views over the catalog, the vault, the history and the index.
pub struct Insight<'a>(pub(crate) &'a SpaceCore);

impl Insight<'_> {
    /// The last scheduled janitor scan (`[janitor] interval`), if one ran.
    pub fn last_janitor_scan(&self) -> Result<Option<crate::janitor::JanitorScan>> {
        crate::janitor::last(self.0)
    }

    fn find(&self) -> Find<'_> {
        Find(self.0)
    }

    /// The vault and the catalog snapshot taken against it, once the index has caught up
    /// with the writes made before (it is caught up before the vault is locked: the index
    /// thread reads the vault too); 503 while the index thread has not read every page (or
    /// when this process keeps no index), as for DQL.
    fn catalog(&self) -> Result<(RwLockReadGuard<'_, Vault>, Arc<Vec<PageData>>)> {
        let find = self.find();
        let indexer = find.indexer()?;
        let vault = self.0.links.vault();
        let pages = indexer
            .catalog
            .snapshot(&vault)
            .ok_or_else(|| Error::unavailable("the catalog is being built; try again shortly"))?;
        Ok((vault, pages))
    }

    /// The index holding the searches table; 503 when this process keeps none.
    fn index(&self) -> Result<&Index> {
        let indexer = self.0.indexer.as_ref().ok_or_else(|| {
            Error::unavailable("the search index is not kept by this process (read-only)")
        })?;
        // Searches are logged by the index thread: what was answered so far is in.
        indexer.flush();
        Ok(&indexer.index)
    }
}

fn counts(
    found: std::result::Result<Vec<quire_index::QueryCount>, quire_index::IndexError>,
) -> Result<Vec<QueryCount>> {
    Ok(found
        .map_err(Error::internal)?
        .into_iter()
        .map(|c| QueryCount {
            query: c.query,
            count: c.count,
            last_seen: c.last_seen,
        })
        .collect())
}

/// A folder restriction as a path prefix: `""` for the whole space, else `folder/`. 400 for a
/// folder that is no valid path.
fn folder_prefix(folder: Option<&str>) -> Result<String> {
    let folder = folder.map(str::trim).unwrap_or("");
    let folder = folder.trim_start_matches('/').trim_end_matches('/');
    if folder.is_empty() {
        return Ok(String::new());
    }
    let path = PagePath::new(folder).map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(format!("{path}/"))
}

/// Up to five items of a list, then how many more.
fn sample(items: &[String]) -> String {
    let shown = items.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    match items.len() {
        n if n > 5 => format!("{shown} and {} more", n - 5),
        _ => shown,
    }
}
