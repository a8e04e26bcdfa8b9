//! The one error type of the service façade and the table mapping its codes to HTTP statuses
//! and CLI exit codes.

use quire_store::StoreError;
use quire_vault::PathError;

/// Stable error codes; every adapter maps these, and only these, to its protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Malformed input: bad path, missing field, unparseable body.
    BadRequest,
    /// The path, version or space does not exist.
    NotFound,
    /// `If-Match` no longer matches, or a destination already exists.
    Conflict,
    /// The caller may not do this (releasing a claim another actor holds).
    Forbidden,
    /// The request is well-formed but cannot be carried out (validation).
    Unprocessable,
    /// An agent's plan needs a person's approval first.
    ApprovalRequired,
    /// The body is larger than the limit allows.
    TooLarge,
    /// The content type is not allowed (assets).
    UnsupportedMediaType,
    /// A subsystem that this configuration does not provide (e.g. history without versioning).
    NotImplemented,
    /// A subsystem that is disabled or not ready.
    Unavailable,
    /// Something failed inside; details are logged, not returned.
    Internal,
}

impl ErrorCode {
    /// The HTTP status the spec gives this code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest => 400,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::TooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::Unprocessable => 422,
            ErrorCode::ApprovalRequired => 428,
            ErrorCode::Internal => 500,
            ErrorCode::NotImplemented => 501,
            ErrorCode::Unavailable => 503,
        }
    }

    /// The process exit code of the command line (DECISIONS §6): 2 for bad input, 1 otherwise.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorCode::BadRequest | ErrorCode::TooLarge | ErrorCode::UnsupportedMediaType => 2,
            _ => 1,
        }
    }
}

/// An error of the service: a code plus a message that is safe to show the caller.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::BadRequest, message)
    }

    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::NotFound, message)
    }

    pub fn conflict(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Conflict, message)
    }

    /// An internal failure: the detail goes to the log, the caller sees a generic message.
    pub fn internal(detail: impl std::fmt::Display) -> Error {
        tracing::error!("internal error: {detail}");
        Error::new(ErrorCode::Internal, "internal error (see the server log)")
    }
}

impl From<PathError> for Error {
    fn from(e: PathError) -> Error {
        Error::bad_request(format!("invalid path: {e}"))
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        let code = match &e {
            StoreError::NotFound { .. } | StoreError::VersionNotFound { .. } => ErrorCode::NotFound,
            StoreError::IsFolder { .. }
            | StoreError::ParentIsFile { .. }
            | StoreError::NotFolder { .. }
            | StoreError::BadRoot { .. }
            | StoreError::NotSymlink { .. }
            | StoreError::OutsideRoot { .. } => ErrorCode::BadRequest,
            StoreError::Unavailable { .. } => ErrorCode::NotImplemented,
            _ => return Error::internal(e),
        };
        Error::new(code, e.to_string())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
