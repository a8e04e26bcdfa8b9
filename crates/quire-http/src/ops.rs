//! The routes of the operation table (`quire-ops`): each operation bound to REST gets its
//! route, its handler and its OpenAPI entry from its declaration. Query-carried inputs are
//! read from the query string (unknown parameters ignored, as browsers and caches add their
//! own), JSON-carried ones from the body; path parameters of the route (`/views/{name}`) fill
//! the input's field of that name. Operations the adapter encodes itself (raw bodies, `ETag`
//! headers) take their handler from `custom.rs`, still calling the operation.

mod custom;
mod doc;

use axum::extract::{FromRequestParts, RawPathParams, RawQuery};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::{Json, Router};
use quire_ops::{Caller, Carrier, Method, Operation, Visit};
use quire_service::Error;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiError, ApiResult, JsonBody};
use crate::AppState;

pub(crate) use doc::Documented;

/// The routes of every operation bound to REST, and their OpenAPI paths.
pub(crate) fn routes() -> (Router<AppState>, Documented) {
    let mut v = Routes {
        router: Router::new(),
        doc: Documented::default(),
    };
    quire_ops::visit(&mut v);
    (v.router, v.doc)
}

struct Routes {
    router: Router<AppState>,
    doc: Documented,
}

impl Visit for Routes {
    fn op<O: Operation>(&mut self) {
        let Some(rest) = O::META.rest else {
            return;
        };
        let filter = method_filter(rest.method);
        let method_router: MethodRouter<AppState> = match rest.carrier {
            Carrier::Query => on(filter, query::<O>),
            Carrier::Json => on(filter, json::<O>),
            Carrier::Raw(_) => custom::handler::<O>(filter)
                .unwrap_or_else(|| panic!("operation {} has no custom REST handler", O::META.name)),
        };
        let router = std::mem::take(&mut self.router);
        self.router = router.route(rest.path, method_router);
        self.doc.add::<O>(&rest);
    }
}

fn method_filter(method: Method) -> MethodFilter {
    match method {
        Method::Get => MethodFilter::GET,
        Method::Post => MethodFilter::POST,
        Method::Put => MethodFilter::PUT,
        Method::Patch => MethodFilter::PATCH,
        Method::Delete => MethodFilter::DELETE,
    }
}

/// The caller as REST names it: `X-Actor`, `X-Provenance`, `If-Match`, `X-Quire-Client`.
pub(crate) struct RestCaller(pub Caller);

impl<S: Send + Sync> FromRequestParts<S> for RestCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(RestCaller(caller_of(&parts.headers)))
    }
}

/// The caller named by a request's headers.
pub(crate) fn caller_of(headers: &HeaderMap) -> Caller {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    Caller {
        actor: text("x-actor"),
        provenance: text("x-provenance"),
        if_match: text("if-match"),
        client: text("x-quire-client"),
    }
}

/// The path parameters of the route, without the space.
fn path_params(params: &RawPathParams) -> Vec<(String, String)> {
    params
        .iter()
        .filter(|(key, _)| *key != "space")
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect()
}

/// Runs `O` off the async executor and answers its output as JSON.
async fn answer<O: Operation>(
    space: std::sync::Arc<quire_service::Space>,
    input: O::Input,
    caller: Caller,
) -> ApiResult<Response> {
    let output = blocking(move || O::run(&space, input, &caller)).await?;
    Ok(Json(output).into_response())
}

/// An operation whose input is the query string.
async fn query<O: Operation>(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let input = decode_query::<O>(raw.as_deref().unwrap_or(""), &path_params(&params))?;
    answer::<O>(space, input, caller).await
}

/// Decodes a query string (and the route's path parameters) as the input of `O`, ignoring
/// parameters the input does not have.
pub(crate) fn decode_query<O: Operation>(
    raw: &str,
    path: &[(String, String)],
) -> Result<O::Input, ApiError> {
    let known = doc::input_fields(O::META.name);
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw)
        .map_err(|e| ApiError(Error::bad_request(format!("invalid query: {e}"))))?;
    let mut kept: Vec<(String, String)> = pairs
        .into_iter()
        .filter(|(key, _)| known.contains(key) && !path.iter().any(|(p, _)| p == key))
        .collect();
    kept.extend(path.iter().cloned());
    let encoded = serde_urlencoded::to_string(&kept).map_err(Error::internal)?;
    serde_urlencoded::from_str(&encoded)
        .map_err(|e| ApiError(Error::bad_request(format!("invalid query: {e}"))))
}

/// An operation whose input is a JSON body.
async fn json<O: Operation>(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> ApiResult<Response> {
    let input = decode_json::<O>(body, &path_params(&params))?;
    answer::<O>(space, input, caller).await
}

/// Decodes a JSON body, with the route's path parameters set on it, as the input of `O`.
pub(crate) fn decode_json<O: Operation>(
    mut body: serde_json::Value,
    path: &[(String, String)],
) -> Result<O::Input, ApiError> {
    if !path.is_empty() {
        let Some(object) = body.as_object_mut() else {
            return Err(ApiError(Error::bad_request(
                "invalid JSON body: expected an object",
            )));
        };
        for (key, value) in path {
            object.insert(key.clone(), serde_json::Value::String(value.clone()));
        }
    }
    serde_json::from_value(body)
        .map_err(|e| ApiError(Error::bad_request(format!("invalid JSON body: {e}"))))
}
