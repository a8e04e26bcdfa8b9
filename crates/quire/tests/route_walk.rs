//! Every route as an attacker (issue 25, part 3): the real `quire serve` is walked operation by
//! operation from its own `/api/openapi.json`, with every text parameter — query, path and
//! every text field of a JSON body — set in turn to each value of a traversal corpus (`../`,
//! `%2e%2e`, absolute paths, NUL, backslashes, overlong UTF-8, NFD/NFC twins, a symbolic link
//! out of the root, `.git` and `.quire` names, a 5,000-character path). It asserts what a user
//! relies on: no answer is a server error (a 501/503 the operation declares is a defined
//! answer), no answer carries a byte of a file outside the root, nothing is written under
//! `.git/` or `.quire/state/` and nothing outside the root. With `[auth]` on, a walk without
//! credentials reaches only the spec's public routes.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use support::{quire, write_config, Server};

/// Written outside the root; no answer may carry it.
const SECRET: &str = "outside-the-root-7c1e9b";

/// The traversal corpus: each value as the server receives it once decoded (the overlong
/// UTF-8 value is sent as raw percent-escapes, which decode to bytes that are not UTF-8).
fn corpus(outside: &Path) -> Vec<String> {
    let outside = outside.display().to_string();
    let mut values: Vec<String> = [
        "../outside/secret.md",
        "../../../../../../etc/passwd",
        "notes/../../outside/secret.md",
        "%2e%2e/outside/secret.md",
        "%2e%2e%2foutside%2fsecret.md",
        "..%2f..%2foutside%2fsecret.md",
        "/etc/passwd",
        "a\0.md",
        "notes/alpha.md\0.txt",
        "..\\outside\\secret.md",
        "notes\\..\\..\\outside\\secret.md",
        "caf\u{0065}\u{0301}.md",
        "caf\u{00e9}.md",
        "escape/secret.md",
        "escape.md",
        ".git/config",
        ".git/hooks/pre-commit",
        ".git/pwned.md",
        ".GIT/pwned.md",
        "notes/../.git/pwned.md",
        ".quire/state/pwned.md",
        ".quire/config.toml",
        ".quire",
        ".git",
        "",
        ".",
        "/",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    values.push(format!("{outside}/secret.md"));
    values.push(format!("{}.md", "a".repeat(5000)));
    values.push(format!("{}.md", vec!["abcdefgh"; 600].join("/")));
    values
}

/// Values sent as raw escapes rather than encoded text: overlong UTF-8 for `../`.
const RAW_ESCAPES: [&str; 2] = [
    "%C0%AE%C0%AE/outside/secret.md",
    "%C0%AE%C0%AE%C0%AFoutside%C0%AFsecret.md",
];

/// Percent-encodes everything but unreserved characters (and `/` where asked).
fn encode(value: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A root seeded with pages, a canvas, an NFC name, and symbolic links to a folder and a
/// file outside it; the outside folder holds the secret.
fn seeded(dir: &Path) -> (PathBuf, PathBuf) {
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.md"), format!("# {SECRET}\n")).unwrap();
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/alpha.md"),
        "---\nstatus: open\n---\n# Alpha\n\nSee [[beta]].\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/beta.md"), "# Beta\n\nBack to [[alpha]].\n").unwrap();
    std::fs::write(root.join("caf\u{00e9}.md"), "# Café\n").unwrap();
    std::fs::write(
        root.join("board.canvas.json"),
        r#"{"nodes":[{"id":"a","type":"text","text":"x","x":0,"y":0,"width":10,"height":10}],"edges":[]}"#,
    )
    .unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    std::os::unix::fs::symlink(&outside, root.join("escape")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), root.join("escape.md")).unwrap();
    (root, outside)
}

/// Every file below `dir` (not following links) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                out.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    out
}

