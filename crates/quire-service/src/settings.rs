//! What opening a space needs, and how the configuration of a root turns into it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use quire_config::Config;
use quire_store::{HistoryOptions, Strategy};

/// Everything needed to open one space.
#[derive(Debug, Clone)]
pub struct SpaceSettings {
    pub name: String,
    pub root: PathBuf,
    pub history: HistoryOptions,
    pub assets: AssetRules,
    /// `[refactor]`: protect, scope and approval limits.
    pub refactor: quire_config::RefactorConfig,
    /// `[claims]`: whether path claims are available.
    pub claims: quire_config::ClaimsConfig,
    /// `[search]` and `[dataview]`: the index, the search engine, query limits.
    pub find: FindSettings,
    /// How restructuring scripts run; `None`: scripts are not available (501).
    pub script: Option<ScriptRunner>,
    /// `[drafts]`, `[workflow]` and `[schema]`.
    pub editorial: EditorialSettings,
    /// `[server] public_url` without a trailing `/`: the base of the links the space hands
    /// out (share links, published pages, feeds). `None`: links are relative to the server
    /// the client reached.
    pub public_url: Option<String>,
    /// `[backup]`: where the space's history is pushed; `None` when no remote is set.
    pub backup: Option<BackupSettings>,
    /// `[janitor] interval`, `startup_scan`.
    pub janitor: JanitorSchedule,
}

/// `[backup]` as one space needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSettings {
    /// `[backup] remote` as configured (what the status shows).
    pub remote: String,
    /// What git is given: a relative path made absolute against the main root.
    pub url: String,
    pub interval: Duration,
    /// The branch of the remote this space's history goes to.
    pub branch: String,
    /// `[backup] rebase_before_push`.
    pub rebase: bool,
}

impl BackupSettings {
    /// `[backup]` of the main root's configuration, for the default space; `None` when no
    /// remote is set. A remote this build cannot push to is an error naming the setting.
    pub fn from_config(root: &Path, config: &Config) -> std::result::Result<Option<Self>, String> {
        let backup = &config.backup;
        let Some(remote) = &backup.remote else {
            return Ok(None);
        };
        let url = quire_store::backup::remote_url(remote, root)
            .map_err(|e| format!("backup.remote: {e}"))?;
        quire_store::backup::check_branch(&backup.branch)
            .map_err(|e| format!("backup.branch: {e}"))?;
        Ok(Some(BackupSettings {
            remote: remote.clone(),
            url,
            interval: backup.interval.as_std(),
            branch: backup.branch.clone(),
            rebase: backup.rebase_before_push,
        }))
    }

    /// The same backup for another space: one remote, one branch per space
    /// (`spaces/<name>/<branch>`), since each space is a repository of its own.
    pub fn for_space(&self, name: &str) -> BackupSettings {
        BackupSettings {
            branch: format!("spaces/{name}/{}", self.branch),
            ..self.clone()
        }
    }
}

/// Drafts, workflows and schema enforcement (`[drafts]`, `[workflow]`, `[schema]`).
#[derive(Debug, Clone, Default)]
pub struct EditorialSettings {
    pub drafts: quire_config::DraftsConfig,
    pub workflow: quire_config::WorkflowConfig,
    /// `[schema] enforce`: writes of pages whose `type` has a schema are validated.
    pub enforce_schemas: bool,
}

/// The command that runs one restructuring script in a child process (the embedding binary
/// re-executed, e.g. `quire __script`), and the limits the service gives it. The service
/// appends `--memory-bytes N --cpu-seconds N` and talks to it as `quire_api::script`
/// describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptRunner {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub limits: ScriptLimits,
}

/// Bounds of one script (spec "Limits": 256 MB, 30 seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptLimits {
    /// Wall time; the process (and its process group) is killed when it runs longer.
    pub time: Duration,
    /// Address space of the process.
    pub memory_bytes: u64,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            time: Duration::from_secs(30),
            memory_bytes: 256 << 20,
        }
    }
}

