//! WebDAV (class 1 and 2) over a quire service, with `dav-server`: the default space at `/`,
//! every other space under `/<name>/`. Each PUT, DELETE, MKCOL, COPY and MOVE is a call of the
//! service's file-system layer ([`quire_service::FileSystem`]): a write is one pass of the
//! pipeline authored by the caller, a MOVE of a page or folder a restructuring that keeps every
//! link. Locks (LOCK/UNLOCK) and dead properties (PROPPATCH) live in memory.
//!
//! Authentication is the binary's: it puts the gate ([`quire_api::Grant`] in the request's
//! extensions, `X-Actor` set to the key's actor) in front of [`router`].

mod file;
mod fs;
mod props;

use std::sync::Arc;

use axum::extract::Request;
use axum::response::Response;
use dav_server::memls::MemLs;
use dav_server::DavHandler;
use quire_service::Service;

pub use fs::Caller;

/// The largest file a PUT may write, as over REST.
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// The WebDAV service at `/` of its own listener.
pub fn router(service: Arc<Service>) -> axum::Router {
    let handler: DavHandler<Caller> = DavHandler::builder()
        .filesystem(Box::new(fs::QuireFs::new(service)))
        .locksystem(MemLs::new())
        .build_handler();
    axum::Router::new().fallback(move |request: Request| {
        let handler = handler.clone();
        async move { serve(handler, request).await }
    })
}

async fn serve(handler: DavHandler<Caller>, request: Request) -> Response {
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
    let principal = actor.unwrap_or_else(|| "anonymous".to_string());
    handler
        .handle_guarded(request, principal, caller)
        .await
        .map(axum::body::Body::new)
}
