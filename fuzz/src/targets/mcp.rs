//! `mcp_args`: MCP tool arguments decoded for every operation of the table
//! (`quire_ops::decode`), as `tools/call` and REST bodies reach them.
//!
//! The input is JSON (anything else is taken as a JSON string). Properties: decoding any value
//! as any operation's input never panics, and a refusal is a bad request (400), never
//! another kind of error.

use quire_api::ErrorCode;
use quire_ops::{Operation, Visit};
use serde_json::{Map, Value};

use crate::text::{lossy, tokens};
use crate::Target;

pub const TARGET: Target = Target {
    name: "mcp_args",
    run,
    dictionary,
    seeds,
};

struct Decode<'a>(&'a Value);

impl Visit for Decode<'_> {
    fn op<O: Operation>(&mut self) {
        let name = O::META.name;
        if let Err(e) = quire_ops::decode::<O>(self.0.clone()) {
            assert_eq!(e.code, ErrorCode::BadRequest, "{name}: {}", e.message);
            assert!(
                e.message
                    .starts_with(&format!("invalid arguments for {name}: ")),
                "a refusal names the operation: {}",
                e.message
            );
        }
    }
}

fn run(data: &[u8]) {
    let value =
        serde_json::from_slice(data).unwrap_or_else(|_| Value::String(lossy(data).into_owned()));
    quire_ops::visit(&mut Decode(&value));
}

/// The property names of every operation's input schema, as JSON keys, and a few values.
fn dictionary() -> Vec<Vec<u8>> {
    let mut words = Vec::new();
    for entry in quire_ops::table() {
        collect_properties(
            &serde_json::to_value((entry.input_schema)()).unwrap_or_default(),
            &mut words,
        );
    }
    words.sort();
    words.dedup();
    let mut out: Vec<Vec<u8>> = words
        .iter()
        .map(|w| format!("\"{w}\":").into_bytes())
        .collect();
    out.extend(tokens(&[
        "{",
        "}",
        "[",
        "]",
        ",",
        "null",
        "true",
        "false",
        "0",
        "-1",
        "1e999",
        "18446744073709551616",
        "\"a.md\"",
        "\"../x\"",
        "\"/etc/passwd\"",
        "\"\\u0000\"",
        "\"notes/\"",
        "\"\"",
        "1.5",
        "\"*\"",
        "\"W/\\\"x\\\"\"",
        "\"2024-01-02\"",
        "\"base64:AAAA\"",
        "{\"path\":\"a.md\"}",
    ]));
    out
}

fn collect_properties(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                out.extend(props.keys().cloned());
            }
            map.values().for_each(|v| collect_properties(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_properties(v, out)),
        _ => {}
    }
}

/// An argument object for each operation with every property of its input set to a
/// placeholder of its type: seeds the corpus with inputs that decode.
pub fn seeds() -> Vec<Vec<u8>> {
    quire_ops::table()
        .iter()
        .map(|entry| {
            let schema = serde_json::to_value((entry.input_schema)()).unwrap_or_default();
            let mut args = Map::new();
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (name, prop) in props {
                    args.insert(name.clone(), placeholder(prop));
                }
            }
            Value::Object(args).to_string().into_bytes()
        })
        .collect()
}

fn placeholder(schema: &Value) -> Value {
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ => "string",
    };
    match kind {
        "integer" | "number" => Value::from(1),
        "boolean" => Value::Bool(true),
        "array" => Value::Array(vec![placeholder(
            schema.get("items").unwrap_or(&Value::Null),
        )]),
        "object" => Value::Object(Map::new()),
        "null" => Value::Null,
        _ => Value::String("notes/a.md".into()),
    }
}
