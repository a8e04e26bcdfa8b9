//! `quire lsp` as an editor sees it: the real binary started on a knowledge root, spoken to
//! in JSON-RPC over stdio with `Content-Length` framing, for every capability it advertises.
//! Nothing the language server does writes the root.

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{quire, text};

/// A language client on the binary's stdio.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Notifications seen while waiting for responses.
    notifications: Vec<Value>,
    next_id: i64,
    root_uri: String,
    /// The server capabilities answered to `initialize`.
    capabilities: Value,
    /// What the server wrote on stderr so far.
    stderr: Arc<Mutex<String>>,
}

const WAIT: Duration = Duration::from_secs(30);

impl Client {
    fn start(root: &Path) -> Client {
        Client::start_with(root, &["--root", root.to_str().unwrap()])
    }

    fn start_with(root: &Path, args: &[&str]) -> Client {
        Client::start_able(root, args, json!({}))
    }

    /// Started on `root` for an editor with the client `capabilities`, initialized.
    fn start_able(root: &Path, args: &[&str], capabilities: Value) -> Client {
        let root_uri = format!("file://{}", root.canonicalize().unwrap().display());
        let mut client = Client::spawn(args, root_uri);
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": client.root_uri, "capabilities": capabilities}),
        );
        assert!(
            init["result"]["capabilities"]["workspace"]["fileOperations"]["willRename"].is_object(),
            "{init}"
        );
        client.capabilities = init["result"]["capabilities"].clone();
        client.notify("initialized", json!({}));
        client
    }

    /// The binary started with `args`, not initialized yet.
    fn spawn(args: &[&str], root_uri: String) -> Client {
        let mut child = quire()
            .arg("lsp")
            .args(args)
            .env_remove("QUIRE_ROOT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("quire lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                let piece = String::from_utf8_lossy(&buf[..n]);
                eprint!("{piece}");
                collected.lock().unwrap().push_str(&piece);
            }
        });
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let value: Value = serde_json::from_slice(&body).expect("a JSON message");
                if sender.send(value).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            messages,
            notifications: Vec::new(),
            next_id: 0,
            root_uri,
            capabilities: Value::Null,
            stderr,
        }
    }

    fn uri(&self, path: &str) -> String {
        format!("{}/{}", self.root_uri, path.replace(' ', "%20"))
    }

    fn send(&mut self, message: Value) {
        let body = serde_json::to_string(&message).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Bytes as they are, framing included.
    fn send_raw(&mut self, bytes: &str) {
        self.stdin.write_all(bytes.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The first message (seen already or arriving within `within`) that `wanted` accepts,
    /// taken from those kept.
    fn wait_for(&mut self, what: &str, within: Duration, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.notifications.iter().position(&wanted) {
            return self.notifications.remove(i);
        }
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("waited {within:?} for {what}"));
            if wanted(&message) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// How the process ended, waiting for it.
    fn exit_status(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "quire lsp did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The whole response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
            self.notifications.push(message);
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn open(&mut self, root: &Path, path: &str) {
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        let uri = self.uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        );
    }

    fn change(&mut self, path: &str, version: i32, text: &str) {
        let uri = self.uri(path);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// The diagnostics last published for `path` at `version` (waiting for them).
    fn diagnostics(&mut self, path: &str, version: i32) -> Vec<Value> {
        let uri = self.uri(path);
        let matches = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == json!(uri)
                && m["params"]["version"] == json!(version)
        };
        // A round trip makes sure every notification sent before it has arrived.
        self.result("workspace/symbol", json!({"query": "zzzz-none"}));
        let found = self
            .notifications
            .iter()
            .rev()
            .find(|m| matches(m))
            .cloned();
        let found = found.unwrap_or_else(|| panic!("no diagnostics for {path} v{version}"));
        found["params"]["diagnostics"].as_array().unwrap().clone()
    }

    fn position(&mut self, path: &str, line: u32, character: u32) -> Value {
        json!({"textDocument": {"uri": self.uri(path)}, "position": {"line": line, "character": character}})
    }

    fn shutdown(mut self) {
        self.result("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.exit_status();
        assert!(status.success(), "quire lsp exited with {status}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const HUB: &str = "---\ntitle: The Hub\n---\n# Hub\n\nIntro line.\n\n## Next Steps\n\nDo things. ^step1\n\n## Other\n\nMore.\n";
const A: &str = "# A\n\nSee [[hub]] and [[hub#Next Steps]] and [md](../hub.md#next-steps).\nBlock: [[hub#^step1]]\n";
const B: &str = "# B\n\n[[a]] and [[missing page]] and [[hub#Nowhere]]\n";
const INDEX: &str =
    "# Index\n\n[[folder/one]] and [t](folder/two.md) and [[one]]\n\n## Local\n\nSee [[#Local]].\n";

/// A knowledge root with a hub page, links of each kind, a broken link, an ambiguous name
/// and a folder.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let files = [
        ("hub.md", HUB),
        ("notes/a.md", A),
        ("notes/b.md", B),
        ("index.md", INDEX),
        ("folder/one.md", "# One\n\n[[two]]\n"),
        ("folder/two.md", "# Two\n\nBack to [[index]].\n"),
        ("dup/x.md", "# X1\n"),
        ("other/x.md", "# X2\n"),
        ("c.md", "# C\n\n[[x]]\n"),
    ];
    for (path, content) in files {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    let out = quire()
        .args(["init", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    (dir, root)
}

/// Every file of the root below `.quire/` aside, with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if rel.starts_with(".git") || rel.starts_with(".quire") {
                continue;
            }
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn path_of(client: &Client, uri: &str) -> String {
    uri.strip_prefix(&format!("{}/", client.root_uri))
        .unwrap_or_else(|| panic!("{uri} is below the root"))
        .replace("%20", " ")
}

#[test]
fn definition_goes_to_pages_headings_and_blocks() {
    let (_dir, root) = fixture();
    let before = snapshot(&root);
    let mut c = Client::start(&root);
    c.open(&root, "notes/a.md");
    // [[hub]] on line 2.
    let at = c.position("notes/a.md", 2, 7);
    let def = c.result("textDocument/definition", at);
    assert_eq!(path_of(&c, def["uri"].as_str().unwrap()), "hub.md");
    assert_eq!(def["range"]["start"], json!({"line": 0, "character": 0}));
    // [[hub#Next Steps]]: the heading's line.
    let at = c.position("notes/a.md", 2, 22);
    let def = c.result("textDocument/definition", at);
    assert_eq!(def["range"]["start"]["line"], 7, "{def}");
    // [md](../hub.md#next-steps): by slug.
    let at = c.position("notes/a.md", 2, 50);
    let def = c.result("textDocument/definition", at);
    assert_eq!(path_of(&c, def["uri"].as_str().unwrap()), "hub.md");
    assert_eq!(def["range"]["start"]["line"], 7, "{def}");
    // [[hub#^step1]]: the block's line.
    let at = c.position("notes/a.md", 3, 10);
    let def = c.result("textDocument/definition", at);
    assert_eq!(def["range"]["start"]["line"], 9, "{def}");
    // Not on a link: nothing.
    let at = c.position("notes/a.md", 0, 1);
    assert_eq!(c.result("textDocument/definition", at), Value::Null);
    // A same-page link.
    c.open(&root, "index.md");
    let at = c.position("index.md", 6, 7);
    let def = c.result("textDocument/definition", at);
    assert_eq!(path_of(&c, def["uri"].as_str().unwrap()), "index.md");
    assert_eq!(def["range"]["start"]["line"], 4, "{def}");
    // A document that was never opened is a clear error.
    let at = c.position("notes/b.md", 2, 3);
    let response = c.request("textDocument/definition", at);
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not open"),
        "{response}"
    );
    let response = c.request("textDocument/nonsense", json!({}));
    assert_eq!(response["error"]["code"], -32601, "{response}");
    let response = c.request("textDocument/definition", json!({"textDocument": 3}));
    assert_eq!(response["error"]["code"], -32602, "{response}");
    c.shutdown();
    assert_eq!(
        snapshot(&root),
        before,
        "the language server wrote the root"
    );
}

#[test]
fn references_are_backlinks_of_a_page_and_of_a_heading_from_open_buffers_too() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "hub.md");
    let refs = |c: &mut Client, line: u32, character: u32| -> Vec<(String, u32)> {
        let mut at = c.position("hub.md", line, character);
        at["context"] = json!({"includeDeclaration": false});
        let found = c.result("textDocument/references", at);
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    path_of(c, l["uri"].as_str().unwrap()),
                    l["range"]["start"]["line"].as_u64().unwrap() as u32,
                )
            })
            .collect()
    };
    // Anywhere in the page: its backlinks.
    assert_eq!(
        refs(&mut c, 5, 2),
        [
            ("notes/a.md".to_string(), 2),
            ("notes/a.md".into(), 2),
            ("notes/a.md".into(), 2),
            ("notes/a.md".into(), 3),
            ("notes/b.md".into(), 2)
        ]
    );
    // On the title: the page's backlinks too.
    assert_eq!(refs(&mut c, 3, 3).len(), 5);
    // On a heading: the links to that heading, by text and by slug.
    assert_eq!(
        refs(&mut c, 7, 4),
        [("notes/a.md".to_string(), 2), ("notes/a.md".into(), 2)]
    );
    // An unsaved link in another open buffer counts.
    c.open(&root, "notes/b.md");
    c.change("notes/b.md", 2, "# B\n\n[[hub#Next Steps]]\n");
    let found = refs(&mut c, 7, 4);
    assert!(found.contains(&("notes/b.md".to_string(), 2)), "{found:?}");
    c.shutdown();
}

