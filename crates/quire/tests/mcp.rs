//! MCP end to end: rmcp's client speaking to the real binary over stdio (`quire mcp --root`)
//! and over streamable HTTP (`quire serve`), and through the stdio bridge to a running server.

mod support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, Implementation,
    ReadResourceRequestParams, ResourceContents, ResourceUpdatedNotificationParam,
    SubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{json, Value};
use support::{quire, write_config, Server};

/// A test client: answers confirmations with `confirm` (no elicitation capability when
/// `None`) and records resource updates.
#[derive(Clone)]
struct Agent {
    name: &'static str,
    confirm: Option<bool>,
    updates: Arc<Mutex<Vec<String>>>,
}

impl Agent {
    fn new(name: &'static str, confirm: Option<bool>) -> Agent {
        Agent {
            name,
            confirm,
            updates: Arc::default(),
        }
    }
}

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if self.confirm.is_some() {
            caps.elicitation = Some(ElicitationCapability::default());
        }
        ClientConfig::new(caps, Implementation::new(self.name, "1.0"))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(match self.confirm {
            Some(true) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "apply": true }))
            }
            _ => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updates.lock().unwrap().push(params.uri);
    }
}

type Client = RunningService<RoleClient, Agent>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn stdio(root: &Path, agent: Agent) -> Client {
    let root = root.to_path_buf();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_quire")).configure(|cmd| {
            cmd.arg("mcp")
                .arg("--root")
                .arg(&root)
                .env_remove("QUIRE_API_KEY")
                .env_remove("QUIRE_ACTOR");
        }),
    )
    .expect("quire mcp starts");
    agent.serve(transport).await.expect("initialize")
}

