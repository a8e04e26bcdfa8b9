//! Saved views (`/views`, `/views/{name}`, `/views/{name}/execute`) and the refresh of
//! computed view pages (`/view/refresh`).

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use axum::Json;
use quire_api::{View, ViewDeleted, ViewList, ViewRefresh, ViewResult};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::{write_options, SpaceCtx};
use crate::error::{bad_request, blocking, ApiError, ApiResult, ErrorBody, JsonBody, QueryParams};

/// The `{name}` of a view route.
pub struct ViewName(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ViewName {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| bad_request(format!("invalid path: {e}")))?;
        params
            .iter()
            .find(|(k, _)| *k == "name")
            .map(|(_, v)| ViewName(v.to_string()))
            .ok_or_else(|| bad_request("missing view name"))
    }
}

#[derive(Deserialize, IntoParams)]
pub struct ExecuteParams {
    /// At most this many rows (default 50, at most 1000).
    pub limit: Option<usize>,
    /// Skip this many rows first (default 0).
    pub offset: Option<usize>,
}

/// Every saved view.
#[utoipa::path(get, path = "/views", tag = "views",
    responses((status = 200, body = ViewList)))]
pub async fn list(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<ViewList>> {
    Ok(Json(blocking(move || space.views().list()).await?))
}

/// One saved view.
#[utoipa::path(get, path = "/views/{name}", tag = "views",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`")),
    responses((status = 200, body = View), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn get(SpaceCtx(space): SpaceCtx, ViewName(name): ViewName) -> ApiResult<Json<View>> {
    Ok(Json(blocking(move || space.views().get(&name)).await?))
}

/// Creates or replaces a saved view, stored as `.quire/views/{name}.json` and committed. The
/// body's `name` is replaced by the URL's; the query must parse, and `filters`, `sort` and
/// `group_by` must have one of the shapes described on [`View`].
#[utoipa::path(put, path = "/views/{name}", tag = "views",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`"),
        ("X-Actor" = Option<String>, Header, description = "commit author; default `api`"),
        ("If-Match" = Option<String>, Header, description = "ETag of the view file last read")),
    request_body = View,
    responses((status = 200, body = View, description = "the view as stored"),
        (status = 400, body = ErrorBody, description = "bad name, body, a query that does not parse (the message names the position), or unusable `filters`, `sort` or `group_by`"),
        (status = 409, body = ErrorBody)))]
pub async fn put(
    SpaceCtx(space): SpaceCtx,
    ViewName(name): ViewName,
    headers: HeaderMap,
    JsonBody(view): JsonBody<View>,
) -> ApiResult<Json<View>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.views().put(&name, view, &opts)).await?,
    ))
}

/// Deletes a saved view (a commit).
#[utoipa::path(delete, path = "/views/{name}", tag = "views",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`"),
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = ViewDeleted), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn delete(
    SpaceCtx(space): SpaceCtx,
    ViewName(name): ViewName,
    headers: HeaderMap,
) -> ApiResult<Json<ViewDeleted>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.views().delete(&name, &opts)).await?,
    ))
}

/// Runs a saved view's query with its `filters`, `sort` and `group_by`: a page of its rows
/// with the total (and the groups).
#[utoipa::path(get, path = "/views/{name}/execute", tag = "views",
    params(("name" = String, Path, description = "`[A-Za-z0-9_-]{1,64}`"), ExecuteParams),
    responses((status = 200, body = ViewResult), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "the stored view (edited by hand) has a query or shape that cannot run"),
        (status = 503, body = ErrorBody, description = "the catalog is being built, or the query ran too long")))]
pub async fn execute(
    SpaceCtx(space): SpaceCtx,
    ViewName(name): ViewName,
    QueryParams(q): QueryParams<ExecuteParams>,
) -> ApiResult<Json<ViewResult>> {
    Ok(Json(
        blocking(move || space.views().execute(&name, q.limit, q.offset)).await?,
    ))
}

/// Recomputes every computed view page (`quire-view: true` with `quire-query`) now; they
/// also refresh on their own after writes.
#[utoipa::path(post, path = "/view/refresh", tag = "views",
    responses((status = 200, body = ViewRefresh),
        (status = 503, body = ErrorBody, description = "the catalog is being built")))]
pub async fn refresh(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<ViewRefresh>> {
    Ok(Json(blocking(move || space.views().refresh()).await?))
}