#[test]
fn completion_offers_pages_then_headings_then_block_ids() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "notes/b.md");
    let labels = |value: &Value| -> Vec<String> {
        value["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["textEdit"]["newText"].as_str().unwrap().to_owned())
            .collect()
    };
    c.change("notes/b.md", 2, "# B\n\n[[hu\n");
    let at = c.position("notes/b.md", 2, 4);
    let found = c.result("textDocument/completion", at);
    assert_eq!(labels(&found)[0], "hub", "{found}");
    assert_eq!(
        found["items"][0]["textEdit"]["range"],
        json!({"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 4}})
    );
    // An ambiguous name is offered by a path that is not.
    c.change("notes/b.md", 3, "# B\n\n[[x\n");
    let at = c.position("notes/b.md", 2, 3);
    let found = labels(&c.result("textDocument/completion", at));
    assert!(found.contains(&"dup/x".to_string()), "{found:?}");
    assert!(found.contains(&"other/x".to_string()), "{found:?}");
    // Headings after `#`, block ids after `#^`.
    c.change("notes/b.md", 4, "# B\n\n[[hub#\n");
    let at = c.position("notes/b.md", 2, 6);
    let found = labels(&c.result("textDocument/completion", at));
    assert_eq!(found, ["Hub", "Next Steps", "Other"]);
    c.change("notes/b.md", 5, "# B\n\n[[hub#^\n");
    let at = c.position("notes/b.md", 2, 7);
    assert_eq!(labels(&c.result("textDocument/completion", at)), ["^step1"]);
    // Markdown links: relative paths, headings by slug.
    c.change("notes/b.md", 6, "# B\n\n[t](hu\n");
    let at = c.position("notes/b.md", 2, 6);
    assert_eq!(
        labels(&c.result("textDocument/completion", at))[0],
        "../hub.md"
    );
    c.change("notes/b.md", 7, "# B\n\n[t](../hub.md#\n");
    let at = c.position("notes/b.md", 2, 14);
    assert_eq!(
        labels(&c.result("textDocument/completion", at)),
        ["hub", "next-steps", "other"]
    );
    // Outside a link: nothing.
    let at = c.position("notes/b.md", 0, 2);
    assert_eq!(c.result("textDocument/completion", at), Value::Null);
    c.shutdown();
}

#[test]
fn diagnostics_follow_the_open_buffer() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "notes/b.md");
    let codes = |d: &[Value]| -> Vec<(String, u64)> {
        d.iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_owned(),
                    d["range"]["start"]["character"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let found = c.diagnostics("notes/b.md", 1);
    assert_eq!(
        codes(&found),
        [
            ("broken-link".to_string(), 10),
            ("broken-fragment".into(), 31)
        ],
        "{found:?}"
    );
    assert!(found[0]["message"]
        .as_str()
        .unwrap()
        .contains("missing page"));
    // Typing fixes one and breaks another.
    c.change("notes/b.md", 2, "# B\n\n[[hub#Other]] [[nope]]\n");
    let found = c.diagnostics("notes/b.md", 2);
    assert_eq!(codes(&found), [("broken-link".to_string(), 14)]);
    // A page created in an open buffer mends links to it in other buffers.
    c.open(&root, "c.md");
    let found = c.diagnostics("c.md", 1);
    assert_eq!(codes(&found), [("ambiguous-link".to_string(), 0)]);
    assert!(found[0]["message"].as_str().unwrap().contains("other/x.md"));
    let uri = c.uri("nope.md");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": "# Nope\n"}}),
    );
    let found = c.diagnostics("notes/b.md", 2);
    assert_eq!(codes(&found), []);
    assert!(!root.join("nope.md").exists());
    c.shutdown();
}

#[test]
fn hover_previews_the_section_or_the_page() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "notes/a.md");
    let at = c.position("notes/a.md", 2, 22);
    let hover = c.result("textDocument/hover", at);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.starts_with("**hub.md**"), "{value}");
    assert!(
        value.contains("## Next Steps") && value.contains("Do things"),
        "{value}"
    );
    assert!(!value.contains("## Other"), "{value}");
    let at = c.position("notes/a.md", 2, 7);
    let hover = c.result("textDocument/hover", at);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.contains("# Hub") && !value.contains("title:"),
        "{value}"
    );
    c.open(&root, "notes/b.md");
    let at = c.position("notes/b.md", 2, 14);
    let hover = c.result("textDocument/hover", at);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("Broken link"),
        "{hover}"
    );
    c.shutdown();
}

