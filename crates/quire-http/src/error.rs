//! The one `IntoResponse` for errors: `{"error": …}` with the status of the error's code and
//! the error's payload (`plan`, `active_claim`), plus extractors whose rejections use the same
//! shape. Internal errors are logged here, with their detail; the caller sees a generic
//! message.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_service::{Error, ErrorCode};
use serde::de::DeserializeOwned;

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

pub use quire_api::ErrorBody;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let e = self.0;
        if let Some(detail) = &e.detail {
            tracing::error!("internal error: {detail}");
        }
        let status =
            StatusCode::from_u16(e.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(e.body())).into_response()
    }
}

pub fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError(Error::bad_request(message))
}

pub type ApiResult<T> = Result<T, ApiError>;

/// `Json<T>` whose rejection is a 400 `{"error": …}` naming the problem.
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(JsonBody(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    let code = match rejection {
        JsonRejection::MissingJsonContentType(_) => ErrorCode::BadRequest,
        JsonRejection::BytesRejection(_) => ErrorCode::TooLarge,
        _ => ErrorCode::BadRequest,
    };
    ApiError(Error::new(
        code,
        format!("invalid JSON body: {}", rejection.body_text()),
    ))
}

/// A raw request body whose rejection (too large, unreadable) is an `{"error": …}` answer:
/// 413 past the body limit, else 400.
pub struct RawBody(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::body::Bytes::from_request(req, state).await {
            Ok(bytes) => Ok(RawBody(bytes)),
            Err(rejection) => {
                let code = if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ErrorCode::TooLarge
                } else {
                    ErrorCode::BadRequest
                };
                Err(ApiError(Error::new(
                    code,
                    format!("unreadable body: {}", rejection.body_text()),
                )))
            }
        }
    }
}

/// `Query<T>` whose rejection is a 400 `{"error": …}` naming the parameter.
pub struct QueryParams<T>(pub T);

impl<S, T> FromRequestParts<S> for QueryParams<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(QueryParams(value)),
            Err(rejection) => Err(query_rejection(rejection)),
        }
    }
}

fn query_rejection(rejection: QueryRejection) -> ApiError {
    bad_request(format!("invalid query: {}", rejection.body_text()))
}

/// Runs blocking service work (file I/O, git) off the async executor.
pub async fn blocking<T, F>(work: F) -> ApiResult<T>
where
    F: FnOnce() -> quire_service::Result<T> + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(ApiError),
        Err(e) => Err(ApiError(Error::internal(format!("worker failed: {e}")))),
    }
}

/// The path parameter `name` of a route. Routes are served under `/api/quire` and again
/// under `/api/quire/{space}`, so a handler names the parameter it wants instead of taking
/// every parameter by position (`Path<String>` fails where `{space}` comes first).
pub(crate) fn path_param(
    params: &axum::extract::RawPathParams,
    name: &str,
) -> Result<String, ApiError> {
    params
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_string())
        .ok_or_else(|| bad_request(format!("missing path parameter {name}")))
}
