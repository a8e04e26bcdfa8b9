//! One struct per section of `.quire/config.toml`, each `Default` giving the spec's values.
//!
//! Every struct reads with `#[serde(default)]`: a missing key or section takes the default,
//! so an empty file is a complete configuration.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::keyword::keyword_enum;
use crate::secret::Secret;
use crate::units::{ByteSize, Duration};

/// Reads an optional string-like value, treating `""` as absent: a `${VAR}` that expanded to
/// nothing must not count as a configured URL or key.
fn blank_as_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Blank,
{
    Ok(Option::<T>::deserialize(deserializer)?.filter(|value| !value.is_blank()))
}

trait Blank {
    fn is_blank(&self) -> bool;
}

impl Blank for String {
    fn is_blank(&self) -> bool {
        self.trim().is_empty()
    }
}

impl Blank for Secret {
    fn is_blank(&self) -> bool {
        self.expose().trim().is_empty()
    }
}

// ---------------------------------------------------------------------------------------
// [server]

/// `[server]`: where the HTTP server listens and whom it answers.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ServerConfig {
    /// Bind address. The default is loopback: a server reachable from other machines is a
    /// choice the operator makes (the spec's `0.0.0.0`), with auth switched on.
    pub host: String,
    pub port: u16,
    /// Origins allowed by CORS (shorthand for `[server.cors] allowed_origins`).
    pub cors_origins: Vec<String>,
    /// The address users reach the server at, when it differs from `http://host:port`
    /// (behind a proxy); used in links the server hands out.
    #[serde(deserialize_with = "blank_as_none")]
    pub public_url: Option<String>,
    pub cors: CorsConfig,
    pub rate_limit: RateLimitConfig,
    /// How long a client may take to send a request's line and headers; a connection still
    /// sending them then is closed, so slow clients cannot hold connections open for free.
    /// `"0"` waits forever.
    pub header_read_timeout: Duration,
    /// Most event streams (`GET /events`) open at once, over every space; one more is
    /// answered 503. 0 allows none.
    pub max_event_streams: usize,
}

impl ServerConfig {
    pub const DEFAULT_HOST: &'static str = "127.0.0.1";
    pub const DEFAULT_PORT: u16 = 3333;
    pub const DEFAULT_HEADER_READ_TIMEOUT_SECS: u64 = 20;
    pub const DEFAULT_MAX_EVENT_STREAMS: usize = 1000;

    /// Origins from `cors_origins` and `[server.cors] allowed_origins` together, in that
    /// order, without repeats.
    pub fn cors_allowed_origins(&self) -> Vec<&str> {
        let mut origins: Vec<&str> = Vec::new();
        for origin in self.cors_origins.iter().chain(&self.cors.allowed_origins) {
            if !origins.contains(&origin.as_str()) {
                origins.push(origin);
            }
        }
        origins
    }

    /// `http://host:port`, or `public_url` when set, without a trailing `/`.
    pub fn base_url(&self) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{}:{}", self.host, self.port),
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            host: Self::DEFAULT_HOST.to_owned(),
            port: Self::DEFAULT_PORT,
            cors_origins: Vec::new(),
            public_url: None,
            cors: CorsConfig::default(),
            rate_limit: RateLimitConfig::default(),
            header_read_timeout: Duration::from_secs(Self::DEFAULT_HEADER_READ_TIMEOUT_SECS),
            max_event_streams: Self::DEFAULT_MAX_EVENT_STREAMS,
        }
    }
}

/// `[server.cors]`: cross-origin access for browser clients on other origins.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CorsConfig {
    /// Empty means no cross-origin access; `"*"` allows any origin.
    pub allowed_origins: Vec<String>,
    pub allowed_methods: Vec<String>,
    pub allow_credentials: bool,
    /// How long browsers may cache a preflight answer, in seconds.
    pub max_age: u32,
}

impl Default for CorsConfig {
    fn default() -> Self {
        Self {
            allowed_origins: Vec::new(),
            allowed_methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
                .map(str::to_owned)
                .to_vec(),
            allow_credentials: false,
            max_age: 600,
        }
    }
}

/// `[server.rate_limit]`: a token bucket per Bearer token hash (client address when
/// anonymous); off while `requests_per_minute` is 0.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct RateLimitConfig {
    pub requests_per_minute: u32,
    pub burst_size: u32,
}

