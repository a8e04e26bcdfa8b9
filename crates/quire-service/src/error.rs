//! The one error type of the service: a code from the wire table ([`ErrorCode`]), a message
//! that is safe to show the caller, and optionally what the error is about (the fresh plan of
//! a refused restructuring, the claim that holds a path).
//!
//! Constructing an error does not log; the adapter that answers with it logs what it must
//! (the `detail` of an internal error, which is never shown to the caller).

use quire_restructure::Plan;
use quire_store::StoreError;
use quire_vault::PathError;

pub use quire_api::ErrorCode;

/// An error of the service.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub code: ErrorCode,
    /// Meant for the caller: names the path, setting or reason.
    pub message: String,
    /// What the error is about, for the caller to act on.
    pub payload: Option<Payload>,
    /// What failed inside (internal errors): for the log, never for the caller.
    pub detail: Option<String>,
}

/// What an error carries besides its message.
#[derive(Debug, Clone)]
pub enum Payload {
    /// The plan as it stands now: why a restructuring was refused, and what to review.
    Plan(Box<Plan>),
    /// The claim another actor holds on the path.
    ActiveClaim(Box<quire_api::Claim>),
    /// The page type whose schema a write violates, and each violation.
    SchemaViolation {
        page_type: String,
        violations: Vec<String>,
    },
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            payload: None,
            detail: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::BadRequest, message)
    }

    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::NotFound, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Unavailable, message)
    }

    pub fn unprocessable(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Unprocessable, message)
    }

    pub fn conflict(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Conflict, message)
    }

    /// An internal failure: the caller sees a generic message, `detail` goes to the log of
    /// whoever answers.
    pub fn internal(detail: impl std::fmt::Display) -> Error {
        Error {
            detail: Some(detail.to_string()),
            ..Error::new(ErrorCode::Internal, "internal error (see the server log)")
        }
    }

    /// The same error, carrying the plan the caller should review.
    pub fn with_plan(mut self, plan: Plan) -> Error {
        self.payload = Some(Payload::Plan(Box::new(plan)));
        self
    }

    /// The plan this error carries, if any.
    pub fn plan(&self) -> Option<&Plan> {
        match &self.payload {
            Some(Payload::Plan(plan)) => Some(plan),
            _ => None,
        }
    }

    /// The body every adapter answers with (REST's JSON, MCP's structured tool error, the
    /// command line's `--json`): the message, the code and the payload's fields. The
    /// `detail` of an internal error is not in it.
    pub fn body(&self) -> quire_api::ErrorBody {
        let mut body = quire_api::ErrorBody::new(self.code, self.message.clone());
        match &self.payload {
            Some(Payload::ActiveClaim(claim)) => body.active_claim = Some((**claim).clone()),
            Some(Payload::Plan(plan)) => body.plan = Some(plan.clone()),
            Some(Payload::SchemaViolation {
                page_type,
                violations,
            }) => {
                body.page_type = Some(page_type.clone());
                body.violations = Some(violations.clone());
            }
            None => {}
        }
        body
    }

    /// A refused plan: `code`, `message` and the plan.
    pub fn refused(code: ErrorCode, message: impl Into<String>, plan: &Plan) -> Error {
        Error::new(code, message).with_plan(plan.clone())
    }
}

impl From<PathError> for Error {
    fn from(e: PathError) -> Error {
        Error::bad_request(format!("invalid path: {e}"))
    }
}

impl From<quire_index::IndexError> for Error {
    fn from(e: quire_index::IndexError) -> Error {
        Error::internal(format!("index: {e}"))
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
            | StoreError::OutsideRoot { .. }
            | StoreError::NameTooLong { .. } => ErrorCode::BadRequest,
            // The OS's "name too long" met outside the store's checks (a draft's work tree).
            StoreError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::InvalidFilename =>
            {
                ErrorCode::BadRequest
            }
            StoreError::Unavailable { .. } => ErrorCode::NotImplemented,
            // Another process writes the root; this one opened it read-only.
            StoreError::Locked { .. }
            | StoreError::ReadOnly { .. }
            | StoreError::Exists { .. }
            | StoreError::NotEmpty { .. } => ErrorCode::Conflict,
            _ => return Error::internal(e),
        };
        Error::new(code, e.to_string())
    }
}

impl From<quire_store::DraftError> for Error {
    fn from(e: quire_store::DraftError) -> Error {
        use quire_store::DraftError as D;
        let code = match &e {
            D::NoDraft { .. } | D::NotFound { .. } => ErrorCode::NotFound,
            D::IsFolder { .. } | D::NotFolder { .. } | D::ParentIsFile { .. } => {
                ErrorCode::BadRequest
            }
            D::Stale { .. } | D::Raced { .. } => ErrorCode::Conflict,
            D::Store(_) => {
                let D::Store(inner) = e else { unreachable!() };
                return inner.into();
            }
        };
        Error::new(code, e.to_string())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_keep_their_detail_out_of_the_message() {
        let e = Error::internal("disk on fire at /srv/kb");
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(!e.message.contains("disk"));
        assert_eq!(e.detail.as_deref(), Some("disk on fire at /srv/kb"));
    }
}
