//! Authentication of API requests: `[auth] type = "apikey"` and `"perspace"` Bearer keys.
//!
//! Keys are kept only as SHA-256 digests and a presented key is compared against every one of
//! them in constant time, so neither the comparison nor the log can give a key away. Public
//! routes (health, readiness, metrics, the API description and the spec's public pages) need
//! no key; every other route answers 401 without a valid one. A per-space key opens its own
//! space only (403 elsewhere); a read-scoped key cannot change anything (403); approving an
//! agent's plan needs an admin key.

use std::sync::Arc;

use axum::extract::{FromRequestParts, MatchedPath, RawPathParams, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use quire_config::{AuthConfig, AuthType, KeyScope};
use sha2::{Digest, Sha256};

use crate::context::SPACE_HEADER;
use crate::error::ApiError;
use crate::settings::SetupError;
use quire_service::{Error, ErrorCode};

/// Who may call the API, as the configuration says.
#[derive(Clone)]
pub struct AuthPolicy {
    /// `None`: authentication is off (`[auth] type = "none"`).
    keys: Option<Vec<Key>>,
    /// The space a request addresses when it names none.
    default_space: String,
}

#[derive(Clone)]
struct Key {
    digest: [u8; 32],
    /// The only space this key opens; `None` opens every space.
    space: Option<String>,
    /// Attribution of writes that send no `X-Actor`.
    actor: Option<String>,
    scope: KeyScope,
}

impl AuthPolicy {
    /// No authentication: every request passes.
    pub fn open(default_space: &str) -> AuthPolicy {
        AuthPolicy {
            keys: None,
            default_space: default_space.to_string(),
        }
    }

    /// The policy `[auth]` asks for over these spaces (the first is the default). A setting
    /// this build cannot enforce is an error, never a weaker policy.
    pub fn from_config(auth: &AuthConfig, spaces: &[&str]) -> Result<AuthPolicy, SetupError> {
        let default_space = spaces.first().copied().unwrap_or("default").to_string();
        let setup = |setting: &str, message: String| SetupError {
            setting: setting.to_string(),
            message,
        };
        let mut keys = Vec::new();
        match auth.kind {
            AuthType::None => return Ok(AuthPolicy::open(&default_space)),
            AuthType::Oidc => {
                return Err(setup(
                    "auth.type",
                    "\"oidc\" is not supported by this version of quire; use \"apikey\" or \
                     \"perspace\" (the server does not start rather than run without the \
                     protection the configuration asks for)"
                        .into(),
                ))
            }
            AuthType::Apikey => {
                let key = auth
                    .api_key
                    .as_ref()
                    .filter(|k| !k.expose().trim().is_empty())
                    .ok_or_else(|| {
                        setup(
                            "auth.api_key",
                            "auth type \"apikey\" needs a non-empty key".into(),
                        )
                    })?;
                keys.push(Key {
                    digest: digest(key.expose().trim()),
                    space: None,
                    actor: None,
                    scope: KeyScope::Admin,
                });
            }
            AuthType::Perspace => {
                if auth.api_keys.is_empty() {
                    return Err(setup(
                        "auth.api_keys",
                        "auth type \"perspace\" needs at least one [[auth.api_keys]] entry".into(),
                    ));
                }
            }
        }
        for (index, entry) in auth.api_keys.iter().enumerate() {
            let key = entry.key.expose().trim();
            if key.is_empty() {
                return Err(setup(
                    &format!("auth.api_keys[{index}].key"),
                    "a key must not be empty".into(),
                ));
            }
            if let Some(space) = &entry.space {
                if !spaces.contains(&space.as_str()) {
                    return Err(setup(
                        &format!("auth.api_keys[{index}].space"),
                        format!(
                            "no space is named {space:?} (spaces: {})",
                            spaces.join(", ")
                        ),
                    ));
                }
            } else if auth.kind == AuthType::Perspace {
                return Err(setup(
                    &format!("auth.api_keys[{index}].space"),
                    "auth type \"perspace\" needs a space for every key".into(),
                ));
            }
            keys.push(Key {
                digest: digest(key),
                space: entry.space.clone(),
                actor: entry.actor.clone(),
                scope: entry.scope,
            });
        }
        Ok(AuthPolicy {
            keys: Some(keys),
            default_space,
        })
    }

    /// Whether requests pass without a key.
    pub fn is_open(&self) -> bool {
        self.keys.is_none()
    }

    /// The key matching `presented`, compared with every configured key in constant time.
    fn find(&self, presented: &str) -> Option<&Key> {
        let wanted = digest(presented);
        let mut found = None;
        for key in self.keys.iter().flatten() {
            // No early exit: the time taken does not depend on which key matched.
            if constant_time_eq(&key.digest, &wanted) && found.is_none() {
                found = Some(key);
            }
        }
        found
    }
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Routes that need no key (DECISIONS §1 host routes for probes and the API description, and
/// the spec's public routes), by the route template that matched.
pub fn is_public(route: &str) -> bool {
    let in_space = route
        .strip_prefix(crate::BASE_PATH)
        .map(|rest| rest.strip_prefix("/{space}").unwrap_or(rest));
    matches!(
        route,
        "/health" | "/healthz" | "/readyz" | "/metrics" | "/api/openapi.json" | "/api/docs"
    ) || route.starts_with("/api/docs/")
        || route.starts_with("/p/")
        || in_space.is_some_and(|rest| rest.starts_with("/public/") || rest == "/public")
}

/// Routes a read-scoped key may call with a method other than GET: they write nothing
/// (planning, running a script that plans, resolving links, linting).
fn is_read_only_post(route: &str) -> bool {
    let rest = route
        .strip_prefix(crate::BASE_PATH)
        .map(|rest| rest.strip_prefix("/{space}").unwrap_or(rest));
    matches!(
        rest,
        Some(
            "/refactor/plan"
                | "/refactor/from-workspace-edit"
                | "/resolve-links"
                | "/refactor/script"
                | "/lint"
                | "/eval"
        )
    )
}

/// Routes only an admin key may call: a person approving an agent's plan.
fn is_admin_only(route: &str) -> bool {
    let rest = route
        .strip_prefix(crate::BASE_PATH)
        .map(|rest| rest.strip_prefix("/{space}").unwrap_or(rest));
    matches!(rest, Some("/refactor/approve"))
}

/// The middleware: lets a request through or answers 401/403 with a JSON error.
pub async fn require_key(
    State(policy): State<Arc<AuthPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    if policy.is_open() {
        return next.run(request).await;
    }
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| request.uri().path().to_string());
    if is_public(&route) {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let presented = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer);
    let Some(presented) = presented else {
        return deny(
            StatusCode::UNAUTHORIZED,
            &parts.method,
            &route,
            "missing credentials: send `Authorization: Bearer <API key>`",
        );
    };
    let Some(key) = policy.find(presented) else {
        return deny(
            StatusCode::UNAUTHORIZED,
            &parts.method,
            &route,
            "invalid API key",
        );
    };
    let key = key.clone();
    if let Some(only) = &key.space {
        let space = requested_space(&mut parts, &policy.default_space).await;
        if &space != only {
            return deny(
                StatusCode::FORBIDDEN,
                &parts.method,
                &route,
                &format!("this key opens the space {only:?} only"),
            );
        }
    }
    let safe = matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
    match key.scope {
        KeyScope::Read if !safe && !is_read_only_post(&route) => {
            return deny(
                StatusCode::FORBIDDEN,
                &parts.method,
                &route,
                "this key is read-only",
            );
        }
        KeyScope::Read | KeyScope::Write if is_admin_only(&route) => {
            return deny(
                StatusCode::FORBIDDEN,
                &parts.method,
                &route,
                "this route needs an admin key",
            );
        }
        _ => {}
    }
    if let Some(actor) = &key.actor {
        if !parts.headers.contains_key("x-actor") {
            if let Ok(value) = HeaderValue::from_str(actor) {
                parts.headers.insert("x-actor", value);
            }
        }
    }
    next.run(Request::from_parts(parts, body)).await
}

/// The key of an `Authorization: Bearer <key>` header (the scheme is case-insensitive).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, key) = value.trim().split_once(' ')?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then_some(key)
}

/// The space a request addresses, as [`crate::context::SpaceCtx`] decides it.
async fn requested_space(parts: &mut axum::http::request::Parts, default: &str) -> String {
    if let Some(name) = parts.headers.get(SPACE_HEADER) {
        return name.to_str().unwrap_or("").trim().to_string();
    }
    let from_url = RawPathParams::from_request_parts(parts, &())
        .await
        .ok()
        .and_then(|params| {
            params
                .iter()
                .find(|(k, _)| *k == "space")
                .map(|(_, v)| v.to_string())
        });
    from_url.unwrap_or_else(|| default.to_string())
}

fn deny(status: StatusCode, method: &Method, route: &str, reason: &str) -> Response {
    tracing::warn!(%method, route, status = status.as_u16(), "request denied: {reason}");
    let code = ErrorCode::from_http_status(status.as_u16());
    let mut response = ApiError(Error::new(code, reason)).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"quire\""),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_takes_the_key_of_a_bearer_header_only() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer   abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer("abc"), None);
    }

    #[test]
    fn public_routes_are_the_probes_the_description_and_public_pages() {
        for route in [
            "/health",
            "/healthz",
            "/readyz",
            "/metrics",
            "/api/openapi.json",
            "/api/docs",
            "/api/docs/swagger-ui.css",
            "/p/{*path}",
            "/api/quire/public/file",
            "/api/quire/{space}/public/tree",
        ] {
            assert!(is_public(route), "{route}");
        }
        for route in [
            "/api/quire/file",
            "/api/quire/{space}/file",
            "/api/quire/events",
            "/api/quire/publicity",
        ] {
            assert!(!is_public(route), "{route}");
        }
    }

    #[test]
    fn keys_match_only_themselves() {
        let auth = AuthConfig {
            kind: AuthType::Apikey,
            api_key: Some(quire_config::Secret::new("s3cret")),
            ..AuthConfig::default()
        };
        let policy = AuthPolicy::from_config(&auth, &["default"]).unwrap();
        assert!(policy.find("s3cret").is_some());
        assert!(policy.find("s3cre").is_none());
        assert!(policy.find("s3cret ").is_none());
    }

    #[test]
    fn oidc_refuses_to_start_naming_the_setting() {
        let auth = AuthConfig {
            kind: AuthType::Oidc,
            issuer: Some("https://id.example".into()),
            client_id: Some("quire".into()),
            ..AuthConfig::default()
        };
        let err = AuthPolicy::from_config(&auth, &["default"])
            .err()
            .expect("refused");
        assert_eq!(err.setting, "auth.type");
    }
}