impl RateLimitConfig {
    /// Whether requests are limited at all.
    pub fn is_enabled(&self) -> bool {
        self.requests_per_minute > 0
    }
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            requests_per_minute: 0,
            burst_size: 50,
        }
    }
}

// ---------------------------------------------------------------------------------------
// [search]

keyword_enum! {
    /// `[search] engine`: how full-text queries are answered.
    #[derive(Default)]
    pub enum SearchEngine ("search engine") {
        /// SQLite FTS5 with BM25 ranking (the default).
        #[default]
        Sqlite = "sqlite",
        /// Scan the files on every query; no index.
        Grep = "grep",
    }
}

/// `[search]`: the full-text index and, optionally, vector search.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct SearchConfig {
    pub engine: SearchEngine,
    /// Let searches and queries read without waiting for the writes made before them. Off
    /// by default: a read made after a write was answered finds it (the reader waits for the
    /// write's index batch; writers never wait for the index).
    pub async_index: bool,
    /// Changes within this window are indexed together.
    pub index_window_ms: u64,
    /// At most this many changes per index batch.
    pub index_batch_max: u32,
    pub vector: VectorConfig,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            engine: SearchEngine::Sqlite,
            async_index: false,
            index_window_ms: 200,
            index_batch_max: 50,
            vector: VectorConfig::default(),
        }
    }
}

/// `[search.vector]`: embeddings for semantic search and suggestions (off by default).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct VectorConfig {
    pub enabled: bool,
    pub worker_count: u32,
    /// `[search.vector.chunking]`, also written `[search.vector.chunk]`.
    #[serde(alias = "chunk")]
    pub chunking: ChunkingConfig,
    pub embedder: EmbedderConfig,
    pub store: VectorStoreConfig,
}

impl Default for VectorConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            worker_count: 5,
            chunking: ChunkingConfig::default(),
            embedder: EmbedderConfig::default(),
            store: VectorStoreConfig::default(),
        }
    }
}

/// `[search.vector.chunking]`: how pages are cut before embedding, in tokens.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ChunkingConfig {
    pub size: u32,
    pub overlap: u32,
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        Self {
            size: 512,
            overlap: 64,
        }
    }
}

keyword_enum! {
    /// `[search.vector.embedder] provider`.
    #[derive(Default)]
    pub enum EmbedderProvider ("embedding provider") {
        /// The model shipped inside quire (no network, nothing to install): the default.
        #[default]
        Local = "local",
        Openai = "openai",
        Ollama = "ollama",
        Cohere = "cohere",
        Voyage = "voyage",
        /// Any HTTP endpoint speaking the OpenAI embeddings shape, at `url`.
        Http = "http",
        Bedrock = "bedrock",
        Vertex = "vertex",
    }
}

/// `[search.vector.embedder]`: the model that turns text into vectors.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct EmbedderConfig {
    pub provider: EmbedderProvider,
    /// Absent: the provider's default model.
    #[serde(deserialize_with = "blank_as_none")]
    pub model: Option<String>,
    #[serde(deserialize_with = "blank_as_none")]
    pub api_key: Option<Secret>,
    /// Endpoint for `http`, `ollama` and self-hosted providers.
    #[serde(deserialize_with = "blank_as_none")]
    pub url: Option<String>,
    /// Absent: the model's native dimension.
    pub dimensions: Option<u32>,
    pub timeout: Duration,
}

impl Default for EmbedderConfig {
    fn default() -> Self {
        Self {
            provider: EmbedderProvider::default(),
            model: None,
            api_key: None,
            url: None,
            dimensions: None,
            timeout: Duration::from_secs(30),
        }
    }
}

keyword_enum! {
    /// `[search.vector.store] provider`.
    #[derive(Default)]
    pub enum VectorStoreProvider ("vector store") {
        /// Vectors in the index database next to the full-text index (the default).
        #[default]
        SqliteVec = "sqlite-vec",
        Qdrant = "qdrant",
        Pgvector = "pgvector",
        Pinecone = "pinecone",
        Weaviate = "weaviate",
        Milvus = "milvus",
    }
}

