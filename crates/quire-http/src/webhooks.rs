//! Webhook routes: `POST /webhooks`, `GET /webhooks`, `DELETE /webhooks/{id}` and
//! `GET /webhooks/{id}/deliveries`; 503 `webhooks not enabled` without `[webhooks] enabled`.
//! Managing webhooks needs an admin credential (a webhook sends every change to a URL of the
//! caller's choosing).

use std::sync::Arc;

use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::Json;
use quire_api::{Webhook, WebhookDelivery, WebhookRequest};
use quire_service::{Error, ErrorCode, SpaceWebhooks};

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiError, ApiResult, ErrorBody};
use crate::AppState;

/// Largest body of `POST /webhooks` (a URL and a glob).
pub const MAX_REQUEST_BYTES: usize = 16 * 1024;

fn hooks_of(state: &AppState, space: &str) -> ApiResult<Arc<dyn SpaceWebhooks>> {
    state
        .webhooks
        .as_ref()
        .and_then(|w| w.space_webhooks(space))
        .ok_or_else(|| ApiError(Error::unavailable("webhooks not enabled")))
}

/// Registers a webhook: every `write`, `delete` and `bulk` event whose path the glob matches
/// is POSTed to `url`, signed with the secret returned here (and never again).
#[utoipa::path(post, path = "/webhooks", tag = "webhooks", operation_id = "webhook_create",
    request_body = WebhookRequest,
    responses((status = 201, body = Webhook, description = "registered; `secret` is shown this once"),
        (status = 400, body = ErrorBody, description = "malformed JSON, no `url`, a URL that is not https (http only to loopback), or a bad `path_glob`"),
        (status = 413, body = ErrorBody, description = "body over 16 KiB"),
        (status = 503, body = ErrorBody, description = "webhooks not enabled")))]
pub async fn create(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    request: Request,
) -> ApiResult<(StatusCode, Json<Webhook>)> {
    let hooks = hooks_of(&state, space.name())?;
    let bytes = axum::body::to_bytes(request.into_body(), MAX_REQUEST_BYTES)
        .await
        .map_err(|_| {
            ApiError(Error::new(
                ErrorCode::TooLarge,
                format!("the body is larger than {MAX_REQUEST_BYTES} bytes"),
            ))
        })?;
    let body: WebhookRequest = serde_json::from_slice(&bytes)
        .map_err(|e| crate::error::bad_request(format!("invalid JSON body: {e}")))?;
    let created = blocking(move || hooks.create(body)).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// Every webhook of the space, oldest first, without secrets.
#[utoipa::path(get, path = "/webhooks", tag = "webhooks", operation_id = "webhook_list",
    responses((status = 200, body = Vec<Webhook>),
        (status = 503, body = ErrorBody, description = "webhooks not enabled")))]
pub async fn list(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
) -> ApiResult<Json<Vec<Webhook>>> {
    let hooks = hooks_of(&state, space.name())?;
    Ok(Json(blocking(move || hooks.list()).await?))
}

/// Removes a webhook with the deliveries still queued or failed for it.
#[utoipa::path(delete, path = "/webhooks/{id}", tag = "webhooks", operation_id = "webhook_delete",
    params(("id" = String, Path, description = "the webhook's id")),
    responses((status = 204, description = "removed"),
        (status = 404, body = ErrorBody, description = "no such webhook"),
        (status = 503, body = ErrorBody, description = "webhooks not enabled")))]
pub async fn delete(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    HookId(id): HookId,
) -> ApiResult<StatusCode> {
    let hooks = hooks_of(&state, space.name())?;
    blocking(move || hooks.delete(&id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The deliveries of a webhook that its receiver has not accepted yet (`pending`, `sending`)
/// or never will (`failed`: every retry used up), oldest first.
#[utoipa::path(get, path = "/webhooks/{id}/deliveries", tag = "webhooks", operation_id = "webhook_deliveries",
    params(("id" = String, Path, description = "the webhook's id")),
    responses((status = 200, body = Vec<WebhookDelivery>),
        (status = 404, body = ErrorBody, description = "no such webhook"),
        (status = 503, body = ErrorBody, description = "webhooks not enabled")))]
pub async fn deliveries(
    State(state): State<AppState>,
    SpaceCtx(space): SpaceCtx,
    HookId(id): HookId,
) -> ApiResult<Json<Vec<WebhookDelivery>>> {
    let hooks = hooks_of(&state, space.name())?;
    Ok(Json(blocking(move || hooks.deliveries(&id)).await?))
}

/// The `{id}` of the route.
pub struct HookId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for HookId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| crate::error::bad_request(format!("invalid path: {e}")))?;
        params
            .iter()
            .find(|(k, _)| *k == "id")
            .map(|(_, v)| HookId(v.to_string()))
            .ok_or_else(|| crate::error::bad_request("missing webhook id"))
    }
}
