//! MCP at the protocol level, as a client's bytes reach the real binary: JSON-RPC lines over
//! stdio (`quire mcp`) and raw requests to streamable HTTP (`/mcp` of `quire serve`). What a
//! client library never sends is tested here: lines that are not JSON, malformed calls,
//! resource URIs with broken escapes, foreign `Origin` headers, and a relay (`quire mcp` on a
//! root a server holds) that cannot get through.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{quire, write_config, Server};

/// How long one answer may take (a debug binary on a busy machine).
const WAIT: Duration = Duration::from_secs(60);

/// `quire mcp --root ROOT` spoken to line by line.
struct Lines {
    child: Child,
    stdin: Option<ChildStdin>,
    out: mpsc::Receiver<String>,
}

impl Lines {
    fn start(root: &Path, env: &[(&str, &str)]) -> Lines {
        let mut cmd = quire();
        cmd.arg("mcp")
            .arg("--root")
            .arg(root)
            .env_remove("QUIRE_ACTOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("quire mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, out) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            stdin: child.stdin.take(),
            child,
            out,
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string());
    }

    /// The next message that is not a notification; `None` when the output ended.
    fn next(&self) -> Option<Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(line) => {
                    let message: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("stdout carries JSON only ({e}): {line}"));
                    if message.get("method").is_some() && message.get("id").is_none() {
                        continue;
                    }
                    return Some(message);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("no answer within {WAIT:?}"),
            }
        }
    }

    fn answer(&self) -> Value {
        self.next().expect("an answer before the output ended")
    }

    fn initialize(&mut self) -> Value {
        self.send(initialize(1));
        let answer = self.answer();
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    /// The exit status, once stdin is closed (at most [`WAIT`]).
    fn exit_code(&mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "quire mcp did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}
        }
    })
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn seeded_root(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("kb");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/alpha.md"), "# Alpha\n").unwrap();
    std::fs::write(root.join("café.md"), "# Café\n").unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    root
}

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error answer: {answer}"))
}

#[test]
fn stdio_answers_a_line_that_is_not_json_with_a_parse_error_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let mut mcp = Lines::start(&root, &[]);
    mcp.initialize();
    mcp.send_raw("this is not JSON {");
    let answer = mcp.answer();
    assert_eq!(error_code(&answer), -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["jsonrpc"], "2.0");
    // Cut JSON too.
    mcp.send_raw(r#"{"jsonrpc": "2.0", "id": 7, "method": "#);
    assert_eq!(error_code(&mcp.answer()), -32700);
    // The session goes on.
    mcp.send(request(2, "tools/list", json!({})));
    let tools = mcp.answer();
    assert_eq!(tools["id"], 2);
    assert!(tools["result"]["tools"].as_array().unwrap().len() > 10);
}

#[test]
fn a_malformed_tools_call_is_invalid_params_not_an_unknown_method() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let mut mcp = Lines::start(&root, &[]);
    mcp.initialize();
    let malformed = [
        json!({"arguments": {"path": "notes/alpha.md"}}),
        json!({"name": "quire_read", "arguments": "notes/alpha.md"}),
        json!({"name": "quire_read", "arguments": ["notes/alpha.md"]}),
        json!({"name": 3}),
    ];
    for (i, params) in malformed.iter().enumerate() {
        let id = 10 + i as u64;
        mcp.send(request(id, "tools/call", params.clone()));
        let answer = mcp.answer();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(error_code(&answer), -32602, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("tools/call"), "{message}");
    }
    // Params that are not structured make no JSON-RPC request at all.
    mcp.send(request(19, "tools/call", json!("quire_read")));
    let answer = mcp.answer();
    assert_eq!(
        (answer["id"].clone(), error_code(&answer)),
        (json!(19), -32600)
    );
    // An unknown method stays an unknown method.
    mcp.send(request(20, "tools/nothing", json!({})));
    assert_eq!(error_code(&mcp.answer()), -32601);
    // And a good call still answers.
    mcp.send(request(
        21,
        "tools/call",
        json!({"name": "quire_read", "arguments": {"path": "notes/alpha.md"}}),
    ));
    let read = mcp.answer();
    assert_eq!(read["result"]["structuredContent"]["content"], "# Alpha\n");
}

