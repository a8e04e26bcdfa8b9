//! The OpenAPI document comes from the wire types alone: every JSON body a route takes or
//! returns names a schema derived from a `quire-api` type (no untyped `Object`), and every
//! reference resolves.

use serde_json::Value;

fn document() -> Value {
    serde_json::to_value(quire_http::openapi()).expect("the document serialises")
}

/// Every `$ref` below `value`.
fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if key == "$ref" {
                    if let Some(r) = v.as_str() {
                        out.push(r);
                    }
                }
                refs(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// A schema is typed when it names a component, or is an array/oneOf of such, or is a
/// plain scalar (raw text bodies).
fn typed(schema: &Value) -> bool {
    if schema.get("$ref").is_some() {
        return true;
    }
    // An array that is always empty (a list of a subsystem that is absent) has no items.
    if schema.get("maxItems") == Some(&Value::from(0)) {
        return true;
    }
    if let Some(items) = schema.get("items") {
        return typed(items);
    }
    if let Some(variants) = schema.get("oneOf").and_then(Value::as_array) {
        return variants.iter().all(typed);
    }
    matches!(
        schema.get("type").and_then(Value::as_str),
        Some("string" | "integer" | "number" | "boolean")
    )
}

#[test]
fn every_json_body_of_every_route_has_a_derived_schema() {
    let doc = document();
    let mut untyped = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let mut bodies: Vec<(String, &Value)> = Vec::new();
            if let Some(content) = op["requestBody"]["content"].as_object() {
                for (ct, media) in content {
                    bodies.push((format!("request {ct}"), media));
                }
            }
            for (status, response) in op["responses"].as_object().unwrap() {
                if let Some(content) = response["content"].as_object() {
                    for (ct, media) in content {
                        bodies.push((format!("{status} {ct}"), media));
                    }
                }
            }
            for (what, media) in bodies {
                let ok = match media.get("schema") {
                    Some(schema) => typed(schema),
                    // A multipart upload or an event stream: described in words.
                    None => what.contains("multipart/") || what.contains("text/event-stream"),
                };
                if !ok {
                    untyped.push(format!("{method} {path} {what}: {media}"));
                }
            }
        }
    }
    assert!(
        untyped.is_empty(),
        "bodies without a typed schema:\n{}",
        untyped.join("\n")
    );
}

#[test]
fn every_reference_resolves_to_a_component() {
    let doc = document();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("unexpected reference {r}"));
        assert!(schemas.contains_key(name), "{r} does not resolve");
    }
}

#[test]
fn plan_and_error_shapes_are_described() {
    let doc = document();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for name in [
        "Plan",
        "ErrorBody",
        "Manifest",
        "Applied",
        "Claim",
        "TreeNode",
    ] {
        assert!(schemas.contains_key(name), "no schema {name}");
    }
    let plan = &schemas["Plan"]["properties"];
    for field in [
        "digest",
        "moves",
        "edits",
        "conflicts",
        "integrity",
        "stats",
    ] {
        assert!(plan.get(field).is_some(), "Plan lacks {field}");
    }
    assert!(
        plan.get("ops").is_none(),
        "apply's ops never go on the wire"
    );
}

/// The operation `method path` of the document.
fn operation<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let op = &doc["paths"][format!("/api/quire{path}")][method];
    assert!(op.is_object(), "no {method} {path}");
    op
}

#[test]
fn finding_is_documented_from_the_operation_table() {
    let doc = document();
    let search = operation(&doc, "get", "/search");
    assert_eq!(search["operationId"], "search");
    assert_eq!(search["tags"], serde_json::json!(["search"]));
    let names: Vec<&str> = search["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for name in ["q", "limit", "offset", "path", "tag"] {
        assert!(names.contains(&name), "{names:?}");
    }
    assert_eq!(
        operation(&doc, "get", "/graph/walk")["tags"],
        serde_json::json!(["graph"])
    );
    let aggregate = operation(&doc, "get", "/query/aggregate");
    assert_eq!(
        aggregate["responses"]["200"]["content"]["application/json"]["schema"]["type"],
        "array"
    );
    // Reindex takes no body: a bare POST.
    let reindex = operation(&doc, "post", "/reindex");
    assert_eq!(reindex["operationId"], "reindex");
    assert!(reindex.get("requestBody").is_none(), "{reindex}");
}