#[test]
fn symbols_of_the_document_and_the_workspace() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "hub.md");
    let doc = json!({"textDocument": {"uri": c.uri("hub.md")}});
    let symbols = c.result("textDocument/documentSymbol", doc);
    assert_eq!(symbols.as_array().unwrap().len(), 1, "{symbols}");
    assert_eq!(symbols[0]["name"], "Hub");
    let children: Vec<&str> = symbols[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(children, ["Next Steps", "Other"]);
    assert_eq!(symbols[0]["children"][0]["range"]["start"]["line"], 7);
    let found = c.result("workspace/symbol", json!({"query": "nxtstp"}));
    assert_eq!(found[0]["name"], "Next Steps", "{found}");
    assert_eq!(
        path_of(&c, found[0]["location"]["uri"].as_str().unwrap()),
        "hub.md"
    );
    let found = c.result("workspace/symbol", json!({"query": "the hub"}));
    assert_eq!(found[0]["name"], "The Hub", "{found}");
    assert_eq!(found[0]["kind"], 1);
    c.shutdown();
}

#[test]
fn renaming_a_heading_renames_every_fragment_link_to_it() {
    let (_dir, root) = fixture();
    let before = snapshot(&root);
    let mut c = Client::start(&root);
    c.open(&root, "hub.md");
    let at = c.position("hub.md", 7, 5);
    let prepared = c.result("textDocument/prepareRename", at);
    assert_eq!(prepared["placeholder"], "Next Steps");
    assert_eq!(
        prepared["range"],
        json!({"start": {"line": 7, "character": 3}, "end": {"line": 7, "character": 13}})
    );
    let at = c.position("hub.md", 5, 2);
    assert_eq!(c.result("textDocument/prepareRename", at), Value::Null);
    let mut at = c.position("hub.md", 7, 5);
    at["newName"] = json!("Later On");
    let edit = c.result("textDocument/rename", at.clone());
    let mut by_path: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    for change in edit["documentChanges"].as_array().unwrap() {
        let path = path_of(&c, change["textDocument"]["uri"].as_str().unwrap());
        for e in change["edits"].as_array().unwrap() {
            by_path.entry(path.clone()).or_default().push((
                e["range"]["start"]["line"].as_u64().unwrap(),
                e["newText"].as_str().unwrap().to_owned(),
            ));
        }
    }
    assert_eq!(by_path["hub.md"], [(7, "Later On".to_string())]);
    assert_eq!(
        by_path["notes/a.md"],
        [(2, "Later On".to_string()), (2, "later-on".to_string())]
    );
    assert_eq!(by_path.len(), 2, "{by_path:?}");
    // The open document is named with its version.
    let hub = edit["documentChanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["textDocument"]["uri"] == json!(c.uri("hub.md")))
        .unwrap();
    assert_eq!(hub["textDocument"]["version"], 1);
    // Bad names and places are refused with the reason.
    at["newName"] = json!("a|b");
    let response = c.request("textDocument/rename", at.clone());
    assert!(response["error"]["message"]
        .as_str()
        .unwrap()
        .contains("'|'"));
    at["newName"] = json!("  ");
    assert!(c.request("textDocument/rename", at).get("error").is_some());
    let mut at = c.position("hub.md", 5, 2);
    at["newName"] = json!("X");
    let response = c.request("textDocument/rename", at);
    assert!(response["error"]["message"]
        .as_str()
        .unwrap()
        .contains("only a heading"));
    c.shutdown();
    assert_eq!(snapshot(&root), before);
}

#[test]
fn a_code_action_creates_the_missing_page() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "notes/b.md");
    let params = json!({
        "textDocument": {"uri": c.uri("notes/b.md")},
        "range": {"start": {"line": 2, "character": 12}, "end": {"line": 2, "character": 12}},
        "context": {"diagnostics": []},
    });
    let actions = c.result("textDocument/codeAction", params);
    assert_eq!(actions.as_array().unwrap().len(), 1, "{actions}");
    assert_eq!(
        actions[0]["title"],
        "Create the missing page missing page.md"
    );
    let changes = &actions[0]["edit"]["documentChanges"];
    assert_eq!(changes[0]["kind"], "create");
    assert_eq!(changes[0]["uri"], json!(c.uri("missing page.md")));
    assert_eq!(changes[1]["edits"][0]["newText"], "# missing page\n");
    // No action on a link that resolves.
    let params = json!({
        "textDocument": {"uri": c.uri("notes/b.md")},
        "range": {"start": {"line": 2, "character": 3}, "end": {"line": 2, "character": 3}},
        "context": {"diagnostics": []},
    });
    assert_eq!(c.result("textDocument/codeAction", params), json!([]));
    c.shutdown();
}

