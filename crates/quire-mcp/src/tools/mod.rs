//! The `quire_*` tools: the table clients list, and the calls onto the space's services.
//!
//! Only tools whose subsystem exists are listed. Every input schema is the `schemars` derive
//! of a `quire-api` type; arguments that do not fit it are a tool error naming the problem.
//! Every tool is an operation of the table (`quire-ops`), listed in the table's order with
//! its input and output schemas; a call decodes the arguments, runs the operation on a blocking
//! thread and answers its output as structured content and as text. A tool calls the same
//! operation as its REST route, so both answer alike (same body, same error). `refactor` holds
//! the one tool the adapter runs itself (`quire_refactor_apply`, which may ask the user).

mod refactor;

use std::sync::Arc;

use quire_service::{Error, ErrorCode};
use rmcp::handler::server::common::schema_for_empty_input;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};

use crate::{Caller, McpServer};

/// The schema of a tool without arguments.
fn empty() -> Arc<JsonObject> {
    schema_for_empty_input()
}

/// The operations of the table that are MCP tools.
fn operations() -> impl Iterator<Item = (&'static quire_ops::Entry, quire_ops::Tool)> {
    quire_ops::table()
        .iter()
        .filter_map(|entry| entry.meta.tool.map(|tool| (entry, tool)))
}

/// The JSON Schema of an entry's input or output as an MCP schema object.
pub(super) fn schema_object(schema: schemars::Schema) -> Arc<JsonObject> {
    match schema.to_value() {
        serde_json::Value::Object(mut object) => {
            object.remove("$schema");
            Arc::new(object)
        }
        _ => empty(),
    }
}

/// The output schema of a tool: its output, or the envelope holding a list.
fn output_schema(entry: &quire_ops::Entry, tool: quire_ops::Tool) -> Arc<JsonObject> {
    let schema = (entry.output_schema)();
    match tool.envelope {
        None => schema_object(schema),
        Some(key) => {
            let mut value = schema.to_value();
            let defs = value
                .as_object_mut()
                .and_then(|o| o.remove("$defs"))
                .unwrap_or(serde_json::Value::Null);
            if let Some(o) = value.as_object_mut() {
                o.remove("$schema");
            }
            let mut envelope = serde_json::json!({
                "type": "object",
                "properties": { key: value },
                "required": [key],
            });
            if !defs.is_null() {
                envelope["$defs"] = defs;
            }
            match envelope {
                serde_json::Value::Object(o) => Arc::new(o),
                _ => empty(),
            }
        }
    }
}

/// Every advertised tool.
/// The tools of the operation table; those of vector search only when `vectors` (some space
/// has it on).
pub(crate) fn list(vectors: bool) -> Vec<Tool> {
    let table = operations()
        .filter(|(entry, _)| vectors || !entry.meta.needs_vectors)
        .map(|(entry, tool)| {
            let meta = entry.meta;
            // The apply tool takes less than its REST body and may answer "not applied".
            let (input, output) = if tool.name == refactor::APPLY {
                (refactor::input_schema(), refactor::output_schema())
            } else {
                (
                    schema_object((entry.input_schema)()),
                    output_schema(entry, tool),
                )
            };
            let mut listed =
                Tool::new(tool.name, meta.description(), input).with_raw_output_schema(output);
            listed.annotations = Some(
                ToolAnnotations::new()
                    .read_only(meta.read_only())
                    .destructive(!meta.read_only()),
            );
            listed
        });
    table.collect()
}

/// Whether tool `name` changes nothing (unknown tools count as read-only: they do nothing).
pub(crate) fn is_read_only(name: &str) -> bool {
    quire_ops::find_tool(name).is_none_or(|entry| entry.meta.read_only())
}

/// A tool error when a credential of `scope` may not call `name`: a read scope calls only
/// the tools marked read-only (the same line REST draws between GET and the rest).
pub(crate) fn refuse_for_scope(name: &str, scope: quire_api::Scope) -> Option<CallToolResult> {
    let needed = quire_ops::find_tool(name)?.meta.scope;
    if scope.allows(needed) {
        return None;
    }
    Some(error_result(&Error::new(
        ErrorCode::Forbidden,
        format!("this key is read-only: {name} changes the knowledge base"),
    )))
}