async fn http(url: &str, agent: Agent) -> Client {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    agent.serve(transport).await.expect("initialize over HTTP")
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

/// A successful call's structured content.
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

/// A failed call's message (a tool error, not a protocol error).
async fn err(client: &Client, tool: &str, args: Value) -> String {
    let result = call(client, tool, args.clone()).await;
    assert_eq!(result.is_error, Some(true), "{tool} {args} should fail");
    let body = result.structured_content.expect("error body");
    body["error"].as_str().unwrap().to_string()
}

/// Search answers once the first index pass ended (503 until then).
async fn search_when_ready(client: &Client, q: &str) -> Value {
    for _ in 0..100 {
        let result = call(client, "quire_search", json!({ "q": q })).await;
        if result.is_error != Some(true) {
            return result.structured_content.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("search never became ready");
}

fn seed(root: &Path) {
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/alpha.md"),
        "---\nstatus: open\n---\n# Alpha\n\nSee [[beta]]. Zebra words.\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/beta.md"), "# Beta\n\nBack to [[alpha]].\n").unwrap();
    let out = quire().arg("init").arg(root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
}

#[test]
fn stdio_serves_every_tool_and_resource() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    std::fs::create_dir_all(&root).unwrap();
    seed(&root);
    runtime().block_on(async {
        let agent = Agent::new("test agent", None);
        let updates = agent.updates.clone();
        let client = stdio(&root, agent).await;
        let info = client.peer().peer_info().unwrap();
        assert_eq!(info.server_info.as_ref().unwrap().name, "quire");
        assert!(info.instructions.as_deref().unwrap().contains("quire_search"));

        let tools = client.peer().list_all_tools().await.unwrap();
        assert!(tools.len() >= 20);
        for tool in &tools {
            assert!(tool.name.starts_with("quire_"), "{}", tool.name);
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
            assert!(tool.description.as_deref().unwrap_or("").len() > 30, "{}", tool.name);
        }

        // Files.
        let written = ok(&client, "quire_write", json!({"path": "notes/gamma.md", "content": "# Gamma\n\n[[alpha]]\n"})).await;
        let etag = written["etag"].as_str().unwrap().to_string();
        let read = ok(&client, "quire_read", json!({"path": "notes/gamma.md"})).await;
        assert_eq!(read["content"], "# Gamma\n\n[[alpha]]\n");
        assert_eq!(read["etag"], etag.as_str());
        let by_name = ok(&client, "quire_read", json!({"path": "[[gamma]]"})).await;
        assert_eq!(by_name["path"], "notes/gamma.md");
        let by_stem = ok(&client, "quire_read", json!({"path": "Alpha"})).await;
        assert_eq!(by_stem["path"], "notes/alpha.md");
        let meta = ok(&client, "quire_read", json!({"path": "notes/alpha.md", "metadata_only": true})).await;
        assert!(meta.get("content").is_none());
        assert_eq!(meta["metadata"]["frontmatter"]["status"], "open");
        let same = ok(&client, "quire_read", json!({"path": "notes/gamma.md", "if_not_etag": etag})).await;
        assert_eq!(same["unchanged"], true);
        assert!(same.get("content").is_none());
        assert!(err(&client, "quire_read", json!({"path": "nowhere"})).await.contains("no file"));
        assert!(err(&client, "quire_read", json!({})).await.contains("invalid arguments for quire_read"));
        let conflict = err(&client, "quire_write", json!({"path": "notes/gamma.md", "content": "x", "if_match": "0000"})).await;
        assert!(conflict.contains("modified"), "{conflict}");
        assert!(!err(&client, "quire_write", json!({"path": "../escape.md", "content": "x"})).await.is_empty());
        assert!(!root.join("../escape.md").exists());

        let appended = ok(&client, "quire_append", json!({"path": "log.md", "content": "one"})).await;
        assert_eq!(appended["path"], "log.md");
        let bulk = ok(&client, "quire_bulk_write", json!({"files": [{"path": "b/1.md", "content": "1"}, {"path": "b/2.md", "content": "2"}]})).await;
        assert_eq!(bulk["count"], 2);
        assert!(!err(&client, "quire_bulk_write", json!({"files": [{"path": ".git/x", "content": "1"}]})).await.is_empty());
        let tree = ok(&client, "quire_tree", json!({})).await;
        assert!(tree["nodes"].as_array().unwrap().len() >= 3);
        assert!(!err(&client, "quire_tree", json!({"path": "missing-folder"})).await.is_empty());
        let renamed = ok(&client, "quire_rename", json!({"from": "notes/gamma.md", "to": "notes/delta.md"})).await;
        assert_eq!(renamed["to"], "notes/delta.md");
        assert!(!err(&client, "quire_rename", json!({"from": "notes/nothing.md", "to": "x.md"})).await.is_empty());
        ok(&client, "quire_delete", json!({"path": "b/2.md"})).await;
        assert!(!err(&client, "quire_delete", json!({"path": "b/2.md"})).await.is_empty());

        // History.
        let versions = ok(&client, "quire_versions", json!({"path": "notes/alpha.md"})).await;
        assert!(!versions["versions"].as_array().unwrap().is_empty());
        assert!(!err(&client, "quire_versions", json!({"path": 3})).await.is_empty());
        let changes = ok(&client, "quire_changes", json!({"limit": 5})).await;
        assert!(changes.is_object());

        // Finding.
        let hits = search_when_ready(&client, "zebra").await;
        assert_eq!(hits["results"][0]["path"], "notes/alpha.md");
        assert!(!err(&client, "quire_search", json!({"q": "(unclosed"})).await.is_empty());
        let query = ok(&client, "quire_query", json!({"q": "TABLE status FROM \"notes\""})).await;
        assert!(query.is_object());
        assert!(!err(&client, "quire_query", json!({"q": "NOT DQL AT ALL"})).await.is_empty());
        let meta = ok(&client, "quire_query_meta", json!({"where": "status = \"open\""})).await;
        assert!(meta.to_string().contains("notes/alpha.md"));
        let groups = ok(&client, "quire_aggregate", json!({"group": "status"})).await;
        assert!(groups["rows"].is_array());
        assert!(!err(&client, "quire_aggregate", json!({"group": " "})).await.is_empty());
        let back = ok(&client, "quire_backlinks", json!({"path": "notes/alpha.md"})).await;
        assert!(!back["backlinks"].as_array().unwrap().is_empty());
        ok(&client, "quire_graph_analytics", json!({})).await;
        ok(&client, "quire_graph_communities", json!({})).await;
        ok(&client, "quire_graph_path", json!({"from": "notes/alpha.md", "to": "notes/beta.md"})).await;
        assert!(!err(&client, "quire_graph_path", json!({"from": "nope.md", "to": "notes/beta.md"})).await.is_empty());
        let peek = ok(&client, "quire_peek", json!({"path": "notes/alpha.md"})).await;
        assert_eq!(peek["title"], "Alpha");
        assert!(!err(&client, "quire_peek", json!({"path": "nope.md"})).await.is_empty());
        let lint = ok(&client, "quire_lint", json!({"content": "[[missing page]]"})).await;
        assert!(!lint["issues"].as_array().unwrap().is_empty());

        // Claims.
        ok(&client, "quire_claim", json!({"path": "notes/beta.md"})).await;
        let claims = ok(&client, "quire_claims_list", json!({})).await;
        assert_eq!(claims["claims"][0]["path"], "notes/beta.md");
        ok(&client, "quire_release", json!({"path": "notes/beta.md"})).await;
        assert!(!err(&client, "quire_claim", json!({"path": "notes/beta.md", "lease_duration": "forever"})).await.is_empty());

        // Restructuring.
        let manifest = json!({"moves": [{"from": "notes/beta.md", "to": "archive/beta.md"}]});
        // `now` given to apply pins the manifest's clock, so the plan reviewed pins it too.
        let pinned = json!({"moves": manifest["moves"], "now": "2024-01-01T00:00:00Z"});
        let plan = ok(&client, "quire_refactor_plan", json!({"manifest": pinned})).await;
        let digest = plan["digest"].as_str().unwrap().to_string();
        assert_eq!(plan["approval"]["required"], false);
        assert!(!err(&client, "quire_refactor_plan", json!({"manifest": {"moves": [{"form": "x"}]}})).await.is_empty());
        assert!(!err(&client, "quire_refactor_apply", json!({"manifest": manifest, "digest": "stale"})).await.is_empty());
        assert!(root.join("notes/beta.md").exists());
        let applied = ok(&client, "quire_refactor_apply", json!({"manifest": manifest, "digest": digest, "now": "2024-01-01T00:00:00Z"})).await;
        let commit = applied["applied"]["commit"].as_str().unwrap().to_string();
        assert!(root.join("archive/beta.md").exists());
        let alpha = std::fs::read_to_string(root.join("notes/alpha.md")).unwrap();
        assert!(alpha.contains("beta"), "{alpha}");
        let dry = ok(&client, "quire_refactor_revert", json!({"commit": commit, "dry_run": true})).await;
        assert!(dry["digest"].is_string());
        ok(&client, "quire_refactor_revert", json!({"commit": commit})).await;
        assert!(root.join("notes/beta.md").exists());
        assert!(!err(&client, "quire_refactor_revert", json!({"commit": "not-a-commit"})).await.is_empty());

        // A script computes a manifest in its own process; only the plan comes back.
        let script = "def main():\n    print('moving beta')\n    return {'moves': [{'from': 'notes/beta.md', 'to': 'archive/'}]}\n";
        let answer = ok(&client, "quire_refactor_script", json!({"script": script})).await;
        assert_eq!(answer["output"], "moving beta\n");
        assert_eq!(answer["plan"]["moves"][0]["to"], "archive/beta.md");
        assert!(root.join("notes/beta.md").exists(), "a script writes nothing");
        assert!(!err(&client, "quire_refactor_script", json!({"script": "while True: pass"})).await.is_empty());

        // Unknown tools are protocol errors.
        let unknown = client
            .peer()
            .call_tool(CallToolRequestParams::new("quire_nothing"))
            .await;
        assert!(unknown.is_err());

        // Resources.
        let resources = client.peer().list_all_resources().await.unwrap();
        assert!(resources.iter().any(|r| r.uri == "quire://schema"));
        let templates = client.peer().list_all_resource_templates().await.unwrap();
        assert!(templates.iter().any(|t| t.uri_template == "quire://file/{path}"));
        let schema = read_text(&client, "quire://schema").await;
        assert!(schema.contains("quire_refactor_apply"));
        let file = read_text(&client, "quire://file/notes/alpha.md").await;
        assert!(file.contains("# Alpha"));
        let tree = read_text(&client, "quire://tree/notes").await;
        assert!(tree.contains("notes/alpha.md"));
        assert!(client
            .peer()
            .read_resource(ReadResourceRequestParams::new("quire://file/none.md"))
            .await
            .is_err());
        #[allow(deprecated)]
        client
            .peer()
            .subscribe(SubscribeRequestParams::new("quire://file/notes/alpha.md"))
            .await
            .unwrap();
        ok(&client, "quire_append", json!({"path": "notes/alpha.md", "content": "more"})).await;
        for _ in 0..50 {
            if !updates.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(updates.lock().unwrap().first().map(String::as_str), Some("quire://file/notes/alpha.md"));
        client.cancel().await.unwrap();
    });
    // Writes carry the client's name.
    let repo = git2::Repository::open(&root).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("test-agent"));
}

async fn read_text(client: &Client, uri: &str) -> String {
    let result = client
        .peer()
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("{uri}: {e}"));
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{uri}: {other:?}"),
    }
}

