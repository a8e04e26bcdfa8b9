//! `GET /backup`: the backup status of a space (`[backup]`: its history pushed to a git
//! remote). Admin only: it names where the history goes.

use axum::Json;
use quire_api::BackupStatus;

use crate::context::SpaceCtx;
use crate::error::ApiResult;

/// Where the space's history is pushed, when it last reached the remote and why the last
/// attempt failed, if it did; `enabled: false` (every other field `null`) without
/// `[backup] remote`.
#[utoipa::path(get, path = "/backup", tag = "admin", operation_id = "backup_status",
    responses((status = 200, body = BackupStatus),
        (status = 404, body = crate::ErrorBody, description = "no such space")))]
pub async fn status(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<BackupStatus>> {
    Ok(Json(space.backup_status()))
}
