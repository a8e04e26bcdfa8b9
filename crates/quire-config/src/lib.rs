//! The `.quire/config.toml` model: every section with the spec's defaults, `${VAR}`
//! expansion, unknown keys as warnings, and `QUIRE_*` environment overrides.
//!
//! ```
//! let loaded = quire_config::Config::from_toml_str(
//!     "[server]\nport = 8080\n[versioning]\nstrategy = \"none\"\n",
//!     &|_| None,
//! )
//! .unwrap();
//! assert_eq!(loaded.config.server.port, 8080);
//! assert!(loaded.warnings.is_empty());
//! ```

mod env;
mod error;
mod expand;
mod keyword;
mod secret;
mod sections;
mod template;
mod units;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use env::ENV_OVERRIDES;
pub use error::ConfigError;
pub use keyword::UnknownKeyword;
pub use secret::Secret;
pub use sections::{
    AnalyticsConfig, ApiKeyEntry, ApprovalLimit, AssetsConfig, AuditConfig, AuthConfig, AuthType,
    BackupConfig, ChunkingConfig, ClaimsConfig, CommitBatching, CorsConfig, DataviewConfig,
    DraftsConfig, EmbedderConfig, EmbedderProvider, FuseConfig, JanitorConfig, KeyScope, Listener,
    MemoryConfig, NfsConfig, ProtocolsConfig, RateLimitConfig, RefactorConfig, S3Config,
    S3KeyEntry, S3Principal, S3Scope, SchemaConfig, SearchConfig, SearchEngine, ServerConfig,
    SpaceConfig, SpaceEntry, Transition, UiConfig, VectorConfig, VectorStoreConfig,
    VectorStoreProvider, VersioningConfig, VersioningStrategy, Visibility, WebhooksConfig,
    WorkflowConfig,
};
pub use template::default_config_toml;
pub use units::{ByteSize, Duration, UnitError};

use expand::{Context, Expanding};

/// Where the config file lives inside a knowledge root.
pub const CONFIG_FILE: &str = ".quire/config.toml";

/// Everything `.quire/config.toml` can say. `Config::default()` is what an empty or missing
/// file means.
/// It serializes too (credentials as `***`), so that a caller can compare or list its keys.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Config {
    pub server: ServerConfig,
    pub space: SpaceConfig,
    pub auth: AuthConfig,
    pub search: SearchConfig,
    pub versioning: VersioningConfig,
    pub assets: AssetsConfig,
    pub ui: UiConfig,
    pub backup: BackupConfig,
    pub janitor: JanitorConfig,
    pub analytics: AnalyticsConfig,
    pub dataview: DataviewConfig,
    pub memory: MemoryConfig,
    pub drafts: DraftsConfig,
    pub workflow: WorkflowConfig,
    pub audit: AuditConfig,
    pub webhooks: WebhooksConfig,
    pub schema: SchemaConfig,
    pub claims: ClaimsConfig,
    pub protocols: ProtocolsConfig,
    pub refactor: RefactorConfig,
    /// Further knowledge roots served next to this one.
    pub spaces: Vec<SpaceEntry>,
}

/// A parsed configuration and what was odd about it but not fatal.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub config: Config,
    /// One line per unknown key (naming its dotted path) and per `${VAR}` problem.
    pub warnings: Vec<String>,
}