/// How a process opens a space's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// This process writes the root: it takes the root's writer lock, naming itself `kind`
    /// (`serve`, or a command such as `apply`) for whoever else finds the root busy, recovers
    /// from a crash, and runs the pipeline.
    Write { kind: String },
    /// Reading only: nothing on disk changes, no lock is taken, writes are refused.
    ReadOnly,
}

impl Access {
    /// Writing as a server.
    pub fn serve() -> Access {
        Access::Write {
            kind: "serve".into(),
        }
    }
}

/// Limits for uploaded assets.
#[derive(Debug, Clone)]
pub struct AssetRules {
    pub max_file_size: u64,
    /// Media types (`image/png`) or families (`image/*`); empty allows everything.
    pub allowed_types: Vec<String>,
}

impl Default for AssetRules {
    fn default() -> Self {
        AssetRules {
            max_file_size: 10 * 1024 * 1024,
            allowed_types: vec!["image/*".into(), "application/pdf".into()],
        }
    }
}

/// The configuration file of a root.
pub const CONFIG_FILE: &str = ".quire/config.toml";

/// Where the spaces added through the API are recorded, in the default space's root.
pub const SPACES_FILE: &str = ".quire/spaces.json";

/// Files holding the server's own settings: authentication (a reload or restart applies what
/// they say) and the spaces it serves. No change made through the API writes them, so a key
/// that may write pages cannot widen its own rights; quire writes them for the operations
/// that own them (space visibility, adding and removing spaces). Edits on disk are recorded
/// like any other.
pub const SERVER_FILES: &[&str] = &[CONFIG_FILE, SPACES_FILE];

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
        max_commit_lag: v.max_commit_lag(),
        max_pending: (v.max_pending as usize).max(1),
        max_versions: (v.max_versions as usize).max(1),
    };
    let assets = AssetRules {
        max_file_size: config.assets.max_file_size.bytes(),
        allowed_types: config.assets.allowed_types.clone(),
    };
    let find = FindSettings {
        engine: match config.search.engine {
            quire_config::SearchEngine::Sqlite => Engine::Sqlite,
            quire_config::SearchEngine::Grep => Engine::Grep,
        },
        index: IndexSettings {
            maintain: true,
            async_index: config.search.async_index,
            window: Duration::from_millis(config.search.index_window_ms),
            batch_max: (config.search.index_batch_max as usize).max(1),
            ..IndexSettings::default()
        },
        limits: QueryLimits {
            max_scan_rows: config.dataview.max_scan_rows as usize,
            timeout: config.dataview.query_timeout.as_std(),
        },
        computed_fields: config.dataview.computed_fields.clone(),
        insight: InsightSettings {
            stale_days: config.janitor.stale_days,
            analytics_stale_days: config.analytics.stale_days,
            track_views: config.analytics.track_views,
            episodes_prefix: config.memory.episodes_path_prefix.clone(),
        },
        vectors: VectorSettings::from_config(&config.search.vector),
    };
    // Checked before the start (`quire serve`'s preflight); a remote this build cannot reach
    // is no backup.
    let backup = BackupSettings::from_config(root, config).ok().flatten();
    let space = |name: &str, root: PathBuf| SpaceSettings {
        name: name.to_string(),
        root,
        history: history.clone(),
        assets: assets.clone(),
        refactor: config.refactor.clone(),
        claims: config.claims.clone(),
        find: find.clone(),
        script: None,
        editorial: EditorialSettings {
            drafts: config.drafts.clone(),
            workflow: config.workflow.clone(),
            enforce_schemas: config.schema.enforce,
        },
        public_url: config
            .server
            .public_url
            .as_ref()
            .map(|url| url.trim_end_matches('/').to_string()),
        backup: backup.clone(),
        janitor: JanitorSchedule {
            interval: config.janitor.interval.into(),
            startup_scan: config.janitor.startup_scan,
        },
    };
    // One root is one space: a `[[spaces]]` entry naming the main root (the natural way to
    // give the default space a name) is the default space under that name, not a second
    // space fighting it for the root's writer lock. Two entries sharing another root are
    // refused when the spaces open (`Service::open_as`).
    let main = same_root_key(root);
    let mut out = vec![space(DEFAULT_SPACE, root.to_path_buf())];
    let mut named = false;
    for s in &config.spaces {
        let dir = PathBuf::from(&s.root);
        let dir = if dir.is_absolute() {
            dir
        } else {
            root.join(dir)
        };
        if !named && same_root_key(&dir) == main {
            out[0].name.clone_from(&s.name);
            named = true;
            continue;
        }
        let mut settings = space(&s.name, dir);
        settings.backup = settings.backup.map(|b| b.for_space(&s.name));
        out.push(settings);
    }
    out
}

