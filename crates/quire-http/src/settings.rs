//! What the configuration asks of the HTTP layer (authentication, CORS), checked before the
//! server starts: a setting that cannot be enforced is a [`SetupError`], never ignored.

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method};
use quire_config::Config;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::auth::AuthPolicy;

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
    pub auth: AuthPolicy,
    /// `None`: no cross-origin access (browsers refuse other origins).
    pub cors: Option<CorsLayer>,
}

impl HttpSettings {
    /// No authentication and no cross-origin access (tests, and `[auth] type = "none"`).
    pub fn open(default_space: &str) -> HttpSettings {
        HttpSettings {
            auth: AuthPolicy::open(default_space),
            cors: None,
        }
    }

    /// The settings `config` asks for over these spaces (the first is the default).
    pub fn from_config(config: &Config, spaces: &[&str]) -> Result<HttpSettings, SetupError> {
        Ok(HttpSettings {
            auth: AuthPolicy::from_config(&config.auth, spaces)?,
            cors: cors_layer(&config.server)?,
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