/// `[search.vector.store]`: where vectors are kept.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct VectorStoreConfig {
    pub provider: VectorStoreProvider,
    /// Address of an external store (`qdrant`: `http://host:6333`); unused by `sqlite-vec`.
    #[serde(deserialize_with = "blank_as_none")]
    pub url: Option<String>,
    /// `pgvector`'s database (`postgres://user:password@host:5432/db`): a secret, it may
    /// hold the password.
    #[serde(deserialize_with = "blank_as_none")]
    pub dsn: Option<Secret>,
    #[serde(deserialize_with = "blank_as_none")]
    pub api_key: Option<Secret>,
    /// Collection, index or table name in an external store (`pgvector`: the prefix of its
    /// tables).
    #[serde(deserialize_with = "blank_as_none")]
    pub collection: Option<String>,
}

impl Default for VectorStoreConfig {
    fn default() -> Self {
        Self {
            provider: VectorStoreProvider::SqliteVec,
            url: None,
            dsn: None,
            api_key: None,
            collection: None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// [versioning]

keyword_enum! {
    /// `[versioning] strategy`: how page history is kept.
    #[derive(Default)]
    pub enum VersioningStrategy ("versioning strategy") {
        /// Every write is a git commit (the default).
        #[default]
        Git = "git",
        /// Copy-on-write snapshots without git, `max_versions` per file.
        Cow = "cow",
        /// Writes overwrite in place; no history.
        None = "none",
    }
}

impl VersioningStrategy {
    /// Whether the strategy keeps earlier versions of a page at all.
    pub fn keeps_history(self) -> bool {
        !matches!(self, Self::None)
    }
}

/// `[versioning]`: history strategy and commit batching.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct VersioningConfig {
    pub strategy: VersioningStrategy,
    /// Writes within `batch_window_ms` share one commit.
    pub async_commit: bool,
    pub batch_window_ms: u64,
    pub batch_max_size: u32,
    /// Backpressure of async commits: a write waits while an acknowledged write older than
    /// this is not committed yet. At least `batch_window_ms`.
    pub max_commit_lag_ms: u64,
    /// ... or while more than this many files wait for their commit. At least
    /// `batch_max_size`.
    pub max_pending: u32,
    /// `cow` only: versions kept per file.
    pub max_versions: u32,
}

/// How writes become commits; see [`VersioningConfig::commit_batching`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitBatching {
    /// One commit per write, before the write returns.
    PerWrite,
    /// Writes arriving within `window` share one commit of at most `max_size` writes.
    Batched {
        window: std::time::Duration,
        max_size: u32,
    },
}

impl VersioningConfig {
    pub fn batch_window(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.batch_window_ms)
    }

    pub fn max_commit_lag(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.max_commit_lag_ms)
    }

    /// Batching only applies when commits are asynchronous and a batch can hold more than one
    /// write; a zero window or size means per-write commits.
    pub fn commit_batching(&self) -> CommitBatching {
        if self.async_commit && self.batch_window_ms > 0 && self.batch_max_size > 1 {
            CommitBatching::Batched {
                window: self.batch_window(),
                max_size: self.batch_max_size,
            }
        } else {
            CommitBatching::PerWrite
        }
    }

    pub fn keeps_history(&self) -> bool {
        self.strategy.keeps_history()
    }
}

impl Default for VersioningConfig {
    fn default() -> Self {
        Self {
            strategy: VersioningStrategy::Git,
            async_commit: true,
            batch_window_ms: 200,
            batch_max_size: 50,
            max_commit_lag_ms: 2_000,
            max_pending: 2_000,
            max_versions: 100,
        }
    }
}

// ---------------------------------------------------------------------------------------
// [auth]

keyword_enum! {
    /// `[auth] type`: how requests prove who they are.
    #[derive(Default)]
    pub enum AuthType ("auth type") {
        /// No authentication (the default).
        #[default]
        None = "none",
        /// One global key in `api_key`.
        Apikey = "apikey",
        /// One key per space in `[[auth.api_keys]]`.
        Perspace = "perspace",
        /// OpenID Connect JWTs from `issuer` for `client_id`.
        Oidc = "oidc",
    }
}

keyword_enum! {
    /// What a key from `[[auth.api_keys]]` may do.
    pub enum KeyScope ("key scope") {
        Read = "read",
        Write = "write",
        Admin = "admin",
    }
}

