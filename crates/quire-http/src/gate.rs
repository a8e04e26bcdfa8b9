//! The gate every route passes: rate limit, authentication, the scope each route needs, and
//! the audit log, in that order. One middleware so that a refused request is audited with
//! what was known about it, and so that `/mcp` (mounted by the binary) gets the same checks.

use std::collections::HashMap;
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

/// What the gate of the S3 listener knows besides the [`Gate`]: who each S3 key is.
#[derive(Clone)]
pub struct S3Gate {
    pub gate: Arc<Gate>,
    /// Access key id → the actor the key's writes are authored by. No secret: S3 signatures
    /// are checked behind the gate, by the S3 service.
    pub actors: Arc<HashMap<String, String>>,
}

/// The route S3 requests are recorded under in the audit log.
const S3_ROUTE: &str = "/s3";

/// The middleware for the S3 API: the same rate limit as the other doors, keyed
/// `s3:<access key id>` for a configured key (from `Authorization: AWS4-HMAC-SHA256
/// Credential=<id>/…` or a presigned URL's `X-Amz-Credential`), else by the client address;
/// a limited request answers 429 `SlowDown` with `Retry-After`, as S3 clients expect. With
/// the audit log on, every write (any method but `GET`, `HEAD`, `OPTIONS`) and every refused
/// request (401, 403, 429) is recorded under the route `/s3`, with the key's actor and the
/// bucket as the space. Signatures, scopes and the space a key is limited to are the S3
/// service's to check (it holds the secrets).
pub async fn check_s3(State(s3): State<S3Gate>, request: Request, next: Next) -> Response {
    let gate = &s3.gate;
    let access_key = s3_access_key(&request).filter(|k| s3.actors.contains_key(k));
    let seen = Seen {
        method: request.method().clone(),
        route: S3_ROUTE.to_string(),
        path: s3_logged_path(request.uri()),
        arrived: std::time::Instant::now(),
        actor: access_key.as_ref().and_then(|k| s3.actors.get(k)).cloned(),
        token_hash: None,
        space: s3_bucket(request.uri().path()),
        client: request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip().to_string()),
        door: Door::Files(S3_ROUTE),
    };
    if let Some(limiter) = gate.limiter.current() {
        // An access key id nobody configured is the client's address: made-up ids get no
        // buckets of their own.
        let key = match (&access_key, &seen.client) {
            (Some(id), _) => format!("s3:{id}"),
            (None, Some(client)) => format!("addr:{client}"),
            (None, None) => "anonymous".to_string(),
        };
        if let Err(wait) = limiter.check(&key) {
            tracing::warn!(method = %seen.method, route = S3_ROUTE, status = 429, "request denied: too many requests");
            gate.audit(&seen, StatusCode::TOO_MANY_REQUESTS);
            return slow_down(wait, request.uri().path());
        }
    }
    let writes = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let response = next.run(request).await;
    let status = response.status();
    if writes || matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        gate.audit(&seen, status);
    }
    response
}

/// The access key id a request is signed with: the `Credential=` of a SigV4 `Authorization`
/// header, or a presigned URL's `X-Amz-Credential` (`<id>/<date>/<region>/s3/aws4_request`).
fn s3_access_key(request: &Request) -> Option<String> {
    let from_header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            if !scheme.starts_with("AWS4-") {
                return None;
            }
            rest.split(',')
                .find_map(|part| part.trim().strip_prefix("Credential="))
                .map(str::to_string)
        });
    let credential = from_header.or_else(|| {
        form_urlencoded::parse(request.uri().query()?.as_bytes())
            .find(|(k, _)| k == "X-Amz-Credential")
            .map(|(_, v)| v.into_owned())
    })?;
    let id = credential.split('/').next()?.trim();
    (!id.is_empty()).then(|| id.to_string())
}

