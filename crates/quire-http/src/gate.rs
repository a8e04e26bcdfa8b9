//! The gate every route passes: rate limit, authentication, the scope each route needs, and
//! the audit log, in that order. One middleware so that a refused request is audited with
//! what was known about it, and so that `/mcp` (mounted by the binary) gets the same checks.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::{ConnectInfo, FromRequestParts, MatchedPath, RawPathParams, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use quire_api::{AuditEntry, Grant, Scope};
use quire_service::{Error, ErrorCode};

use crate::audit::{self, AuditLog};
use crate::auth::{self, AuthHandle, Principal};
use crate::context::SPACE_HEADER;
use crate::error::ApiError;

mod s3;

pub use s3::{check_s3, S3Gate};

/// What the gate checks, shared by the REST router and `/mcp`.
#[derive(Clone)]
pub struct Gate {
    pub auth: AuthHandle,
    pub audit: Option<Arc<AuditLog>>,
    pub limiter: LimiterHandle,
}

/// The live rate limit, replaced as a whole when the configuration is reloaded (SIGHUP).
#[derive(Clone, Default)]
pub struct LimiterHandle(Arc<RwLock<Option<Arc<Limiter>>>>);

impl LimiterHandle {
    pub fn new(limiter: Option<Limiter>) -> LimiterHandle {
        LimiterHandle(Arc::new(RwLock::new(limiter.map(Arc::new))))
    }

    pub fn current(&self) -> Option<Arc<Limiter>> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Applies `requests_per_minute` and `burst_size`; the buckets start full again only
    /// when the limit changed.
    pub fn set(&self, requests_per_minute: u32, burst_size: u32) {
        let mut current = self.0.write().unwrap_or_else(|e| e.into_inner());
        let same = match current.as_ref() {
            Some(l) => l.settings == (requests_per_minute, burst_size.max(1)),
            None => requests_per_minute == 0,
        };
        if !same {
            *current = Limiter::new(requests_per_minute, burst_size).map(Arc::new);
        }
    }
}

/// `[server.rate_limit]`: a token bucket per Bearer token hash, else per client address.
pub struct Limiter {
    buckets: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
    checks: AtomicU64,
    /// `(requests_per_minute, burst_size)`.
    settings: (u32, u32),
}

impl Limiter {
    /// `None` when `requests_per_minute` is 0 (no limit).
    pub fn new(requests_per_minute: u32, burst_size: u32) -> Option<Limiter> {
        let rate = NonZeroU32::new(requests_per_minute)?;
        let burst = NonZeroU32::new(burst_size.max(1)).expect("at least 1");
        Some(Limiter {
            buckets: RateLimiter::keyed(Quota::per_minute(rate).allow_burst(burst)),
            clock: DefaultClock::default(),
            checks: AtomicU64::new(0),
            settings: (requests_per_minute, burst.get()),
        })
    }

    /// `Err(wait)` when `key`'s bucket is empty.
    fn check(&self, key: &str) -> Result<(), Duration> {
        // Buckets that refilled completely are dropped now and then, so the map stays small.
        if self.checks.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            self.buckets.retain_recent();
        }
        self.buckets
            .check_key(&key.to_string())
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }
}

/// A request admitted without credentials to a route that answers such callers with less
/// ([`auth::credentials_optional`]); set as a request extension while authentication is on.
#[derive(Debug, Clone, Copy)]
pub struct Anonymous;

/// What the audit log knows about a request.
#[derive(Clone)]
struct Seen {
    method: Method,
    route: String,
    /// The path with its query string.
    path: String,
    arrived: std::time::Instant,
    actor: Option<String>,
    token_hash: Option<String>,
    space: Option<String>,
    client: Option<String>,
    door: Door,
}