/// The `.git/` files an attacker would write to take over the repository (its configuration,
/// hooks, HEAD, info); objects, refs, logs and the index change with every legitimate commit.
fn git_controls(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot(&root.join(".git"))
        .into_iter()
        .filter(|(path, _)| {
            let rel = path.strip_prefix(root.join(".git")).unwrap();
            let first = rel.components().next().unwrap().as_os_str();
            ![
                "objects",
                "refs",
                "logs",
                "index",
                "ORIG_HEAD",
                "COMMIT_EDITMSG",
            ]
            .iter()
            .any(|skip| first == *skip)
                && !rel.to_string_lossy().ends_with(".lock")
        })
        .collect()
}

/// The names of the files below `.git/` and `.quire/state/` (contents change legitimately).
fn internal_names(root: &Path) -> Vec<String> {
    [".git", ".quire/state"]
        .iter()
        .flat_map(|dir| snapshot(&root.join(dir)).into_keys())
        .map(|p| p.strip_prefix(root).unwrap().display().to_string())
        .collect()
}

/// A `$ref`'s schema.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .map(|s| resolve(doc, s))
            .unwrap_or(&Value::Null),
        None => schema,
    }
}

/// A value of `schema` whose every text is `text`: the corpus value reaches every text field
/// of a body (numbers 1, booleans false, enums their first value).
fn instance(doc: &Value, schema: &Value, text: &str, depth: usize) -> Value {
    let schema = resolve(doc, schema);
    if depth > 5 {
        return Value::Null;
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(first) = schema[key].as_array().and_then(|v| {
            v.iter()
                .find(|s| resolve(doc, s)["type"] != "null")
                .or(v.first())
        }) {
            return instance(doc, first, text, depth + 1);
        }
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null")
            .to_string(),
        _ if schema.get("properties").is_some() => "object".into(),
        _ => "string".into(),
    };
    match kind.as_str() {
        "string" => Value::String(text.to_string()),
        "integer" | "number" => json!(1),
        "boolean" => json!(false),
        "null" => Value::Null,
        "array" => json!([instance(doc, &schema["items"], text, depth + 1)]),
        _ => {
            let mut object = serde_json::Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                object.insert(name.clone(), instance(doc, property, text, depth + 1));
            }
            Value::Object(object)
        }
    }
}

/// One request of the walk.
struct Probe {
    method: String,
    url: String,
    content_type: Option<String>,
    body: Option<Vec<u8>>,
}

/// The requests of one operation with every text parameter set to `value` (`raw`: the value
/// is already escaped and goes into the URL as is).
fn probe(
    doc: &Value,
    host: &str,
    method: &str,
    template: &str,
    op: &Value,
    value: &str,
    raw: bool,
) -> Probe {
    let in_url = |keep_slash: bool| match raw {
        true => value.to_string(),
        false => encode(value, keep_slash),
    };
    let mut path = template.to_string();
    let mut query = Vec::new();
    for parameter in op["parameters"].as_array().into_iter().flatten() {
        let parameter = resolve(doc, parameter);
        let name = parameter["name"].as_str().unwrap();
        let schema = resolve(doc, &parameter["schema"]);
        let text = instance(doc, schema, value, 0);
        let sent = match &text {
            Value::String(_) => in_url(template.starts_with("/p/")),
            other => encode(&other.to_string(), false),
        };
        match parameter["in"].as_str().unwrap() {
            "path" => path = path.replace(&format!("{{{name}}}"), &sent),
            "query" => query.push(format!("{name}={sent}")),
            _ => {}
        }
    }
    let mut url = format!("{host}{path}");
    if !query.is_empty() {
        url = format!("{url}?{}", query.join("&"));
    }
    let content = op["requestBody"]["content"].as_object();
    let (content_type, body) = match content.and_then(|c| c.iter().next()) {
        Some((media, _)) if media.contains("multipart") => {
            let boundary = "walkboundary";
            let body = format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{}\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n--{boundary}--\r\n",
                value.replace(['"', '\r', '\n'], "_")
            );
            (
                Some(format!("multipart/form-data; boundary={boundary}")),
                Some(body.into_bytes()),
            )
        }
        Some((media, content)) if media.contains("json") => {
            let body = instance(doc, &content["schema"], value, 0);
            (Some(media.clone()), Some(body.to_string().into_bytes()))
        }
        Some((media, _)) => (Some(media.clone()), Some(b"# Walked\n".to_vec())),
        None => (None, None),
    };
    Probe {
        method: method.to_ascii_uppercase(),
        url,
        content_type,
        body,
    }
}