/// A root whose agents need approval for plans writing more than one file.
fn strict_root(root: &Path) {
    std::fs::create_dir_all(root.join("big")).unwrap();
    for i in 0..3 {
        std::fs::write(root.join(format!("big/p{i}.md")), format!("# P{i}\n")).unwrap();
    }
    write_config(root, "[refactor]\napproval_files = 1\n");
    let out = quire().arg("init").arg(root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
}

fn big_move() -> Value {
    json!({"manifest": {"moves": [{"from": "big/", "to": "moved/"}]}})
}

#[test]
fn a_large_restructuring_asks_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    std::fs::create_dir_all(&root).unwrap();
    strict_root(&root);
    runtime().block_on(async {
        let declining = stdio(&root, Agent::new("decliner", Some(false))).await;
        let plan = ok(&declining, "quire_refactor_plan", big_move()).await;
        assert_eq!(plan["approval"]["required"], true);
        let answer = ok(&declining, "quire_refactor_apply", big_move()).await;
        assert_eq!(answer["status"], "declined");
        assert!(root.join("big/p0.md").exists());
        declining.cancel().await.unwrap();

        let accepting = stdio(&root, Agent::new("accepter", Some(true))).await;
        let answer = ok(&accepting, "quire_refactor_apply", big_move()).await;
        assert!(answer["applied"]["commit"].is_string(), "{answer}");
        assert!(root.join("moved/p0.md").exists());
        accepting.cancel().await.unwrap();
    });
}

