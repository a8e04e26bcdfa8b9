//! `quire api`: every operation of the table (`quire-ops`) from the command line, through
//! the server holding the root or on the root itself (see `venue`). Nothing here restates an
//! operation: the list, the fields and their help come from the declarations and their input
//! schemas; through a server the request is built from the operation's REST binding.

use std::io::Read as _;

use anyhow::Context;
use clap::Args as ClapArgs;
use quire_ops::{Carrier, Entry, Scope};
use quire_service::Error;
use serde_json::{Map, Value};

use super::venue::{self, Actor, Place, Purpose, Venue};

#[derive(ClapArgs)]
#[command(after_help = "Without an operation, lists them all. Examples:\n  \
quire api tree path=notes\n  quire api search q='\"release notes\" -draft' limit=5\n  \
quire api write_file path=notes/a.md content='# A' --actor alice\n  quire api toc --describe")]
pub struct Args {
    /// The operation (see the list `quire api` prints).
    operation: Option<String>,
    /// The operation's input as `field=value` pairs; a value of a field that is no string is
    /// read as JSON (`limit=5`, `diffs=true`, `paths='["a.md"]'`).
    fields: Vec<String>,
    /// The whole input as a JSON object (a file, or `-` for standard input); `field=value`
    /// pairs are set on it.
    #[arg(long)]
    input: Option<String>,
    /// Show the operation's fields instead of running it.
    #[arg(long)]
    describe: bool,
    /// Print the text meant for reading instead of the JSON answer.
    #[arg(long)]
    text: bool,
    #[command(flatten)]
    place: Place,
    #[command(flatten)]
    actor: Actor,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let Some(name) = args.operation.as_deref() else {
        print_list();
        return Ok(());
    };
    let entry = quire_ops::find(name).ok_or_else(|| {
        Error::bad_request(format!(
            "no operation named {name:?}; `quire api` lists them"
        ))
    })?;
    if args.describe {
        print_fields(entry);
        return Ok(());
    }
    let input = input_of(entry, &args)?;
    let purpose = match entry.meta.scope {
        Scope::Read => Purpose::Read,
        _ => Purpose::Write("api"),
    };
    let venue = args.place.choose(purpose)?;
    let actor = args.actor.name();
    match venue {
        Venue::Root(root) => {
            let service = venue::open_root(&root, purpose)?;
            let caller = quire_ops::Caller {
                actor: Some(actor.to_string()),
                client: Some("cli".to_string()),
                ..quire_ops::Caller::default()
            };
            let output = (entry.call)(service.default_space(), input, &caller, name)?;
            if args.text {
                println!("{}", output.text);
            } else {
                println!("{}", serde_json::to_string_pretty(&output.value)?);
            }
            service.close_for_exit();
        }
        Venue::Server(remote) => {
            let Some(rest) = entry.meta.rest else {
                return Err(Error::bad_request(format!(
                    "{name} is served to agents only (MCP); run it with --root on a root no \
                     server holds"
                ))
                .into());
            };
            let mut fields = match input {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            let mut route = rest.path.to_string();
            for param in rest
                .path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            {
                let value = fields.remove(param).map(plain).unwrap_or_default();
                route = route.replace(&format!("{{{param}}}"), &encode_segment(&value));
            }
            let headers = [("X-Actor", actor)];
            let method = rest.method.as_str();
            let (_, bytes) = match rest.carrier {
                Carrier::Query => remote.send(method, &route, &query_of(fields), &headers, None)?,
                Carrier::Json => {
                    let query: Map<String, Value> = rest
                        .query_fields
                        .iter()
                        .filter_map(|field| Some((field.to_string(), fields.remove(*field)?)))
                        .collect();
                    let body = match rest.body_field {
                        None => Value::Object(fields),
                        Some(field) => {
                            let body = fields.remove(field).unwrap_or(Value::Null);
                            if let Some(other) = fields.keys().next() {
                                return Err(Error::bad_request(format!(
                                    "{other} is not sent to a server by {name}; run it with \
                                     --root on a root no server holds"
                                ))
                                .into());
                            }
                            body
                        }
                    };
                    let body = serde_json::to_vec(&body)?;
                    remote.send(
                        method,
                        &route,
                        &query_of(query),
                        &headers,
                        Some((&body, "application/json")),
                    )?
                }
                Carrier::Raw(raw) => {
                    let body = raw.body.map(|(field, media)| {
                        (fields.remove(field).map(plain).unwrap_or_default(), media)
                    });
                    let query = query_of(fields);
                    match &body {
                        Some((text, media)) => remote.send(
                            method,
                            &route,
                            &query,
                            &headers,
                            Some((text.as_bytes(), media)),
                        )?,
                        None => remote.send(method, &route, &query, &headers, None)?,
                    }
                }
            };
            let raw_answer = matches!(rest.carrier, Carrier::Raw(r) if r.answer.is_some())
                || !rest.raw_answers.is_empty();
            if bytes.is_empty() && rest.status == 204 {
                // Done; the route answers nothing.
            } else if raw_answer {
                use std::io::Write as _;
                std::io::stdout().write_all(&bytes)?;
            } else {
                let value: Value =
                    serde_json::from_slice(&bytes).context("the server's answer is not JSON")?;
                println!("{}", serde_json::to_string_pretty(&value)?);
            }
        }
    }
    Ok(())
}

/// The input object: `--input`, then each `field=value`.
fn input_of(entry: &Entry, args: &Args) -> anyhow::Result<Value> {
    let mut input = match &args.input {
        None => Map::new(),
        Some(source) => {
            let text = if source == "-" {
                let mut text = String::new();
                std::io::stdin().read_to_string(&mut text)?;
                text
            } else {
                std::fs::read_to_string(source).with_context(|| format!("reading {source}"))?
            };
            match serde_json::from_str(&text)
                .map_err(|e| Error::bad_request(format!("--input is not JSON: {e}")))?
            {
                Value::Object(map) => map,
                _ => return Err(Error::bad_request("--input must be a JSON object").into()),
            }
        }
    };
    let schema = (entry.input_schema)().to_value();
    for pair in &args.fields {
        let Some((field, value)) = pair.split_once('=') else {
            return Err(Error::bad_request(format!(
                "{pair:?} is no field=value pair; `quire api {} --describe` lists the fields",
                entry.meta.name
            ))
            .into());
        };
        let value = if takes_text(&schema, field) {
            Value::String(value.to_string())
        } else {
            serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()))
        };
        input.insert(field.to_string(), value);
    }
    Ok(Value::Object(input))
}

