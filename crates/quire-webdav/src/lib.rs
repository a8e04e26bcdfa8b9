//! WebDAV (class 1 and 2) over a quire service, with `dav-server`: the default space at `/`,
//! every other space under `/<name>/`. Each PUT, DELETE, MKCOL, COPY and MOVE is a call of the
//! service's file-system layer ([`quire_service::FileSystem`]): a write is one pass of the
//! pipeline authored by the caller, a MOVE of a page or folder a restructuring that keeps every
//! link. Locks (LOCK/UNLOCK) and dead properties (PROPPATCH) live in memory.
//!
//! Authentication is the binary's: it puts the gate ([`quire_api::Grant`] in the request's
//! extensions, `X-Actor` set to the key's actor) in front of [`router`].

mod buffer;
mod calls;
mod file;
mod fs;
mod props;

use std::sync::Arc;

use axum::extract::Request;
use axum::response::Response;
use dav_server::davpath::DavPath;
use dav_server::ls::DavLockSystem;
use dav_server::memls::MemLs;
use dav_server::DavHandler;
use quire_service::Service;

pub use calls::Caller;

/// The largest file a PUT may write, as over REST.
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// The WebDAV service at `/` of its own listener.
pub fn router(service: Arc<Service>) -> axum::Router {
    let files = fs::QuireFs::new(service);
    let locks = MemLs::new();
    let handler: DavHandler<Caller> = DavHandler::builder()
        .filesystem(Box::new(files.clone()))
        .locksystem(locks.clone())
        .build_handler();
    let dav = Dav {
        handler,
        files,
        locks: *locks,
    };
    axum::Router::new().fallback(move |request: Request| {
        let dav = dav.clone();
        async move { serve(dav, request).await }
    })
}

#[derive(Clone)]
struct Dav {
    handler: DavHandler<Caller>,
    files: fs::QuireFs,
    locks: MemLs,
}

/// A COPY or MOVE that replaces a file by writing it (see `QuireFs::write_over`), when no
/// lock or `If` condition is involved (those dav-server checks); `None` otherwise.
async fn write_over(
    dav: &Dav,
    method: &http::Method,
    uri: &http::Uri,
    headers: &http::HeaderMap,
    caller: &Caller,
) -> Option<Response> {
    let copy = match method.as_str() {
        "COPY" => true,
        "MOVE" => false,
        _ => return None,
    };
    if headers.contains_key("if") || headers.get("overwrite").is_some_and(|v| v != "T") {
        return None;
    }
    let destination: http::Uri = headers.get("destination")?.to_str().ok()?.parse().ok()?;
    let from = DavPath::new(uri.path()).ok()?;
    let to = DavPath::new(destination.path()).ok()?;
    if !dav.locks.discover(&from).await.is_empty() || !dav.locks.discover(&to).await.is_empty() {
        return None;
    }
    match dav.files.write_over(&from, &to, copy, caller).await {
        Ok(true) => Some(
            Response::builder()
                .status(http::StatusCode::NO_CONTENT)
                .body(axum::body::Body::empty())
                .expect("a plain response"),
        ),
        // Not one of those requests, or refused: dav-server answers it as usual.
        Ok(false) | Err(_) => None,
    }
}

async fn serve(dav: Dav, request: Request) -> Response {
    let grant = request.extensions().get::<quire_api::Grant>().cloned();
    let actor = request
        .headers()
        .get("x-actor")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| grant.as_ref().and_then(|g| g.actor.clone()));
    let caller = Caller {
        actor: actor.clone(),
        space: grant.and_then(|g| g.space),
    };
    if matches!(request.method().as_str(), "COPY" | "MOVE") {
        let (method, uri, headers) = (
            request.method().clone(),
            request.uri().clone(),
            request.headers().clone(),
        );
        if let Some(response) = write_over(&dav, &method, &uri, &headers, &caller).await {
            return response;
        }
    }
    let principal = actor.unwrap_or_else(|| "anonymous".to_string());
    dav.handler
        .handle_guarded(request, principal, caller)
        .await
        .map(axum::body::Body::new)
}