#[test]
fn http_serves_mcp_with_rest_approval_and_the_stdio_bridge() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    std::fs::create_dir_all(&root).unwrap();
    strict_root(&root);
    let server = Server::start(&root, &[]);
    // The MCP address is logged just after the API address the start waited for.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !server.log().contains("MCP listening on http://") && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        server.log().contains("MCP listening on http://"),
        "{}",
        server.log()
    );
    let url = format!("{}/mcp", server.host);
    runtime().block_on(async {
        // An agent that cannot ask its user: the plan waits for a person.
        let client = http(&url, Agent::new("remote", None)).await;
        let tools = client.peer().list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "quire_refactor_apply"));
        let answer = ok(&client, "quire_refactor_apply", big_move()).await;
        assert_eq!(answer["status"], "pending", "{answer}");
        assert!(root.join("big/p0.md").exists());
        let digest = answer["plan"]["digest"].as_str().unwrap().to_string();
        let pending: Value = ureq::get(&format!("{}/refactor/pending", server.base))
            .call()
            .unwrap()
            .into_json()
            .unwrap();
        assert_eq!(pending["pending"][0]["digest"], digest.as_str());
        let manifest = big_move()["manifest"].clone();
        ureq::post(&format!("{}/refactor/approve", server.base))
            .send_json(json!({"manifest": manifest, "digest": digest}))
            .unwrap();
        let args = json!({"manifest": manifest, "digest": digest});
        let applied = ok(&client, "quire_refactor_apply", args).await;
        assert!(applied["applied"]["commit"].is_string(), "{applied}");
        assert!(root.join("moved/p0.md").exists());
        let bad = err(
            &client,
            "quire_write",
            json!({"path": ".quire/state/x", "content": "x"}),
        )
        .await;
        assert!(!bad.is_empty());
        client.cancel().await.unwrap();

        // A stdio client on the served root goes through the server.
        let bridged = stdio(&root, Agent::new("desk", None)).await;
        ok(
            &bridged,
            "quire_write",
            json!({"path": "bridged.md", "content": "# via the server\n"}),
        )
        .await;
        let read = ok(&bridged, "quire_read", json!({"path": "bridged"})).await;
        assert_eq!(read["content"], "# via the server\n");
        bridged.cancel().await.unwrap();
    });
    // The server may batch commits: wait for the write's own commit.
    let repo = git2::Repository::open(&root).unwrap();
    let mut author = None;
    for _ in 0..100 {
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        if head.message().unwrap_or("").contains("bridged.md") {
            author = head.author().name().map(str::to_string);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        author.as_deref(),
        Some("desk"),
        "one commit for the bridged write"
    );
    assert!(
        server.log().contains("/mcp"),
        "the write went through the server"
    );
}

