//! The façade every front-end calls: spaces and their services, the one write pipeline,
//! events, errors.
//!
//! Nothing here knows HTTP, MCP or the terminal: adapters translate their requests into calls
//! on a [`Space`]'s services ([`Files`], [`Versions`], [`Claims`], [`Restructure`], [`Find`],
//! [`Insight`], [`Views`], [`Pages`], [`Comments`], [`Shares`], [`Publishing`], [`Rules`],
//! [`Themes`], [`Drafts`], [`Schemas`], [`Workflows`], [`Import`]) and map [`Error`]s through
//! [`ErrorCode`]. Layers inside, each depending only on those before it (no import circle:
//! the layering test checks it): `change`, `error`, `events`, `settings` → `names`, `links` →
//! `indexing` → `hooks` → `core` → `pipeline` → `documents` → the services → `space` →
//! `service` (ARCHITECTURE.md, "Inside a crate").

mod assets;
mod backup;
mod canvas;
mod change;
mod claims;
mod comments;
mod connections;
mod core;
mod documents;
mod drafts;
mod error;
mod events;
mod file_system;
mod files;
mod find;
mod hooks;
mod import;
mod indexing;
mod ingest;
mod insight;
mod janitor;
mod links;
mod names;
mod outside;
mod page_views;
mod pages;
mod periodic;
mod pipeline;
mod publishing;
mod raw_moves;
mod repair;
mod restructure;
mod rules;
mod schemas;
mod service;
mod settings;
mod shares;
mod space;
mod theme;
mod unsaved;
mod vectors;
mod versions;
mod views;
mod visibility;
mod watching;
mod webhooks;
mod workflows;

pub use assets::{media_type_of, ASSETS_DIR};
pub use canvas::{canvas_path, CanvasQuery, Canvases, CANVAS_SUFFIX, DEFAULT_GENERATED};
pub use change::{
    Announce, Applied, AppliedFile, Change, CommitMode, Expect, FileOp, WriteOptions, DEFAULT_ACTOR,
};
pub use claims::{Claim, Claims, DEFAULT_LEASE};
pub use comments::{Comments, MAX_COMMENT_BYTES};
pub use connections::{Connections, CONNECTIONS_PATH, SYNC_ACTOR};
pub use drafts::{Drafts, DRAFT_ACTOR};
pub use error::{Error, ErrorCode, Payload, Result};
pub use events::{EventBus, EventSink};
pub use file_system::{is_scratch, Entry as FsEntry, FileSystem, Kind as FsKind, Protocol};
pub use files::{FileContent, Files, TEMPLATES_DIR};
pub use find::{Find, MetaQuery, SearchQuery};
pub use import::{ExportPlan, Import, IMPORT_ACTOR, PREVIEW_LIMIT, PREVIEW_LIMIT_MAX};
pub use ingest::{Ingest, CLIPS_DIR, CLIP_ACTOR, INGEST_ACTOR, KEYWORDS_DEFAULT, KEYWORDS_MAX};
pub use insight::{Insight, VelocityQuery};
pub use janitor::{JanitorScan, LAST_SCAN_PATH};
pub use outside::{OutsideChanges, Reconciled, SYSTEM_ACTOR};
pub use page_views::PageViewsQuery;
pub use pages::{Pages, SectionOf};
pub use publishing::{url_of, Publishing, Served, NOT_PUBLISHED, PUBLISHED_PREFIX};
pub use quire_api::Event;
pub use quire_restructure::{Manifest, ManifestFormat, Plan};
pub use quire_store::LockHolder;
pub use quire_store::{etag, Backlog, CommitMetrics, HistoryOptions, Strategy, COMMIT_BUCKETS};
pub use raw_moves::{RawMove, Via, RAW_MOVES_PATH};
pub use repair::Repair;
pub use restructure::{
    is_agent, parse_manifest, validate_manifest, ApplyRequest, Relink, Restructure, COMMENTS_DIR,
    PERSONAL_DIR,
};
pub use rules::{Rules, RulesFormat, MAX_RULES_BYTES, RULES_PATH};
pub use schemas::{Schemas, SCHEMAS_DIR, SCHEMA_MAX_BYTES};
pub use service::{
    check_name as check_space_name, init_root, root_holder, AddedSpace, Registered, RemovedSpace,
    Service, SpaceEntry, SpaceOrigin, MAX_SPACE_NAME,
};
pub use settings::{
    settings_from_config, Access, AssetRules, BackupSettings, EditorialSettings, EmbedderChoice,
    Engine, FindSettings, IndexSettings, InsightSettings, JanitorSchedule, QueryLimits,
    ScriptLimits, ScriptRunner, SpaceSettings, StoreChoice, VectorSettings, CONFIG_FILE,
    DEFAULT_SPACE, SERVER_FILES, SPACES_FILE,
};
pub use shares::{SharedPage, Shares, GONE, PASSWORD_NEEDED, SHARES_PATH};
pub use space::{Space, SpaceMetrics};
pub use theme::{default_theme, Themes, THEME_PATH};
pub use vectors::{VectorStatus, VECTOR_OFF};
pub use versions::{Versions, CHANGES_LIMIT_MAX};
pub use views::{Views, DEBOUNCE, VIEWS_DIR};
pub use watching::Watching;
pub use webhooks::{SpaceWebhooks, WebhookMetrics, WebhookRegistry};
pub use workflows::{Workflows, WORKFLOWS_DIR};