/// The willRenameFiles edits as (page, line, old target bytes, new), read against the files.
fn rename_edits(c: &Client, root: &Path, edit: &Value) -> Vec<(String, u64, String, String)> {
    let mut out = Vec::new();
    for change in edit["documentChanges"].as_array().unwrap() {
        assert!(change.get("kind").is_none(), "only text edits: {change}");
        let path = path_of(c, change["textDocument"]["uri"].as_str().unwrap());
        let text = std::fs::read_to_string(root.join(&path)).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        for e in change["edits"].as_array().unwrap() {
            let (start, end) = (&e["range"]["start"], &e["range"]["end"]);
            let line = start["line"].as_u64().unwrap();
            assert_eq!(line, end["line"].as_u64().unwrap());
            let units: Vec<u16> = lines[line as usize].encode_utf16().collect();
            let old = String::from_utf16(
                &units[start["character"].as_u64().unwrap() as usize
                    ..end["character"].as_u64().unwrap() as usize],
            )
            .unwrap();
            out.push((
                path.clone(),
                line + 1,
                old,
                e["newText"].as_str().unwrap().to_owned(),
            ));
        }
    }
    out.sort();
    out
}

/// The link rewrites of `quire refactor plan` for the same move.
fn plan_edits(root: &Path, manifest: &str) -> Vec<(String, u64, String, String)> {
    let file = root.parent().unwrap().join("m.yaml");
    std::fs::write(&file, manifest).unwrap();
    let out = quire()
        .args([
            "refactor",
            "plan",
            file.to_str().unwrap(),
            "--json",
            "--root",
        ])
        .arg(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut edits = Vec::new();
    for edit in plan["edits"].as_array().unwrap() {
        let path = edit
            .get("from")
            .unwrap_or(&edit["path"])
            .as_str()
            .unwrap()
            .to_owned();
        for link in edit["links"].as_array().unwrap() {
            edits.push((
                path.clone(),
                link["line"].as_u64().unwrap(),
                link["old"].as_str().unwrap().to_owned(),
                link["new"].as_str().unwrap().to_owned(),
            ));
        }
    }
    edits.sort();
    edits
}

#[test]
fn will_rename_files_answers_the_plan_of_the_same_move() {
    let (_dir, root) = fixture();
    let before = snapshot(&root);
    let mut c = Client::start(&root);
    // A file.
    let params =
        json!({"files": [{"oldUri": c.uri("hub.md"), "newUri": c.uri("archive/hub 2.md")}]});
    let edit = c.result("workspace/willRenameFiles", params);
    let got = rename_edits(&c, &root, &edit);
    let planned = plan_edits(
        &root,
        "moves:\n  - from: hub.md\n    to: archive/hub 2.md\n",
    );
    assert!(!planned.is_empty());
    assert_eq!(got, planned);
    assert!(got.contains(&(
        "notes/a.md".into(),
        3,
        "../hub.md".into(),
        "../archive/hub%202.md".into()
    )));
    // A folder: links into it and links inside it.
    let params = json!({"files": [{"oldUri": c.uri("folder"), "newUri": c.uri("deep/renamed")}]});
    let edit = c.result("workspace/willRenameFiles", params);
    let got = rename_edits(&c, &root, &edit);
    let planned = plan_edits(&root, "moves:\n  - from: folder/\n    to: deep/renamed/\n");
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got, planned);
    // An unsaved buffer is planned from its text.
    c.open(&root, "c.md");
    c.change("c.md", 2, "# C\n\nnow [[hub]]\n");
    let params = json!({"files": [{"oldUri": c.uri("hub.md"), "newUri": c.uri("h2.md")}]});
    let edit = c.result("workspace/willRenameFiles", params);
    let c_edit = edit["documentChanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["textDocument"]["uri"] == json!(c.uri("c.md")))
        .cloned()
        .expect("the open buffer's link is rewritten");
    assert_eq!(
        c_edit["edits"][0]["range"]["start"],
        json!({"line": 2, "character": 6})
    );
    // A rename onto an existing file: no edits (the plan refuses it) and a warning.
    let params = json!({"files": [{"oldUri": c.uri("hub.md"), "newUri": c.uri("index.md")}]});
    assert_eq!(c.result("workspace/willRenameFiles", params), Value::Null);
    assert!(c
        .notifications
        .iter()
        .any(|m| m["method"] == "window/showMessage"));
    // Outside the root: nothing.
    let params = json!({"files": [{"oldUri": "file:///elsewhere/a.md", "newUri": "file:///elsewhere/b.md"}]});
    assert_eq!(c.result("workspace/willRenameFiles", params), Value::Null);
    c.shutdown();
    assert_eq!(
        snapshot(&root),
        before,
        "the language server wrote the root"
    );
}

#[test]
fn saved_changes_and_renames_on_disk_are_read_again() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.open(&root, "notes/b.md");
    assert_eq!(c.diagnostics("notes/b.md", 1).len(), 2);
    // The editor creates the missing page on disk and says so.
    std::fs::write(root.join("missing page.md"), "# Missing\n").unwrap();
    let uri = c.uri("missing page.md");
    c.notify("workspace/didCreateFiles", json!({"files": [{"uri": uri}]}));
    assert_eq!(c.diagnostics("notes/b.md", 1).len(), 1);
    // A page saved by the editor (reported by its file watcher) links to b.md.
    std::fs::write(root.join("c.md"), "# C\n\n[[notes/b]]\n").unwrap();
    let uri = c.uri("c.md");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri, "type": 2}]}),
    );
    let mut at = c.position("notes/b.md", 0, 2);
    at["context"] = json!({"includeDeclaration": false});
    let refs = c.result("textDocument/references", at);
    assert!(
        refs.as_array()
            .unwrap()
            .iter()
            .any(|l| l["uri"] == json!(c.uri("c.md"))),
        "{refs}"
    );
    // A folder renamed on disk.
    std::fs::rename(root.join("folder"), root.join("moved")).unwrap();
    let (old, new) = (c.uri("folder"), c.uri("moved"));
    c.notify(
        "workspace/didRenameFiles",
        json!({"files": [{"oldUri": old, "newUri": new}]}),
    );
    c.open(&root, "index.md");
    let found = c.diagnostics("index.md", 1);
    assert_eq!(found.len(), 2, "{found:?}");
    c.shutdown();
}

