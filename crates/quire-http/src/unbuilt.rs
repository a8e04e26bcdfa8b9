//! The spec's routes whose subsystem quire does not build (the Airbyte routes): each answers
//! the status the spec defines for a subsystem that is missing (501) instead of the router's
//! 404, and is listed in the OpenAPI
//! document with that answer. None of them is an operation, so no MCP tool is listed for them.
//!
//! A route of this table that the router already serves (built since) is left out, so building
//! a subsystem only needs its route: the table then stops answering for it.

use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter};
use axum::Router;
use quire_service::{Error, ErrorCode};
use serde_json::{json, Value};

use crate::error::ApiError;

/// What an unbuilt route answers.
#[derive(Clone, Copy)]
enum Answer {
    /// The subsystem is not built: 501 with this message.
    Missing(&'static str),
}

/// One route of the spec that quire does not serve.
struct Unbuilt {
    method: &'static str,
    /// Below `{base_url}`, with `{name}` path parameters.
    path: &'static str,
    operation_id: &'static str,
    tag: &'static str,
    summary: &'static str,
    answer: Answer,
}

const AIRBYTE: &str = "Airbyte import is not implemented by this server";

const fn route(
    method: &'static str,
    path: &'static str,
    operation_id: &'static str,
    tag: &'static str,
    summary: &'static str,
    answer: Answer,
) -> Unbuilt {
    Unbuilt {
        method,
        path,
        operation_id,
        tag,
        summary,
        answer,
    }
}

/// Every route of the spec's endpoint tables that quire does not build.
const TABLE: &[Unbuilt] = &[
    route(
        "post",
        "/import/airbyte/spec",
        "airbyte_spec",
        "import",
        "Airbyte connector spec (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
    route(
        "post",
        "/import/airbyte/check",
        "airbyte_check",
        "import",
        "Airbyte connection check (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
    route(
        "post",
        "/import/airbyte/discover",
        "airbyte_discover",
        "import",
        "Airbyte stream discovery (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
    route(
        "post",
        "/import/airbyte-cloud/check",
        "airbyte_cloud_check",
        "import",
        "Airbyte Cloud check (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
    route(
        "post",
        "/import/airbyte-cloud/discover",
        "airbyte_cloud_discover",
        "import",
        "Airbyte Cloud discovery (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
    route(
        "post",
        "/import/airbyte-cloud/sync",
        "airbyte_cloud_sync",
        "import",
        "Airbyte Cloud sync (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
    route(
        "get",
        "/import/airbyte-cloud/connections",
        "airbyte_cloud_connections",
        "import",
        "Airbyte Cloud connections (not implemented)",
        Answer::Missing(AIRBYTE),
    ),
];

fn method_filter(method: &str) -> MethodFilter {
    match method {
        "post" => MethodFilter::POST,
        "put" => MethodFilter::PUT,
        "patch" => MethodFilter::PATCH,
        "delete" => MethodFilter::DELETE,
        _ => MethodFilter::GET,
    }
}

fn respond(answer: Answer) -> Response {
    match answer {
        Answer::Missing(message) => {
            ApiError(Error::new(ErrorCode::NotImplemented, message)).into_response()
        }
    }
}

/// Whether `doc` (the document before this module's entries) already lists the route.
fn served(doc: &Value, base: &str, unbuilt: &Unbuilt) -> bool {
    doc.pointer(&format!(
        "/paths/{}/{}",
        format!("{base}{}", unbuilt.path)
            .replace('~', "~0")
            .replace('/', "~1"),
        unbuilt.method
    ))
    .is_some()
}

/// The routes of the table that `doc` does not list, below a space's base.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(doc: &Value, base: &str) -> Router<S> {
    let mut router = Router::new();
    for unbuilt in TABLE.iter().filter(|u| !served(doc, base, u)) {
        let answer = unbuilt.answer;
        router = router.route(
            unbuilt.path,
            on(method_filter(unbuilt.method), move || async move {
                respond(answer)
            }),
        );
    }
    router
}

/// Adds the table's routes that `doc` does not list yet, each with the one answer it gives.
pub(crate) fn document(doc: &mut Value, base: &str) {
    let missing: Vec<&Unbuilt> = TABLE.iter().filter(|u| !served(doc, base, u)).collect();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    let error = json!({"$ref": "#/components/schemas/ErrorBody"});
    for unbuilt in missing {
        let (status, description, content) = match unbuilt.answer {
            Answer::Missing(message) => {
                (501, message, json!({"application/json": {"schema": error}}))
            }
        };
        let mut operation = json!({
            "operationId": unbuilt.operation_id,
            "summary": unbuilt.summary,
            "tags": [unbuilt.tag],
            "responses": {
                status.to_string(): {"description": description, "content": content},
                "401": {"description": "missing or invalid credentials", "content": {"application/json": {"schema": error}}},
            },
        });
        let names: Vec<&str> = unbuilt
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        if !names.is_empty() {
            operation["parameters"] = names
                .iter()
                .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
                .collect();
        }
        let item = paths
            .entry(format!("{base}{}", unbuilt.path))
            .or_insert_with(|| json!({}));
        if let Some(item) = item.as_object_mut() {
            item.insert(unbuilt.method.to_string(), operation);
        }
    }
}