#[test]
fn a_saved_view_is_put_as_its_own_json_body() {
    let doc = document();
    let put = operation(&doc, "put", "/views/{name}");
    assert_eq!(put["operationId"], "views_save");
    assert_eq!(
        put["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/View"
    );
    let params = put["parameters"].as_array().unwrap();
    assert!(params
        .iter()
        .any(|p| p["name"] == "name" && p["in"] == "path" && p["required"] == true));
    assert!(params.iter().all(|p| p["name"] != "view"), "{params:?}");
    let execute = operation(&doc, "get", "/views/{name}/execute");
    assert_eq!(execute["operationId"], "views_execute");
    assert!(operation(&doc, "post", "/view/refresh")
        .get("requestBody")
        .is_none());
}

#[test]
fn operations_of_the_table_document_their_status_query_fields_and_body() {
    let doc = document();
    let op = |path: &str, method: &str| doc["paths"][path][method].clone();
    // `POST /drafts` creates (201, its body optional); `DELETE /drafts/{id}` answers nothing.
    let create = op("/api/quire/drafts", "post");
    assert!(
        create["responses"]["201"]["content"].is_object(),
        "{create}"
    );
    assert_eq!(create["requestBody"]["required"], false);
    let discard = op("/api/quire/drafts/{id}", "delete");
    assert!(discard["responses"]["204"].is_object(), "{discard}");
    assert!(discard["responses"]["204"].get("content").is_none());
    assert!(discard["responses"].get("200").is_none());
    // `PATCH /canvas` reads `path` from the query, the operations from the body.
    let patch = op("/api/quire/canvas", "patch");
    let params = patch["parameters"].as_array().unwrap();
    assert!(params
        .iter()
        .any(|p| p["name"] == "path" && p["in"] == "query" && p["required"] == true));
    assert!(!params.iter().any(|p| p["name"] == "operations"));
    assert!(patch["requestBody"]["content"]["application/json"]["schema"].is_object());
    // `PUT /workflows/{name}` takes the workflow itself as its body.
    let save = op("/api/quire/workflows/{name}", "put");
    assert_eq!(
        save["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Workflow"
    );
    // `PUT /canvas` stores the canvas as sent: a JSON body of the canvas's schema.
    let write = op("/api/quire/canvas", "put");
    assert_eq!(
        write["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Canvas"
    );
    // Scopes come with the declaration: an admin route, a planning POST.
    assert_eq!(
        op("/api/quire/space/visibility", "put")["operationId"],
        "space_visibility"
    );
    assert_eq!(
        op("/api/quire/refactor/plan", "post")["operationId"],
        "refactor_plan"
    );
}

/// Every operation of the document as (method, path, operation).
fn operations(doc: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            out.push((method.clone(), path.clone(), op));
        }
    }
    out
}

#[test]
fn every_path_parameter_is_in_its_template_and_every_query_parameter_in_the_query() {
    let doc = document();
    let mut wrong = Vec::new();
    for (method, path, op) in operations(&doc) {
        assert!(!path.contains("{*"), "{path}: the router's wildcard syntax");
        for parameter in op["parameters"].as_array().into_iter().flatten() {
            let name = parameter["name"].as_str().unwrap();
            let in_template = path.contains(&format!("{{{name}}}"));
            match parameter["in"].as_str().unwrap() {
                "path" if !in_template || parameter["required"] != true => {
                    wrong.push(format!("{method} {path}: {name} in path"))
                }
                "query" | "header" if in_template => {
                    wrong.push(format!("{method} {path}: {name} not in path"))
                }
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The search's parameters are the query string's, and optional but for `q`.
    let search = &doc["paths"]["/api/quire/search"]["get"]["parameters"];
    let limit = search
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap();
    assert_eq!(limit["in"], "query");
    assert_eq!(limit["required"], false);
    let audit = &doc["paths"]["/api/quire/audit"]["get"]["parameters"];
    assert!(audit.as_array().unwrap().iter().all(|p| p["in"] == "query"));
    assert!(doc["paths"]["/p/{path}"]["get"].is_object());
}

#[test]
fn operation_ids_are_unique() {
    let doc = document();
    let mut seen = std::collections::BTreeMap::new();
    for (method, path, op) in operations(&doc) {
        let id = op["operationId"]
            .as_str()
            .expect("every operation has an id");
        if let Some(first) = seen.insert(id.to_string(), format!("{method} {path}")) {
            panic!("{id} names both {first} and {method} {path}");
        }
    }
}

#[test]
fn spec_routes_not_built_are_documented_with_the_status_they_answer() {
    let doc = document();
    for (path, method, status) in [
        ("/search/semantic", "get", "503"),
        ("/search/semantic", "post", "503"),
        ("/suggestions", "get", "503"),
        ("/embeddings", "get", "503"),
        ("/import/airbyte/spec", "post", "501"),
        ("/clip", "post", "502"),
        ("/export/document", "post", "501"),
    ] {
        let op = operation(&doc, method, path);
        assert!(op["responses"][status].is_object(), "{method} {path}: {op}");
    }
}

#[test]
fn the_audit_query_declares_its_bounds() {
    let doc = document();
    let parameters = doc["paths"]["/api/quire/audit"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let limit = parameters.iter().find(|p| p["name"] == "limit").unwrap();
    assert_eq!(limit["schema"]["minimum"], 1, "{limit}");
    assert_eq!(limit["schema"]["maximum"], 10000, "{limit}");
    let since = parameters.iter().find(|p| p["name"] == "since").unwrap();
    assert_eq!(since["schema"]["format"], "date-time", "{since}");
}

#[test]
fn a_path_parameter_carries_an_example_page() {
    let doc = document();
    let parameters = doc["paths"]["/api/quire/file"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let path = parameters.iter().find(|p| p["name"] == "path").unwrap();
    assert_eq!(path["in"], "query");
    assert!(
        path["example"].as_str().is_some_and(|e| e.ends_with(".md")),
        "{path}"
    );
}
