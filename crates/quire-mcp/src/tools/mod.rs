//! The `quire_*` tools: the table clients list, and the calls onto the space's services.
//!
//! Only tools whose subsystem exists are listed. Every input schema is the `schemars` derive
//! of a `quire-api` type; arguments that do not fit it are a tool error naming the problem.
//! The table is split by area, one module each, in the order clients list them: files,
//! history and claims (`files`), finding (`find`), looking at pages (`pages`), analytics and
//! health (`insight`), saved views (`views`). A tool calls the same service method as its REST
//! route, so both answer alike (same body, same error message). `refactor` holds the one tool
//! of the table the adapter runs itself (`quire_refactor_apply`, which may ask the user).

mod find;
mod insight;
mod pages;
mod refactor;
mod views;

use std::sync::Arc;

use quire_service::{Error, ErrorCode, Expect, Space, WriteOptions};
use rmcp::handler::server::common::{schema_for_empty_input, schema_for_type};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{Caller, McpServer};

/// One advertised tool.
struct Def {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Arc<JsonObject>,
    read_only: bool,
}

/// The tools of one area and the function answering them (on a blocking thread).
struct Area {
    tools: &'static [Def],
    call: fn(&Space, &str, serde_json::Value, &Caller) -> Answer,
}

/// Every area still declared here, in the order clients list them (after the operation
/// table's tools).
const AREAS: &[Area] = &[find::AREA, pages::AREA, insight::AREA, views::AREA];

fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_type::<T>()
}

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
pub(crate) fn list() -> Vec<Tool> {
    let table = operations().map(|(entry, tool)| {
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
    table
        .chain(AREAS.iter().flat_map(|area| area.tools).map(|def| {
            let mut tool = Tool::new(def.name, def.description, (def.schema)());
            tool.annotations = Some(
                ToolAnnotations::new()
                    .read_only(def.read_only)
                    .destructive(!def.read_only),
            );
            tool
        }))
        .collect()
}

fn def(name: &str) -> Option<&'static Def> {
    AREAS
        .iter()
        .flat_map(|area| area.tools)
        .find(|d| d.name == name)
}

/// Whether tool `name` changes nothing (unknown tools count as read-only: they do nothing).
pub(crate) fn is_read_only(name: &str) -> bool {
    if let Some(entry) = quire_ops::find_tool(name) {
        return entry.meta.read_only();
    }
    def(name).is_none_or(|d| d.read_only)
}

/// A tool error when a credential of `scope` may not call `name`: a read scope calls only
/// the tools marked read-only (the same line REST draws between GET and the rest).
pub(crate) fn refuse_for_scope(name: &str, scope: quire_api::Scope) -> Option<CallToolResult> {
    let needed = match quire_ops::find_tool(name) {
        Some(entry) => entry.meta.scope,
        None if def(name)?.read_only => quire_api::Scope::Read,
        None => quire_api::Scope::Write,
    };
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
    if let Some(entry) = quire_ops::find_tool(name) {
        let space = server.space();
        let ops_caller = quire_ops::Caller {
            actor: Some(caller.actor.clone()),
            client: Some(caller.client.clone()),
            ..quire_ops::Caller::default()
        };
        let call = entry.call;
        let envelope = entry.meta.tool.and_then(|t| t.envelope);
        let answer = tokio::task::spawn_blocking(move || call(&space, args, &ops_caller))
            .await
            .unwrap_or_else(|e| Err(Error::internal(e)));
        return Ok(match answer {
            Ok(output) => {
                let value = match envelope {
                    Some(key) => serde_json::json!({ key: output.value }),
                    None => output.value,
                };
                let mut result = CallToolResult::success(vec![ContentBlock::text(output.text)]);
                result.structured_content = Some(value);
                result
            }
            Err(e) => error_result(&e),
        });
    }
    let Some(area) = AREAS
        .iter()
        .find(|area| area.tools.iter().any(|d| d.name == name))
    else {
        return Err(ErrorData::invalid_params(
            format!("no tool named {name:?}; call tools/list"),
            None,
        ));
    };
    let space = server.space();
    let name = name.to_string();
    let caller = caller.clone();
    let run = area.call;
    let answer = tokio::task::spawn_blocking(move || run(&space, &name, args, &caller))
        .await
        .unwrap_or_else(|e| Err(Error::internal(e)));
    Ok(answer.unwrap_or_else(|e| error_result(&e)))
}

fn parse<T: DeserializeOwned>(tool: &str, args: serde_json::Value) -> Result<T, Error> {
    serde_json::from_value(args)
        .map_err(|e| Error::bad_request(format!("invalid arguments for {tool}: {e}")))
}

/// Checks that a tool without arguments got none.
fn no_args(tool: &str, args: serde_json::Value) -> Result<(), Error> {
    let given: serde_json::Map<String, serde_json::Value> = parse(tool, args)?;
    match given.keys().next() {
        Some(key) => Err(Error::bad_request(format!(
            "invalid arguments for {tool}: it takes none, got `{key}`"
        ))),
        None => Ok(()),
    }
}

/// How a write of `caller` is made: authored by the caller, with the optional message.
fn opts(caller: &Caller, message: Option<String>, expect: Expect) -> WriteOptions {
    WriteOptions {
        actor: Some(caller.actor.clone()),
        message,
        derived_from: None,
        expect,
    }
}

/// The `Expect` of an `if_match` argument.
fn if_match(etag: Option<String>) -> Expect {
    etag.map(Expect::Etag).unwrap_or_default()
}

/// A call reached an area that does not answer it (a table and its handler disagree).
fn no_handler(name: &str) -> Error {
    Error::internal(format!("tool {name} has no handler"))
}

/// A successful answer: the value as structured content (an object; arrays are wrapped by
/// their callers) and a short text.
fn ok<T: Serialize>(value: &T, text: String) -> CallToolResult {
    let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
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
        let tools = list();
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
    fn tool_names_are_unique_and_every_schema_is_an_object() {
        let tools = list();
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
