//! Import and export routes the operation table does not encode: `POST /import/upload`
//! (multipart, like asset uploads) and the streamed answer of `GET /export` (the operation
//! `export` checks the request; its rows are sent as they are read, a page at a time, from a
//! blocking task through a bounded channel, so an export of any size holds a few pages) and
//! `POST /export/document`, whose answer is the document's bytes.

use axum::body::{Body, Bytes};
use axum::extract::multipart::MultipartRejection;
use axum::extract::{Multipart, RawQuery};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::ImportUpload;
use quire_ops::Operation;

use crate::context::SpaceCtx;
use crate::error::{bad_request, blocking, ApiResult, ErrorBody, JsonBody};
use crate::files::multipart_error;

/// Chunks (rows) in flight between the reader and the connection.
const EXPORT_CHANNEL: usize = 64;

/// Keeps an uploaded file (multipart field `file`) for later imports: its `path` is given as
/// `connection.file`. Kept a day under `.quire/state/uploads/`, never committed.
#[utoipa::path(post, path = "/import/upload", tag = "import", operation_id = "import_upload",
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    responses((status = 200, body = ImportUpload), (status = 400, body = ErrorBody),
        (status = 413, body = ErrorBody)))]
pub async fn upload(
    SpaceCtx(space): SpaceCtx,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Response> {
    let mut multipart = crate::files::multipart_body(multipart)?;
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| multipart_error("invalid multipart body", &e))?
    {
        if field.name() != Some("file") {
            continue;
        }
        let name = field.file_name().unwrap_or("upload").to_string();
        let bytes = field
            .bytes()
            .await
            .map_err(|e| multipart_error("reading the upload failed", &e))?;
        let stored = blocking(move || space.import().upload(&name, &bytes)).await?;
        return Ok(Json(stored).into_response());
    }
    Err(bad_request("the multipart body has no field named `file`"))
}

/// `GET /export`: checked first (a bad request answers its error as JSON), then streamed.
pub(crate) async fn export(
    SpaceCtx(space): SpaceCtx,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let input =
        crate::ops::decode_query::<quire_ops::import::Export>(raw.as_deref().unwrap_or(""), &[])?;
    debug_assert_eq!(quire_ops::import::Export::META.name, "export");
    let (space, plan) = blocking(move || {
        let plan = space.import().export_plan(&input)?;
        Ok((space, plan))
    })
    .await?;
    let media = plan.media_type();
    let (sender, receiver) =
        tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(EXPORT_CHANNEL);
    tokio::task::spawn_blocking(move || {
        let written = quire_ops::import::export_bytes(&space, &plan, &mut |chunk| {
            sender.blocking_send(Ok(Bytes::from(chunk))).is_ok()
        });
        if let Err(e) = written {
            tracing::error!(space = %space.name(), "an export failed midway: {e}");
            let _ = sender.blocking_send(Err(std::io::Error::other(e.to_string())));
        }
    });
    let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(receiver));
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(media)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response())
}

/// `POST /export/document`: the document itself, typed, as a download.
pub(crate) async fn export_document(
    SpaceCtx(space): SpaceCtx,
    JsonBody(input): JsonBody<quire_api::import::ExportDocumentRequest>,
) -> ApiResult<Response> {
    let (document, file_name, _) =
        blocking(move || quire_ops::import::ExportDocument::render(&space, &input)).await?;
    let disposition = format!("attachment; filename=\"{file_name}\"");
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(document.kind.media_type()),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(&disposition)
                    .unwrap_or_else(|_| HeaderValue::from_static("attachment")),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        document.bytes,
    )
        .into_response())
}