impl Config {
    /// Parses config text. `${VAR}` in string values expands through `env` (an unset
    /// variable gives `""` and a warning; `$${` is a literal `${`). Unknown keys are
    /// warnings; TOML syntax errors, wrong types and invalid values are errors naming the
    /// key and line. The result is also [validated](Config::validate).
    pub fn from_toml_str(
        text: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Loaded, ConfigError> {
        let cx = Context::new(env);
        let mut unknown_keys = Vec::new();
        let parsed: Result<Config, toml::de::Error> = serde_ignored::deserialize(
            Expanding::new(toml::Deserializer::new(text), &cx),
            |path| unknown_keys.push(dotted(&path)),
        );
        let config = parsed.map_err(|error| parse_error(text, &error, cx.failed_at()))?;
        config.validate()?;
        let mut warnings: Vec<String> = unknown_keys
            .into_iter()
            .map(|key| format!("unknown key `{key}` ignored"))
            .collect();
        warnings.extend(cx.into_warnings());
        Ok(Loaded { config, warnings })
    }

    /// Reads `<root>/.quire/config.toml`, expanding `${VAR}` from the process environment.
    /// A missing file means the defaults, without a warning. `QUIRE_*` overrides are not
    /// applied here; see [`Config::apply_env_overrides`].
    pub fn load(root: &Path) -> Result<Loaded, ConfigError> {
        Self::load_with_env(root, &|name| std::env::var(name).ok())
    }

    /// [`Config::load`] with the environment given, for callers and tests that must not
    /// depend on the process environment.
    pub fn load_with_env(
        root: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Loaded, ConfigError> {
        let path = config_path(root);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Loaded {
                    config: Config::default(),
                    warnings: Vec::new(),
                })
            }
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        Self::from_toml_str(&text, env).map_err(|error| ConfigError::InFile {
            path,
            source: Box::new(error),
        })
    }

    /// Checks what single values cannot: that the chosen auth type has its credentials,
    /// that space names are unique, and similar. [`Config::from_toml_str`] and
    /// [`Config::apply_env_overrides`] call it; call it again after changing a `Config`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |key: &str, message: &str| ConfigError::Invalid {
            key: key.to_owned(),
            message: message.to_owned(),
        };
        if self.server.host.trim().is_empty() {
            return Err(invalid("server.host", "the bind address must not be empty"));
        }
        if let Some(url) = &self.server.public_url {
            if let Err(message) = check_public_url(url) {
                return Err(invalid("server.public_url", &message));
            }
        }
        if self.backup.interval.as_std() < std::time::Duration::from_secs(1) {
            return Err(invalid(
                "backup.interval",
                "pushes need an interval of at least a second",
            ));
        }
        if self.backup.branch.trim().is_empty() {
            return Err(invalid("backup.branch", "the branch must not be empty"));
        }
        let auth = &self.auth;
        match auth.kind {
            AuthType::None => {}
            AuthType::Apikey => {
                if auth.api_key.is_none() {
                    return Err(invalid(
                        "auth.api_key",
                        "auth type `apikey` needs a non-empty key",
                    ));
                }
            }
            AuthType::Perspace => {
                if auth.api_keys.is_empty() {
                    return Err(invalid(
                        "auth.api_keys",
                        "auth type `perspace` needs at least one [[auth.api_keys]] entry",
                    ));
                }
                if let Some(index) = auth.api_keys.iter().position(|key| key.space.is_none()) {
                    return Err(invalid(
                        &format!("auth.api_keys[{index}].space"),
                        "auth type `perspace` needs a space for every key",
                    ));
                }
            }
            AuthType::Oidc => {
                if auth.issuer.is_none() {
                    return Err(invalid("auth.issuer", "auth type `oidc` needs an issuer"));
                }
                if auth.client_id.is_none() {
                    return Err(invalid(
                        "auth.client_id",
                        "auth type `oidc` needs a client_id",
                    ));
                }
            }
        }
        for (index, entry) in auth.api_keys.iter().enumerate() {
            match (&entry.key, &entry.key_hash) {
                (Some(key), None) if key.expose().trim().is_empty() => {
                    return Err(invalid(
                        &format!("auth.api_keys[{index}].key"),
                        "a key must not be empty",
                    ))
                }
                (Some(_), None) => {}
                (None, Some(_)) if entry.id.is_none() => return Err(invalid(
                    &format!("auth.api_keys[{index}].id"),
                    "a key given by `key_hash` needs its `id` (as `quire token create` writes it)",
                )),
                (None, Some(_)) => {}
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        &format!("auth.api_keys[{index}]"),
                        "give either `key` or `key_hash`, not both",
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        &format!("auth.api_keys[{index}].key"),
                        "a key must not be empty",
                    ))
                }
            }
        }

        let mut names = HashSet::new();
        for (index, space) in self.spaces.iter().enumerate() {
            if space.name.trim().is_empty() {
                return Err(invalid(
                    &format!("spaces[{index}].name"),
                    "a space needs a name",
                ));
            }
            if !names.insert(space.name.as_str()) {
                return Err(invalid(
                    &format!("spaces[{index}].name"),
                    &format!("space `{}` is listed twice", space.name),
                ));
            }
            if space.root.as_os_str().is_empty() {
                return Err(invalid(
                    &format!("spaces[{index}].root"),
                    "a space needs a root",
                ));
            }
        }

        let chunking = &self.search.vector.chunking;
        if chunking.size == 0 {
            return Err(invalid(
                "search.vector.chunking.size",
                "chunks must hold at least one token",
            ));
        }
        if chunking.overlap >= chunking.size {
            return Err(invalid(
                "search.vector.chunking.overlap",
                "the overlap must be smaller than the chunk size",
            ));
        }
        let versioning = &self.versioning;
        if versioning.max_commit_lag_ms == 0 {
            return Err(invalid(
                "versioning.max_commit_lag_ms",
                "the commit lag bound must be positive",
            ));
        }
        if versioning.max_pending == 0 {
            return Err(invalid(
                "versioning.max_pending",
                "the bound of uncommitted files must be positive",
            ));
        }
        if let CommitBatching::Batched { window, max_size } = versioning.commit_batching() {
            if versioning.max_commit_lag() < window {
                return Err(invalid(
                    "versioning.max_commit_lag_ms",
                    &format!(
                        "{} ms is shorter than batch_window_ms ({} ms): every write would wait                          for its batch",
                        versioning.max_commit_lag_ms, versioning.batch_window_ms
                    ),
                ));
            }
            if versioning.max_pending < max_size {
                return Err(invalid(
                    "versioning.max_pending",
                    &format!(
                        "{} is smaller than batch_max_size ({max_size}): writes would wait                          before a batch is full",
                        versioning.max_pending
                    ),
                ));
            }
        }
        if self.webhooks.max_workers == 0 {
            return Err(invalid(
                "webhooks.max_workers",
                "at least one worker is needed to deliver webhooks",
            ));
        }
        Ok(())
    }
}