#[test]
fn beside_a_running_server_it_reads_and_leaves_the_writing_to_the_server() {
    let (_dir, root) = fixture();
    let mut server = support::Server::start(&root, &[]);
    let mut c = Client::start_with(&root, &[]);
    c.open(&root, "notes/a.md");
    let at = c.position("notes/a.md", 2, 7);
    let def = c.result("textDocument/definition", at);
    assert_eq!(path_of(&c, def["uri"].as_str().unwrap()), "hub.md");
    let params = json!({"files": [{"oldUri": c.uri("hub.md"), "newUri": c.uri("h.md")}]});
    let edit = c.result("workspace/willRenameFiles", params);
    assert_eq!(
        edit["documentChanges"].as_array().unwrap().len(),
        2,
        "{edit}"
    );
    // The server still holds the root and writes it.
    let page = ureq::put(&format!("{}/file?path=new.md", server.base))
        .send_bytes(b"# New\n")
        .map(|r| r.status());
    assert!(matches!(page, Ok(200 | 201)), "{page:?}");
    c.shutdown();
    server.terminate(Duration::from_secs(5));
}

#[test]
fn a_root_that_cannot_be_opened_is_the_answer_to_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no such kb");
    let missing_uri = format!("file://{}", missing.display()).replace(' ', "%20");
    // Named on the command line, then by the editor.
    for args in [vec!["--root", missing.to_str().unwrap()], vec![]] {
        let mut c = Client::spawn(&args, missing_uri.clone());
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": missing_uri, "capabilities": {}}),
        );
        let message = init["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{init}"));
        assert!(message.contains(&missing.display().to_string()), "{init}");
        assert_eq!(init["error"]["data"]["retry"], false, "{init}");
        // The session stays up, refusing with the reason, until the editor leaves.
        let at = json!({"textDocument": {"uri": format!("{missing_uri}/a.md")}, "position": {"line": 0, "character": 0}});
        let refused = c.request("textDocument/hover", at);
        assert_eq!(refused["error"]["code"], -32002, "{refused}");
        assert!(refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no such kb"));
        assert_eq!(c.result("shutdown", Value::Null), Value::Null);
        c.notify("exit", Value::Null);
        let status = c.exit_status();
        assert!(status.success(), "quire lsp exited with {status}");
        assert!(
            c.stderr.lock().unwrap().contains("no such kb"),
            "the reason is logged too"
        );
        assert!(!missing.exists(), "nothing is created");
    }
}

