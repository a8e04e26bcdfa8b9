//! The OpenAPI entries of the operation table: parameters, request body and answers from the
//! `schemars` schemas of each operation's input and output (the same schemas MCP lists), so the
//! document and the tools cannot disagree.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use quire_ops::{Carrier, Operation, Rest, Scope};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{json, Map, Value};

/// The documented operations: their paths (below `{base_url}`) and the schemas they use.
pub(crate) struct Documented {
    generator: SchemaGenerator,
    /// Path → method → operation object.
    paths: BTreeMap<String, Map<String, Value>>,
}

impl Default for Documented {
    fn default() -> Self {
        let settings = SchemaSettings::draft2020_12().with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        });
        Documented {
            generator: settings.into_generator(),
            paths: BTreeMap::new(),
        }
    }
}

/// The names in `{braces}` of a route.
fn path_names(route: &str) -> Vec<&str> {
    route
        .split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .collect()
}

impl Documented {
    pub(crate) fn add<O: Operation>(&mut self, rest: &Rest) {
        let meta = &O::META;
        let input = self.generator.subschema_for::<O::Input>();
        let output = self.generator.subschema_for::<O::Output>();
        let error = self.generator.subschema_for::<quire_api::ErrorBody>();
        let in_path = path_names(rest.path);
        let mut parameters: Vec<Value> = in_path
            .iter()
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        let mut operation = Map::new();
        operation.insert("operationId".into(), meta.name.into());
        operation.insert("summary".into(), meta.summary.into());
        if !meta.description.is_empty() {
            operation.insert("description".into(), meta.description.into());
        }
        operation.insert("tags".into(), json!([meta.area]));
        let raw = match rest.carrier {
            Carrier::Raw(raw) => Some(raw),
            _ => None,
        };
        let (properties, required) = self.fields(&input);
        if is_bodiless(rest) || raw.is_some() || !rest.query_fields.is_empty() {
            let in_body: Vec<&str> = raw
                .and_then(|r| r.body)
                .map(|(field, _)| field)
                .into_iter()
                .collect();
            for (name, schema) in &properties {
                if in_path.contains(&name.as_str()) || in_body.contains(&name.as_str()) {
                    continue;
                }
                // A JSON route lists only the fields it reads from the query.
                if rest.carrier == Carrier::Json && !rest.query_fields.contains(&name.as_str()) {
                    continue;
                }
                let mut parameter = json!({
                    "name": name,
                    "in": "query",
                    "required": required.contains(name),
                    "schema": strip_description(schema),
                });
                if let Some(d) = schema.get("description") {
                    parameter["description"] = d.clone();
                }
                // An example page for the parameters that name one, so that explorers and
                // example-driven tools (Schemathesis's examples phase) start from a real shape.
                if name == "path" && schema.get("type") == Some(&Value::from("string")) {
                    parameter["example"] = json!(EXAMPLE_PAGE);
                }
                parameters.push(parameter);
            }
        }
        let field_schema = |field: &str| {
            properties
                .iter()
                .find(|(name, _)| name == field)
                .map(|(_, schema)| strip_description(schema))
        };
        match (raw.and_then(|r| r.body), rest.carrier) {
            (Some((field, media)), _) => {
                // A JSON or YAML body is the field's type; any other is text (or bytes).
                let structured = media.contains("json") || media.contains("yaml");
                let schema = field_schema(field)
                    .filter(|_| structured)
                    .unwrap_or_else(|| json!({"type": "string"}));
                operation.insert(
                    "requestBody".into(),
                    json!({"required": true, "content": {media: {"schema": schema}}}),
                );
            }
            (None, Carrier::Json) => {
                let schema = match rest.body_field {
                    Some(field) => field_schema(field).unwrap_or_else(|| input.to_value()),
                    None => input.to_value(),
                };
                operation.insert(
                    "requestBody".into(),
                    json!({"required": !rest.empty_body, "content": {"application/json": {"schema": schema}}}),
                );
            }
            _ => {}
        }
        if meta.scope != Scope::Read {
            parameters.push(json!({
                "name": "X-Actor", "in": "header", "required": false,
                "description": "the author of the commit (an attribution, not a credential)",
                "schema": {"type": "string"}
            }));
        }
        if !parameters.is_empty() {
            operation.insert("parameters".into(), Value::Array(parameters));
        }
        let mut responses = Map::new();
        let answer = match raw.and_then(|r| r.answer) {
            Some(media) => json!({media: {"schema": {"type": "string"}}}),
            None if !rest.raw_answers.is_empty() => Value::Object(
                rest.raw_answers
                    .iter()
                    .map(|media| (media.to_string(), json!({"schema": {"type": "string"}})))
                    .collect(),
            ),
            None => json!({"application/json": {"schema": output.to_value()}}),
        };
        let success = match rest.status {
            204 => json!({"description": meta.summary}),
            _ => json!({"description": meta.summary, "content": answer}),
        };
        responses.insert(rest.status.to_string(), success);
        for (status, description) in ERRORS {
            responses.insert(
                status.to_string(),
                json!({"description": description, "content": {"application/json": {"schema": error.clone().to_value()}}}),
            );
        }
        if UPSTREAM.contains(&meta.name) {
            responses.insert(
                "502".into(),
                json!({"description": "the server this operation fetches from failed or answered an error", "content": {"application/json": {"schema": error.clone().to_value()}}}),
            );
        }
        operation.insert("responses".into(), Value::Object(responses));
        self.paths.entry(rest.path.to_string()).or_default().insert(
            rest.method.as_str().to_ascii_lowercase(),
            Value::Object(operation),
        );
    }