/// Whether `field` of the input schema is a string (then a value is never read as JSON).
fn takes_text(schema: &Value, field: &str) -> bool {
    let Some(property) = schema.pointer(&format!("/properties/{field}")) else {
        return false;
    };
    match property.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    }
}

/// A field as REST's query string carries it.
fn plain(value: Value) -> String {
    match value {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

fn query_of(fields: Map<String, Value>) -> Vec<(String, String)> {
    fields
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k, plain(v)))
        .collect()
}

/// A path segment, percent-encoded.
fn encode_segment(text: &str) -> String {
    quire_api::workspace_edit::encode_uri_path(text).replace('/', "%2F")
}

fn print_list() {
    let mut area = "";
    for entry in quire_ops::table() {
        let meta = entry.meta;
        if meta.area != area {
            area = meta.area;
            println!("\n{area}:");
        }
        println!(
            "  {:<24} {:<5}  {}",
            meta.name,
            meta.scope.as_str(),
            meta.summary
        );
    }
    println!("\n`quire api <operation> --describe` shows an operation's fields.");
}

fn print_fields(entry: &Entry) {
    let meta = entry.meta;
    println!(
        "{} ({}): {}",
        meta.name,
        meta.scope.as_str(),
        meta.description()
    );
    if let Some(rest) = meta.rest {
        println!(
            "REST: {} {}{}",
            rest.method.as_str(),
            quire_http::BASE_PATH,
            rest.path
        );
    }
    if let Some(tool) = meta.tool {
        println!("MCP tool: {}", tool.name);
    }
    let schema = (entry.input_schema)().to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    println!("fields:");
    match schema["properties"].as_object() {
        Some(properties) if !properties.is_empty() => {
            for (name, property) in properties {
                let kind = match &property["type"] {
                    Value::String(t) => t.clone(),
                    Value::Array(types) => types
                        .iter()
                        .filter_map(Value::as_str)
                        .filter(|t| *t != "null")
                        .collect::<Vec<_>>()
                        .join("|"),
                    _ => "object".to_string(),
                };
                let need = if required.contains(&name.as_str()) {
                    "required"
                } else {
                    "optional"
                };
                let help = property["description"].as_str().unwrap_or("");
                println!(
                    "  {name:<16} {kind:<10} {need:<9} {}",
                    help.replace('\n', " ")
                );
            }
        }
        _ => println!("  (none)"),
    }
}
