//! A space: one knowledge root served as a unit. Its services are views onto its state:
//! [`Files`], [`Versions`], [`Claims`] and [`Restructure`]; every change any of them makes
//! passes the one pipeline ([`Space::apply`]).

use std::path::Path;
use std::sync::Arc;

use quire_store::Backlog;
use quire_vault::{DiskNames, Vault};

use crate::backup::Backup;
use crate::change::{Applied, Change};
use crate::claims::Claims;
use crate::core::SpaceCore;
use crate::drafts::Drafts;
use crate::error::Result;
use crate::events::EventBus;
use crate::file_system::{FileSystem, Protocol, Scratch};
use crate::files::Files;
use crate::find::Find;
use crate::hooks::Hooks;
use crate::insight::Insight;
use crate::janitor::Janitor;
use crate::outside::{OutsideChanges, Reconciled};
use crate::pages::Pages;
use crate::raw_moves::RawMove;
use crate::repair::Repair;
use crate::restructure::{Restructure, Restructuring};
use crate::schemas::{SchemaCheck, Schemas};
use crate::settings::{Access, SpaceSettings};
use crate::versions::Versions;
use crate::views::Views;
use crate::workflows::Workflows;

/// Counters of a space (see [`Space::metrics`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpaceMetrics {
    /// Passes of the write pipeline, and the files they wrote.
    pub writes: u64,
    pub files_written: u64,
    /// Restructuring plans made, applied, reverted.
    pub plans: u64,
    pub applies: u64,
    pub reverts: u64,
    /// Git commits and their duration.
    pub commits: quire_store::CommitMetrics,
}

pub struct Space {
    /// Shared with the view refresher thread, which holds it weakly.
    core: Arc<SpaceCore>,
    /// What the areas keep for themselves, beside the core.
    areas: Areas,
}

/// How often the scheduled syncs of import connections are looked at.
const SYNC_TICK: std::time::Duration = std::time::Duration::from_secs(5);

/// The state of the areas that keep some of their own.
struct Areas {
    restructuring: Restructuring,
    /// `[backup]`, when this process writes the space and a remote is set (its thread runs
    /// once [`Space::start_schedules`] is called).
    backup: Option<Arc<Backup>>,
    /// `[janitor] interval`, `startup_scan`: the scheduled scans.
    janitor: Janitor,
    /// The file protocols' scratch files, pages set aside, recent copies.
    scratch: Scratch,
    /// The thread that runs the import connections' scheduled syncs.
    syncs: crate::periodic::Periodic,
}

impl Space {
    /// Opens a space: the root folder must exist. Versioning is set up (a folder that is no git
    /// repository yet becomes one, changes left by a crash are committed) and the in-memory
    /// link model is loaded from the files.
    pub fn open(settings: SpaceSettings) -> Result<Space> {
        Space::open_as(settings, &Access::serve())
    }

    /// Opens a space for writing (holding the root's writer lock) or for reading only.
    pub fn open_as(settings: SpaceSettings, access: &Access) -> Result<Space> {
        let restructuring = Restructuring::new(settings.refactor.clone(), settings.script.clone());
        let janitor = Janitor::new(settings.janitor, |core, stale_days| {
            Insight(core).janitor_with(stale_days)
        });
        let backup = settings.backup.clone();
        let mut hooks = Hooks::default();
        if settings.editorial.enforce_schemas {
            hooks.before_write.push(Box::new(SchemaCheck::default()));
        }
        let core = Arc::new(SpaceCore::open(settings, access, hooks)?);
        let backup = Backup::of_space(&core, backup)?.map(Arc::new);
        crate::views::start_refresher(&core);
        if let Ok(drafts) = &core.drafts {
            core.discard_untouched_drafts(drafts);
        }
        Ok(Space {
            core,
            areas: Areas {
                restructuring,
                backup,
                janitor,
                scratch: Scratch::default(),
                syncs: crate::periodic::Periodic::default(),
            },
        })
    }

    /// Records in the root's writer lock where this server answers, so a command run on the
    /// same root finds it and talks to it instead of opening the root itself.
    pub fn announce_api(&self, url: &str) -> Result<()> {
        match &self.core.writer {
            Some(lock) => Ok(lock.set_api(url)?),
            None => Ok(()),
        }
    }

    /// Whether this space was opened for reading only.
    pub fn is_read_only(&self) -> bool {
        self.core.writer.is_none()
    }

    pub fn name(&self) -> &str {
        &self.core.name
    }

    /// `[server] public_url` (no trailing `/`): the address users reach the server at, the
    /// base of the links handed out. `None` when the configuration gives none.
    pub fn public_url(&self) -> Option<&str> {
        self.core.public_url.as_deref()
    }

    /// Counts a read of `path` by `viewer` through `client` (`[analytics] track_views`; see
    /// `page_views.rs`). Never fails the read.
    pub fn page_viewed(&self, path: &str, client: Option<&str>, viewer: Option<&str>) {
        crate::page_views::record(&self.core, path, client, viewer);
    }

