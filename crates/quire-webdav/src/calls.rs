//! What every call of the adapter needs: who asks, a blocking thread for the service, and
//! the service's errors as dav-server's.

use dav_server::fs::{FsError, FsResult};
use quire_service::ErrorCode;

/// Who is asking, as the gate admitted them.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// The author of their writes (`None`: `webdav`).
    pub actor: Option<String>,
    /// The only space their credential opens.
    pub space: Option<String>,
}

/// Runs a blocking call of the service.
pub(crate) async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> FsResult<T> + Send + 'static,
) -> FsResult<T> {
    tokio::task::spawn_blocking(call)
        .await
        .unwrap_or(Err(FsError::GeneralFailure))
}

/// The service's error as the status dav-server answers.
pub(crate) fn fs_error(e: quire_service::Error) -> FsError {
    match e.code {
        ErrorCode::NotFound => FsError::NotFound,
        ErrorCode::Forbidden | ErrorCode::Unauthorized => FsError::Forbidden,
        ErrorCode::Conflict => FsError::Exists,
        ErrorCode::TooLarge => FsError::TooLarge,
        ErrorCode::BadRequest | ErrorCode::Unprocessable | ErrorCode::ApprovalRequired => {
            FsError::Forbidden
        }
        ErrorCode::NotImplemented => FsError::NotImplemented,
        _ => {
            tracing::warn!("webdav: {}", e.message);
            FsError::GeneralFailure
        }
    }
}
