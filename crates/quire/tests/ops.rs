//! The operation table reaches every adapter it declares: against a real `quire serve`, each
//! operation with a REST binding is in the OpenAPI document under its method and path with its
//! name as `operationId`, each with an MCP tool is listed with the table's input schema and an
//! output schema, each is described by `quire api`; and the same bad input (the required
//! fields left out) gets the same error body, code included, from REST and from MCP.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use quire_ops::Carrier;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use support::{quire, Server};

fn mcp_url(server: &Server) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = server.log();
        if let Some(i) = log.find("MCP listening on http://") {
            let rest = &log[i + "MCP listening on ".len()..];
            return rest.split_whitespace().next().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "no MCP address:\n{log}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn root_with_pages(dir: &Path) {
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("notes/a.md"), "# A\n\nSee [[b]].\n").unwrap();
    std::fs::write(dir.join("notes/b.md"), "# B\n").unwrap();
    let out = quire().arg("init").arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
}

/// The required fields of an operation's input.
fn required(schema: &Value) -> Vec<String> {
    schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The numbers of MCP tools the README and the decisions state ("N `quire_*` tools",
/// "**Tools advertised** (N)").
fn documented_tool_counts() -> Vec<(String, usize)> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for file in ["README.md", "docs/decisions.md"] {
        let text = std::fs::read_to_string(top.join(file)).unwrap();
        for (marker, number_before) in
            [("`quire_*` tools", true), ("**Tools advertised** (", false)]
        {
            for (at, _) in text.match_indices(marker) {
                let digits: String = if number_before {
                    let before = text[..at].trim_end();
                    let start = before
                        .rfind(|c: char| !c.is_ascii_digit())
                        .map_or(0, |i| i + 1);
                    before[start..].to_string()
                } else {
                    text[at + marker.len()..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect()
                };
                if let Ok(n) = digits.parse() {
                    found.push((file.to_string(), n));
                }
            }
        }
    }
    assert!(
        !found.is_empty(),
        "the documentation states no tool count any more"
    );
    found
}

#[test]
fn every_operation_reaches_each_adapter_it_declares_with_one_error_body() {
    let dir = tempfile::tempdir().unwrap();
    root_with_pages(dir.path());
    // Vector search on: its tools are listed only then.
    let config = dir.path().join(".quire/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap_or_default();
    text.push_str("\n[search.vector]\nenabled = true\n");
    std::fs::write(&config, text).unwrap();
    let server = Server::start(dir.path(), &[]);
    let doc: Value = ureq::get(&format!("{}/api/openapi.json", server.host))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = mcp_url(&server);
    runtime.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(url);
        let client = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("ops-test", "1"),
        )
        .serve(transport)
        .await
        .expect("the MCP client connects");
        let tools = client.peer().list_all_tools().await.unwrap();
        let mut checked_bad_input = 0;
        for entry in quire_ops::table() {
            let meta = entry.meta;
            let input = (entry.input_schema)().to_value();
            if let Some(rest) = meta.rest {
                let path = format!("/api/quire{}", rest.path);
                let method = rest.method.as_str().to_ascii_lowercase();
                let op = &doc["paths"][&path][&method];
                assert_eq!(
                    op["operationId"], meta.name,
                    "{method} {path} in the document"
                );
            }
            if let Some(tool) = meta.tool {
                let listed = tools
                    .iter()
                    .find(|t| t.name == tool.name)
                    .unwrap_or_else(|| panic!("{} is not listed", tool.name));
                let mut expected = input.clone();
                if let Some(o) = expected.as_object_mut() {
                    o.remove("$schema");
                }
                if tool.name == "quire_refactor_apply" {
                    // Its own path over MCP: the user approves by elicitation, so the tool
                    // takes neither `approved` nor an `actor` (the session names the caller).
                    let properties = &listed.input_schema["properties"];
                    assert!(properties.get("manifest").is_some(), "{properties:?}");
                    assert!(properties.get("approved").is_none(), "{properties:?}");
                    assert!(properties.get("actor").is_none(), "{properties:?}");
                    expected = Value::Object((*listed.input_schema).clone());
                }
                assert_eq!(
                    Value::Object((*listed.input_schema).clone()),
                    expected,
                    "{}: the listed input schema is the table's",
                    tool.name
                );
                assert!(
                    listed.output_schema.is_some(),
                    "{} declares its output",
                    tool.name
                );
            }
            let out = quire()
                .args(["api", meta.name, "--describe"])
                .output()
                .unwrap();
            assert!(out.status.success(), "quire api {} --describe", meta.name);

            // The same bad input through both adapters: the required fields left out.
            let (Some(rest), Some(tool)) = (meta.rest, meta.tool) else {
                continue;
            };
            let missing = required(&input);
            if missing.is_empty() || rest.path.contains('{') {
                continue;
            }
            let url = format!("{}{}", server.base, rest.path);
            let request = ureq::request(rest.method.as_str(), &url);
            let answer = match rest.carrier {
                Carrier::Json => request.send_json(json!({})),
                _ => request.call(),
            };
            let (status, rest_body): (u16, Value) = match answer {
                Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
                Err(ureq::Error::Status(s, r)) => (s, r.into_json().unwrap_or(Value::Null)),
                Err(e) => panic!("{url}: {e}"),
            };
            assert_eq!(
                status,
                400,
                "{} {url} without {missing:?}: {rest_body}",
                rest.method.as_str()
            );
            let mut params = CallToolRequestParams::new(tool.name.to_string());
            params.arguments = Some(serde_json::Map::new());
            let result = client.peer().call_tool(params).await.unwrap();
            assert_eq!(
                result.is_error,
                Some(true),
                "{} without {missing:?}",
                tool.name
            );
            let mcp_body = result.structured_content.expect("an error body");
            assert_eq!(rest_body["code"], "bad_request", "{rest_body}");
            assert_eq!(
                mcp_body["code"], rest_body["code"],
                "{}: {mcp_body} vs {rest_body}",
                tool.name
            );
            let field = format!("`{}`", missing[0]);
            for body in [&rest_body, &mcp_body] {
                assert!(
                    body["error"].as_str().unwrap().contains(&field),
                    "{}: the error names {field}: {body}",
                    tool.name
                );
            }
            checked_bad_input += 1;
        }
        assert!(
            checked_bad_input >= 5,
            "only {checked_bad_input} operations compared"
        );
        // Counts the documentation states follow the code.
        for (file, count) in documented_tool_counts() {
            assert_eq!(
                count,
                tools.len(),
                "{file} says {count} MCP tools; the server lists {}",
                tools.len()
            );
        }
        client.cancel().await.ok();
    });
}