/// `[auth]`: the authentication scheme and its keys.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct AuthConfig {
    #[serde(rename = "type")]
    pub kind: AuthType,
    /// The key for `type = "apikey"`.
    #[serde(deserialize_with = "blank_as_none")]
    pub api_key: Option<Secret>,
    /// Per-space and scoped keys (`quire token create` appends here).
    pub api_keys: Vec<ApiKeyEntry>,
    #[serde(deserialize_with = "blank_as_none")]
    pub issuer: Option<String>,
    #[serde(deserialize_with = "blank_as_none")]
    pub client_id: Option<String>,
    /// The JWT claim naming the actor of an OIDC request (`sub` when unset).
    #[serde(deserialize_with = "blank_as_none")]
    pub actor_claim: Option<String>,
    /// What an OIDC-authenticated caller may do (`write` when unset).
    pub oidc_scope: Option<KeyScope>,
}

/// One `[[auth.api_keys]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ApiKeyEntry {
    /// The key in clear (hand-written entries, usually `${VAR}`); entries made by
    /// `quire token create` carry `id` and `key_hash` instead.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub key: Option<Secret>,
    /// The public part of a token made by `quire token create` (`quire_<id>_…`), naming the
    /// entry in `quire token list` and `revoke`.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub id: Option<String>,
    /// The Argon2id hash (PHC string) of a token made by `quire token create`.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub key_hash: Option<String>,
    /// When the token was created (RFC 3339), informational.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub created: Option<String>,
    /// The space the key opens; absent means every space.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub space: Option<String>,
    /// Attribution for writes made with this key when no `X-Actor` is sent.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub actor: Option<String>,
    /// Absent means `admin`: a plain per-space key has always granted everything in its
    /// space; scoped keys made by `quire token create` always write a scope.
    #[serde(default = "full_scope")]
    pub scope: KeyScope,
}

fn full_scope() -> KeyScope {
    KeyScope::Admin
}

// ---------------------------------------------------------------------------------------
// [assets] [ui] [space]

/// `[assets]`: uploads through `POST /assets`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct AssetsConfig {
    pub max_file_size: ByteSize,
    /// Media types accepted; empty accepts any type.
    pub allowed_types: Vec<String>,
}

impl Default for AssetsConfig {
    fn default() -> Self {
        Self {
            max_file_size: ByteSize::mib(10),
            // SVG is left out on purpose: served from the same origin it can run scripts.
            allowed_types: [
                "image/png",
                "image/jpeg",
                "image/gif",
                "image/webp",
                "application/pdf",
            ]
            .map(str::to_owned)
            .to_vec(),
        }
    }
}

/// `[ui]`: the web UI.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct UiConfig {
    /// `PUT /theme` answers 403 while this is true.
    pub theme_locked: bool,
}

keyword_enum! {
    /// `[space] visibility`: who may browse the space.
    #[derive(Default)]
    pub enum Visibility ("visibility") {
        /// Every access needs authentication (the default).
        #[default]
        Private = "private",
        /// Reachable by URL but not listed.
        Unlisted = "unlisted",
        /// Pages with `visibility: public` frontmatter are browsable without authentication.
        Public = "public",
    }
}

/// `[space]`: settings of this knowledge root as a space.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct SpaceConfig {
    pub visibility: Visibility,
}

// ---------------------------------------------------------------------------------------
// [backup] [janitor] [analytics]

/// `[backup]`: pushing the git history to a remote; off while `remote` is unset.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct BackupConfig {
    #[serde(deserialize_with = "blank_as_none")]
    pub remote: Option<String>,
    pub interval: Duration,
    pub branch: String,
    /// Fetch and rebase before pushing, so pushes from two machines do not collide.
    pub rebase_before_push: bool,
}

impl Default for BackupConfig {
    fn default() -> Self {
        Self {
            remote: None,
            interval: Duration::from_secs(3600),
            branch: "main".to_owned(),
            rebase_before_push: true,
        }
    }
}

/// `[janitor]`: the periodic health scan (stale, orphaned, broken, empty pages).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct JanitorConfig {
    pub interval: Duration,
    /// The janitor calls a page stale when its `review-by` date has passed, or when it was
    /// not modified for this many days (0: only `review-by`).
    pub stale_days: u32,
    /// Also scan once right after start.
    pub startup_scan: bool,
}

impl Default for JanitorConfig {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(3600),
            stale_days: 30,
            startup_scan: false,
        }
    }
}

/// `[analytics]`: the health dashboard and page-view tracking.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct AnalyticsConfig {
    /// Days without an update after which the dashboard calls a page stale.
    pub stale_days: u32,
    /// Record page views for `/analytics/views/v2`.
    pub track_views: bool,
}

