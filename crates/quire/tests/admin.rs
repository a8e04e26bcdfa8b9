//! Operating quire for a team, with the real binary: `quire token create|list|revoke`, keys
//! reloaded by SIGHUP while an event stream stays open, the audit log, the rate limit and
//! `/metrics`.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use support::{quire, status_of, text, write_config, Server};

const ADMIN: &str = "admin-key-0123";

fn token(root: &Path, args: &[&str]) -> serde_json::Value {
    let out = quire()
        .args(["token", "create", "--json", "--root"])
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Waits until the server logged `needle` `count` times.
fn wait_for_log(server: &Server, needle: &str, count: usize) {
    let started = Instant::now();
    while server.log().matches(needle).count() < count {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no {needle:?} in the log:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn get(url: &str, key: &str) -> u16 {
    status_of(
        ureq::get(url)
            .set("authorization", &format!("Bearer {key}"))
            .call(),
    )
}

fn put(url: &str, key: &str, body: &str) -> u16 {
    status_of(
        ureq::put(url)
            .set("authorization", &format!("Bearer {key}"))
            .send_string(body),
    )
}

/// An SSE stream opened with a raw socket, so the test sees exactly when it closes.
struct Stream {
    reader: BufReader<TcpStream>,
}

impl Stream {
    fn open(host: &str, key: &str) -> Stream {
        let addr = host.trim_start_matches("http://");
        let mut socket = TcpStream::connect(addr).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            socket,
            "GET /api/quire/events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\
             Accept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        let mut reader = BufReader::new(socket);
        let mut status = String::new();
        reader.read_line(&mut status).unwrap();
        assert!(status.contains(" 200 "), "{status}");
        Stream { reader }
    }

    /// Reads until a line contains `needle`; panics when the stream ends first.
    fn expect(&mut self, needle: &str) {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.reader.read_line(&mut line).expect("stream readable");
            assert!(n > 0, "the event stream closed before {needle:?}");
            if line.contains(needle) {
                return;
            }
        }
    }
}

#[test]
fn tokens_are_created_listed_and_revoked_and_sighup_reloads_them_live() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        &format!("# the team's server\n[auth]\ntype = \"apikey\"\napi_key = \"{ADMIN}\"\n"),
    );
    let server = Server::start(&root, &["--no-mcp"]);
    let tree = format!("{}/tree", server.base);
    let file = format!("{}/file?path=notes/a.md", server.base);
    let mut events = Stream::open(&server.host, ADMIN);

    // Created while the server runs: the command signals it, the token works at once.
    let reader = token(&root, &["--scope", "read", "--actor", "ann"]);
    let secret = reader["token"].as_str().unwrap().to_string();
    let id = reader["id"].as_str().unwrap().to_string();
    assert!(secret.starts_with(&format!("quire_{id}_")));
    wait_for_log(&server, "authentication reloaded", 1);
    assert_eq!(get(&tree, &secret), 200);
    assert_eq!(put(&file, &secret, "# A\n"), 403);
    assert!(!root.join("notes/a.md").exists());

    // Only a hash is stored; comments of the file are kept.
    let config = std::fs::read_to_string(root.join(".quire/config.toml")).unwrap();
    assert!(!config.contains(&secret[10..]), "{config}");
    assert!(config.contains("key_hash = \"$argon2id$"), "{config}");
    assert!(config.contains("# the team's server"));

    let writer = token(&root, &["--scope", "write"]);
    let writer = writer["token"].as_str().unwrap().to_string();
    wait_for_log(&server, "authentication reloaded", 2);
    assert_eq!(put(&file, &writer, "# A\n"), 200);

    // The stream opened before both reloads still delivers.
    events.expect("notes/a.md");

    let out = quire()
        .args(["token", "list", "--json", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["scope"], "read");
    assert_eq!(listed[0]["actor"], "ann");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(&secret));

    let out = quire()
        .args(["token", "revoke", &id, "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    wait_for_log(&server, "authentication reloaded", 3);
    assert_eq!(get(&tree, &secret), 401);
    assert_eq!(
        put(
            &format!("{}/file?path=notes/b.md", server.base),
            &writer,
            "# B\n"
        ),
        200
    );
    events.expect("notes/b.md");

    // A key added by hand and a plain `kill -HUP`.
    let config = std::fs::read_to_string(root.join(".quire/config.toml")).unwrap();
    std::fs::write(
        root.join(".quire/config.toml"),
        format!("{config}\n[[auth.api_keys]]\nkey = \"hand-made-key\"\nscope = \"read\"\n"),
    )
    .unwrap();
    assert_eq!(get(&tree, "hand-made-key"), 401);
    let hup = std::process::Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    wait_for_log(&server, "authentication reloaded", 4);
    assert_eq!(get(&tree, "hand-made-key"), 200);

    // A broken configuration keeps the running keys (never a weaker policy).
    std::fs::write(
        root.join(".quire/config.toml"),
        "[auth]\ntype = \"perspace\"\n",
    )
    .unwrap();
    std::process::Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    wait_for_log(&server, "authentication not reloaded", 1);
    assert_eq!(get(&tree, "hand-made-key"), 200);
    assert_eq!(get(&tree, "wrong"), 401);

    // Secrets never reach the log.
    let log = server.log();
    for secret in [ADMIN, secret.as_str(), writer.as_str(), "hand-made-key"] {
        assert!(!log.contains(secret), "{secret} in the log");
    }
    let mut rest = Vec::new();
    let _ = events
        .reader
        .get_mut()
        .set_read_timeout(Some(Duration::from_millis(10)));
    let _ = events.reader.read_to_end(&mut rest);
}

#[test]
fn token_create_refuses_an_unknown_space_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(&root, "[auth]\ntype = \"apikey\"\napi_key = \"k\"\n");
    let before = std::fs::read_to_string(root.join(".quire/config.toml")).unwrap();
    let out = quire()
        .args([
            "token", "create", "--scope", "read", "--space", "nope", "--root",
        ])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nope"));
    let out = quire()
        .args(["token", "revoke", "deadbeef", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("deadbeef"));
    let after = std::fs::read_to_string(root.join(".quire/config.toml")).unwrap();
    assert_eq!(before, after);
}