impl Seen {
    /// The audit entry of this request answered with `status`.
    fn entry(&self, route: String, status: u16) -> AuditEntry {
        AuditEntry {
            ts: audit::now(),
            method: self.method.to_string(),
            path: self.path.clone(),
            space: self.space.clone(),
            actor: self.actor.clone(),
            token_hash: self.token_hash.clone(),
            ip: self.client.clone(),
            status,
            duration_ms: u64::try_from(self.arrived.elapsed().as_millis()).unwrap_or(u64::MAX),
            route,
        }
    }
}

impl Gate {
    fn audit(&self, seen: &Seen, status: StatusCode) {
        if let Some(log) = &self.audit {
            log.record(&seen.entry(seen.route.clone(), status.as_u16()));
        }
    }

    fn deny(&self, seen: &Seen, status: StatusCode, reason: &str) -> Response {
        tracing::warn!(method = %seen.method, route = %seen.route, status = status.as_u16(), "request denied: {reason}");
        self.audit(seen, status);
        let code = ErrorCode::from_http_status(status.as_u16());
        let mut response = ApiError(Error::new(code, reason)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            let challenge = match seen.door {
                Door::Api => "Bearer realm=\"quire\"",
                Door::Files(_) => "Basic realm=\"quire\", charset=\"UTF-8\"",
            };
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        response
    }
}

/// Which door a request came through: the API (REST, `/mcp`) or a file protocol mounted by
/// the binary (WebDAV, S3), each of whose paths is one route. WebDAV clients authenticate
/// with HTTP Basic (the API key as password); S3 clients sign, and their refusals are the S3
/// service's own, so the gate never denies them but for the rate limit ([`check_s3`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Door {
    Api,
    Files(&'static str),
}

/// The middleware.
pub async fn check(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    admit(gate, request, next, Door::Api).await
}

/// The middleware for WebDAV: credentials as `Authorization: Basic` (user name: the key's
/// actor, password: the API key) or Bearer; reading methods (`GET`, `HEAD`, `OPTIONS`,
/// `PROPFIND`) need the read scope, every other method the write scope. A refusal asks for
/// Basic credentials, as WebDAV clients expect. The space a key is limited to is the WebDAV
/// handler's to check (it knows which space a path reaches).
pub async fn check_webdav(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    admit(gate, request, next, Door::Files("/webdav")).await
}

async fn admit(gate: Arc<Gate>, request: Request, next: Next, door: Door) -> Response {
    let route = match door {
        Door::Files(route) => route.to_string(),
        Door::Api => request
            .extensions()
            .get::<MatchedPath>()
            .map(|m| m.as_str().to_string())
            .unwrap_or_else(|| request.uri().path().to_string()),
    };
    if door == Door::Api && auth::is_probe(&route) {
        return next.run(request).await;
    }
    let policy = gate.auth.current();
    let (mut parts, body) = request.into_parts();
    let authorization = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let bearer = authorization.and_then(auth::bearer).map(str::to_string);
    let token = match door {
        Door::Api => bearer,
        Door::Files(_) => bearer.or_else(|| authorization.and_then(auth::basic_password)),
    };
    let header_actor = parts
        .headers
        .get("x-actor")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let space = match door {
        Door::Api => requested_space(&mut parts, &route, policy.default_space()).await,
        Door::Files(_) => None,
    };
    let mut seen = Seen {
        method: parts.method.clone(),
        route: route.clone(),
        path: parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| parts.uri.path().to_string()),
        arrived: std::time::Instant::now(),
        actor: header_actor,
        token_hash: token.as_deref().map(auth::token_hash),
        space,
        client: parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip().to_string()),
        door,
    };
    if let Some(limiter) = gate.limiter.current() {
        let key = match (&seen.token_hash, &seen.client) {
            (Some(hash), _) => format!("token:{hash}"),
            (None, Some(client)) => format!("addr:{client}"),
            (None, None) => "anonymous".to_string(),
        };
        if let Err(wait) = limiter.check(&key) {
            let mut response = gate.deny(
                &seen,
                StatusCode::TOO_MANY_REQUESTS,
                "too many requests; retry after the time in Retry-After",
            );
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
            return response;
        }
    }
    let needed = match door {
        Door::Api => auth::required_scope(&parts.method, &route),
        Door::Files(_) => auth::file_protocol_scope(&parts.method),
    };
    if policy.is_open() || (door == Door::Api && auth::is_public(&route)) {
        hand_audit_hook(&gate, &seen, &mut parts);
        let response = next.run(Request::from_parts(parts, body)).await;
        if needed >= Scope::Write {
            gate.audit(&seen, response.status());
        }
        return response;
    }
    let Some(token) = token else {
        if door == Door::Api && auth::credentials_optional(&parts.method, &route) {
            parts.extensions.insert(Anonymous);
            return next.run(Request::from_parts(parts, body)).await;
        }
        return gate.deny(
            &seen,
            StatusCode::UNAUTHORIZED,
            "missing credentials: send `Authorization: Bearer <API key or token>`",
        );
    };
    let principal: Principal = match policy.authenticate(&token).await {
        Ok(p) => p,
        Err(refused) => return gate.deny(&seen, StatusCode::UNAUTHORIZED, &refused.0),
    };
    if principal.actor.is_some() {
        seen.actor = principal.actor.clone();
    }
    if let (Some(only), Some(addressed)) = (&principal.space, &seen.space) {
        if addressed != only {
            return gate.deny(
                &seen,
                StatusCode::FORBIDDEN,
                &format!("this key opens the space {only:?} only"),
            );
        }
    }
    if !principal.scope.allows(needed) {
        let reason = match principal.scope {
            Scope::Read => "this key is read-only".to_string(),
            _ => format!("this route needs the {} scope", needed.as_str()),
        };
        return gate.deny(&seen, StatusCode::FORBIDDEN, &reason);
    }
    if let Some(actor) = &principal.actor {
        if !parts.headers.contains_key("x-actor") {
            if let Ok(value) = HeaderValue::from_str(actor) {
                parts.headers.insert("x-actor", value);
            }
        }
    }
    hand_audit_hook(&gate, &seen, &mut parts);
    parts.extensions.insert(Grant {
        scope: principal.scope,
        actor: principal.actor.clone(),
        space: principal.space.clone(),
    });
    let response = next.run(Request::from_parts(parts, body)).await;
    if needed >= Scope::Write {
        gate.audit(&seen, response.status());
    }
    response
}