impl Default for AnalyticsConfig {
    fn default() -> Self {
        Self {
            stale_days: 30,
            track_views: false,
        }
    }
}

// ---------------------------------------------------------------------------------------
// [dataview] [memory] [drafts]

/// `[dataview]`: bounds of DQL queries and computed views.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct DataviewConfig {
    pub max_scan_rows: u64,
    pub query_timeout: Duration,
    /// Indexes the query engine may add on its own for frequently filtered fields.
    pub max_auto_indexes: u32,
    /// Extra fields computed for every page: name → expression.
    pub computed_fields: BTreeMap<String, String>,
    /// Frontmatter fields with a declared kind: name → `text`, `number`, `date`, `bool`, `list`.
    pub custom_fields: BTreeMap<String, String>,
}

impl Default for DataviewConfig {
    fn default() -> Self {
        Self {
            max_scan_rows: 10_000,
            query_timeout: Duration::from_secs(5),
            max_auto_indexes: 20,
            computed_fields: BTreeMap::new(),
            custom_fields: BTreeMap::new(),
        }
    }
}

/// `[memory]`: agent memory pages.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct MemoryConfig {
    /// Folder of episodic pages that `/memory/report` reads when no prefix is given.
    pub episodes_path_prefix: String,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            episodes_path_prefix: "memory/episodes/".to_owned(),
        }
    }
}

/// `[drafts]`: draft branches (need git versioning).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct DraftsConfig {
    pub enabled: bool,
    pub max_active: u32,
    /// Drafts untouched this long are discarded.
    pub auto_discard: Duration,
}

impl Default for DraftsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_active: 10,
            auto_discard: Duration::from_secs(720 * 3600),
        }
    }
}

// ---------------------------------------------------------------------------------------
// [workflow] [audit] [webhooks] [schema] [claims]

/// A state change written `"from->to"` in `[workflow] transitions`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Transition {
    pub from: String,
    pub to: String,
}

impl std::str::FromStr for Transition {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (from, to) = text
            .split_once("->")
            .ok_or_else(|| format!("invalid transition `{text}`: write it as \"from->to\""))?;
        let (from, to) = (from.trim(), to.trim());
        if from.is_empty() || to.is_empty() || to.contains("->") {
            return Err(format!(
                "invalid transition `{text}`: write it as \"from->to\" with both states named"
            ));
        }
        Ok(Self {
            from: from.to_owned(),
            to: to.to_owned(),
        })
    }
}

impl fmt::Display for Transition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}", self.from, self.to)
    }
}

impl Serialize for Transition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Transition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer)?
            .parse()
            .map_err(de::Error::custom)
    }
}

/// `[workflow]`: rules shared by every workflow definition.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct WorkflowConfig {
    /// Reject advances that no definition (or `transitions`) lists.
    pub enforce_transitions: bool,
    /// Transitions allowed in every workflow.
    pub transitions: Vec<Transition>,
}

impl WorkflowConfig {
    /// Whether `transitions` allows going from `from` to `to`.
    pub fn allows_globally(&self, from: &str, to: &str) -> bool {
        self.transitions
            .iter()
            .any(|transition| transition.from == from && transition.to == to)
    }
}

/// `[audit]`: the request log behind `GET /audit`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct AuditConfig {
    pub enabled: bool,
}

/// `[webhooks]`: signed POSTs of write events.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct WebhooksConfig {
    pub enabled: bool,
    pub max_workers: u32,
    pub max_retries: u32,
}

impl Default for WebhooksConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            max_workers: 4,
            max_retries: 3,
        }
    }
}

/// `[schema]`: JSON Schema checks of frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct SchemaConfig {
    /// Validate writes whose `type` names a schema; off means schemas are stored only.
    pub enforce: bool,
}

/// `[claims]`: advisory path claims with leases.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ClaimsConfig {
    pub enabled: bool,
    /// Lease of a claim that names none.
    #[serde(deserialize_with = "lease")]
    pub default_lease: Duration,
}

impl ClaimsConfig {
    pub const MIN_LEASE: Duration = Duration::from_secs(60);
    pub const MAX_LEASE: Duration = Duration::from_secs(24 * 3600);