#[test]
fn a_frame_that_is_not_json_is_answered_and_the_session_goes_on() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    c.send_raw("Content-Length: 9\r\n\r\n{\"broken}");
    let refused = c.wait_for("the parse error", WAIT, |m| m.get("error").is_some());
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    // JSON that is no message: refused under its id.
    let body = r#"{"jsonrpc":"2.0","id":"odd","nonsense":true}"#;
    c.send_raw(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let refused = c.wait_for("the invalid request", WAIT, |m| m["id"] == "odd");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // The session goes on.
    let found = c.result("workspace/symbol", json!({"query": "the hub"}));
    assert_eq!(found[0]["name"], "The Hub", "{found}");
    c.shutdown();
}

/// Whether an LSP glob pattern (`**`, `*`, `?`, `{a,b}`) matches a `/`-separated path.
fn glob_matches(glob: &str, path: &str) -> bool {
    if let Some(open) = glob.find('{') {
        let close = open + glob[open..].find('}').expect("a closed group");
        return glob[open + 1..close].split(',').any(|choice| {
            glob_matches(
                &format!("{}{choice}{}", &glob[..open], &glob[close + 1..]),
                path,
            )
        });
    }
    fn at(glob: &[u8], path: &[u8]) -> bool {
        match glob {
            [] => path.is_empty(),
            [b'*', b'*', b'/', rest @ ..] => {
                at(rest, path)
                    || path
                        .iter()
                        .position(|&c| c == b'/')
                        .is_some_and(|slash| at(glob, &path[slash + 1..]))
            }
            [b'*', rest @ ..] => (0..=path.len())
                .take_while(|&i| i == 0 || path[i - 1] != b'/')
                .any(|i| at(rest, &path[i..])),
            [b'?', rest @ ..] => !path.is_empty() && path[0] != b'/' && at(rest, &path[1..]),
            [c, rest @ ..] => path.first() == Some(c) && at(rest, &path[1..]),
        }
    }
    at(glob.as_bytes(), path.as_bytes())
}

