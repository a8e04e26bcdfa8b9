//! The state every write of one space needs: its root on disk, its history, its link model,
//! its index, the write lock of its pipeline and the checks registered on it, its event bus.
//! The services ([`crate::Files`], [`crate::Versions`], [`crate::Claims`], …) are views onto
//! it; an area that keeps state of its own (restructuring's plan cache, the backup and
//! janitor threads) keeps it beside the core, in [`crate::Space`], and one that must see
//! every change plugs in a [`crate::hooks::BeforeWrite`] check (the schema check, with its
//! cache) — the core imports no area.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use quire_vault::PagePath;

use crate::indexing::{GraphCache, Indexed, Indexer, Listener};
use crate::settings::FindSettings;

use quire_index::Index;
use quire_query::dql::ComputedField;
use quire_store::{History, Root, SeenFiles, WriterLock};

use crate::error::{Error, Result};
use crate::events::EventBus;
use crate::hooks::Hooks;
use crate::links::LinkModel;
use crate::settings::{Access, AssetRules, SpaceSettings};

pub(crate) struct SpaceCore {
    pub(crate) name: String,
    pub(crate) root: Root,
    pub(crate) history: History,
    pub(crate) links: Arc<LinkModel>,
    /// Keeps the search index and the DQL catalog; `None` when this process does not.
    pub(crate) indexer: Option<Indexer>,
    /// Vector search (`[search.vector] enabled`), kept by the process writing the space.
    pub(crate) vectors: Option<Arc<crate::vectors::Vectors>>,
    pub(crate) graph: GraphCache,
    pub(crate) find: FindSettings,
    /// `[dataview] computed_fields`, parsed.
    pub(crate) computed: Vec<ComputedField>,
    /// Serialises the pipeline's writers.
    pub(crate) write_lock: Mutex<()>,
    pub(crate) events: EventBus,
    pub(crate) assets: AssetRules,
    /// The claim store (index database); `None` = claims not enabled (503).
    pub(crate) claims: Option<Arc<Index>>,
    /// `[claims] default_lease`: the lease of a claim that names none.
    pub(crate) default_lease: std::time::Duration,
    /// Serialises read-modify-write of the JSON files under `.quire/state/` (approvals, raw
    /// moves).
    pub(crate) state_lock: Mutex<()>,
    /// The root's writer lock, held while the space lives; `None` for a read-only space.
    pub(crate) writer: Option<WriterLock>,
    pub(crate) view_refresh: ViewRefreshState,
    /// Texts an editor holds unsaved, standing in for their files (read-only spaces only;
    /// see `unsaved.rs`).
    pub(crate) unsaved: std::sync::RwLock<HashMap<PagePath, String>>,
    /// Counters of what the space did, for `/metrics`.
    pub(crate) activity: Activity,
    /// `[drafts]`, `[workflow]`, `[schema]`.
    pub(crate) editorial: crate::settings::EditorialSettings,
    /// The draft branches; `Err` says why drafts are not available (501).
    pub(crate) drafts: std::result::Result<quire_store::DraftStore, String>,
    /// `[server] public_url`: the base of the links the space hands out.
    pub(crate) public_url: Option<String>,
    /// `[analytics] track_views`: the views counted, when this process writes the space.
    pub(crate) page_views: Option<quire_index::PageViews>,
    /// The checks the areas registered for every change (the schema step).
    pub(crate) hooks: Hooks,
}

/// What the refresher of computed view pages (`crate::views`) shares with the space.
#[derive(Default)]
pub(crate) struct ViewRefreshState {
    /// The index thread's reports, taken by the refresher thread when the space starts it.
    pub(crate) reports: Mutex<Option<Receiver<Indexed>>>,
    /// Reports sent and not handled yet.
    pub(crate) pending: Arc<AtomicUsize>,
    /// The ETag each view page got from its last refresh: a report of exactly that content
    /// is the refresher's own write and refreshes nothing.
    pub(crate) own: Mutex<HashMap<PagePath, String>>,
}

/// What a space did since it opened (read by `/metrics`).
#[derive(Debug, Default)]
pub(crate) struct Activity {
    pub(crate) writes: std::sync::atomic::AtomicU64,
    pub(crate) files_written: std::sync::atomic::AtomicU64,
    pub(crate) plans: std::sync::atomic::AtomicU64,
    pub(crate) applies: std::sync::atomic::AtomicU64,
    pub(crate) reverts: std::sync::atomic::AtomicU64,
}