    /// The properties and required fields of an input schema (a reference to a component).
    fn fields(&self, schema: &schemars::Schema) -> (Vec<(String, Value)>, BTreeSet<String>) {
        let resolved = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.rsplit('/').next().unwrap_or(r);
                self.generator
                    .definitions()
                    .get(name)
                    .cloned()
                    .unwrap_or(Value::Null)
            }
            None => schema.as_value().clone(),
        };
        let properties = resolved
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let required = resolved
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        (properties, required)
    }

    /// Adds the documented operations to `doc` (an OpenAPI 3.1 document), below `base`.
    pub(crate) fn merge_into(mut self, doc: &mut Value, base: &str) {
        let definitions = self.generator.take_definitions(true);
        let components = doc
            .pointer_mut("/components/schemas")
            .and_then(Value::as_object_mut);
        if let Some(components) = components {
            components.extend(definitions);
        }
        let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
            return;
        };
        for (path, methods) in self.paths {
            let entry = paths
                .entry(format!("{base}{path}"))
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(entry) = entry.as_object_mut() {
                entry.extend(methods);
            }
        }
    }
}

/// The page the document's examples name.
const EXAMPLE_PAGE: &str = "notes/alpha.md";

/// The errors every operation may answer (the spec's table of statuses).
const ERRORS: [(u16, &str); 7] = [
    (
        400,
        "malformed input: a bad path, a missing field, an unparseable body",
    ),
    (401, "missing or invalid credentials"),
    (403, "the credential's scope does not allow it"),
    (404, "the path or resource does not exist"),
    (
        409,
        "the file changed since it was read (If-Match), or another holds it",
    ),
    (
        501,
        "the subsystem is not available in this configuration (history without versioning)",
    ),
    (
        503,
        "the subsystem is disabled or not ready yet (claims off, the index still building)",
    ),
];

/// Operations that fetch from another server and answer 502 (`bad_gateway`) when it fails
/// or answers an error: `POST /clip`.
const UPSTREAM: &[&str] = &["clip"];

/// Whether the input travels in the query string.
fn is_bodiless(rest: &Rest) -> bool {
    rest.carrier == Carrier::Query
}

/// A parameter's schema without its description (it goes on the parameter).
fn strip_description(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.remove("description");
    }
    schema
}

/// The field names of an operation's input, and those of them that are text.
#[derive(Default)]
struct Fields {
    all: BTreeSet<String>,
    text: BTreeSet<String>,
}

fn fields_of(operation: &str) -> &'static Fields {
    static FIELDS: OnceLock<HashMap<&'static str, Fields>> = OnceLock::new();
    static NONE: OnceLock<Fields> = OnceLock::new();
    let all = FIELDS.get_or_init(|| {
        quire_ops::table()
            .iter()
            .map(|entry| {
                let schema = (entry.input_schema)();
                let mut fields = Fields::default();
                let properties = schema.get("properties").and_then(Value::as_object);
                for (name, property) in properties.into_iter().flatten() {
                    fields.all.insert(name.clone());
                    let is_text = match property.get("type") {
                        Some(Value::String(t)) => t == "string",
                        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
                        _ => false,
                    };
                    if is_text {
                        fields.text.insert(name.clone());
                    }
                }
                (entry.meta.name, fields)
            })
            .collect()
    });
    all.get(operation)
        .unwrap_or_else(|| NONE.get_or_init(Fields::default))
}

/// The field names of each operation's input (the query parameters REST reads).
pub(crate) fn input_fields(operation: &str) -> &'static BTreeSet<String> {
    &fields_of(operation).all
}

/// The fields of an operation's input whose values are text (a query parameter of one is
/// never read as JSON).
pub(crate) fn text_fields(operation: &str) -> &'static BTreeSet<String> {
    &fields_of(operation).text
}