#[test]
fn renaming_an_image_a_pdf_or_a_canvas_asks_first_and_rewrites_the_links_to_it() {
    let (_dir, root) = fixture();
    std::fs::write(root.join("img.png"), b"\x89PNG\r\n\x1a\n").unwrap();
    std::fs::write(root.join("paper.pdf"), b"%PDF-1.4\n").unwrap();
    std::fs::write(
        root.join("board.canvas.json"),
        "{\"nodes\":[],\"edges\":[]}",
    )
    .unwrap();
    std::fs::write(
        root.join("gallery.md"),
        "# Gallery\n\n![[img.png]]\n\n[[paper.pdf]] and [b](board.canvas.json)\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/pics.md"), "# Pics\n\n![x](../img.png)\n").unwrap();
    let before = snapshot(&root);
    let mut c = Client::start(&root);
    // The editor asks before renaming any of them (and reports after).
    for operation in ["willRename", "didRename"] {
        let filters = c.capabilities["workspace"]["fileOperations"][operation]["filters"]
            .as_array()
            .unwrap()
            .clone();
        for file in ["img.png", "paper.pdf", "board.canvas.json", "notes/x.jpeg"] {
            let path = format!("{}/{file}", root.canonicalize().unwrap().display());
            let covered = filters.iter().any(|f| {
                f["pattern"]["matches"] != "folder"
                    && f["scheme"].as_str().is_none_or(|s| s == "file")
                    && glob_matches(f["pattern"]["glob"].as_str().unwrap(), &path)
            });
            assert!(covered, "{operation} does not cover {file}: {filters:?}");
        }
    }
    // Renamed, not only moved: a wiki link by name needs an edit too.
    let moves = [
        ("img.png", "media/photo.png"),
        ("paper.pdf", "media/paper-2024.pdf"),
        ("board.canvas.json", "boards/plan.canvas.json"),
    ];
    for (from, to) in moves {
        let params = json!({"files": [{"oldUri": c.uri(from), "newUri": c.uri(to)}]});
        let edit = c.result("workspace/willRenameFiles", params);
        let got = rename_edits(&c, &root, &edit);
        let planned = plan_edits(&root, &format!("moves:\n  - from: {from}\n    to: {to}\n"));
        assert!(!planned.is_empty(), "{from}");
        assert_eq!(got, planned, "{from}");
    }
    let params =
        json!({"files": [{"oldUri": c.uri("img.png"), "newUri": c.uri("media/photo.png")}]});
    let edit = c.result("workspace/willRenameFiles", params);
    let got = rename_edits(&c, &root, &edit);
    assert_eq!(
        got,
        [
            (
                "gallery.md".to_string(),
                3,
                "img.png".to_string(),
                "photo.png".to_string()
            ),
            (
                "notes/pics.md".into(),
                3,
                "../img.png".into(),
                "../media/photo.png".into()
            ),
        ]
    );
    c.shutdown();
    assert_eq!(
        snapshot(&root),
        before,
        "the language server wrote the root"
    );
}

/// The code of each diagnostic in `report`'s items.
fn codes_of(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_move_on_disk_behind_the_servers_back_is_seen() {
    let (_dir, root) = fixture();
    std::fs::write(
        root.join("notes/later.md"),
        "# Later\n\n[[archive/hub]] and [h](../archive/hub.md#next-steps)\n",
    )
    .unwrap();
    let mut c = Client::start(&root);
    c.open(&root, "notes/later.md");
    assert_eq!(c.diagnostics("notes/later.md", 1).len(), 2);
    // A shell moves the page; the editor says nothing.
    std::fs::create_dir(root.join("archive")).unwrap();
    std::fs::rename(root.join("hub.md"), root.join("archive/hub.md")).unwrap();
    let uri = c.uri("notes/later.md");
    let cleared = c.wait_for("diagnostics cleared", WAIT, |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == json!(uri)
            && m["params"]["diagnostics"] == json!([])
    });
    assert_eq!(cleared["params"]["version"], 1);
    let at = c.position("notes/later.md", 2, 5);
    let def = c.result("textDocument/definition", at);
    assert_eq!(path_of(&c, def["uri"].as_str().unwrap()), "archive/hub.md");
    // The link elsewhere that named the old place is broken now, across the vault.
    let report = c.result("workspace/diagnostic", json!({"previousResultIds": []}));
    let a = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["uri"] == json!(c.uri("notes/a.md")))
        .cloned()
        .unwrap_or_else(|| panic!("no report for notes/a.md: {report}"));
    assert_eq!(codes_of(&a["items"]), ["broken-link"], "{a}");
    c.shutdown();
}