async fn http_with_key(url: &str, key: &str, agent: Agent) -> Client {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header(key);
    let transport = StreamableHttpClientTransport::from_config(config);
    agent.serve(transport).await.expect("initialize over HTTP")
}

/// A read-scoped key reaches MCP's read tools and no write tool; without a key /mcp is 401.
#[test]
fn mcp_over_http_enforces_the_keys_scope() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    seed(&root);
    write_config(
        &root,
        "[audit]\nenabled = true\n[auth]\ntype = \"apikey\"\napi_key = \"admin-key\"\n\
         [[auth.api_keys]]\nkey = \"reader-key\"\nscope = \"read\"\n",
    );
    let server = Server::start(&root, &["--no-mcp"]);
    let url = format!("{}/mcp", server.host);
    let anonymous = ureq::post(&url)
        .set("content-type", "application/json")
        .set("accept", "application/json, text/event-stream")
        .send_string(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(support::status_of(anonymous), 401);
    runtime().block_on(async {
        let reader = http_with_key(&url, "reader-key", Agent::new("reader", None)).await;
        let read = ok(&reader, "quire_read", json!({"path": "notes/alpha.md"})).await;
        assert!(read.to_string().contains("Alpha"), "{read}");
        let refused = err(
            &reader,
            "quire_write",
            json!({"path": "notes/new.md", "content": "x"}),
        )
        .await;
        assert!(refused.contains("read-only"), "{refused}");
        assert!(!root.join("notes/new.md").exists());
        let writer = http_with_key(&url, "admin-key", Agent::new("writer", None)).await;
        ok(
            &writer,
            "quire_write",
            json!({"path": "notes/new.md", "content": "# New\n"}),
        )
        .await;
    });
    assert!(root.join("notes/new.md").exists());
    // The write through MCP is audited by tool; the refused anonymous request too.
    let audit = std::fs::read_to_string(root.join(".quire/state/audit.jsonl")).unwrap();
    assert!(audit.contains("\"/mcp#quire_write\""), "{audit}");
    assert!(audit.contains("\"status\":401"), "{audit}");
    assert!(!audit.contains("admin-key") && !audit.contains("reader-key"));
    drop(server);
}