/// The bucket of a path-style S3 URL (`/<bucket>/<key>`), decoded; none for `/`.
fn s3_bucket(path: &str) -> Option<String> {
    let segment = path.trim_start_matches('/').split('/').next()?;
    (!segment.is_empty()).then(|| percent_decode(segment))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The path and query an S3 request is recorded with: a presigned URL's signature (a
/// credential until it expires) and session token are left out.
fn s3_logged_path(uri: &axum::http::Uri) -> String {
    let Some(query) = uri.query() else {
        return uri.path().to_string();
    };
    let kept: Vec<&str> = query
        .split('&')
        .map(|pair| {
            let name = pair.split('=').next().unwrap_or("");
            if name.eq_ignore_ascii_case("X-Amz-Signature")
                || name.eq_ignore_ascii_case("X-Amz-Security-Token")
            {
                name
            } else {
                pair
            }
        })
        .collect();
    format!("{}?{}", uri.path(), kept.join("&"))
}

/// 429 `SlowDown`, the S3 error XML clients (boto3, the aws CLI) read and back off on.
fn slow_down(wait: Duration, resource: &str) -> Response {
    let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
         <Message>too many requests: retry after {secs} s \
         ([server.rate_limit])</Message><Resource>{}</Resource></Error>",
        xml_escape(resource)
    );
    let mut response = (StatusCode::TOO_MANY_REQUESTS, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    response
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AuthPolicy;
    use axum::body::Body;
    use tower::ServiceExt as _;

    fn request(method: &str, uri: &str, authorization: Option<&str>) -> Request {
        let mut builder = axum::http::Request::builder().method(method).uri(uri);
        if let Some(value) = authorization {
            builder = builder.header(header::AUTHORIZATION, value);
        }
        let mut request = builder.body(Body::empty()).unwrap();
        request
            .extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 9], 5000))));
        request
    }

    fn signed(id: &str) -> String {
        format!(
            "AWS4-HMAC-SHA256 Credential={id}/20260101/us-east-1/s3/aws4_request, \
             SignedHeaders=host;x-amz-date, Signature=abc"
        )
    }

    #[test]
    fn the_access_key_comes_from_the_signature_or_the_presigned_url() {
        let r = request("GET", "/alpha/a.md", Some(&signed("AKID1")));
        assert_eq!(s3_access_key(&r).as_deref(), Some("AKID1"));
        let r = request(
            "GET",
            "/alpha/a.md?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID2%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=deadbeef",
            None,
        );
        assert_eq!(s3_access_key(&r).as_deref(), Some("AKID2"));
        assert_eq!(
            s3_logged_path(r.uri()),
            "/alpha/a.md?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID2%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature"
        );
        assert_eq!(s3_access_key(&request("GET", "/", Some("Bearer k"))), None);
        assert_eq!(s3_access_key(&request("GET", "/", None)), None);
        assert_eq!(s3_bucket("/alpha/notes/a.md").as_deref(), Some("alpha"));
        assert_eq!(s3_bucket("/my%20space").as_deref(), Some("my space"));
        assert_eq!(s3_bucket("/"), None);
    }

    #[tokio::test]
    async fn s3_requests_are_limited_per_key_and_writes_and_refusals_audited() {
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::new(AuditLog::open(&dir.path().join("audit.jsonl")).unwrap());
        let gate = Arc::new(Gate {
            auth: AuthHandle::new(AuthPolicy::open("alpha")),
            audit: Some(log.clone()),
            limiter: LimiterHandle::new(Limiter::new(60, 3)),
        });
        let s3 = S3Gate {
            gate,
            actors: Arc::new(HashMap::from([
                ("AKID1".to_string(), "writer".to_string()),
                ("AKID2".to_string(), "reader".to_string()),
            ])),
        };
        // Behind the gate: a refusal for the reader's writes, else 200.
        let app = axum::Router::new()
            .fallback(|request: Request| async move {
                let reader = request
                    .headers()
                    .get(header::AUTHORIZATION)
                    .is_some_and(|v| v.to_str().unwrap().contains("AKID2"));
                if reader && request.method() != Method::GET {
                    StatusCode::FORBIDDEN
                } else {
                    StatusCode::OK
                }
            })
            .layer(axum::middleware::from_fn_with_state(s3, check_s3));
        let call = |method: &str, uri: &str, who: Option<&str>| {
            let app = app.clone();
            let r = request(method, uri, who.map(signed).as_deref());
            async move { app.oneshot(r).await.unwrap() }
        };
        assert_eq!(
            call("GET", "/alpha/a.md", Some("AKID1")).await.status(),
            200
        );
        assert_eq!(
            call("PUT", "/alpha/a.md", Some("AKID1")).await.status(),
            200
        );
        assert_eq!(call("PUT", "/beta/b.md", Some("AKID2")).await.status(), 403);
        // AKID1's bucket holds 3: the fourth call is one too many; AKID2's is its own.
        assert_eq!(
            call("GET", "/alpha/a.md", Some("AKID1")).await.status(),
            200
        );
        let limited = call("GET", "/alpha/a.md", Some("AKID1")).await;
        assert_eq!(limited.status(), 429);
        assert!(limited.headers().contains_key(header::RETRY_AFTER));
        assert_eq!(limited.headers()[header::CONTENT_TYPE], "application/xml");
        let body = axum::body::to_bytes(limited.into_body(), 1 << 16)
            .await
            .unwrap();
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("<Code>SlowDown</Code>"), "{body}");
        assert_eq!(call("GET", "/beta/b.md", Some("AKID2")).await.status(), 200);
        // A made-up access key id is limited by the address: no bucket of its own.
        for _ in 0..3 {
            let _ = call("GET", "/alpha/a.md", Some("MADEUP")).await;
        }
        assert_eq!(
            call("GET", "/alpha/a.md", Some("OTHERMADEUP"))
                .await
                .status(),
            429
        );

        let since = chrono::Utc::now() - chrono::Duration::minutes(1);
        let entries = log.read(since, 100, None).unwrap();
        let seen: Vec<_> = entries
            .iter()
            .map(|e| {
                (
                    e.method.as_str(),
                    e.route.as_str(),
                    e.status,
                    e.actor.as_deref(),
                    e.space.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            seen[..3],
            [
                ("PUT", "/s3", 200, Some("writer"), Some("alpha")),
                ("PUT", "/s3", 403, Some("reader"), Some("beta")),
                ("GET", "/s3", 429, Some("writer"), Some("alpha")),
            ]
        );
        assert!(entries.iter().all(|e| e.token_hash.is_none()));
        assert_eq!(entries.last().unwrap().actor, None);
    }
}