impl Activity {
    pub(crate) fn add(&self, counter: &std::sync::atomic::AtomicU64, n: u64) {
        counter.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
}

impl SpaceCore {
    /// Opens the root (which must exist) and its history, and loads the link model. Writing
    /// takes the root's writer lock first (refused, naming the holder, when another process
    /// holds it); only then is a crash recovered from (a folder that is no git repository yet
    /// becomes one, changes left by a crash are committed). Reading only changes nothing on
    /// disk and takes no lock.
    pub(crate) fn open(
        settings: SpaceSettings,
        access: &Access,
        hooks: Hooks,
    ) -> Result<SpaceCore> {
        // Checked before anything is opened: a bad field stops the start with its name.
        let computed = settings
            .find
            .computed_fields
            .iter()
            .map(|(name, expr)| ComputedField::new(name, expr))
            .collect::<std::result::Result<Vec<_>, String>>()
            .map_err(|e| Error::bad_request(format!("[dataview] computed_fields: {e}")))?;
        let (root, history, writer, links) = match access {
            Access::Write { kind } => {
                let lock = WriterLock::acquire(&settings.root, kind)?;
                let root = Root::open(&settings.root, &lock)?;
                // The model reads every page after recovery and before the scan for changes
                // made outside quire, which then need not read those pages again.
                let opening = History::begin_open(&root, &lock, settings.history.clone())?;
                let mut seen = SeenFiles::new();
                let links = LinkModel::load(&root, Some(&mut seen))?;
                let history = opening.finish(&seen)?;
                (root, history, Some(lock), links)
            }
            Access::ReadOnly => {
                let root = Root::open_read_only(&settings.root)?;
                let history = History::open_read_only(&root, settings.history.clone())?;
                if let Some(interrupted) = history.interrupted() {
                    tracing::warn!(
                        "an interrupted change of {} files awaits recovery in {}: it is finished \
                         or undone when a server (or a writing command) opens the root; until \
                         then those files may hold a half-done change",
                        interrupted.paths.len(),
                        root.dir().display()
                    );
                }
                let links = LinkModel::load(&root, None)?;
                (root, history, None, links)
            }
        };
        let claims = match (settings.claims.enabled, &writer) {
            (false, _) => None,
            (true, Some(_)) => open_claim_store(root.dir()),
            (true, None) => open_claims_read_only(root.dir()),
        };
        let links = Arc::new(links);
        for shadowed in &links.names().shadowed {
            tracing::warn!(space = %settings.name, "{}", shadowed.note());
        }
        let view_refresh = ViewRefreshState::default();
        // Vector search asked for but not possible stops the start (fail closed).
        let vectors = match (
            &writer,
            &settings.find.vectors,
            settings.find.index.maintain,
        ) {
            (Some(_), Some(vector), true) => Some(Arc::new(crate::vectors::Vectors::start(
                vector,
                root.clone(),
                links.clone(),
            )?)),
            _ => None,
        };
        let indexer = match (&writer, settings.find.index.maintain) {
            (Some(_), true) => open_search_index(root.dir()).map(|index| {
                let (sender, reports) = mpsc::channel();
                *view_refresh
                    .reports
                    .lock()
                    .unwrap_or_else(|p| p.into_inner()) = Some(reports);
                let mut listeners = vec![Listener {
                    sender,
                    pending: view_refresh.pending.clone(),
                }];
                listeners.extend(vectors.as_ref().map(|v| v.listener()));
                Indexer::start(
                    index,
                    root.clone(),
                    links.clone(),
                    &settings.find.index,
                    listeners,
                )
            }),
            _ => None,
        };
        let drafts = open_drafts(&root, &history, writer.is_some(), &settings.editorial);
        // Views are counted by the process writing the space; a store that cannot be opened
        // stops the start (the setting asked for it).
        let page_views = match (&writer, settings.find.insight.track_views) {
            (Some(_), true) => Some(
                quire_index::PageViews::open(root.dir())
                    .map_err(|e| Error::internal(format!("[analytics] track_views: {e}")))?,
            ),
            _ => None,
        };
        Ok(SpaceCore {
            name: settings.name,
            root,
            history,
            links,
            indexer,
            vectors,
            graph: GraphCache::default(),
            find: settings.find,
            computed,
            write_lock: Mutex::new(()),
            events: EventBus::new(),
            assets: settings.assets,
            claims,
            default_lease: settings.claims.default_lease.as_std(),
            state_lock: Mutex::new(()),
            writer,
            view_refresh,
            unsaved: Default::default(),
            activity: Activity::default(),
            editorial: settings.editorial,
            drafts,
            public_url: settings.public_url,
            page_views,
            hooks,
        })
    }
}

/// The draft branches of a root, when drafts can work there: enabled, versioned by git, and
/// opened by the process writing the root.
fn open_drafts(
    root: &Root,
    history: &History,
    writing: bool,
    editorial: &crate::settings::EditorialSettings,
) -> std::result::Result<quire_store::DraftStore, String> {
    if !editorial.drafts.enabled {
        return Err("drafts are disabled ([drafts] enabled = false)".into());
    }
    if history.strategy() != quire_store::Strategy::Git {
        return Err(format!(
            "drafts need git versioning (this space uses {})",
            history.strategy()
        ));
    }
    if !writing {
        return Err("drafts are served by the process holding the root".into());
    }
    quire_store::DraftStore::open(root).map_err(|e| {
        tracing::warn!("drafts are unavailable in {}: {e}", root.dir().display());
        format!("drafts are unavailable: {e}")
    })
}

/// The search index of the root, kept by the process writing it. Without it the space still
/// serves files; searches and queries answer 503.
fn open_search_index(root: &Path) -> Option<Arc<Index>> {
    match Index::open(root) {
        Ok(index) => Some(Arc::new(index)),
        Err(e) => {
            tracing::warn!("the search index is unavailable in {}: {e}", root.display());
            None
        }
    }
}

/// The claims a read-only process sees: the index as it is, opened without changing it.
fn open_claims_read_only(root: &Path) -> Option<Arc<Index>> {
    match Index::open_read_only(root) {
        Ok(index) => index.map(Arc::new),
        Err(e) => {
            tracing::warn!("claims cannot be read in {}: {e}", root.display());
            None
        }
    }
}

/// Opens the claim store of the knowledge root `root`. Claims are an optional subsystem: when
/// the index cannot be opened the space still serves files, and claim requests answer 503.
fn open_claim_store(root: &Path) -> Option<Arc<Index>> {
    match Index::open(root) {
        Ok(index) => Some(Arc::new(index)),
        Err(e) => {
            tracing::warn!("claims are unavailable in {}: {e}", root.display());
            None
        }
    }
}
