//! The gate of the S3 listener: the rate limit and the audit log of the other doors, keyed by
//! the S3 access key; signatures, scopes and spaces are the S3 service's to check.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{Door, Gate, Seen};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AuditLog;
    use crate::auth::AuthPolicy;
    use crate::gate::{Limiter, LimiterHandle};
    use crate::AuthHandle;
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