    /// What the web UI needs to know before it draws (`GET /ui-config`): the space, what the
    /// configuration allows, which parts answer here.
    pub fn ui_config(&self) -> quire_api::UiConfig {
        let core = &self.core;
        let theme_locked = quire_config::Config::load(core.root.dir())
            .map(|loaded| loaded.config.ui.theme_locked)
            // A configuration that does not load locks the theme (its PUT is refused too).
            .unwrap_or(true);
        quire_api::UiConfig {
            version: env!("CARGO_PKG_VERSION").to_string(),
            space: core.name.clone(),
            public_url: core.public_url.clone(),
            theme_locked,
            search_engine: match core.find.engine {
                crate::settings::Engine::Sqlite => "sqlite",
                crate::settings::Engine::Grep => "grep",
            }
            .to_string(),
            features: quire_api::UiFeatures {
                drafts: core.drafts.is_ok(),
                claims: core.claims.is_some(),
                history: core.history.strategy() == quire_store::Strategy::Git,
                backup: self.areas.backup.is_some(),
                vector_search: core.vectors.is_some(),
                page_views: core.page_views.is_some(),
            },
        }
    }

    pub fn root_dir(&self) -> &Path {
        self.core.root.dir()
    }

    /// One more handle on the link model (see [`crate::Service::close_for_exit`]).
    pub(crate) fn link_model(&self) -> Arc<crate::links::LinkModel> {
        self.core.links.clone()
    }

    pub(crate) fn root(&self) -> &quire_store::Root {
        &self.core.root
    }

