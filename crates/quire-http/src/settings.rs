//! What the configuration asks of the HTTP layer (authentication, CORS), checked before the
//! server starts: a setting that cannot be enforced is a [`SetupError`], never ignored.

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method};
use quire_config::Config;
use tower_http::cors::{AllowOrigin, CorsLayer};

use std::path::Path;
use std::sync::Arc;

use crate::audit::AuditLog;
use crate::auth::{AuthHandle, AuthPolicy};
use crate::gate::{Gate, Limiter};

/// A setting the HTTP layer cannot act on; the server must refuse to start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting}: {message}")]
pub struct SetupError {
    /// The configuration key at fault, e.g. `auth.type`.
    pub setting: String,
    pub message: String,
}

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
    /// `[server.rate_limit]`; `None` when off.
    pub limiter: Option<Arc<Limiter>>,
    /// `[space] visibility` of the default space at start.
    pub visibility: quire_config::Visibility,
    /// The webhooks of the service when `[webhooks] enabled` (opened and started by the
    /// caller, who stops them); `None` answers 503 on the webhook routes.
    pub webhooks: Option<Arc<quire_webhooks::Webhooks>>,
}

impl HttpSettings {
    /// No authentication and no cross-origin access (tests, and `[auth] type = "none"`).
    pub fn open(default_space: &str) -> HttpSettings {
        HttpSettings {
            auth: AuthHandle::new(AuthPolicy::open(default_space)),
            cors: None,
            audit_enabled: false,
            audit_log: None,
            limiter: None,
            visibility: quire_config::Visibility::Private,
            webhooks: None,
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
            limiter: Limiter::new(rate.requests_per_minute, rate.burst_size).map(Arc::new),
            visibility: config.space.visibility,
            webhooks: None,
        })
    }
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
