//! The answer to a request rmcp could not read into its typed form.
//!
//! rmcp hands such a request over as a custom one, whose default answer is "method not found"
//! (-32601) — wrong when the method exists and only its params are malformed (a `tools/call`
//! without `name`, `arguments` that are not an object). JSON-RPC calls that invalid params
//! (-32602); the message says what does not fit.

use rmcp::model::{
    CallToolRequestParams, CustomRequest, ErrorCode, InitializeRequestParams,
    ReadResourceRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::ErrorData;
use serde::de::DeserializeOwned;

/// Every client request method rmcp reads into a typed request: when one of these arrives as
/// a custom request, its params did not fit.
const KNOWN: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// The error answering `request`: invalid params for a known method, else method not found.
pub(crate) fn unread(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    if !KNOWN.contains(&method) {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("no method {method:?}"),
            None,
        );
    }
    let problem = match method {
        "tools/call" => misfit::<CallToolRequestParams>(request),
        "resources/read" => misfit::<ReadResourceRequestParams>(request),
        "resources/subscribe" => misfit::<SubscribeRequestParams>(request),
        "resources/unsubscribe" => misfit::<UnsubscribeRequestParams>(request),
        "initialize" => misfit::<InitializeRequestParams>(request),
        _ => None,
    };
    let problem = problem.unwrap_or_else(|| "they do not fit the method".into());
    let shape = match method {
        "tools/call" => " (an object with the tool's `name` and its `arguments` as an object)",
        _ => "",
    };
    ErrorData::invalid_params(
        format!("invalid params for {method}{shape}: {problem}"),
        None,
    )
}

/// What keeps the request's params from reading as `T`.
fn misfit<T: DeserializeOwned>(request: &CustomRequest) -> Option<String> {
    match &request.params {
        None => Some("no params".into()),
        Some(params) => serde_json::from_value::<T>(params.clone())
            .err()
            .map(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(method: &str, params: serde_json::Value) -> i32 {
        unread(&CustomRequest::new(method, Some(params))).code.0
    }

    #[test]
    fn a_known_method_with_misfit_params_is_invalid_params() {
        assert_eq!(code("tools/call", json!({"arguments": {}})), -32602);
        assert_eq!(
            code("tools/call", json!({"name": "x", "arguments": 1})),
            -32602
        );
        assert_eq!(code("resources/read", json!({})), -32602);
        assert_eq!(code("no/such", json!({})), -32601);
        let message = unread(&CustomRequest::new("tools/call", Some(json!({})))).message;
        assert!(message.contains("name"), "{message}");
    }
}
