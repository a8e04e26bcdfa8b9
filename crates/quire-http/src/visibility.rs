//! Space visibility (`[space] visibility`): the live setting of every space, and the public
//! routes `GET /public/file`, `GET /public/tree` (`PUT /space/visibility` is an operation of
//! the table, `quire_ops::collab::Visibility`, whose handler updates the live setting).
//!
//! The public routes need no credentials. `GET /public/file` answers when the space is
//! `public` or `unlisted` (reachable by URL), `GET /public/tree` only when it is `public`
//! (an unlisted space lists nothing), and both only for pages whose frontmatter declares
//! `visibility: public`; anything else is 404, the same answer as a page that does not exist
//! (nothing tells a private page apart). A change of visibility is written to the space's
//! `.quire/config.toml` through the write pipeline (one commit) and applies to the next
//! request.

use std::collections::HashMap;
use std::sync::RwLock;

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::TreeNode;
use quire_config::Visibility;
use quire_service::Error;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiError, ApiResult, ErrorBody, QueryParams};
use crate::AppState;

/// The live visibility of every space.
#[derive(Default)]
pub struct Visibilities(RwLock<HashMap<String, Visibility>>);

impl Visibilities {
    pub fn new(map: HashMap<String, Visibility>) -> Visibilities {
        Visibilities(RwLock::new(map))
    }

    pub fn get(&self, space: &str) -> Visibility {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(space)
            .copied()
            .unwrap_or_default()
    }

    pub(crate) fn set(&self, space: &str, visibility: Visibility) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(space.to_string(), visibility);
    }

    pub(crate) fn remove(&self, space: &str) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(space);
    }
}

/// The visibility a space's own configuration file sets (private when it sets none or does
/// not load): where spaces other than the default take theirs from.
pub(crate) fn configured(root: &std::path::Path) -> Visibility {
    quire_config::Config::load(root)
        .map(|loaded| loaded.config.space.visibility)
        .unwrap_or_default()
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
pub struct PublicQuery {
    /// Root-relative path.
    pub path: Option<String>,
}

fn hidden() -> ApiError {
    ApiError(Error::not_found("no such public page"))
}

/// A page declaring `visibility: public`, without credentials, when the space is public or
/// unlisted (reachable by URL); 404 otherwise.
#[utoipa::path(get, path = "/public/file", tag = "files", params(PublicQuery),
    responses((status = 200, content_type = "text/markdown", body = String),
        (status = 404, body = ErrorBody, description = "no such page, the page is not public, or the space is private")))]
pub async fn file(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PublicQuery>,
) -> ApiResult<Response> {
    if state.visibility.get(space.name()) == Visibility::Private {
        return Err(hidden());
    }
    let path = q.path.ok_or_else(hidden)?;
    let content = blocking(move || {
        // Every failure (bad path, missing file) is the same 404.
        match space.files().declares_public(&path) {
            Ok(true) => space.files().read(&path).map(Some),
            _ => Ok(None),
        }
    })
    .await?
    .ok_or_else(hidden)?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/markdown; charset=utf-8"),
        )],
        content.bytes,
    )
        .into_response())
}

/// The folder tree with only the pages declaring `visibility: public`, when the space is
/// public; 404 otherwise (an unlisted space lists nothing).
#[utoipa::path(get, path = "/public/tree", tag = "files", params(PublicQuery),
    responses((status = 200, body = Vec<TreeNode>),
        (status = 404, body = ErrorBody, description = "the space is not public (private or unlisted) or the folder does not exist")))]
pub async fn tree(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PublicQuery>,
) -> ApiResult<Json<Vec<TreeNode>>> {
    if state.visibility.get(space.name()) != Visibility::Public {
        return Err(hidden());
    }
    let nodes = blocking(move || space.files().public_tree(q.path.as_deref()))
        .await
        .map_err(|_| hidden())?;
    Ok(Json(nodes))
}