/// An absolute `http` or `https` URL naming a host, without query or fragment: links are
/// made by appending paths to it.
fn check_public_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| format!("{url:?} is not an http:// or https:// URL"))?;
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') || host.contains('@') {
        return Err(format!("{url:?} names no host"));
    }
    if url.contains(['?', '#']) || url.chars().any(char::is_whitespace) {
        return Err(format!(
            "{url:?} must not hold a query, a fragment or spaces: paths are appended to it"
        ));
    }
    Ok(())
}

/// `<root>/.quire/config.toml`.
pub fn config_path(root: &Path) -> PathBuf {
    root.join(CONFIG_FILE)
}

/// `server.bogus`, `auth.api_keys[0].bogus`: the form every message of this crate uses.
fn dotted(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", dotted(parent)),
        Path::Map { parent, key } => {
            let parent = dotted(parent);
            if parent.is_empty() {
                key.clone()
            } else {
                format!("{parent}.{key}")
            }
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => dotted(parent),
    }
}

fn parse_error(text: &str, error: &toml::de::Error, key: Option<String>) -> ConfigError {
    let (line, column) = match error.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
            (
                Some(before.matches('\n').count() + 1),
                Some(before[line_start..].chars().count() + 1),
            )
        }
        None => (None, None),
    };
    ConfigError::Parse {
        key,
        line,
        column,
        message: error
            .message()
            .trim_end()
            .lines()
            .collect::<Vec<_>>()
            .join("; "),
    }
}