/// Sends a probe; its status and body (a transport error is status 0). A server may answer a
/// request it refuses (unauthenticated, unknown) before reading its body and close the
/// connection, and the client, still writing the body, then sees a broken pipe instead of the
/// answer: such a probe is sent again, a few times, before it counts as a transport error.
fn send(agent: &ureq::Agent, probe: &Probe, headers: &[(&str, &str)]) -> (u16, String) {
    let mut last = String::new();
    for _ in 0..5 {
        let mut request = agent.request(&probe.method, &probe.url);
        for (name, value) in headers {
            request = request.set(name, value);
        }
        if let Some(ct) = &probe.content_type {
            request = request.set("content-type", ct);
        }
        let result = match &probe.body {
            Some(body) => request.send_bytes(body),
            None => request.call(),
        };
        match result {
            Ok(r) => return (r.status(), r.into_string().unwrap_or_default()),
            Err(ureq::Error::Status(code, r)) => {
                return (code, r.into_string().unwrap_or_default())
            }
            Err(e) => last = e.to_string(),
        }
    }
    (0, last)
}

/// The documented operations the walk sends: all but the event stream (it never ends) and
/// adding a space (its root is by design any folder of the machine, for admins only).
fn walked(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap_or_default();
            if ["events", "space_add"].contains(&id) {
                continue;
            }
            out.push((method.clone(), path.clone(), op.clone()));
        }
    }
    out
}

fn agent() -> ureq::Agent {
    // A fresh connection per request: an answer sent before its body was read (a refused
    // upload) may close the connection, which a pooled client would then reuse.
    ureq::AgentBuilder::new()
        .max_idle_connections(0)
        .timeout(Duration::from_secs(60))
        .redirects(0)
        .build()
}

fn document(server: &Server, headers: &[(&str, &str)]) -> Value {
    let mut request = ureq::get(&format!("{}/api/openapi.json", server.host));
    for (name, value) in headers {
        request = request.set(name, value);
    }
    request.call().unwrap().into_json().unwrap()
}

