//! The `Origin` check of streamable HTTP: MCP 2025-11-25 says a server MUST answer 403 to a
//! request whose `Origin` is not allowed, so that a web page of another site, running in the
//! user's browser, cannot drive a server on the user's machine (DNS rebinding and plain
//! cross-site requests alike).
//!
//! Allowed: no `Origin` at all (clients that are not browsers send none), the server's own
//! origin (the `Origin` names the host and port the request was sent to, as its `Host` says),
//! and the origins configured (`[server] cors_origins`, `[server.cors] allowed_origins`,
//! `[server] public_url`); `*` there allows every origin. rmcp's own origin list cannot say
//! "the server's own origin" without knowing every name the server is reached by, hence this
//! layer.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use quire_service::{Error, ErrorCode};

/// A web origin: scheme, host and port (the scheme's default when not written).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    /// `scheme://host[:port]`, as browsers send it (a trailing `/` is tolerated in
    /// configuration); `None` for anything else, `null` included.
    fn parse(text: &str) -> Option<Origin> {
        let text = text.trim();
        let uri: Uri = text.parse().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        let bare = uri.path_and_query().is_none_or(|p| p.as_str() == "/");
        if !bare || authority.as_str().contains('@') {
            return None;
        }
        let port = authority.port_u16().or(match scheme.as_str() {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            _ => None,
        });
        Some(Origin {
            host: authority.host().to_ascii_lowercase(),
            scheme,
            port,
        })
    }

    /// Whether this origin is the server the request was sent to (`host` is the request's
    /// `Host`). The scheme is not compared: behind a TLS proxy the server cannot know it.
    fn is_host(&self, host: &str) -> bool {
        let Ok(authority) = host.trim().parse::<axum::http::uri::Authority>() else {
            return false;
        };
        let port = authority.port_u16().or(match self.scheme.as_str() {
            "https" | "wss" => Some(443),
            _ => Some(80),
        });
        authority.host().eq_ignore_ascii_case(&self.host) && port == self.port
    }
}

/// The origins allowed besides the server's own.
#[derive(Debug, Clone, Default)]
pub struct AllowedOrigins {
    any: bool,
    listed: Vec<Origin>,
}

impl AllowedOrigins {
    /// The configured origins; an entry that is not an origin (`https://kb.example.com`) is
    /// refused, naming it, so the server does not start with a list it cannot apply.
    pub fn new<S: AsRef<str>>(configured: &[S]) -> Result<AllowedOrigins, String> {
        let mut allowed = AllowedOrigins::default();
        for entry in configured {
            let entry = entry.as_ref().trim();
            if entry == "*" {
                allowed.any = true;
                continue;
            }
            let origin = Origin::parse(entry).ok_or_else(|| {
                format!("{entry:?} is not an origin such as https://kb.example.com")
            })?;
            allowed.listed.push(origin);
        }
        Ok(allowed)
    }

    /// Whether a request carrying `origin`, sent to `host`, may go on.
    fn admits(&self, origin: &str, host: Option<&str>) -> bool {
        if self.any {
            return true;
        }
        let Some(origin) = Origin::parse(origin) else {
            return false;
        };
        host.is_some_and(|h| origin.is_host(h)) || self.listed.contains(&origin)
    }
}

/// The middleware: a request without `Origin`, or with an allowed one, goes on; any other is
/// answered 403 with the error body every adapter uses.
pub(crate) async fn check(
    State(allowed): State<Arc<AllowedOrigins>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(origin) = request.headers().get(header::ORIGIN) else {
        return next.run(request).await;
    };
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.to_string()));
    let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
    if allowed.admits(&origin, host.as_deref()) {
        return next.run(request).await;
    }
    tracing::warn!(%origin, "refused an MCP request from a foreign Origin");
    let error = Error::new(
        ErrorCode::Forbidden,
        format!(
            "Origin {origin:?} may not call the MCP endpoint (a web page of another site); \
             to allow a browser client, add its origin to [server] cors_origins"
        ),
    );
    (StatusCode::FORBIDDEN, axum::Json(error.body())).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(list: &[&str]) -> AllowedOrigins {
        AllowedOrigins::new(list).unwrap()
    }

    #[test]
    fn the_servers_own_origin_is_admitted_by_its_host_and_port() {
        let none = allowed(&[]);
        assert!(none.admits("http://127.0.0.1:3333", Some("127.0.0.1:3333")));
        assert!(none.admits("http://LOCALHOST:3333", Some("localhost:3333")));
        assert!(none.admits("https://kb.example.com", Some("kb.example.com")));
        assert!(none.admits("http://[::1]:8181", Some("[::1]:8181")));
        assert!(!none.admits("http://127.0.0.1:3334", Some("127.0.0.1:3333")));
        assert!(!none.admits("http://evil.example:3333", Some("127.0.0.1:3333")));
        assert!(!none.admits("http://127.0.0.1:3333", None));
        assert!(!none.admits("null", Some("127.0.0.1:3333")));
        assert!(!none.admits("http://127.0.0.1:3333/path", Some("127.0.0.1:3333")));
    }

    #[test]
    fn configured_origins_match_by_scheme_host_and_port() {
        let list = allowed(&["https://app.example.com/", "http://localhost:5173"]);
        assert!(list.admits("https://app.example.com", Some("127.0.0.1:3333")));
        assert!(list.admits("https://app.example.com:443", Some("127.0.0.1:3333")));
        assert!(list.admits("http://localhost:5173", None));
        assert!(!list.admits("http://app.example.com", Some("127.0.0.1:3333")));
        assert!(!list.admits("https://app.example.com:8443", None));
        assert!(!list.admits("https://app.example.com.evil.example", None));
        assert!(!list.admits("http://localhost:5174", None));
        assert!(allowed(&["*"]).admits("https://anything.example", None));
    }

    #[test]
    fn an_entry_that_is_not_an_origin_is_refused() {
        assert!(AllowedOrigins::new(&["kb.example.com"]).is_err());
        assert!(AllowedOrigins::new(&["https://kb.example.com/app"]).is_err());
        assert!(AllowedOrigins::new(&["https://user@kb.example.com"]).is_err());
    }
}