    /// Reading and writing files.
    pub fn files(&self) -> Files<'_> {
        Files(&self.core)
    }

    /// The history of the files.
    pub fn versions(&self) -> Versions<'_> {
        Versions(&self.core)
    }

    /// Search, queries, backlinks and the link graph.
    pub fn find(&self) -> Find<'_> {
        Find(&self.core)
    }

    /// Import from files and databases, export to JSON Lines and CSV.
    pub fn import(&self) -> crate::import::Import<'_> {
        crate::import::Import(&self.core)
    }

    /// Saved import connections: save, run, schedule.
    pub fn connections(&self) -> crate::connections::Connections<'_> {
        crate::connections::Connections(&self.core)
    }

    /// Documents converted to pages, web articles clipped.
    pub fn ingest(&self) -> crate::ingest::Ingest<'_> {
        crate::ingest::Ingest(&self.core)
    }

    /// Saved views and computed view pages.
    pub fn views(&self) -> Views<'_> {
        Views(&self.core)
    }

    /// Looking at pages: lint, peek, sections.
    pub fn pages(&self) -> Pages<'_> {
        Pages(&self.core)
    }

    /// Analytics and health: the dashboard, page health, stale pages, the janitor report,
    /// contradictions, velocity, memory, context, eligible tasks, search evaluation and
    /// search analytics.
    pub fn insight(&self) -> Insight<'_> {
        Insight(&self.core)
    }

    /// Drafts: changes on a branch of their own until merged.
    pub fn drafts(&self) -> Drafts<'_> {
        Drafts(&self.core)
    }

    /// Frontmatter schemas per page type.
    pub fn schemas(&self) -> Schemas<'_> {
        Schemas(&self.core)
    }

    /// Workflow definitions, the pages' states and boards.
    pub fn workflows(&self) -> Workflows<'_> {
        Workflows(&self.core)
    }

    /// Leases on page paths.
    pub fn claims(&self) -> Claims<'_> {
        Claims(&self.core)
    }

    /// Canvases (`*.canvas.json`).
    pub fn canvases(&self) -> crate::canvas::Canvases<'_> {
        crate::canvas::Canvases(&self.core)
    }

    /// Comments on pages.
    pub fn comments(&self) -> crate::comments::Comments<'_> {
        crate::comments::Comments(&self.core)
    }

    /// Share links of pages.
    pub fn shares(&self) -> crate::shares::Shares<'_> {
        crate::shares::Shares(&self.core)
    }

    /// Published pages and what `/p/` serves.
    pub fn publishing(&self) -> crate::publishing::Publishing<'_> {
        crate::publishing::Publishing(&self.core)
    }

    /// The rules file for coding agents.
    pub fn rules(&self) -> crate::rules::Rules<'_> {
        crate::rules::Rules(&self.core)
    }

    /// The web UI's theme.
    pub fn theme(&self) -> crate::theme::Themes<'_> {
        crate::theme::Themes(&self.core)
    }

    /// The space's files as a file protocol (WebDAV, S3, NFS, FUSE) sees them.
    pub fn file_system(&self, protocol: Protocol) -> FileSystem<'_> {
        FileSystem {
            core: &self.core,
            scratch: &self.areas.scratch,
            restructure: self.restructure(),
            protocol,
        }
    }

    /// Plans, applies, approvals, renames and reverts.
    pub fn restructure(&self) -> Restructure<'_> {
        Restructure {
            core: &self.core,
            area: &self.areas.restructuring,
        }
    }

    /// Link health and repair: broken links, orphans, fix-broken, raw moves.
    pub fn repair(&self) -> Repair<'_> {
        Repair(&self.core)
    }

    /// Events of every change that passed the pipeline.
    pub fn events(&self) -> &EventBus {
        &self.core.events
    }

    /// Runs a change through the one write pipeline: every file written and committed
    /// together, or none; the link model updated; events broadcast. Every way into a space
    /// that the services above do not cover goes through here.
    pub fn apply(&self, change: Change) -> Result<Applied> {
        self.core.apply(change)
    }

    /// Records changes another program made on disk (see [`OutsideChanges`]): what differs
    /// from what quire knew is committed by `quire` in one change, indexed and announced;
    /// files that moved are kept as raw moves.
    pub fn record_outside_changes(&self, seen: &OutsideChanges) -> Result<Reconciled> {
        self.core.record_outside(seen)
    }

    /// Sets (`Some`) or drops (`None`) the text an editor holds unsaved for a page: until it
    /// is dropped, links, backlinks and plans answer as if it were the file (dropping it reads
    /// the file again). Only for a read-only space (a bad request otherwise); nothing is
    /// written.
    pub fn set_unsaved(&self, path: &quire_vault::PagePath, text: Option<String>) -> Result<()> {
        self.core.set_unsaved(path, text)
    }

    /// Reads files (or folders: every file below them) again after another program (an
    /// editor) changed them on disk. Only for a read-only space, whose model nothing else
    /// keeps current (a bad request otherwise); unsaved texts keep standing in for their
    /// files.
    pub fn reread(&self, paths: &[quire_vault::PagePath]) -> Result<()> {
        self.core.reread(paths)
    }

    /// Every move made without relinking that quire has seen or been told of.
    pub fn raw_moves(&self) -> Result<Vec<RawMove>> {
        self.core.raw_moves()
    }

    /// Read access to the in-memory link model.
    pub fn vault(&self) -> std::sync::RwLockReadGuard<'_, Vault> {
        self.core.links.vault()
    }

    /// The names on disk that are not their path (see [`DiskNames`]).
    pub fn disk_names(&self) -> std::sync::RwLockReadGuard<'_, DiskNames> {
        self.core.links.names()
    }

    /// `true` when the root folder is reachable (readiness).
    pub fn is_ready(&self) -> bool {
        self.core.root.dir().is_dir()
    }

    /// How far the commits of async batching lag behind the writes: files not committed yet,
    /// and the age of the oldest.
    pub fn commit_backlog(&self) -> Backlog {
        self.core.history.backlog()
    }

    /// What this space did since it opened, for `/metrics`.
    pub fn metrics(&self) -> SpaceMetrics {
        use std::sync::atomic::Ordering::Relaxed;
        let a = &self.core.activity;
        SpaceMetrics {
            writes: a.writes.load(Relaxed),
            files_written: a.files_written.load(Relaxed),
            plans: a.plans.load(Relaxed),
            applies: a.applies.load(Relaxed),
            reverts: a.reverts.load(Relaxed),
            commits: self.core.history.commit_metrics(),
        }
    }

    /// Vector search's model, backlog, store and last error; `None` when it is off here.
    pub fn vector_status(&self) -> Option<crate::VectorStatus> {
        self.core.vectors.as_ref().map(|v| v.status())
    }

    /// Files in the link model (pages, canvases and other files).
    pub fn file_count(&self) -> usize {
        self.core.links.vault().len()
    }

    /// Commits everything queued by async batching.
    pub fn flush(&self) -> Result<()> {
        Ok(self.core.history.flush()?)
    }

    /// Where the space's history is pushed (`[backup]`) and how the last attempt went;
    /// `enabled: false` when it has no backup.
    pub fn backup_status(&self) -> quire_api::BackupStatus {
        self.areas
            .backup
            .as_deref()
            .map(Backup::status)
            .unwrap_or_default()
    }

    /// Starts the space's scheduled work (once): pushing its history to its backup remote
    /// (a round now, then every `[backup] interval`) and the janitor scans (`[janitor]
    /// interval`, `startup_scan`).
    pub fn start_schedules(&self) {
        if let Some(backup) = &self.areas.backup {
            crate::backup::start(&self.core, backup);
        }
        crate::janitor::start(&self.core, &self.areas.janitor);
        if self.core.writer.is_some() {
            let weak = Arc::downgrade(&self.core);
            self.areas
                .syncs
                .start("quire-import-sync", SYNC_TICK, SYNC_TICK, move || {
                    let Some(core) = weak.upgrade() else {
                        return false;
                    };
                    crate::connections::run_due(&core);
                    true
                });
        }
    }

    /// Stops the scheduled work; the backup makes a last round (at a clean stop, after the
    /// last writes).
    pub fn stop_schedules(&self) {
        crate::janitor::stop(&self.areas.janitor);
        self.areas.syncs.stop();
        if let Some(backup) = &self.areas.backup {
            crate::backup::stop(&self.core, backup);
        }
    }
}