/// With the audit log on, hands the request an [`quire_api::AuditHook`]: an MCP tool that
/// writes records itself under `/mcp#<tool>`.
fn hand_audit_hook(gate: &Gate, seen: &Seen, parts: &mut axum::http::request::Parts) {
    if let Some(log) = &gate.audit {
        let (log, seen) = (log.clone(), seen.clone());
        parts.extensions.insert(quire_api::AuditHook(Arc::new(
            move |tool: &str, ok: bool| {
                let status = if ok {
                    StatusCode::OK
                } else {
                    StatusCode::UNPROCESSABLE_ENTITY
                };
                log.record(&seen.entry(format!("{}#{tool}", seen.route), status.as_u16()));
            },
        )));
    }
}

/// The space a request addresses, as [`crate::context::SpaceCtx`] decides it; for the spaces
/// API, the space named in the URL (`/api/spaces/{name}`), and none for the list (whose
/// handler shows each caller what its credential opens).
async fn requested_space(
    parts: &mut axum::http::request::Parts,
    route: &str,
    default: &str,
) -> Option<String> {
    if auth::is_spaces_route(route) {
        return path_param(parts, "name").await;
    }
    if let Some(name) = parts.headers.get(SPACE_HEADER) {
        return Some(name.to_str().unwrap_or("").trim().to_string());
    }
    Some(
        path_param(parts, "space")
            .await
            .unwrap_or_else(|| default.to_string()),
    )
}

async fn path_param(parts: &mut axum::http::request::Parts, name: &str) -> Option<String> {
    RawPathParams::from_request_parts(parts, &())
        .await
        .ok()
        .and_then(|params| {
            params
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
}
