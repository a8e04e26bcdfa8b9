//! The routes of the operation table (`quire-ops`): each operation bound to REST gets its
//! route, its handler and its OpenAPI entry from its declaration. Query-carried inputs are
//! read from the query string (unknown parameters ignored, as browsers and caches add their
//! own), JSON-carried ones from the body (or one field of the input, from the body; the
//! fields the route names, from the query); path parameters of the route (`/views/{name}`)
//! fill the input's field of that name. A success answers the status the route declares (201,
//! 204 without a body). Operations the adapter encodes itself (raw bodies, `ETag` headers)
//! take their handler from `custom.rs` and `areas.rs`, still calling the operation.

mod areas;
mod custom;
mod doc;
mod mount;

use axum::extract::{FromRequest, FromRequestParts, RawPathParams, RawQuery, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::{Json, Router};
use quire_ops::{Caller, Carrier, Method, Operation, Visit};
use quire_service::Error;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiError, ApiResult, JsonBody, RawBody};
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
        // An operation the adapter encodes itself (raw bodies, headers of its own) has its
        // handler in `custom.rs`; the others take the carrier's.
        let method_router: MethodRouter<AppState> =
            match (custom::handler::<O>(filter), rest.carrier) {
                (Some(handler), _) => handler,
                (None, Carrier::Query) => on(filter, query::<O>),
                (None, Carrier::Json) => on(filter, json::<O>),
                (None, Carrier::Raw(_)) => {
                    panic!("operation {} has no custom REST handler", O::META.name)
                }
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

/// Runs `O` off the async executor and answers its output as JSON, with the status its
/// route declares.
async fn answer<O: Operation>(
    space: std::sync::Arc<quire_service::Space>,
    input: O::Input,
    caller: Caller,
) -> ApiResult<Response> {
    let output = blocking(move || O::run(&space, input, &caller)).await?;
    Ok(success::<O>(Json(output)))
}

/// A success of `O` carrying `body`, with the status its route declares (a `204` without
/// the body).
pub(crate) fn success<O: Operation>(body: impl IntoResponse) -> Response {
    let status = O::META.rest.map_or(200, |rest| rest.status);
    match StatusCode::from_u16(status).unwrap_or(StatusCode::OK) {
        StatusCode::NO_CONTENT => StatusCode::NO_CONTENT.into_response(),
        status => (status, body).into_response(),
    }
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
    let parsed = serde_urlencoded::Deserializer::new(form_urlencoded::parse(encoded.as_bytes()));
    // The parameter a bad value was given for is named, as a JSON body's field is.
    serde_path_to_error::deserialize(parsed).map_err(|e| {
        let message = match e.path().to_string() {
            field if field == "." => format!("invalid query: {}", e.inner()),
            field => format!("invalid query: `{field}`: {}", e.inner()),
        };
        ApiError(Error::bad_request(message))
    })
}

/// An operation whose input is a JSON body (and the fields its route reads from the query).
async fn json<O: Operation>(
    SpaceCtx(space): SpaceCtx,
    RestCaller(caller): RestCaller,
    params: RawPathParams,
    RawQuery(raw): RawQuery,
    request: Request,
) -> ApiResult<Response> {
    let body = json_body::<O>(request).await?;
    let input = decode_json::<O>(body, &path_params(&params), raw.as_deref().unwrap_or(""))?;
    answer::<O>(space, input, caller).await
}

/// The JSON body of a request to `O`: `{}` when it is empty and the route allows that (then
/// no `Content-Type` is needed either).
pub(crate) async fn json_body<O: Operation>(request: Request) -> ApiResult<serde_json::Value> {
    let empty_allowed = O::META.rest.is_some_and(|rest| rest.empty_body);
    if !empty_allowed {
        let JsonBody(body) = JsonBody::<serde_json::Value>::from_request(request, &()).await?;
        return Ok(body);
    }
    let RawBody(bytes) = RawBody::from_request(request, &()).await?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError(Error::bad_request(format!("invalid JSON body: {e}"))))
}

/// Decodes a JSON body as the input of `O`: the body is the input (or the field its route
/// names), the route's path parameters and the query fields it declares are set on it.
pub(crate) fn decode_json<O: Operation>(
    body: serde_json::Value,
    path: &[(String, String)],
    query: &str,
) -> Result<O::Input, ApiError> {
    let rest = O::META.rest;
    let mut body = match rest.and_then(|r| r.body_field) {
        Some(field) => serde_json::json!({ field: body }),
        None => body,
    };
    let from_query = typed_query::<O>(query, rest.map_or(&[], |r| r.query_fields))?;
    // Every input is an object (serde would also take an array for a struct).
    let Some(object) = body.as_object_mut() else {
        return Err(ApiError(Error::bad_request(
            "invalid JSON body: expected an object",
        )));
    };
    object.extend(from_query);
    for (key, value) in path {
        object.insert(key.clone(), serde_json::Value::String(value.clone()));
    }
    serde_json::from_value(body)
        .map_err(|e| ApiError(Error::bad_request(format!("invalid JSON body: {e}"))))
}

/// The parameters of query string `raw` named in `fields`, as JSON values of the input of
/// `O`: a text field keeps its text, any other is read as JSON (`diffs=true`, `limit=5`).
pub(crate) fn typed_query<O: Operation>(
    raw: &str,
    fields: &[&str],
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    if fields.is_empty() {
        return Ok(serde_json::Map::new());
    }
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw)
        .map_err(|e| ApiError(Error::bad_request(format!("invalid query: {e}"))))?;
    let text = doc::text_fields(O::META.name);
    Ok(pairs
        .into_iter()
        .filter(|(key, _)| fields.contains(&key.as_str()))
        .map(|(key, value)| {
            let value = if text.contains(&key) {
                serde_json::Value::String(value)
            } else {
                serde_json::from_str(&value).unwrap_or(serde_json::Value::String(value))
            };
            (key, value)
        })
        .collect())
}
