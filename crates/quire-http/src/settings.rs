//! What the configuration asks of the HTTP layer (authentication, CORS), checked before the
//! server starts: a setting that cannot be enforced is a [`SetupError`], never ignored.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method};
use quire_api::ProtocolStatus;
use quire_config::Config;
use tower_http::cors::{AllowOrigin, CorsLayer};

use std::path::Path;
use std::sync::Arc;

use crate::audit::AuditLog;
use crate::auth::{AuthHandle, AuthPolicy};
pub use crate::credentials::SetupError;
use crate::gate::{Gate, Limiter, LimiterHandle};
use crate::visibility::Visibilities;

/// Everything [`crate::router`] needs besides the service.
#[derive(Clone)]
pub struct HttpSettings {
    /// The live authentication policy; [`AuthHandle::replace`] swaps it (SIGHUP).
    pub auth: AuthHandle,
    /// `None`: no cross-origin access (browsers refuse other origins).
    pub cors: Option<CorsLayer>,
    /// `[audit] enabled`: the log is opened in the default space's root by [`crate::try_router`]
    /// unless [`HttpSettings::audit_log`] was given.
    pub audit_enabled: bool,
    pub audit_log: Option<Arc<AuditLog>>,
    /// `[server.rate_limit]` (none when off); [`Reload`] replaces it.
    pub limiter: LimiterHandle,
    /// `[space] visibility` of the default space at start.
    pub visibility: quire_config::Visibility,
    /// The webhooks of the service when `[webhooks] enabled` (opened and started by the
    /// caller, who stops them); `None` answers 503 on the webhook routes.
    pub webhooks: Option<Arc<dyn quire_service::WebhookRegistry>>,
    /// The live visibility of every space, filled by [`crate::try_router`].
    pub visibilities: Arc<Visibilities>,
    /// The protocol servers `/readyz` reports, by name.
    pub protocols: BTreeMap<String, ProtocolStatus>,
    /// `[server] max_event_streams`: most `/events` streams open at once.
    pub max_event_streams: usize,
}

impl HttpSettings {
    /// No authentication and no cross-origin access (tests, and `[auth] type = "none"`).
    pub fn open(default_space: &str) -> HttpSettings {
        HttpSettings {
            auth: AuthHandle::new(AuthPolicy::open(default_space)),
            cors: None,
            audit_enabled: false,
            audit_log: None,
            limiter: LimiterHandle::default(),
            visibility: quire_config::Visibility::Private,
            webhooks: None,
            visibilities: Arc::default(),
            protocols: protocols(&quire_config::ProtocolsConfig::default()),
            max_event_streams: quire_config::ServerConfig::DEFAULT_MAX_EVENT_STREAMS,
        }
    }

    /// The gate of [`crate::gate::check`] with the audit log opened in `root` (the default
    /// space's) when `[audit]` asks for it and none was given. An audit log that cannot be
    /// opened is a [`SetupError`]: the server does not run unaudited.
    pub fn gate(&mut self, root: &Path) -> Result<Arc<Gate>, SetupError> {
        if self.audit_enabled && self.audit_log.is_none() {
            let log = AuditLog::open_in_root(root).map_err(|e| SetupError {
                setting: "audit.enabled".into(),
                message: format!(
                    "cannot open the audit log in {}: {e}",
                    root.join(".quire/state").display()
                ),
            })?;
            self.audit_log = Some(Arc::new(log));
        }
        Ok(Arc::new(Gate {
            auth: self.auth.clone(),
            audit: self.audit_log.clone(),
            limiter: self.limiter.clone(),
        }))
    }

    /// The settings `config` asks for over these spaces (the first is the default).
    pub fn from_config(config: &Config, spaces: &[&str]) -> Result<HttpSettings, SetupError> {
        let rate = &config.server.rate_limit;
        Ok(HttpSettings {
            auth: AuthHandle::new(AuthPolicy::from_config(&config.auth, spaces)?),
            cors: cors_layer(&config.server)?,
            audit_enabled: config.audit.enabled,
            audit_log: None,
            limiter: LimiterHandle::new(Limiter::new(rate.requests_per_minute, rate.burst_size)),
            visibility: config.space.visibility,
            webhooks: None,
            visibilities: Arc::default(),
            protocols: protocols(&config.protocols),
            max_event_streams: config.server.max_event_streams,
        })
    }

    /// What a reload of the configuration (SIGHUP) may change in the server these settings
    /// start.
    pub fn reload_handle(&self) -> Reload {
        Reload {
            auth: self.auth.clone(),
            limiter: self.limiter.clone(),
            visibilities: self.visibilities.clone(),
        }
    }
}

/// The protocol servers of the spec as the configuration asks for them. The binary replaces the
/// entry of each protocol it serves (it binds their ports before it starts); one enabled that
/// no listener was started for stays unhealthy, which makes `/readyz` answer 503 rather than
/// report ready without it.
fn protocols(config: &quire_config::ProtocolsConfig) -> BTreeMap<String, ProtocolStatus> {
    [
        ("nfs", &config.nfs.listener(), "NFS"),
        ("s3", &config.s3.listener(), "S3"),
        ("webdav", &config.webdav, "WebDAV"),
    ]
    .into_iter()
    .map(|(name, listener, what)| {
        let status = ProtocolStatus {
            enabled: listener.enabled,
            healthy: false,
            port: listener.port,
            error: listener
                .enabled
                .then(|| format!("{what} is enabled, and this process serves no {what} listener")),
        };
        (name.to_string(), status)
    })
    .collect()
}

