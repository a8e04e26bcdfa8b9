//! Errors on the wire: the table of stable error codes (HTTP status, process exit code) and
//! the JSON body every adapter answers with.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::claims::Claim;
use crate::restructure::Plan;

/// Stable error codes. Every adapter maps these, and only these, to its protocol: HTTP
/// statuses and exit codes of the command line come from this one table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed input: bad path, missing field, unparseable body.
    BadRequest,
    /// Missing or invalid credentials.
    Unauthorized,
    /// The caller may not do this (a claim another actor holds, a key of another space).
    Forbidden,
    /// The path, version or space does not exist.
    NotFound,
    /// `If-Match` no longer matches, a destination exists, a digest is stale, a claim is held.
    Conflict,
    /// The body is larger than the limit allows.
    TooLarge,
    /// The content type is not allowed (assets).
    UnsupportedMediaType,
    /// Well-formed but cannot be carried out (a plan with errors, a revert over later changes).
    Unprocessable,
    /// An agent's plan needs a person's approval first.
    ApprovalRequired,
    /// The caller's rate limit is used up (`Retry-After` says for how long).
    TooManyRequests,
    /// Something failed inside; details are logged, not returned.
    Internal,
    /// A subsystem this configuration does not provide (history without versioning).
    NotImplemented,
    /// A server quire fetched from on the caller's behalf failed or could not be reached
    /// (the web page of a clip).
    BadGateway,
    /// A subsystem that is disabled or not ready (claims off).
    Unavailable,
}

impl ErrorCode {
    /// Every code, in table order.
    pub const ALL: [ErrorCode; 14] = [
        ErrorCode::BadRequest,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::TooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::Unprocessable,
        ErrorCode::ApprovalRequired,
        ErrorCode::TooManyRequests,
        ErrorCode::Internal,
        ErrorCode::NotImplemented,
        ErrorCode::BadGateway,
        ErrorCode::Unavailable,
    ];

    /// The HTTP status the spec gives this code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::TooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::Unprocessable => 422,
            ErrorCode::ApprovalRequired => 428,
            ErrorCode::TooManyRequests => 429,
            ErrorCode::Internal => 500,
            ErrorCode::NotImplemented => 501,
            ErrorCode::BadGateway => 502,
            ErrorCode::Unavailable => 503,
        }
    }

    /// The code of an HTTP error status (a client reading a server's answer); unknown
    /// statuses are internal errors.
    pub fn from_http_status(status: u16) -> ErrorCode {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.http_status() == status)
            .unwrap_or(ErrorCode::Internal)
    }

    /// The process exit code of the command line (DECISIONS §6): 2 for bad usage or input, 1
    /// for a refused operation or a failure.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorCode::BadRequest | ErrorCode::TooLarge | ErrorCode::UnsupportedMediaType => 2,
            _ => 1,
        }
    }
}

/// The body of every error answer: `{"error": …}`, plus what the error is about where the
/// spec says so (the fresh `plan` of a refused restructuring, the `active_claim` of a held
/// path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ErrorBody {
    /// What went wrong, in words meant for the caller.
    pub error: String,
    /// The stable code of the error (`bad_request`, `not_found`, `conflict` …): the same on
    /// every adapter; HTTP statuses and exit codes come from it.
    pub code: ErrorCode,
    /// The claim that holds the path (409 of `POST /claim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_claim: Option<Claim>,
    /// The plan as it stands now (a refused restructuring: 409, 422, 428).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Box<Plan>>,
    /// The page type whose schema a write violates (400 with `violations`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub page_type: Option<String>,
    /// What the frontmatter violates, one message per problem (400 with `type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub violations: Option<Vec<String>>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, error: impl Into<String>) -> ErrorBody {
        ErrorBody {
            error: error.into(),
            code,
            active_claim: None,
            plan: None,
            page_type: None,
            violations: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_maps_back_to_its_code() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_http_status(code.http_status()), code);
        }
        assert_eq!(ErrorCode::from_http_status(418), ErrorCode::Internal);
    }

    #[test]
    fn bad_input_exits_2_and_refusals_exit_1() {
        assert_eq!(ErrorCode::BadRequest.exit_code(), 2);
        assert_eq!(ErrorCode::Unprocessable.exit_code(), 1);
        assert_eq!(ErrorCode::Conflict.exit_code(), 1);
    }
}
