//! The pages as DQL sees them, kept in memory by the indexer: frontmatter, tags, sizes and
//! times per page, with the links of the link model filled in when a query takes a snapshot.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};

use quire_query::dql::{Catalog as DqlCatalog, ComputedField, PageData};
use quire_vault::{PagePath, Vault};

/// Every page's data, by path; `None` until the indexer's first pass is done.
#[derive(Default)]
pub(crate) struct Catalog {
    pages: RwLock<Option<HashMap<String, PageData>>>,
    /// The last snapshot handed out, dropped by every change.
    snapshot: Mutex<Option<Arc<Vec<PageData>>>>,
}

impl Catalog {
    /// Replaces everything (the indexer's first pass and rebuilds).
    pub(crate) fn fill(&self, pages: HashMap<String, PageData>) {
        *self.pages.write().unwrap_or_else(|p| p.into_inner()) = Some(pages);
        self.invalidate();
    }

    /// Updates pages and removes others.
    pub(crate) fn update(&self, written: Vec<PageData>, removed: &[String]) {
        let mut guard = self.pages.write().unwrap_or_else(|p| p.into_inner());
        let Some(pages) = guard.as_mut() else { return };
        for path in removed {
            pages.remove(path);
        }
        for page in written {
            pages.insert(page.path.clone(), page);
        }
        drop(guard);
        self.invalidate();
    }

    /// Links changed (another page appeared or went): the next snapshot resolves again.
    pub(crate) fn invalidate(&self) {
        *self.snapshot.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The paths of the pages `keep` selects, sorted; `None` while the first pass runs. Reads
    /// the pages in place: no snapshot is taken and no link is resolved.
    pub(crate) fn paths_where(&self, keep: impl Fn(&PageData) -> bool) -> Option<Vec<String>> {
        let guard = self.pages.read().unwrap_or_else(|p| p.into_inner());
        let mut paths: Vec<String> = guard
            .as_ref()?
            .values()
            .filter(|page| keep(page))
            .map(|page| page.path.clone())
            .collect();
        paths.sort();
        Some(paths)
    }

    /// Every page by path with its links from `vault`; `None` while the first pass runs.
    pub(crate) fn snapshot(&self, vault: &Vault) -> Option<Arc<Vec<PageData>>> {
        let mut cached = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(snapshot) = cached.as_ref() {
            return Some(snapshot.clone());
        }
        let guard = self.pages.read().unwrap_or_else(|p| p.into_inner());
        let pages = guard.as_ref()?;
        let mut sorted: BTreeMap<&str, PageData> = pages
            .iter()
            .map(|(path, data)| (path.as_str(), data.clone()))
            .collect();
        let mut inlinks: HashMap<String, Vec<String>> = HashMap::new();
        for (source, _link, resolution) in vault.resolved_links() {
            let Some(target) = resolution.path() else {
                continue;
            };
            if target == source {
                continue;
            }
            let (source, target) = (source.as_str(), target.as_str());
            if let Some(page) = sorted.get_mut(source) {
                if !page.outlinks.iter().any(|t| t == target) {
                    page.outlinks.push(target.to_string());
                }
            }
            let incoming = inlinks.entry(target.to_string()).or_default();
            if incoming.last().map(String::as_str) != Some(source) {
                incoming.push(source.to_string());
            }
        }
        for (path, sources) in inlinks {
            if let Some(page) = sorted.get_mut(path.as_str()) {
                page.inlinks = sources;
            }
        }
        let snapshot = Arc::new(sorted.into_values().collect::<Vec<_>>());
        *cached = Some(snapshot.clone());
        Some(snapshot)
    }
}

/// A snapshot and the vault, as a DQL catalog, with the configured computed fields.
pub(crate) struct QueryCatalog<'a> {
    pub pages: &'a [PageData],
    pub vault: &'a Vault,
    pub computed: &'a [ComputedField],
}

impl DqlCatalog for QueryCatalog<'_> {
    fn pages(&self) -> &[PageData] {
        self.pages
    }

    fn computed(&self) -> &[ComputedField] {
        self.computed
    }

    fn resolve_link(&self, text: &str) -> Option<String> {
        let from = PagePath::new("index.md").ok()?;
        self.vault
            .resolve_wiki(&from, text)
            .path()
            .map(|p| p.to_string())
    }
}