    /// `requested` brought into the allowed lease range; `None` takes the default.
    pub fn lease(&self, requested: Option<Duration>) -> Duration {
        requested
            .unwrap_or(self.default_lease)
            .clamp(Self::MIN_LEASE, Self::MAX_LEASE)
    }
}

impl Default for ClaimsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            default_lease: Duration::from_secs(30 * 60),
        }
    }
}

fn lease<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let lease = Duration::deserialize(deserializer)?;
    if (ClaimsConfig::MIN_LEASE..=ClaimsConfig::MAX_LEASE).contains(&lease) {
        Ok(lease)
    } else {
        Err(de::Error::custom(format!(
            "a lease must be between {} and {}, not {lease}",
            ClaimsConfig::MIN_LEASE,
            ClaimsConfig::MAX_LEASE
        )))
    }
}

// ---------------------------------------------------------------------------------------
// [[spaces]] [protocols]

/// One `[[spaces]]` entry: another knowledge root served by the same process.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct SpaceEntry {
    pub name: String,
    /// A relative root is relative to the main knowledge root (the one holding this file).
    pub root: PathBuf,
}

/// A listener of an extra protocol (off by default, except MCP over HTTP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listener {
    pub enabled: bool,
    pub port: u16,
}

impl Listener {
    const fn off(port: u16) -> Self {
        Self {
            enabled: false,
            port,
        }
    }

    const fn on(port: u16) -> Self {
        Self {
            enabled: true,
            port,
        }
    }
}

/// Reads a `[protocols.*]` table, filling a missing `port` with that protocol's `PORT` and a
/// missing `enabled` with `ON` (one `Listener` type cannot carry four different defaults on
/// its own).
fn listener<'de, D: Deserializer<'de>, const PORT: u16, const ON: bool>(
    deserializer: D,
) -> Result<Listener, D::Error> {
    #[derive(Deserialize)]
    struct Written {
        enabled: Option<bool>,
        port: Option<u16>,
    }
    let written = Written::deserialize(deserializer)?;
    Ok(Listener {
        enabled: written.enabled.unwrap_or(ON),
        port: written.port.unwrap_or(PORT),
    })
}

/// `[protocols]`: the other ways into the same write pipeline, each off by default.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ProtocolsConfig {
    pub nfs: NfsConfig,
    pub s3: S3Config,
    #[serde(deserialize_with = "listener::<_, 3335, false>")]
    pub webdav: Listener,
    /// MCP over streamable HTTP (stdio needs no listener); on by default: `quire serve`
    /// listens on it besides the REST port.
    #[serde(deserialize_with = "listener::<_, 8181, true>")]
    pub mcp: Listener,
    pub fuse: FuseConfig,
}

/// `[protocols.nfs]`: NFSv3 and its mount protocol on one TCP port. NFS carries no credential
/// quire can check, so every write is authored by `actor`, and a server whose `[server] host`
/// is not loopback refuses to start with NFS on unless `allow_remote` says so.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct NfsConfig {
    pub enabled: bool,
    pub port: u16,
    /// The author of the commits NFS writes make.
    pub actor: String,
    /// Refuse every change (clients see a read-only file system).
    pub read_only: bool,
    /// Serve NFS on a `[server] host` other clients can reach, with no authentication.
    pub allow_remote: bool,
}

impl NfsConfig {
    pub const DEFAULT_PORT: u16 = 2049;
    pub const DEFAULT_ACTOR: &'static str = "nfs";

    /// `enabled` and `port` as the other protocols have them.
    pub fn listener(&self) -> Listener {
        Listener {
            enabled: self.enabled,
            port: self.port,
        }
    }
}

impl Default for NfsConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            port: Self::DEFAULT_PORT,
            actor: Self::DEFAULT_ACTOR.to_string(),
            read_only: false,
            allow_remote: false,
        }
    }
}

/// `[protocols.fuse]`: `quire serve` mounts the default space at `mountpoint` (an existing,
/// empty folder) and unmounts it when it stops.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(default)]
pub struct FuseConfig {
    /// Where to mount; unset: no mount.
    pub mountpoint: Option<String>,
    /// The author of writes made through the mount (default `fuse`).
    pub actor: Option<String>,
}

impl Default for ProtocolsConfig {
    fn default() -> Self {
        Self {
            nfs: NfsConfig::default(),
            s3: S3Config::default(),
            webdav: Listener::off(3335),
            mcp: Listener::on(8181),
            fuse: FuseConfig::default(),
        }
    }
}

