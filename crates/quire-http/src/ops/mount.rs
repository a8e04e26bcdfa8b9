//! The raw routes of the mount area: `GET /mount/file` answers the bytes, `PUT /mount/file`
//! takes them as the body. Each calls its operation's byte-level twin.

use axum::extract::RawQuery;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Json;
use quire_api::MountPath;
use quire_ops::{mount, Operation};

use super::{decode_query, RestCaller};
use crate::context::SpaceCtx;
use crate::error::{blocking, ApiResult, RawBody};
use crate::AppState;

/// The handler of operation `O`, when this module has one.
pub(crate) fn handler<O: Operation>(filter: MethodFilter) -> Option<MethodRouter<AppState>> {
    Some(match O::META.name {
        "mount_read" => on(filter, read),
        "mount_write" => on(filter, write),
        _ => return None,
    })
}

async fn read(SpaceCtx(space): SpaceCtx, RawQuery(raw): RawQuery) -> ApiResult<Response> {
    let input: MountPath = decode_query::<mount::Read>(raw.as_deref().unwrap_or(""), &[])?;
    let bytes = blocking(move || mount::Read::bytes(&space, &input.path)).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        )],
        bytes,
    )
        .into_response())
}

async fn write(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    RawQuery(raw): RawQuery,
    RawBody(body): RawBody,
) -> ApiResult<Response> {
    let input: MountPath = decode_query::<mount::Read>(raw.as_deref().unwrap_or(""), &[])?;
    let written =
        blocking(move || mount::Write::bytes(&space, &input.path, body.to_vec(), &caller)).await?;
    Ok(Json(written).into_response())
}