#[test]
fn a_traversal_walk_of_every_operation_never_errs_leaks_or_writes_outside() {
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = seeded(dir.path());
    let server = Server::start(&root, &["--no-mcp"]);
    let doc = document(&server, &[]);
    let agent = agent();
    let outside_before = snapshot(&outside);
    let git_before = git_controls(&root);
    let names_before = internal_names(&root);
    let operations = walked(&doc);
    assert!(operations.len() > 150, "{} operations", operations.len());
    let mut values: Vec<(String, bool)> =
        corpus(&outside).into_iter().map(|v| (v, false)).collect();
    values.extend(RAW_ESCAPES.iter().map(|v| (v.to_string(), true)));
    let mut failures = Vec::new();
    let mut sent = 0;
    let mut statuses = BTreeMap::new();
    for (method, template, op) in &operations {
        for (value, raw) in &values {
            let probe = probe(&doc, &server.host, method, template, op, value, *raw);
            let (status, body) = send(&agent, &probe, &[("x-actor", "walker")]);
            sent += 1;
            *statuses.entry(status).or_insert(0usize) += 1;
            let declared = op["responses"][status.to_string()].is_object();
            let server_error = status == 0 || status == 500 || (status >= 500 && !declared);
            if server_error || body.contains(SECRET) {
                failures.push(format!(
                    "{} {} -> {status}: {}",
                    probe.method,
                    &probe.url[..probe.url.len().min(200)],
                    &body[..body.len().min(200)]
                ));
            }
        }
    }
    let log = server.log();
    assert!(!log.contains("panicked"), "the server panicked:\n{log}");
    assert!(
        failures.is_empty(),
        "{} of {sent} requests failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        snapshot(&outside),
        outside_before,
        "a file outside the root changed"
    );
    assert_eq!(git_controls(&root), git_before, ".git/ was written");
    let names_after = internal_names(&root);
    let planted: Vec<&String> = names_after
        .iter()
        .filter(|n| !names_before.contains(n))
        // Uploads for imports are kept there by design, under a random folder and the name
        // the client sent reduced to one safe segment (`_2f.._2foutside_2fsecret.md`).
        .filter(|n| !n.starts_with(".quire/state/uploads/"))
        .filter(|n| {
            let lower = n.to_ascii_lowercase();
            lower.contains("pwned") || lower.contains("secret") || lower.contains("walked")
        })
        .collect();
    assert!(
        planted.is_empty(),
        "files planted in .git/ or .quire/state/: {planted:?}"
    );
    // Nothing appeared beside the root or the outside folder either.
    let beside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "root" && n != "outside")
        .collect();
    assert!(beside.is_empty(), "written beside the root: {beside:?}");
    eprintln!(
        "{sent} requests over {} operations; statuses {statuses:?}",
        operations.len()
    );
    // The walk reached the operations, not only their input checks.
    assert!(
        statuses.get(&200).copied().unwrap_or(0) > 500,
        "{statuses:?}"
    );
}

/// The routes the spec lets through without credentials: published pages, share links, the
/// public pages of a public space, probes and the API's own description.
fn public(path: &str) -> bool {
    let in_space = path.strip_prefix("/api/quire");
    [
        "/health",
        "/healthz",
        "/readyz",
        "/metrics",
        "/api/openapi.json",
    ]
    .contains(&path)
        || path.starts_with("/p/")
        || path.starts_with("/api/docs")
        || in_space.is_some_and(|rest| rest.starts_with("/public/"))
}

#[test]
fn without_credentials_a_walk_reaches_only_the_public_routes() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = seeded(dir.path());
    write_config(
        &root,
        "[auth]\ntype = \"apikey\"\napi_key = \"walk-key-1\"\n",
    );
    let server = Server::start(&root, &["--no-mcp"]);
    let doc = document(&server, &[]);
    let agent = agent();
    let commits_before = snapshot(&root.join(".git/refs"));
    let mut leaked = Vec::new();
    let mut reached = 0;
    for (method, template, op) in walked(&doc) {
        // Also the spaces' own route of every operation of a space.
        let is_public = public(&template);
        let mut templates = vec![template.clone()];
        if let Some(rest) = template.strip_prefix("/api/quire") {
            templates.push(format!("/api/quire/default{rest}"));
        }
        for template in templates {
            let probe = probe(
                &doc,
                &server.host,
                &method,
                &template,
                &op,
                "notes/alpha.md",
                false,
            );
            let (status, body) = send(&agent, &probe, &[]);
            // The spaces list and a space's summary answer anonymous callers with less.
            let optional = template.starts_with("/api/spaces") && method == "get";
            if is_public || optional {
                reached += 1;
                assert!(
                    status < 500 || status == 503,
                    "{method} {template} -> {status}: {body}"
                );
                continue;
            }
            if status != 401 {
                leaked.push(format!(
                    "{method} {template} -> {status}: {}",
                    &body[..body.len().min(200)]
                ));
            }
        }
    }
    assert!(
        leaked.is_empty(),
        "reached without credentials:\n{}",
        leaked.join("\n")
    );
    assert!(reached >= 8, "the public routes answer ({reached})");
    assert_eq!(
        snapshot(&root.join(".git/refs")),
        commits_before,
        "nothing was committed"
    );
    // The same walk with the key is let in (the walk above did not only meet a closed door).
    let probe = probe(
        &doc,
        &server.host,
        "get",
        "/api/quire/file",
        &doc["paths"]["/api/quire/file"]["get"],
        "notes/alpha.md",
        false,
    );
    let (status, body) = send(&agent, &probe, &[("authorization", "Bearer walk-key-1")]);
    assert_eq!(status, 200, "{body}");
}