keyword_enum! {
    /// `[protocols.s3] scope`: what the S3 key may do.
    #[derive(Default)]
    pub enum S3Scope ("S3 scope") {
        /// Reads only: every write answers AccessDenied.
        Read = "read",
        #[default]
        Write = "write",
    }
}

/// `[protocols.s3]`: the S3-compatible API, each space a bucket. SigV4 needs the secret
/// itself (it signs with it), so it cannot be kept hashed: write it as `"${QUIRE_S3_SECRET}"`
/// to read it from the environment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct S3Config {
    pub enabled: bool,
    pub port: u16,
    /// The access key id clients sign with.
    #[serde(deserialize_with = "blank_as_none")]
    pub access_key: Option<String>,
    /// Its secret (never logged).
    #[serde(deserialize_with = "blank_as_none")]
    pub secret_key: Option<Secret>,
    /// The author of the commits S3 writes make.
    pub actor: String,
    pub scope: S3Scope,
    /// The region clients sign for.
    pub region: String,
    /// More keys, each a principal of its own (`[[protocols.s3.keys]]`); the single-key
    /// fields above, when set, are one more.
    pub keys: Vec<S3KeyEntry>,
}

/// One `[[protocols.s3.keys]]` entry: an S3 key with its own author, scope and bucket.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct S3KeyEntry {
    /// The access key id clients sign with.
    #[serde(default)]
    pub access_key: String,
    /// Its secret (never logged; usually `"${VAR}"`).
    #[serde(default, deserialize_with = "blank_as_none")]
    pub secret_key: Option<Secret>,
    /// The author of the commits its writes make.
    #[serde(default = "default_s3_actor")]
    pub actor: String,
    #[serde(default)]
    pub scope: S3Scope,
    /// The only bucket (space) the key sees; absent: every space.
    #[serde(default, deserialize_with = "blank_as_none")]
    pub space: Option<String>,
}

fn default_s3_actor() -> String {
    S3Config::DEFAULT_ACTOR.to_string()
}

/// An S3 key as the server uses it, checked ([`S3Config::principals`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Principal {
    pub access_key: String,
    pub secret_key: Secret,
    pub actor: String,
    pub scope: S3Scope,
    /// The only bucket the key sees; `None`: every space.
    pub space: Option<String>,
}

impl S3Config {
    pub const DEFAULT_PORT: u16 = 3334;
    pub const DEFAULT_ACTOR: &'static str = "s3";
    pub const DEFAULT_REGION: &'static str = "us-east-1";

    /// `enabled` and `port` as the other protocols have them.
    pub fn listener(&self) -> Listener {
        Listener {
            enabled: self.enabled,
            port: self.port,
        }
    }

    /// Every configured key, checked against `spaces` (the names of the configured spaces):
    /// the single-key fields first (when either is set), then `[[protocols.s3.keys]]` in
    /// order. Refused, with a message naming the key: no key at all, a key without its
    /// access key or secret (an unset `${VAR}` expands to nothing), an access key configured
    /// twice, an empty actor, a `space` naming no configured space.
    pub fn principals(&self, spaces: &[&str]) -> Result<Vec<S3Principal>, String> {
        let mut out: Vec<(String, S3Principal)> = Vec::new();
        let single = (self.access_key.is_some() || self.secret_key.is_some()).then(|| {
            (
                "protocols.s3".to_string(),
                self.access_key.clone().unwrap_or_default(),
                self.secret_key.clone(),
                self.actor.clone(),
                self.scope,
                None,
            )
        });
        let entries = self.keys.iter().enumerate().map(|(i, k)| {
            (
                format!("protocols.s3.keys[{i}]"),
                k.access_key.clone(),
                k.secret_key.clone(),
                k.actor.clone(),
                k.scope,
                k.space.clone(),
            )
        });
        for (setting, access_key, secret_key, actor, scope, space) in
            single.into_iter().chain(entries)
        {
            let access_key = access_key.trim().to_string();
            if access_key.is_empty() {
                return Err(format!(
                    "{setting}.access_key: an S3 key needs an access key id"
                ));
            }
            let named = format!("{setting} (access key {access_key:?})");
            let Some(secret_key) = secret_key else {
                return Err(format!(
                    "{named}: secret_key is empty (write it as \"${{VAR}}\" to read it from \
                     the environment; an unset variable expands to nothing)"
                ));
            };
            if let Some((other, _)) = out.iter().find(|(_, p)| p.access_key == access_key) {
                return Err(format!(
                    "{named}: the access key is configured twice (also {other}); each key is \
                     one principal"
                ));
            }
            if actor.trim().is_empty() {
                return Err(format!("{named}: actor is empty"));
            }
            if let Some(space) = &space {
                if !spaces.contains(&space.as_str()) {
                    return Err(format!(
                        "{named}: space {space:?} names no configured space (spaces: {})",
                        spaces.join(", ")
                    ));
                }
            }
            out.push((
                setting,
                S3Principal {
                    access_key,
                    secret_key,
                    actor,
                    scope,
                    space,
                },
            ));
        }
        if out.is_empty() {
            return Err(
                "protocols.s3.enabled: the S3 API needs protocols.s3.access_key and \
                 protocols.s3.secret_key, or [[protocols.s3.keys]] entries (write a secret as \
                 \"${QUIRE_S3_SECRET}\" to read it from the environment)"
                    .to_string(),
            );
        }
        Ok(out.into_iter().map(|(_, p)| p).collect())
    }
}