#[test]
fn a_resource_uri_with_a_broken_escape_is_not_found_and_the_session_survives() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let mut mcp = Lines::start(&root, &[]);
    mcp.initialize();
    for (id, uri) in [
        (2, "quire://file/%aé.md"),
        (3, "quire://file/%é"),
        (4, "quire://tree/%a€"),
        (5, "quire://file/%C3.md"),
    ] {
        mcp.send(request(id, "resources/read", json!({"uri": uri})));
        let answer = mcp
            .next()
            .unwrap_or_else(|| panic!("{uri} ended the session"));
        assert_eq!(answer["id"], id);
        assert_eq!(error_code(&answer), -32002, "{uri}: {answer}");
    }
    // Escaped UTF-8 names the file it spells.
    mcp.send(request(
        6,
        "resources/read",
        json!({"uri": "quire://file/caf%C3%A9.md"}),
    ));
    let read = mcp.answer();
    assert_eq!(read["result"]["contents"][0]["text"], "# Café\n", "{read}");
}

/// A POST to an MCP endpoint with `origin` (when given); the status, the content type and
/// the body.
fn post_mcp(url: &str, origin: Option<&str>, body: &Value) -> (u16, String, String) {
    let mut request = ureq::post(url)
        .set("Accept", "application/json, text/event-stream")
        .set("Content-Type", "application/json");
    if let Some(origin) = origin {
        request = request.set("Origin", origin);
    }
    let response = match request.send_string(&body.to_string()) {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{url}: {e}"),
    };
    let status = response.status();
    let media = response.content_type().to_string();
    (status, media, response.into_string().unwrap_or_default())
}

/// The MCP port's address, once the server logged it.
fn mcp_port_url(server: &Server) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let log = server.log();
        if let Some(at) = log.find("MCP listening on ") {
            let rest = &log[at + "MCP listening on ".len()..];
            return rest.split_whitespace().next().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "no MCP address:\n{log}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn mcp_over_http_refuses_a_foreign_origin_and_admits_its_own_and_configured_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    write_config(
        &root,
        "[server]\ncors_origins = [\"https://app.example.com\"]\n\
         [server.cors]\nallowed_origins = [\"http://localhost:5173\"]\n",
    );
    let server = Server::start(&root, &[]);
    let rest_port = format!("{}/mcp", server.host);
    let mcp_port = mcp_port_url(&server);
    for url in [&rest_port, &mcp_port] {
        let own = url.trim_end_matches("/mcp").to_string();
        for foreign in [
            "https://evil.example",
            "http://127.0.0.1:1",
            "https://app.example.com.evil.example",
            "null",
        ] {
            let (status, media, body) = post_mcp(url, Some(foreign), &initialize(1));
            assert_eq!(status, 403, "{url} from {foreign}: {body}");
            assert!(media.starts_with("application/json"), "{media}");
            let body: Value = serde_json::from_str(&body).unwrap();
            assert!(body["error"].as_str().unwrap().contains("Origin"), "{body}");
        }
        for admitted in [
            None,
            Some(own.as_str()),
            Some("https://app.example.com"),
            Some("http://localhost:5173"),
        ] {
            let (status, _, body) = post_mcp(url, admitted, &initialize(1));
            assert_eq!(status, 200, "{url} from {admitted:?}: {body}");
            assert!(body.contains("\"serverInfo\""), "{body}");
        }
    }
}

#[test]
fn mcp_over_http_without_configured_origins_admits_only_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let server = Server::start(&root, &["--no-mcp"]);
    let url = format!("{}/mcp", server.host);
    let (status, _, body) = post_mcp(&url, Some("https://app.example.com"), &initialize(1));
    assert_eq!(status, 403, "{body}");
    let (status, _, body) = post_mcp(&url, Some(&server.host), &initialize(1));
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = post_mcp(&url, None, &initialize(1));
    assert_eq!(status, 200, "{body}");
}