#[test]
fn workspace_diagnostic_lists_the_broken_links_of_every_page() {
    let (_dir, root) = fixture();
    let mut c = Client::start(&root);
    let provider = &c.capabilities["diagnosticProvider"];
    assert_eq!(provider["workspaceDiagnostics"], true, "{provider}");
    assert_eq!(provider["interFileDependencies"], true, "{provider}");
    let pull = |c: &mut Client, previous: Value| -> BTreeMap<String, Value> {
        let report = c.result(
            "workspace/diagnostic",
            json!({"previousResultIds": previous}),
        );
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (path_of(c, i["uri"].as_str().unwrap()), i.clone()))
            .collect()
    };
    let items = pull(&mut c, json!([]));
    let pages = [
        "c.md",
        "dup/x.md",
        "folder/one.md",
        "folder/two.md",
        "hub.md",
        "index.md",
        "notes/a.md",
        "notes/b.md",
        "other/x.md",
    ];
    assert_eq!(
        items.keys().collect::<Vec<_>>(),
        pages,
        "every page, and only pages"
    );
    assert_eq!(
        codes_of(&items["notes/b.md"]["items"]),
        ["broken-link", "broken-fragment"]
    );
    assert_eq!(
        items["notes/b.md"]["items"][0]["range"],
        json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 26}})
    );
    assert_eq!(codes_of(&items["c.md"]["items"]), ["ambiguous-link"]);
    assert_eq!(codes_of(&items["hub.md"]["items"]), Vec::<String>::new());
    assert!(items
        .values()
        .all(|i| i["kind"] == "full" && i["version"].is_null()));
    // Asked again with the ids held: nothing changed.
    let held: Vec<Value> = items
        .values()
        .map(|i| json!({"uri": i["uri"], "value": i["resultId"]}))
        .collect();
    let again = pull(&mut c, json!(held));
    assert!(
        again.values().all(|i| i["kind"] == "unchanged"),
        "{again:?}"
    );
    // An open buffer is reported from its text, with its version.
    c.open(&root, "notes/b.md");
    c.change("notes/b.md", 2, "# B\n\n[[hub#Nowhere]]\n");
    let after = pull(&mut c, json!(held));
    assert_eq!(after["notes/b.md"]["kind"], "full");
    assert_eq!(after["notes/b.md"]["version"], 2);
    assert_eq!(codes_of(&after["notes/b.md"]["items"]), ["broken-fragment"]);
    // One page, open or not.
    let doc = json!({"textDocument": {"uri": c.uri("c.md")}});
    let report = c.result("textDocument/diagnostic", doc.clone());
    assert_eq!(report["kind"], "full");
    assert_eq!(codes_of(&report["items"]), ["ambiguous-link"]);
    let mut held = doc.clone();
    held["previousResultId"] = report["resultId"].clone();
    assert_eq!(
        c.result("textDocument/diagnostic", held)["kind"],
        "unchanged"
    );
    // Bad input: outside the root, or no such file.
    for uri in ["file:///elsewhere/x.md".to_string(), c.uri("nowhere.md")] {
        let response = c.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(response["error"]["code"], -32602, "{response}");
    }
    c.shutdown();
}

#[test]
fn an_editor_that_pulls_diagnostics_is_told_to_pull_again_rather_than_pushed() {
    let (_dir, root) = fixture();
    let pulling = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}},
    });
    let mut c = Client::start_able(&root, &["--root", root.to_str().unwrap()], pulling);
    c.open(&root, "notes/b.md");
    c.change("notes/b.md", 2, "# B\n\n[[missing page]]\n");
    let doc = json!({"textDocument": {"uri": c.uri("notes/b.md")}});
    let report = c.result("textDocument/diagnostic", doc.clone());
    assert_eq!(codes_of(&report["items"]), ["broken-link"]);
    assert!(
        !c.notifications
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"),
        "diagnostics pushed as well as pulled: {:?}",
        c.notifications
    );
    // A file created on disk: the editor is told to pull again, and the link is mended.
    std::fs::write(root.join("missing page.md"), "# Missing\n").unwrap();
    c.wait_for("a refresh", WAIT, |m| {
        m["method"] == "workspace/diagnostic/refresh"
    });
    let report = c.result("textDocument/diagnostic", doc);
    assert_eq!(codes_of(&report["items"]), Vec::<String>::new());
    c.shutdown();
}