/// What decides whether two roots are the same folder: the path with links resolved as far
/// as the folder exists (a root that does not exist yet is compared as written, made
/// absolute).
pub(crate) fn same_root_key(dir: &Path) -> PathBuf {
    quire_store::folders::resolved_folder(dir)
}

/// How full-text queries are answered (`[search] engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The FTS5 table of the index, ranked by BM25.
    #[default]
    Sqlite,
    /// Every page read and matched on each query; no index needed.
    Grep,
}

/// What finding needs from the configuration.
#[derive(Debug, Clone, Default)]
pub struct FindSettings {
    pub engine: Engine,
    pub index: IndexSettings,
    /// `[dataview] max_scan_rows` and `query_timeout`.
    pub limits: QueryLimits,
    /// `[janitor]` and `[memory]`: what analytics and health read over the same catalog.
    pub insight: InsightSettings,
    /// `[dataview] computed_fields`: name → expression, fields every DQL query can read.
    /// Checked when the space opens (a bad name or expression stops it).
    pub computed_fields: BTreeMap<String, String>,
    /// `[search.vector]` when enabled: embeddings, semantic and hybrid search, suggestions.
    pub vectors: Option<VectorSettings>,
}

/// `[search.vector]` as a space needs it.
#[derive(Debug, Clone)]
pub struct VectorSettings {
    pub embedder: EmbedderChoice,
    /// `[search.vector.chunking] size`, in tokens.
    pub chunk_size: usize,
    /// `[search.vector.chunking] overlap`, in tokens.
    pub overlap: usize,
    /// `[search.vector] worker_count`: pages embedded at once.
    pub workers: usize,
    /// `[search.vector.store]`: where the chunks and their vectors are kept.
    pub store: StoreChoice,
}

/// Where vectors are kept (`[search.vector.store] provider`).
#[derive(Debug, Clone, PartialEq)]
pub enum StoreChoice {
    /// sqlite-vec in `.quire/state/vectors.db` (the default).
    SqliteVec,
    /// PostgreSQL with the `vector` extension at `dsn`; `collection` prefixes its tables.
    Pgvector {
        dsn: Option<quire_config::Secret>,
        collection: Option<String>,
    },
    /// Qdrant's REST API at `url`.
    Qdrant {
        url: Option<String>,
        api_key: Option<quire_config::Secret>,
        collection: Option<String>,
    },
    /// A provider this build does not carry (pinecone, weaviate, milvus): the start stops.
    Unbuilt(String),
}

impl StoreChoice {
    /// `[search.vector.store]` of a configuration.
    pub fn from_config(config: &quire_config::VectorStoreConfig) -> StoreChoice {
        use quire_config::VectorStoreProvider as P;
        match config.provider {
            P::SqliteVec => StoreChoice::SqliteVec,
            P::Pgvector => StoreChoice::Pgvector {
                // `url` is taken for the DSN when `dsn` is not given.
                dsn: config
                    .dsn
                    .clone()
                    .or_else(|| config.url.clone().map(quire_config::Secret::new)),
                collection: config.collection.clone(),
            },
            P::Qdrant => StoreChoice::Qdrant {
                url: config.url.clone(),
                api_key: config.api_key.clone(),
                collection: config.collection.clone(),
            },
            other => StoreChoice::Unbuilt(other.to_string()),
        }
    }
}