/// The JSON-RPC messages of an answer of streamable HTTP (JSON, or server-sent events).
fn messages(media: &str, body: &str) -> Vec<Value> {
    if media.starts_with("application/json") {
        return vec![serde_json::from_str(body).unwrap()];
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter(|data| !data.trim().is_empty())
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

#[test]
fn a_malformed_tools_call_over_http_is_invalid_params() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let server = Server::start(&root, &["--no-mcp"]);
    let url = format!("{}/mcp", server.host);
    let response = ureq::post(&url)
        .set("Accept", "application/json, text/event-stream")
        .send_json(initialize(1))
        .unwrap();
    let session = response.header("mcp-session-id").unwrap().to_string();
    let _ = response.into_string();
    let send = |message: Value| {
        let response = match ureq::post(&url)
            .set("Accept", "application/json, text/event-stream")
            .set("Mcp-Session-Id", &session)
            .set("Mcp-Protocol-Version", "2025-11-25")
            .send_json(message)
        {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{e}"),
        };
        let media = response.content_type().to_string();
        let body = response.into_string().unwrap();
        messages(&media, &body)
    };
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answers = send(request(
        2,
        "tools/call",
        json!({"name": "quire_read", "arguments": "notes/alpha.md"}),
    ));
    let answer = answers.iter().find(|m| m["id"] == 2).expect("an answer");
    assert_eq!(error_code(answer), -32602, "{answer}");
}

/// A server on `root` that wants the key `right-key`.
fn keyed_server(root: &Path) -> Server {
    write_config(root, "[auth]\ntype = \"apikey\"\napi_key = \"right-key\"\n");
    Server::start(root, &["--no-mcp"])
}

/// The relay's answer to `initialize`: the error message, after which it exits non-zero.
fn relay_refusal(root: &Path, env: &[(&str, &str)]) -> String {
    let mut mcp = Lines::start(root, env);
    mcp.send(initialize(1));
    let answer = mcp.answer();
    assert_eq!(answer["id"], 1, "{answer}");
    let message = answer["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("an error answer: {answer}"))
        .to_string();
    let code = mcp.exit_code();
    assert!(matches!(code, Some(c) if c != 0), "exit {code:?}");
    message
}

#[test]
fn the_relay_tells_a_client_without_a_key_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let _server = keyed_server(&root);
    let message = relay_refusal(&root, &[]);
    assert!(message.contains("QUIRE_API_KEY"), "{message}");
    assert!(message.contains("quire token create"), "{message}");
}

#[test]
fn the_relay_tells_a_client_its_key_was_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    let _server = keyed_server(&root);
    let message = relay_refusal(&root, &[("QUIRE_API_KEY", "wrong-key")]);
    assert!(message.contains("QUIRE_API_KEY"), "{message}");
    assert!(message.contains("refused"), "{message}");
    assert!(message.contains("quire token create"), "{message}");

    // The right key relays.
    let mut mcp = Lines::start(&root, &[("QUIRE_API_KEY", "right-key")]);
    let answer = mcp.initialize();
    assert_eq!(answer["result"]["serverInfo"]["name"], "quire", "{answer}");
}

#[test]
fn the_relay_tells_a_client_the_server_cannot_be_reached() {
    let dir = tempfile::tempdir().unwrap();
    let root = seeded_root(dir.path());
    // A holder of the root that announced an address nobody answers on (a server hung up
    // or behind a firewall): the test holds the lock itself.
    let lock_path = root.join(".quire/state/writer.lock");
    std::fs::create_dir_all(lock_path.parent().unwrap()).unwrap();
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&lock_path)
        .unwrap();
    lock.try_lock().expect("the test takes the writer lock");
    let record = json!({
        "pid": std::process::id(),
        "kind": "serve",
        "started": "2024-01-01T00:00:00Z",
        "api": "http://127.0.0.1:9/api/quire"
    });
    lock.write_all(format!("{record}\n").as_bytes()).unwrap();
    lock.flush().unwrap();
    let message = relay_refusal(&root, &[]);
    assert!(message.contains("cannot reach"), "{message}");
    assert!(message.contains("127.0.0.1:9"), "{message}");
    drop(lock);
}
