//! The operation table with types erased: JSON in, JSON out, for adapters that dispatch by
//! name (MCP tools, the command line, the operation route).

use quire_service::{Error, Result, Space};
use schemars::Schema;

use crate::{Caller, Meta, Operation, Visit};

/// What a call answers: the output as JSON, and the text for agents.
#[derive(Debug, Clone)]
pub struct Output {
    pub value: serde_json::Value,
    pub text: String,
}

/// One operation, its types erased.
#[derive(Clone, Copy)]
pub struct Entry {
    pub meta: &'static Meta,
    /// The JSON Schema of the input (an object).
    pub input_schema: fn() -> Schema,
    /// The JSON Schema of the output.
    pub output_schema: fn() -> Schema,
    /// Decodes the arguments, runs, encodes. A decode error names the problem and the
    /// operation as the caller called it (the `&str`: an MCP tool's name, the operation's).
    pub call: fn(&Space, serde_json::Value, &Caller, &str) -> Result<Output>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.meta.name)
            .finish()
    }
}

impl Entry {
    pub fn of<O: Operation>() -> Entry {
        Entry {
            meta: &O::META,
            input_schema: || schemars::schema_for!(O::Input),
            output_schema: || schemars::schema_for!(O::Output),
            call: call::<O>,
        }
    }
}

/// Decodes `args` as the input of `O`: a problem is a 400 naming the operation.
pub fn decode<O: Operation>(args: serde_json::Value) -> Result<O::Input> {
    decode_as::<O>(args, O::META.name)
}

/// [`decode`] for a caller who knows the operation as `called` (an agent, by its tool).
fn decode_as<O: Operation>(args: serde_json::Value, called: &str) -> Result<O::Input> {
    // Tools without arguments may be called with none at all.
    let args = match args {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        other => other,
    };
    serde_json::from_value(args)
        .map_err(|e| Error::bad_request(format!("invalid arguments for {called}: {e}")))
}

fn call<O: Operation>(
    space: &Space,
    args: serde_json::Value,
    caller: &Caller,
    called: &str,
) -> Result<Output> {
    let input = decode_as::<O>(args, called)?;
    let output = O::run(space, input, caller)?;
    let text = O::text(&output);
    let value = serde_json::to_value(&output).map_err(Error::internal)?;
    Ok(Output { value, text })
}

struct Collect(Vec<Entry>);

impl Visit for Collect {
    fn op<O: Operation>(&mut self) {
        self.0.push(Entry::of::<O>());
    }
}

/// Every operation, in the order clients list them.
pub fn table() -> &'static [Entry] {
    static TABLE: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut all = Collect(Vec::new());
        crate::visit(&mut all);
        all.0
    })
}

/// The operation named `name`.
pub fn find(name: &str) -> Option<&'static Entry> {
    table().iter().find(|e| e.meta.name == name)
}

/// The operation whose MCP tool is `tool`.
pub fn find_tool(tool: &str) -> Option<&'static Entry> {
    table()
        .iter()
        .find(|e| e.meta.tool.is_some_and(|t| t.name == tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_input_is_named_as_the_caller_called_the_operation() {
        let e =
            decode_as::<crate::find::Search>(serde_json::json!({}), "quire_search").unwrap_err();
        assert_eq!(e.code, quire_service::ErrorCode::BadRequest);
        assert!(
            e.message
                .starts_with("invalid arguments for quire_search: "),
            "{e}"
        );
        assert!(e.message.contains("`q`"), "{e}");
        let e = decode::<crate::find::Search>(serde_json::json!({"q": 1})).unwrap_err();
        assert!(
            e.message.starts_with("invalid arguments for search: "),
            "{e}"
        );
    }

    #[test]
    fn each_area_is_listed_in_one_run() {
        let mut seen: Vec<&str> = Vec::new();
        for e in table() {
            if seen.last() != Some(&e.meta.area) {
                assert!(
                    !seen.contains(&e.meta.area),
                    "area {} is listed in two places ({})",
                    e.meta.area,
                    e.meta.name
                );
                seen.push(e.meta.area);
            }
        }
    }

    #[test]
    fn names_tools_and_routes_are_unique() {
        let mut names = std::collections::BTreeSet::new();
        let mut tools = std::collections::BTreeSet::new();
        let mut routes = std::collections::BTreeSet::new();
        for e in table() {
            assert!(names.insert(e.meta.name), "operation {} twice", e.meta.name);
            if let Some(t) = e.meta.tool {
                assert!(tools.insert(t.name), "tool {} twice", t.name);
                assert!(t.name.starts_with("quire_"), "{}", t.name);
            }
            if let Some(r) = e.meta.rest {
                assert!(
                    routes.insert((r.method.as_str(), r.path)),
                    "route {} {} twice",
                    r.method.as_str(),
                    r.path
                );
            }
        }
    }

    #[test]
    fn every_input_is_an_object_and_every_tool_output_too() {
        for e in table() {
            let input = (e.input_schema)();
            assert_eq!(
                input.get("type"),
                Some(&serde_json::json!("object")),
                "input of {}",
                e.meta.name
            );
            if let Some(tool) = e.meta.tool {
                let output = (e.output_schema)();
                let is_object = output.get("type") == Some(&serde_json::json!("object"));
                assert!(
                    is_object || tool.envelope.is_some(),
                    "the output of {} is no object: give its tool an envelope",
                    e.meta.name
                );
            }
        }
    }
}