impl Default for S3Config {
    fn default() -> Self {
        Self {
            enabled: false,
            port: Self::DEFAULT_PORT,
            access_key: None,
            secret_key: None,
            actor: Self::DEFAULT_ACTOR.to_string(),
            scope: S3Scope::default(),
            region: Self::DEFAULT_REGION.to_string(),
            keys: Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// [refactor]

/// An approval threshold as written: `0` is the default, `-1` switches the check off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovalLimit {
    #[default]
    Default,
    Off,
    AtMost(u32),
}

impl ApprovalLimit {
    /// The threshold in force, `None` when the check is off.
    pub fn resolve(self, default: u32) -> Option<u32> {
        match self {
            Self::Default => Some(default),
            Self::Off => None,
            Self::AtMost(limit) => Some(limit),
        }
    }
}

/// Written back as the config file spells it: `0` the default, `-1` off, a count.
impl Serialize for ApprovalLimit {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(match self {
            Self::Default => 0,
            Self::Off => -1,
            Self::AtMost(limit) => i64::from(*limit),
        })
    }
}

impl<'de> Deserialize<'de> for ApprovalLimit {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LimitVisitor;

        impl Visitor<'_> for LimitVisitor {
            type Value = ApprovalLimit;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a count, 0 for the default or -1 for no limit")
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<ApprovalLimit, E> {
                match value {
                    -1 => Ok(ApprovalLimit::Off),
                    0 => Ok(ApprovalLimit::Default),
                    1.. => u32::try_from(value)
                        .map(ApprovalLimit::AtMost)
                        .map_err(|_| E::custom(format!("limit {value} is too large"))),
                    _ => Err(E::custom(format!(
                        "invalid limit {value}: use a count, 0 for the default or -1 for no limit"
                    ))),
                }
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<ApprovalLimit, E> {
                i64::try_from(value)
                    .map_err(|_| E::custom(format!("limit {value} is too large")))
                    .and_then(|value| self.visit_i64(value))
            }
        }

        deserializer.deserialize_i64(LimitVisitor)
    }
}

/// `[refactor]`: workspace rules for restructuring plans.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct RefactorConfig {
    /// Agent plans writing or deleting more files than this need approval.
    pub approval_files: ApprovalLimit,
    /// Agent plans rewriting more links than this need approval.
    pub approval_links: ApprovalLimit,
    /// Globs no plan may touch.
    pub protect: Vec<String>,
    /// The only folder plans may touch; absent means the whole root.
    #[serde(deserialize_with = "blank_as_none")]
    pub scope: Option<String>,
}

impl RefactorConfig {
    pub const DEFAULT_APPROVAL_FILES: u32 = 50;
    pub const DEFAULT_APPROVAL_LINKS: u32 = 200;

    /// Files an agent plan may write or delete without approval; `None` = no check.
    pub fn approval_files_limit(&self) -> Option<u32> {
        self.approval_files.resolve(Self::DEFAULT_APPROVAL_FILES)
    }

    /// Links an agent plan may rewrite without approval; `None` = no check.
    pub fn approval_links_limit(&self) -> Option<u32> {
        self.approval_links.resolve(Self::DEFAULT_APPROVAL_LINKS)
    }
}
