//! MCP against a real `quire serve` with API keys on: the endpoints refuse callers without the
//! key, every tool is listed with a schema, the finding, page, analytics and view tools answer
//! what REST answers (their errors carry REST's message), and a write of a stdio `quire mcp`
//! relayed to the server reaches `/events` and makes one commit by the client.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use support::{quire, status_of, write_config, Server};

const KEY: &str = "mcp-test-key-5d1e0b";

type Client = RunningService<RoleClient, ClientConfig>;

/// Every tool the spec lists whose subsystem quire has, by its `quire_*` name.
const EXPECTED: &[&str] = &[
    "quire_read",
    "quire_write",
    "quire_delete",
    "quire_rename",
    "quire_bulk_write",
    "quire_append",
    "quire_tree",
    "quire_versions",
    "quire_changes",
    "quire_timeline",
    "quire_feed",
    "quire_claim",
    "quire_release",
    "quire_claims_list",
    "quire_search",
    "quire_query",
    "quire_query_meta",
    "quire_aggregate",
    "quire_backlinks",
    "quire_graph_analytics",
    "quire_graph_centrality",
    "quire_graph_communities",
    "quire_graph_path",
    "quire_graph_walk",
    "quire_peek",
    "quire_section",
    "quire_lint",
    "quire_context",
    "quire_analytics",
    "quire_health_check",
    "quire_eligible",
    "quire_velocity",
    "quire_memory_report",
    "quire_eval",
    "quire_views_list",
    "quire_views_get",
    "quire_views_save",
    "quire_views_delete",
    "quire_views_execute",
    "quire_view_refresh",
    "quire_draft_create",
    "quire_draft_list",
    "quire_draft_read",
    "quire_draft_write",
    "quire_draft_diff",
    "quire_draft_merge",
    "quire_draft_discard",
    "quire_workflow_list",
    "quire_workflow_get",
    "quire_workflow_save",
    "quire_workflow_advance",
    "quire_workflow_board",
    "quire_canvas_list",
    "quire_canvas_read",
    "quire_canvas_write",
    "quire_refactor_plan",
    "quire_refactor_apply",
    "quire_refactor_script",
    "quire_refactor_revert",
    "quire_import",
    "quire_import_preview",
    "quire_export",
    "quire_export_document",
    "quire_ingest",
    "quire_clip",
];

/// Tools of the spec whose subsystem does not exist: never advertised.
const ABSENT: &[&str] = &[
    "quire_search_semantic",
    "quire_suggestions",
    "quire_embeddings",
];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn info(name: &str) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, "1.0"),
    )
}

async fn http(url: &str, key: Option<&str>, name: &str) -> Result<Client, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(key) = key {
        config = config.auth_header(key.to_string());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    info(name).serve(transport).await.map_err(|e| e.to_string())
}

/// `quire mcp --root ROOT` with `QUIRE_API_KEY` set to `key` (or unset).
async fn stdio(root: &Path, key: Option<&str>, name: &str) -> Result<Client, String> {
    let root = root.to_path_buf();
    let key = key.map(str::to_string);
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_quire")).configure(|cmd| {
            cmd.arg("mcp")
                .arg("--root")
                .arg(&root)
                .env_remove("QUIRE_ACTOR")
                .env_remove("QUIRE_API_KEY");
            if let Some(key) = &key {
                cmd.env("QUIRE_API_KEY", key);
            }
        }),
    )
    .expect("quire mcp starts");
    info(name).serve(transport).await.map_err(|e| e.to_string())
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = args.as_object().cloned();
    client
        .peer()
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

async fn ok(client: &Client, tool: &str, args: Value) -> Value {
    let result = call(client, tool, args.clone()).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {args} failed: {:?}",
        result.content
    );
    assert!(!result.content.is_empty(), "{tool} answers a text too");
    result.structured_content.expect("structured content")
}

async fn err(client: &Client, tool: &str, args: Value) -> String {
    let result = call(client, tool, args.clone()).await;
    assert_eq!(result.is_error, Some(true), "{tool} {args} should fail");
    let body = result.structured_content.expect("error body");
    body["error"].as_str().unwrap().to_string()
}

/// A REST call with the key: status and JSON body.
fn rest(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    let request = ureq::request(method, url).set("Authorization", &format!("Bearer {KEY}"));
    let answer = match body {
        Some(body) => request.send_json(body),
        None => request.call(),
    };
    match answer {
        Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => panic!("{method} {url}: {e}"),
    }
}