/// A tool's answer before it becomes an MCP result.
type Answer = Result<CallToolResult, Error>;

/// Runs tool `name` for `caller`; an unknown tool is a protocol error, everything else a
/// tool result (an error result carrying the service's message).
pub(crate) async fn call(
    server: &McpServer,
    name: &str,
    args: serde_json::Value,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    if name == refactor::APPLY {
        // It may ask the user and wait for the answer: it runs on the async side, and not
        // through the table's call (see `refactor`).
        let answer = refactor::apply_tool(server.space(), args, caller, peer).await;
        return Ok(answer.unwrap_or_else(|e| error_result(&e)));
    }
    let Some(entry) = quire_ops::find_tool(name) else {
        return Err(ErrorData::invalid_params(
            format!("no tool named {name:?}; call tools/list"),
            None,
        ));
    };
    {
        let space = server.space();
        let ops_caller = quire_ops::Caller {
            actor: Some(caller.actor.clone()),
            client: Some(caller.client.clone()),
            ..quire_ops::Caller::default()
        };
        let call = entry.call;
        let envelope = entry.meta.tool.and_then(|t| t.envelope);
        // An agent knows the operation by its tool: a decode error names the tool.
        let tool = entry.meta.tool.map_or(entry.meta.name, |t| t.name);
        let answer = tokio::task::spawn_blocking(move || call(&space, args, &ops_caller, tool))
            .await
            .unwrap_or_else(|e| Err(Error::internal(e)));
        Ok(match answer {
            Ok(output) => {
                // A listing's text is the JSON of its envelope: the structured content itself.
                let (value, text) = match envelope {
                    Some(key) => {
                        let value = serde_json::json!({ key: output.value });
                        let text = serde_json::to_string_pretty(&value).unwrap_or(output.text);
                        (value, text)
                    }
                    None => (output.value, output.text),
                };
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(value);
                result
            }
            Err(e) => error_result(&e),
        })
    }
}

/// A tool error: the message REST gives, with its code and, where there is one, the plan.
pub(crate) fn error_result(e: &Error) -> CallToolResult {
    if e.code == ErrorCode::Internal {
        tracing::error!(detail = ?e.detail, "internal error answering an MCP call: {e}");
    }
    let body = serde_json::to_value(e.body()).unwrap_or_default();
    let mut result = CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
    result.structured_content = Some(body);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apply_tool_offers_no_approval_and_no_actor_of_its_own() {
        let tools = list(true);
        let apply = tools
            .iter()
            .find(|t| t.name == refactor::APPLY)
            .expect("listed");
        let properties = apply.input_schema["properties"].as_object().unwrap();
        assert!(properties.contains_key("manifest"));
        assert!(properties.contains_key("digest"));
        assert!(
            !properties.contains_key("approved"),
            "an agent never approves"
        );
        assert!(
            !properties.contains_key("actor"),
            "the session is the actor"
        );
        let output = apply.output_schema.as_ref().expect("an output schema");
        assert_eq!(output.get("type"), Some(&serde_json::json!("object")));
        assert!(!apply.annotations.as_ref().unwrap().read_only_hint.unwrap());
    }

    #[test]
    fn vector_search_tools_are_listed_only_when_it_is_on() {
        let names =
            |vectors| -> Vec<String> { list(vectors).iter().map(|t| t.name.to_string()).collect() };
        let vector_tools = [
            "quire_search_semantic",
            "quire_suggestions",
            "quire_embeddings",
        ];
        let off = names(false);
        let on = names(true);
        for tool in vector_tools {
            assert!(!off.contains(&tool.to_string()), "{tool} listed while off");
            assert!(on.contains(&tool.to_string()), "{tool} missing while on");
        }
        assert_eq!(on.len(), off.len() + vector_tools.len());
    }

    #[test]
    fn tool_names_are_unique_and_every_schema_is_an_object() {
        let tools = list(true);
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a tool is listed twice");
        for tool in &tools {
            assert_eq!(
                tool.input_schema.get("type"),
                Some(&serde_json::json!("object")),
                "{}",
                tool.name
            );
        }
    }
}