/// The settings a running server takes from a reloaded configuration (SIGHUP): `[auth]`,
/// `[server.rate_limit]` and `[space] visibility` (the default space's from the main file,
/// every other space's from its own root). Everything else is read at start only;
/// [`needs_restart`] names what changed of it.
#[derive(Clone)]
pub struct Reload {
    auth: AuthHandle,
    limiter: LimiterHandle,
    visibilities: Arc<Visibilities>,
}

/// What SIGHUP reloads, for the log and the documentation.
pub const RELOADED_SECTIONS: &[&str] = &["auth", "server.rate_limit", "space.visibility"];

impl Reload {
    /// Applies `config` over `service`'s spaces, all or nothing: when the new authentication
    /// cannot be enforced (a key naming an unknown space, an unreachable OIDC issuer…) nothing
    /// changes and the error says why, so a reload never weakens protection. Blocking (OIDC
    /// discovery).
    pub fn apply(
        &self,
        config: &Config,
        service: &quire_service::Service,
    ) -> Result<(), SetupError> {
        let spaces = service.spaces();
        let names: Vec<&str> = spaces.iter().map(|s| s.name()).collect();
        let policy = AuthPolicy::from_config(&config.auth, &names)?;
        let rate = &config.server.rate_limit;
        self.auth.replace(policy);
        self.limiter.set(rate.requests_per_minute, rate.burst_size);
        for (index, space) in spaces.iter().enumerate() {
            let visibility = if index == 0 {
                config.space.visibility
            } else {
                crate::visibility::configured(space.root_dir())
            };
            self.visibilities.set(space.name(), visibility);
        }
        Ok(())
    }
}

/// The settings that differ between `old` and `new` and that only a restart applies (dotted
/// names, e.g. `server.cors`, `audit`), for the log of a reload.
pub fn needs_restart(old: &Config, new: &Config) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut differs = |name: &'static str, changed: bool| {
        if changed {
            out.push(name);
        }
    };
    let (a, b) = (&old.server, &new.server);
    differs("server.host", a.host != b.host);
    differs("server.port", a.port != b.port);
    differs(
        "server.cors",
        a.cors_origins != b.cors_origins || a.cors != b.cors,
    );
    differs("server.public_url", a.public_url != b.public_url);
    let mut space_a = old.space.clone();
    space_a.visibility = new.space.visibility;
    differs("space", space_a != new.space);
    differs("search", old.search != new.search);
    differs("versioning", old.versioning != new.versioning);
    differs("assets", old.assets != new.assets);
    differs("ui", old.ui != new.ui);
    differs("backup", old.backup != new.backup);
    differs("janitor", old.janitor != new.janitor);
    differs("analytics", old.analytics != new.analytics);
    differs("dataview", old.dataview != new.dataview);
    differs("memory", old.memory != new.memory);
    differs("drafts", old.drafts != new.drafts);
    differs("workflow", old.workflow != new.workflow);
    differs("audit", old.audit != new.audit);
    differs("webhooks", old.webhooks != new.webhooks);
    differs("schema", old.schema != new.schema);
    differs("claims", old.claims != new.claims);
    differs("protocols", old.protocols != new.protocols);
    differs("refactor", old.refactor != new.refactor);
    differs("spaces", old.spaces != new.spaces);
    out
}

/// Headers a browser client may send across origins.
const ALLOWED_HEADERS: &[&str] = &[
    "authorization",
    "content-type",
    "if-match",
    "x-actor",
    "x-provenance",
    "x-quire-space",
    "x-quire-client",
    "x-space",
    "last-event-id",
];

/// `[server] cors_origins` and `[server.cors]` as a layer; `None` when no origin is allowed.
fn cors_layer(server: &quire_config::ServerConfig) -> Result<Option<CorsLayer>, SetupError> {
    let origins = server.cors_allowed_origins();
    if origins.is_empty() {
        return Ok(None);
    }
    let cors = &server.cors;
    let setup = |setting: &str, message: String| SetupError {
        setting: setting.to_string(),
        message,
    };
    let any = origins.contains(&"*");
    if any && cors.allow_credentials {
        return Err(setup(
            "server.cors.allow_credentials",
            "credentials cannot be allowed for every origin (\"*\"); list the origins".into(),
        ));
    }
    let allow_origin = if any {
        AllowOrigin::any()
    } else {
        let mut values = Vec::with_capacity(origins.len());
        for origin in origins {
            let value = HeaderValue::from_str(origin.trim_end_matches('/')).map_err(|_| {
                setup(
                    "server.cors.allowed_origins",
                    format!("{origin:?} is not an origin such as https://kb.example.com"),
                )
            })?;
            values.push(value);
        }
        AllowOrigin::list(values)
    };
    let mut methods = Vec::with_capacity(cors.allowed_methods.len());
    for name in &cors.allowed_methods {
        let method =
            Method::from_bytes(name.trim().to_ascii_uppercase().as_bytes()).map_err(|_| {
                setup(
                    "server.cors.allowed_methods",
                    format!("{name:?} is not a method"),
                )
            })?;
        methods.push(method);
    }
    let headers: Vec<HeaderName> = ALLOWED_HEADERS
        .iter()
        .map(|h| HeaderName::from_static(h))
        .collect();
    Ok(Some(
        CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_methods(methods)
            .allow_headers(headers)
            .expose_headers([HeaderName::from_static("etag")])
            .allow_credentials(cors.allow_credentials)
            .max_age(Duration::from_secs(u64::from(cors.max_age))),
    ))
}