/// The message of a REST error (asserting it is one).
fn rest_error(method: &str, url: &str, body: Option<Value>) -> String {
    let (status, answer) = rest(method, url, body);
    assert!(status >= 400, "{method} {url} answered {status}: {answer}");
    answer["error"].as_str().unwrap().to_string()
}

/// The MCP port's endpoint, from the log line printed after the REST address.
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

/// A root with pages for every tool; `with_view` adds a computed view page (which the
/// server refreshes, as author `quire`, after its first index pass).
fn seed(root: &Path, with_view: bool) {
    let files: &[(&str, &str)] = &[
        (
            "notes/alpha.md",
            "---\nstatus: open\npriority: 1\nreview-by: 2020-01-01\n---\n# Alpha\n\nSee [[beta]]. \
             Zebra words.\n\n## Details\n\nThe details of alpha.\n\n## Later\n\nMore.\n",
        ),
        ("notes/beta.md", "# Beta\n\nBack to [[alpha]] and [[gamma]].\n"),
        ("notes/gamma.md", "---\nstatus: done\n---\n# Gamma\n\nNo links out.\n"),
        ("memory/episodes/day-1.md", "# Day 1\n\nWhat happened.\n"),
        (
            "summary.md",
            "---\nmerged-from: [memory/episodes/day-1.md]\n---\n# Summary\n",
        ),
        (
            "open-notes.md",
            "---\nquire-view: true\nquire-query: \"LIST FROM \\\"notes\\\" WHERE status = \\\"open\\\"\"\n---\n",
        ),
        (".quire/playbook.md", "Write short pages.\n"),
    ];
    for (path, text) in files {
        if !with_view && path.starts_with("open-notes") {
            continue;
        }
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    write_config(
        root,
        "[auth]\ntype = \"apikey\"\napi_key = \"${TEST_QUIRE_MCP_KEY}\"\n",
    );
    let out = quire().arg("init").arg(root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
}

fn start(root: &Path) -> Server {
    Server::start_with(root, &[], &[("TEST_QUIRE_MCP_KEY", KEY)])
}

/// An MCP `initialize` posted without MCP client machinery.
fn raw_initialize(url: &str, key: Option<&str>) -> u16 {
    let mut request = ureq::post(url)
        .set("Accept", "application/json, text/event-stream")
        .set("Content-Type", "application/json");
    if let Some(key) = key {
        request = request.set("Authorization", &format!("Bearer {key}"));
    }
    status_of(request.send_json(json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}
    })))
}