/// Which model turns text into vectors.
#[derive(Debug, Clone)]
pub enum EmbedderChoice {
    /// The model shipped inside quire (`quire_embed::Local`), loaded once per process.
    Local,
    /// A provider over HTTP.
    Remote(quire_embed::RemoteSpec),
    /// An embedder the caller built (tests, benchmarks).
    Given(std::sync::Arc<dyn quire_embed::Embedder>),
}

impl VectorSettings {
    /// `[search.vector]` of a configuration; `None` when vector search is off.
    pub fn from_config(config: &quire_config::VectorConfig) -> Option<VectorSettings> {
        if !config.enabled {
            return None;
        }
        let e = &config.embedder;
        let embedder = match e.provider {
            quire_config::EmbedderProvider::Local => EmbedderChoice::Local,
            provider => EmbedderChoice::Remote(quire_embed::RemoteSpec {
                provider: provider.to_string(),
                url: e.url.clone(),
                model: e.model.clone(),
                api_key: e.api_key.as_ref().map(|k| k.expose().to_string()),
                dimensions: e.dimensions.map(|d| d as usize),
                timeout: e.timeout.into(),
            }),
        };
        Some(VectorSettings {
            embedder,
            chunk_size: config.chunking.size as usize,
            overlap: config.chunking.overlap as usize,
            workers: config.worker_count.clamp(1, 64) as usize,
            store: StoreChoice::from_config(&config.store),
        })
    }
}

/// What the analytics and health reports need from the configuration.
#[derive(Debug, Clone)]
pub struct InsightSettings {
    /// `[janitor] stale_days`: the janitor also calls a page stale when its file was not
    /// modified for this many days.
    pub stale_days: u32,
    /// `[analytics] stale_days`: the dashboard and page health also call a page stale when
    /// its file was not modified for this many days (0: only `review-by`).
    pub analytics_stale_days: u32,
    /// `[analytics] track_views`: count the reads of pages (`/analytics/views`).
    pub track_views: bool,
    /// `[memory] episodes_path_prefix`: the folder of episodic pages the memory report reads
    /// when no prefix is given.
    pub episodes_prefix: String,
}

impl Default for InsightSettings {
    fn default() -> Self {
        let janitor = quire_config::JanitorConfig::default();
        let memory = quire_config::MemoryConfig::default();
        InsightSettings {
            stale_days: janitor.stale_days,
            analytics_stale_days: quire_config::AnalyticsConfig::default().stale_days,
            track_views: false,
            episodes_prefix: memory.episodes_path_prefix,
        }
    }
}

/// Bounds of one DQL query.
#[derive(Debug, Clone, Copy)]
pub struct QueryLimits {
    pub max_scan_rows: usize,
    pub timeout: Duration,
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            max_scan_rows: 100_000,
            timeout: Duration::from_secs(5),
        }
    }
}

/// `[search]` as the indexer needs it.
#[derive(Debug, Clone)]
pub struct IndexSettings {
    /// Keep `.quire/state/index.db` (the serving process does; commands run on a root do
    /// not, and the next server start brings the index up to date).
    pub maintain: bool,
    pub async_index: bool,
    pub window: Duration,
    pub batch_max: usize,
    /// How long the index thread waits after its last write and the last request it heard of
    /// before it checkpoints the index's WAL into the database (once per quiet spell).
    pub checkpoint_idle: Duration,
}

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            maintain: true,
            async_index: false,
            window: Duration::from_millis(200),
            batch_max: 50,
            checkpoint_idle: Duration::from_secs(5),
        }
    }
}

/// `[janitor] interval` and `startup_scan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JanitorSchedule {
    /// Between two scans; zero: no scheduled scan.
    pub interval: Duration,
    /// Scan once right after start, before the first interval has passed.
    pub startup_scan: bool,
}

impl Default for JanitorSchedule {
    fn default() -> Self {
        let config = quire_config::JanitorConfig::default();
        JanitorSchedule {
            interval: config.interval.into(),
            startup_scan: config.startup_scan,
        }
    }
}