/// The MCP address the server printed.
fn mcp_url(server: &Server) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let log = server.log();
        if let Some(i) = log.find("MCP listening on http://") {
            let rest = &log[i + "MCP listening on ".len()..];
            return rest.split_whitespace().next().unwrap().to_string();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no MCP address:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_traversal_walk_of_every_mcp_tool_never_errs_leaks_or_writes_outside() {
    use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::ServiceExt;

    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = seeded(dir.path());
    let server = Server::start(&root, &[]);
    let url = mcp_url(&server);
    let outside_before = snapshot(&outside);
    let git_before = git_controls(&root);
    let names_before = internal_names(&root);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (failures, calls, tools) = runtime.block_on(async {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url),
        );
        let client = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("route-walk", "1.0"),
        )
        .serve(transport)
        .await
        .expect("the MCP client connects");
        let tools = client.peer().list_all_tools().await.unwrap();
        let mut failures = Vec::new();
        // MCP lists no tool it cannot run: none for the subsystems quire does not build.
        for absent in [
            "quire_search_semantic",
            "quire_suggestions",
            "quire_embeddings",
        ] {
            if tools.iter().any(|t| t.name == absent) {
                failures.push(format!("{absent} is listed but cannot run"));
            }
        }
        let mut calls = 0;
        for tool in &tools {
            let schema = Value::Object((*tool.input_schema).clone());
            for value in corpus(&outside) {
                let args = instance(&schema, &schema, &value, 0);
                let mut params = CallToolRequestParams::new(tool.name.to_string());
                params.arguments = args.as_object().cloned();
                calls += 1;
                let answer = match client.peer().call_tool(params).await {
                    Ok(result) => serde_json::to_string(&result).unwrap(),
                    // A protocol error (invalid arguments) is a defined answer; an internal
                    // one is not.
                    Err(e) => {
                        let text = e.to_string();
                        if text.contains("-32603") || text.to_lowercase().contains("internal") {
                            failures.push(format!("{}: {text}", tool.name));
                        }
                        text
                    }
                };
                // A listed tool runs: it never answers that its subsystem is missing.
                if answer.contains(SECRET)
                    || answer.contains("\"code\":\"internal\"")
                    || answer.contains("\"code\":\"not_implemented\"")
                {
                    failures.push(format!(
                        "{} {:?}: {}",
                        tool.name,
                        &value[..value.len().min(80)],
                        &answer[..answer.len().min(300)]
                    ));
                }
            }
        }
        let _ = client.cancel().await;
        (failures, calls, tools.len())
    });
    let log = server.log();
    assert!(!log.contains("panicked"), "the server panicked:\n{log}");
    assert!(tools > 50, "{tools} tools");
    assert!(
        failures.is_empty(),
        "{} of {calls} calls failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        snapshot(&outside),
        outside_before,
        "a file outside the root changed"
    );
    assert_eq!(git_controls(&root), git_before, ".git/ was written");
    let planted: Vec<String> = internal_names(&root)
        .into_iter()
        .filter(|n| !names_before.contains(n) && n.to_ascii_lowercase().contains("pwned"))
        .collect();
    assert!(
        planted.is_empty(),
        "files planted in .git/ or .quire/state/: {planted:?}"
    );
    eprintln!("{calls} calls over {tools} tools");
}