#[test]
fn with_keys_on_every_tool_answers_like_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    seed(&root, true);
    let server = start(&root);
    let mcp = mcp_url(&server);
    let on_rest_port = format!("{}/mcp", server.host);
    let base = server.base.clone();

    // No key, or a wrong one: 401 on both endpoints; the right key opens them.
    for url in [&mcp, &on_rest_port] {
        assert_eq!(raw_initialize(url, None), 401, "{url}");
        assert_eq!(raw_initialize(url, Some("not-the-key")), 401, "{url}");
        assert_eq!(raw_initialize(url, Some(KEY)), 200, "{url}");
    }

    runtime().block_on(async {
        assert!(http(&mcp, None, "anonymous").await.is_err());
        let client = http(&mcp, Some(KEY), "checker").await.expect("initialize");

        let tools = client.peer().list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for name in EXPECTED {
            assert!(names.contains(name), "{name} is not listed: {names:?}");
        }
        for name in ABSENT {
            assert!(!names.contains(name), "{name} is listed but not built");
        }
        assert_eq!(names.len(), EXPECTED.len(), "{names:?}");
        for tool in &tools {
            let schema = &tool.input_schema;
            assert_eq!(schema.get("type"), Some(&json!("object")), "{}", tool.name);
            let desc = tool.description.as_deref().unwrap_or("");
            assert!(desc.len() > 40, "{}: {desc}", tool.name);
        }
        let schema_of = |name: &str| {
            tools
                .iter()
                .find(|t| t.name == name)
                .unwrap()
                .input_schema
                .clone()
        };
        assert!(schema_of("quire_section")["properties"]["heading"].is_object());
        assert!(schema_of("quire_views_save")["properties"]["view"].is_object());
        assert!(schema_of("quire_eval")["properties"]["queries"].is_object());
        assert!(schema_of("quire_timeline")["properties"]["type"].is_object());

        // The index answers once its first pass is done.
        for _ in 0..100 {
            if call(&client, "quire_analytics", json!({})).await.is_error != Some(true) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        // The computed view page, now (it also refreshes on its own after the first index
        // pass): nothing changes the graph between the MCP and REST calls below.
        let refreshed = ok(&client, "quire_view_refresh", json!({})).await;
        assert_eq!(refreshed["refreshed"], 1);
        let page = std::fs::read_to_string(root.join("open-notes.md")).unwrap();
        assert!(page.contains("alpha"), "{page}");
        assert!(err(&client, "quire_view_refresh", json!({"now": true}))
            .await
            .contains("invalid arguments"));

        // Finding.
        let central = ok(&client, "quire_graph_centrality", json!({"limit": 2})).await;
        let (_, rest_central) = rest("GET", &format!("{base}/graph/centrality?limit=2"), None);
        assert_eq!(central, rest_central);
        assert_eq!(central["pages"].as_array().unwrap().len(), 2);
        assert!(
            err(&client, "quire_graph_centrality", json!({"limit": "two"}))
                .await
                .contains("invalid arguments for quire_graph_centrality")
        );
        let walk = ok(
            &client,
            "quire_graph_walk",
            json!({"path": "notes/beta.md", "neighbors": true}),
        )
        .await;
        assert_eq!(
            walk["outbound"],
            json!(["notes/alpha.md", "notes/gamma.md"])
        );
        assert_eq!(walk["backlinks"], json!(["notes/alpha.md"]));
        assert!(walk["neighbors"]
            .as_array()
            .unwrap()
            .contains(&json!("notes/gamma.md")));
        assert_eq!(
            err(&client, "quire_graph_walk", json!({"path": "nope.md"})).await,
            rest_error("GET", &format!("{base}/graph/walk?path=nope.md"), None)
        );

        // Pages.
        let section = ok(
            &client,
            "quire_section",
            json!({"path": "notes/alpha.md", "heading": "Details"}),
        )
        .await;
        assert_eq!(section["heading"], "Details");
        assert!(section["content"]
            .as_str()
            .unwrap()
            .contains("The details of alpha."));
        assert!(!section["content"].as_str().unwrap().contains("More."));
        let by_index = ok(
            &client,
            "quire_section",
            json!({"path": "notes/alpha.md", "index": 2}),
        )
        .await;
        assert_eq!(by_index["heading"], "Later");
        assert_eq!(
            err(&client, "quire_section", json!({"path": "notes/alpha.md"})).await,
            rest_error("GET", &format!("{base}/section?path=notes/alpha.md"), None)
        );
        assert_eq!(
            err(
                &client,
                "quire_section",
                json!({"path": "notes/alpha.md", "heading": "Nowhere"})
            )
            .await,
            rest_error(
                "GET",
                &format!("{base}/section?path=notes/alpha.md&heading=Nowhere"),
                None
            )
        );

        // Analytics and health.
        let dashboard = ok(&client, "quire_analytics", json!({})).await;
        let (_, rest_dashboard) = rest("GET", &format!("{base}/analytics"), None);
        assert_eq!(dashboard, rest_dashboard);
        assert!(dashboard["stale_pages"].as_u64().unwrap() >= 1);
        assert!(err(&client, "quire_analytics", json!({"verbose": true}))
            .await
            .contains("invalid arguments for quire_analytics"));
        let health = ok(
            &client,
            "quire_health_check",
            json!({"path": "notes/alpha.md"}),
        )
        .await;
        assert!(health.to_string().contains("stale"), "{health}");
        assert_eq!(
            err(&client, "quire_health_check", json!({"path": "nope.md"})).await,
            rest_error("GET", &format!("{base}/health-check?path=nope.md"), None)
        );
        let eligible = ok(&client, "quire_eligible", json!({"limit": 5})).await;
        let (_, rest_eligible) = rest("GET", &format!("{base}/eligible?limit=5"), None);
        assert_eq!(eligible, rest_eligible);
        let tasks = eligible["tasks"].as_array().unwrap();
        assert!(tasks.iter().any(|t| t["path"] == "notes/alpha.md"));
        assert!(
            tasks.iter().all(|t| t["path"] != "notes/gamma.md"),
            "done is not eligible"
        );
        assert!(err(&client, "quire_eligible", json!({"limit": "many"}))
            .await
            .contains("invalid arguments"));
        let context = ok(&client, "quire_context", json!({})).await;
        assert_eq!(context["playbook"], "Write short pages.\n", "{context}");
        let memory = ok(&client, "quire_memory_report", json!({})).await;
        assert_eq!(memory["episodic_count"], 1);
        assert_eq!(memory["merged_from_refs"], 1);
        assert_eq!(
            err(&client, "quire_memory_report", json!({"prefix": "../up"})).await,
            rest_error("GET", &format!("{base}/memory/report?prefix=../up"), None)
        );
        let velocity = ok(&client, "quire_velocity", json!({"period": "7d"})).await;
        assert_eq!(velocity["period"], "7d");
        assert_eq!(
            err(&client, "quire_velocity", json!({"period": "3y"})).await,
            rest_error("GET", &format!("{base}/velocity?period=3y"), None)
        );
        let eval =
            json!({"queries": [{"question": "zebra", "expected_paths": ["notes/alpha.md"]}]});
        let scores = ok(&client, "quire_eval", eval).await;
        assert_eq!(scores["fts"]["hit_rate"], 1.0);
        assert_eq!(
            err(&client, "quire_eval", json!({"queries": []})).await,
            rest_error(
                "POST",
                &format!("{base}/eval"),
                Some(json!({"queries": []}))
            )
        );

        // Views.
        let view = json!({"query": "TABLE status FROM \"notes\"", "sort": "-status"});
        let saved = ok(
            &client,
            "quire_views_save",
            json!({"name": "by-status", "view": view}),
        )
        .await;
        assert_eq!(saved["name"], "by-status");
        assert!(root.join(".quire/views/by-status.json").exists());
        let bad_view = json!({"query": "TABLE FROM ("});
        assert_eq!(
            err(
                &client,
                "quire_views_save",
                json!({"name": "broken", "view": bad_view})
            )
            .await,
            rest_error(
                "PUT",
                &format!("{base}/views/broken"),
                Some(bad_view.clone())
            )
        );
        assert!(
            !root.join(".quire/views/broken.json").exists(),
            "nothing written"
        );
        let list = ok(&client, "quire_views_list", json!({})).await;
        assert_eq!(list["views"][0]["name"], "by-status");
        let got = ok(&client, "quire_views_get", json!({"name": "by-status"})).await;
        assert_eq!(got["query"], "TABLE status FROM \"notes\"");
        assert_eq!(
            err(&client, "quire_views_get", json!({"name": "nope"})).await,
            rest_error("GET", &format!("{base}/views/nope"), None)
        );
        let rows = ok(
            &client,
            "quire_views_execute",
            json!({"name": "by-status", "limit": 2}),
        )
        .await;
        let (_, rest_rows) = rest(
            "GET",
            &format!("{base}/views/by-status/execute?limit=2"),
            None,
        );
        assert_eq!(rows, rest_rows);
        assert_eq!(rows["rows"].as_array().unwrap().len(), 2);
        assert_eq!(rows["total"], 3);
        assert_eq!(
            err(&client, "quire_views_execute", json!({"name": "bad name!"})).await,
            rest_error("GET", &format!("{base}/views/bad%20name!/execute"), None)
        );
        ok(&client, "quire_views_delete", json!({"name": "by-status"})).await;
        assert!(!root.join(".quire/views/by-status.json").exists());
        assert_eq!(
            err(&client, "quire_views_delete", json!({"name": "by-status"})).await,
            rest_error("DELETE", &format!("{base}/views/by-status"), None)
        );

        // Drafts and workflows: the service calls REST makes, the same answers.
        let draft = ok(&client, "quire_draft_create", json!({})).await;
        let id = draft["id"].as_str().unwrap().to_string();
        ok(
            &client,
            "quire_draft_write",
            json!({"id": id, "path": "notes/drafted.md", "content": "# Drafted\n"}),
        )
        .await;
        assert!(
            !root.join("notes/drafted.md").exists(),
            "a draft stays out of the root"
        );
        let file = ok(
            &client,
            "quire_draft_read",
            json!({"id": id, "path": "notes/drafted.md"}),
        )
        .await;
        assert_eq!(file["content"], "# Drafted\n");
        let diff = ok(&client, "quire_draft_diff", json!({"id": id})).await;
        let (_, rest_diff) = rest("GET", &format!("{base}/drafts/{id}/diff"), None);
        assert_eq!(diff, rest_diff);
        let merged = ok(&client, "quire_draft_merge", json!({"id": id})).await;
        assert_eq!(merged["status"], "merged");
        assert!(root.join("notes/drafted.md").exists());
        assert_eq!(
            err(&client, "quire_draft_discard", json!({"id": id})).await,
            rest_error("DELETE", &format!("{base}/drafts/{id}"), None)
        );
        ok(
            &client,
            "quire_workflow_save",
            json!({"name": "flow", "workflow": {"states": [{"name": "todo"}, {"name": "done"}]}}),
        )
        .await;
        let (status, _) = rest(
            "POST",
            &format!("{base}/workflow/assign"),
            Some(json!({"path": "notes/drafted.md", "workflow": "flow"})),
        );
        assert_eq!(status, 200);
        let page = ok(
            &client,
            "quire_workflow_advance",
            json!({"path": "notes/drafted.md", "target_state": "done"}),
        )
        .await;
        assert_eq!(page["from"], "todo");
        let board = ok(&client, "quire_workflow_board", json!({"name": "flow"})).await;
        assert_eq!(board["board"]["done"][0]["path"], "notes/drafted.md");
        assert_eq!(
            err(
                &client,
                "quire_workflow_advance",
                json!({"path": "notes/drafted.md", "target_state": "nowhere"})
            )
            .await,
            rest_error(
                "POST",
                &format!("{base}/workflow/advance"),
                Some(json!({"path": "notes/drafted.md", "target_state": "nowhere"}))
            )
        );

        // Canvases: what MCP writes REST reads, and both refuse alike.
        let board = json!({"nodes": [
            {"id": "n1", "type": "file", "file": "notes/drafted.md", "x": 0, "y": 0, "width": 400, "height": 200},
            {"id": "n2", "type": "text", "text": "Why", "x": 500, "y": 0, "width": 200, "height": 80}
        ], "edges": [{"id": "e1", "fromNode": "n2", "toNode": "n1"}]});
        let written = ok(
            &client,
            "quire_canvas_write",
            json!({"path": "maps/plan.canvas.json", "canvas": board}),
        )
        .await;
        assert_eq!(written["path"], "maps/plan.canvas.json");
        let listed = ok(&client, "quire_canvas_list", json!({})).await;
        let (_, rest_listed) = rest("GET", &format!("{base}/canvases"), None);
        assert_eq!(listed, rest_listed);
        let read = ok(
            &client,
            "quire_canvas_read",
            json!({"path": "maps/plan.canvas.json"}),
        )
        .await;
        let (_, rest_read) = rest(
            "GET",
            &format!("{base}/canvas?path=maps/plan.canvas.json"),
            None,
        );
        assert_eq!(read["canvas"], rest_read);
        assert_eq!(read["canvas"]["edges"][0]["fromNode"], "n2");
        let bad = json!({"nodes": [], "edges": [{"id": "e", "fromNode": "x", "toNode": "y"}]});
        assert_eq!(
            err(
                &client,
                "quire_canvas_write",
                json!({"path": "maps/bad.canvas.json", "canvas": bad})
            )
            .await,
            rest_error("PUT", &format!("{base}/canvas?path=maps/bad.canvas.json"), Some(bad))
        );
        assert!(!root.join("maps/bad.canvas.json").exists());

        // History: a page written, then deleted, by this client (view files under `.quire/`
        // are not in the change feed). The server batches commits, and a write and delete of
        // one path in the same batch commit nothing: wait for each commit.
        let wait_for = |action: &'static str| {
            let client = &client;
            async move {
                let mut timeline = Value::Null;
                for _ in 0..100 {
                    timeline = ok(client, "quire_timeline", json!({"limit": 2})).await;
                    let first = &timeline["events"][0];
                    if first["path"] == "scratch.md" && first["action"] == action {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                timeline
            }
        };
        ok(
            &client,
            "quire_write",
            json!({"path": "scratch.md", "content": "# Scratch\n"}),
        )
        .await;
        wait_for("write").await;
        ok(&client, "quire_delete", json!({"path": "scratch.md"})).await;
        let timeline = wait_for("delete").await;
        let events = timeline["events"].as_array().unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0]["path"], "scratch.md", "{timeline}");
        assert_eq!(events[1]["path"], "scratch.md", "{timeline}");
        assert_eq!(events[1]["action"], "write");
        assert_eq!(events[0]["action"], "delete");
        assert_eq!(events[0]["actor"], "checker");
        let writes = ok(
            &client,
            "quire_timeline",
            json!({"type": "write", "limit": 500}),
        )
        .await;
        assert!(writes["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["action"] == "write"));
        let (_, rest_writes) = rest(
            "GET",
            &format!("{base}/timeline?type=write&limit=500"),
            None,
        );
        assert_eq!(writes, rest_writes);
        assert!(err(&client, "quire_timeline", json!({"type": "rename"}))
            .await
            .contains("invalid arguments for quire_timeline"));
        let feed = ok(&client, "quire_feed", json!({"limit": 3})).await;
        assert_eq!(feed["version"], "https://jsonfeed.org/version/1.1");
        let items = feed["items"].as_array().unwrap();
        assert_eq!(items.len(), 3);
        assert!(items[0].get("url").is_none(), "a deletion has no link");
        let (_, rest_feed) = rest("GET", &format!("{base}/feed.json?limit=3"), None);
        for (mine, theirs) in items.iter().zip(rest_feed["items"].as_array().unwrap()) {
            assert_eq!(mine["id"], theirs["id"]);
            assert_eq!(mine["title"], theirs["title"]);
        }
        let linked = items.iter().find_map(|i| i["url"].as_str()).unwrap();
        assert!(linked.starts_with("quire://file/"), "{linked}");
        assert!(err(&client, "quire_feed", json!({"limit": -1}))
            .await
            .contains("invalid arguments for quire_feed"));
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_relayed_stdio_write_reaches_events_and_makes_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    // No computed view page: its refresh would share the write's commit batch.
    seed(&root, false);
    let server = start(&root);
    let _ = mcp_url(&server);

    // Listen to the server's events first.
    let (tx, events) = mpsc::channel::<String>();
    let stream = ureq::get(&format!("{}/events", server.base))
        .set("Authorization", &format!("Bearer {KEY}"))
        .call()
        .expect("events stream");
    std::thread::spawn(move || {
        for line in BufReader::new(stream.into_reader()).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    runtime().block_on(async {
        // Without the key the relay is refused by the server.
        assert!(stdio(&root, None, "desk").await.is_err());
        let client = stdio(&root, Some(KEY), "desk").await.expect("relayed");
        ok(
            &client,
            "quire_write",
            json!({"path": "relayed.md", "content": "# Relayed\n", "message": "Relay one"}),
        )
        .await;
        client.cancel().await.unwrap();
    });

    // The event went out on the server's stream.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let mut event = None;
    while Instant::now() < deadline && event.is_none() {
        if let Ok(line) = events.recv_timeout(Duration::from_millis(200)) {
            if line.starts_with("data:") && line.contains("relayed.md") {
                event = Some(line.clone());
            }
            seen.push(line);
        }
    }
    let event = event.unwrap_or_else(|| panic!("no event for relayed.md in {seen:?}"));
    let data: Value = serde_json::from_str(event.trim_start_matches("data:").trim()).unwrap();
    assert_eq!(data["path"], "relayed.md");
    assert_eq!(data["actor"], "desk");
    let name_line = seen.iter().rev().find(|l| l.starts_with("event:"));
    assert_eq!(name_line.map(|l| l.trim()), Some("event: write"));

    // One commit, by the client, through the server (which may batch commits).
    let (_, versions) = rest(
        "GET",
        &format!("{}/versions?path=relayed.md", server.base),
        None,
    );
    let mut versions = versions;
    for _ in 0..100 {
        if versions.as_array().is_some_and(|v| !v.is_empty()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        versions = rest(
            "GET",
            &format!("{}/versions?path=relayed.md", server.base),
            None,
        )
        .1;
    }
    let repo = git2::Repository::open(&root).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    let mut touching = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid.unwrap()).unwrap();
        let tree = commit.tree().unwrap();
        let here = tree.get_path(Path::new("relayed.md")).ok().map(|e| e.id());
        let before = commit
            .parent(0)
            .ok()
            .and_then(|p| p.tree().unwrap().get_path(Path::new("relayed.md")).ok())
            .map(|e| e.id());
        if here != before {
            touching.push((
                commit.author().name().unwrap_or("").to_string(),
                commit.message().unwrap_or("").to_string(),
            ));
        }
    }
    assert_eq!(touching.len(), 1, "{touching:?}");
    assert_eq!(touching[0].0, "desk");
    assert!(touching[0].1.contains("Relay one"), "{touching:?}");
    assert!(
        versions.to_string().contains("desk"),
        "REST history names the author: {versions}"
    );
    assert!(
        server.log().contains("/mcp"),
        "the write went through the server"
    );
}
