//! Files REST serves beside the operation table: uploads of assets (multipart), and the query
//! types other hand-written routes share. The other file routes are operations (`quire-ops`).

use axum::extract::multipart::MultipartRejection;
use axum::extract::Multipart;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::AssetResult;
use quire_service::media_type_of;

use crate::context::{write_options, SpaceCtx};
use crate::error::{bad_request, blocking, ApiError, ApiResult, ErrorBody};

pub(crate) fn content_type_for(path: &str) -> &'static str {
    if path.ends_with(".md") {
        "text/markdown; charset=utf-8"
    } else {
        media_type_of(path)
    }
}

/// Stores an uploaded file under `assets/` (multipart field `file`).
#[utoipa::path(post, path = "/assets", tag = "files", operation_id = "upload_asset",
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = AssetResult), (status = 400, body = ErrorBody),
        (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn upload_asset(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Response> {
    let mut multipart = multipart_body(multipart)?;
    let opts = write_options(&headers);
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| multipart_error("invalid multipart body", &e))?
    {
        if field.name() != Some("file") {
            continue;
        }
        let name = field.file_name().unwrap_or("").to_string();
        let media_type = field.content_type().map(str::to_string);
        let bytes = field
            .bytes()
            .await
            .map_err(|e| multipart_error("reading the upload failed", &e))?;
        let stored = blocking(move || {
            space
                .files()
                .store_asset(&name, media_type.as_deref(), bytes.to_vec(), &opts)
        })
        .await?;
        return Ok(Json(stored).into_response());
    }
    Err(bad_request("the multipart body has no field named `file`"))
}

/// The multipart body of an upload; a request that is not `multipart/form-data` (or has no
/// boundary) is a 400 with the JSON error body, not axum's plain-text rejection.
pub(crate) fn multipart_body(
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Multipart> {
    multipart.map_err(|rejection| {
        bad_request(format!(
            "expected a multipart/form-data body with a field named `file` ({})",
            rejection.body_text()
        ))
    })
}

/// A multipart body that could not be read: 413 when it passed the body limit, else 400.
pub(crate) fn multipart_error(
    what: &str,
    e: &axum::extract::multipart::MultipartError,
) -> ApiError {
    let code = if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        quire_service::ErrorCode::TooLarge
    } else {
        quire_service::ErrorCode::BadRequest
    };
    ApiError(quire_service::Error::new(
        code,
        format!("{what}: {}", e.body_text()),
    ))
}
