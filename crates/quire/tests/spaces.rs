//! Spaces with the real binary: a space added through the API is isolated from the default
//! space (files, search, git, every route for a key of the other space), comes back after a
//! restart, and SIGHUP reloads keys, the rate limit and visibility while naming what it
//! cannot reload.

mod support;

use std::time::{Duration, Instant};

use support::{status_of, write_config, Server};

const ADMIN: &str = "root-admin-0123";

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

fn hangup(server: &Server) {
    let status = std::process::Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn request(method: &str, url: &str, key: &str) -> ureq::Request {
    ureq::request(method, url).set("authorization", &format!("Bearer {key}"))
}

/// Status and body of a request.
fn call(req: ureq::Request, body: Option<&str>) -> (u16, String) {
    let result = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    match result {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
        Err(e) => panic!("transport error: {e}"),
    }
}

fn listed(server: &Server, key: &str) -> Vec<String> {
    let (status, body) = call(
        request("GET", &format!("{}/api/spaces", server.host), key),
        None,
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["spaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn paths_in_head(root: &std::path::Path) -> Vec<String> {
    let repo = git2::Repository::open(root).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let mut out = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        out.push(format!("{dir}{}", entry.name().unwrap_or("")));
        git2::TreeWalkResult::Ok
    })
    .unwrap();
    out
}

#[test]
fn an_added_space_is_isolated_and_comes_back_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let team = dir.path().join("team");
    write_config(
        &main,
        &format!(
            "[auth]\ntype = \"apikey\"\napi_key = \"{ADMIN}\"\n\
             [[auth.api_keys]]\nkey = \"key-a\"\nspace = \"default\"\n"
        ),
    );
    let mut server = Server::start(&main, &[]);
    let (status, body) = call(
        request("POST", &format!("{}/api/spaces", server.host), ADMIN)
            .set("content-type", "application/json"),
        Some(&serde_json::json!({"name": "team", "root": team}).to_string()),
    );
    assert_eq!(status, 201, "{body}");

    // A key for the new space: written to the configuration, live after SIGHUP.
    let config = std::fs::read_to_string(main.join(".quire/config.toml")).unwrap();
    std::fs::write(
        main.join(".quire/config.toml"),
        format!("{config}[[auth.api_keys]]\nkey = \"key-b\"\nspace = \"team\"\n"),
    )
    .unwrap();
    hangup(&server);
    wait_for_log(&server, "authentication reloaded", 1);

    let a_file = format!("{}/file?path=secret-a.md", server.base);
    let b_file = format!("{}/team/file?path=b.md", server.base);
    assert_eq!(
        call(
            request("PUT", &a_file, "key-a"),
            Some("# Alpha secret\nzebra\n")
        )
        .0,
        200
    );
    assert_eq!(
        call(request("PUT", &b_file, "key-b"), Some("# Beta\nyak\n")).0,
        200
    );
    // Each key opens its own space only.
    assert_eq!(call(request("GET", &b_file, "key-a"), None).0, 403);
    assert_eq!(call(request("GET", &a_file, "key-b"), None).0, 403);
    assert_eq!(listed(&server, "key-a"), ["default"]);
    assert_eq!(listed(&server, "key-b"), ["team"]);
    assert_eq!(listed(&server, ADMIN), ["default", "team"]);

    // A write in one space never shows in the other: tree, search, git.
    let (status, tree) = call(
        request("GET", &format!("{}/team/tree", server.base), "key-b"),
        None,
    );
    assert_eq!(status, 200);
    assert!(
        tree.contains("b.md") && !tree.contains("secret-a"),
        "{tree}"
    );
    let search = |space: &str, q: &str, key: &str| {
        let url = format!("{}/{space}/search?q={q}", server.base);
        let started = Instant::now();
        loop {
            let (status, body) = call(request("GET", &url, key), None);
            if status != 503 {
                assert_eq!(status, 200, "{body}");
                return body;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "index not ready"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    assert!(search("team", "yak", "key-b").contains("b.md"));
    assert!(!search("team", "zebra", "key-b").contains("secret-a"));
    assert!(search("default", "zebra", "key-a").contains("secret-a"));
    assert!(!search("default", "yak", "key-a").contains("b.md"));
    server.terminate(Duration::from_secs(15));
    let team_paths = paths_in_head(&team);
    assert!(team_paths.iter().any(|p| p == "b.md"), "{team_paths:?}");
    assert!(!team_paths.iter().any(|p| p.contains("secret")));
    let main_paths = paths_in_head(&main);
    assert!(main_paths.iter().any(|p| p == "secret-a.md"));
    assert!(main_paths.iter().any(|p| p == ".quire/spaces.json"));
    assert!(!main_paths.iter().any(|p| p == "b.md"));

    // Restarted: the space is back, keys naming it are valid at start.
    let server = Server::start(&main, &[]);
    assert_eq!(listed(&server, ADMIN), ["default", "team"]);
    let b_file = format!("{}/team/file?path=b.md", server.base);
    let (status, body) = call(request("GET", &b_file, "key-b"), None);
    assert_eq!((status, body.as_str()), (200, "# Beta\nyak\n"));

    // Every route of the router, addressed to `team` with the key of `default`: 403.
    let mut checked = 0;
    for (method, route) in quire_http::route_list() {
        if quire_http::auth::is_public(&route) || route == "/api/spaces" {
            continue;
        }
        let mut uri = route.replace("{space}", "team").replace("{name}", "team");
        let by_header = route.starts_with(quire_http::BASE_PATH) && !route.contains("{space}");
        // Other parameters of the template get some value.
        while let (Some(open), Some(close)) = (uri.find('{'), uri.find('}')) {
            uri.replace_range(open..=close, "x");
        }
        let mut req = request(method.as_str(), &format!("{}{uri}", server.host), "key-a");
        if by_header {
            req = req.set("x-quire-space", "team");
        }
        let status = status_of(req.call());
        assert_eq!(status, 403, "{method} {uri} (header: {by_header})");
        checked += 1;
    }
    assert!(checked > 80, "{checked}");
    // MCP too: the gate admits the key for its own space only.
    let mcp = request("POST", &format!("{}/mcp", server.host), "key-a")
        .set("x-quire-space", "team")
        .set("content-type", "application/json")
        .set("accept", "application/json, text/event-stream");
    assert_eq!(call(mcp, Some("{}")).0, 403);
}

#[test]
fn sighup_reloads_the_rate_limit_keeps_the_old_settings_when_the_new_ones_fail_and_names_the_rest()
{
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let base = format!("[auth]\ntype = \"apikey\"\napi_key = \"{ADMIN}\"\n");
    write_config(&main, &base);
    let server = Server::start(&main, &["--no-mcp"]);
    let tree = format!("{}/tree", server.base);
    for _ in 0..5 {
        assert_eq!(call(request("GET", &tree, ADMIN), None).0, 200);
    }
    write_config(
        &main,
        &format!(
            "{base}[server]\ncors_origins = [\"https://kb.example.com\"]\n\
             [server.rate_limit]\nrequests_per_minute = 1\nburst_size = 2\n"
        ),
    );
    hangup(&server);
    wait_for_log(&server, "authentication reloaded", 1);
    wait_for_log(&server, "applied only at the next start: server.cors", 1);
    let statuses: Vec<u16> = (0..3)
        .map(|_| call(request("GET", &tree, ADMIN), None).0)
        .collect();
    assert_eq!(statuses, [200, 200, 429]);

    // A configuration that cannot be enforced changes nothing: the key and the limit stay.
    write_config(
        &main,
        "[auth]\ntype = \"perspace\"\n[[auth.api_keys]]\nkey = \"k\"\nspace = \"nowhere\"\n\
         [server.rate_limit]\nrequests_per_minute = 0\n",
    );
    hangup(&server);
    wait_for_log(&server, "authentication not reloaded", 1);
    assert_eq!(call(request("GET", &tree, ADMIN), None).0, 429);
    assert_eq!(call(request("GET", &tree, "k"), None).0, 401);
}

/// One JSON-RPC message to `/mcp` (streamable HTTP), answered as JSON or as one SSE event:
/// the session id and the answer.
fn mcp(
    server: &Server,
    session: Option<&str>,
    space: Option<&str>,
    message: serde_json::Value,
) -> (Option<String>, serde_json::Value) {
    let mut req = ureq::post(&format!("{}/mcp", server.host))
        .set("content-type", "application/json")
        .set("accept", "application/json, text/event-stream");
    if let Some(id) = session {
        req = req.set("mcp-session-id", id);
    }
    if let Some(space) = space {
        req = req.set("x-quire-space", space);
    }
    let reply = req.send_string(&message.to_string()).expect("MCP answers");
    let id = reply.header("mcp-session-id").map(str::to_string);
    let body = reply.into_string().unwrap();
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or(body.trim())
        .to_string();
    (
        id,
        serde_json::from_str(&json).unwrap_or(serde_json::Value::Null),
    )
}

#[test]
fn mcp_over_http_serves_the_space_its_header_names() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    write_config(
        &main,
        &format!(
            "[[spaces]]\nname = \"team\"\nroot = \"{}\"\n",
            dir.path().join("team").display()
        ),
    );
    std::fs::create_dir_all(dir.path().join("team")).unwrap();
    let server = Server::start(&main, &[]);
    assert_eq!(
        status_of(
            ureq::put(&format!("{}/team/file?path=only-team.md", server.base))
                .send_string("# Team only\n")
        ),
        200
    );
    let (session, init) = mcp(
        &server,
        None,
        None,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
    );
    assert!(init["result"].is_object(), "{init}");
    let session = session.expect("a session id");
    let _ = ureq::post(&format!("{}/mcp", server.host))
        .set("content-type", "application/json")
        .set("accept", "application/json, text/event-stream")
        .set("mcp-session-id", &session)
        .send_string(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let read = |space: Option<&str>| {
        mcp(
            &server,
            Some(&session),
            space,
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "quire_read", "arguments": {"path": "only-team.md"}}}),
        )
        .1
    };
    let in_team = read(Some("team"));
    assert_ne!(in_team["result"]["isError"], true, "{in_team}");
    assert!(in_team.to_string().contains("Team only"), "{in_team}");
    let in_default = read(None);
    assert_eq!(in_default["result"]["isError"], true, "{in_default}");
    let unknown = read(Some("nowhere"));
    assert!(
        unknown["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown space")),
        "{unknown}"
    );
}

#[test]
fn a_space_named_after_the_served_root_is_the_default_space_under_that_name() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let beta = dir.path().join("beta");
    std::fs::create_dir_all(&beta).unwrap();
    write_config(
        &main,
        &format!(
            "[[spaces]]\nname = \"alpha\"\nroot = \"{}\"\n\
             [[spaces]]\nname = \"beta\"\nroot = \"{}\"\n",
            main.display(),
            beta.display()
        ),
    );
    let server = Server::start(&main, &[]);
    let (status, body) = call(ureq::get(&format!("{}/api/spaces", server.host)), None);
    assert_eq!(status, 200, "{body}");
    let spaces: serde_json::Value = serde_json::from_str(&body).unwrap();
    let names: Vec<(&str, &str)> = spaces["spaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("alpha", "default"), ("beta", "config")], "{body}");

    // The named space and the unnamed routes reach the served root: one space, one lock.
    let put = |url: String, text: &str| call(ureq::put(&url), Some(text));
    assert_eq!(
        put(format!("{}/alpha/file?path=a.md", server.base), "# A\n").0,
        200
    );
    assert_eq!(
        put(format!("{}/file?path=b.md", server.base), "# B\n").0,
        200
    );
    assert!(main.join("a.md").is_file() && main.join("b.md").is_file());
    let (status, body) = call(
        ureq::get(&format!("{}/alpha/file?path=b.md", server.base)),
        None,
    );
    assert_eq!((status, body.as_str()), (200, "# B\n"));
    assert_eq!(
        put(format!("{}/beta/file?path=c.md", server.base), "# C\n").0,
        200
    );
    assert!(beta.join("c.md").is_file() && !main.join("c.md").exists());
}

#[test]
fn two_spaces_over_one_root_refuse_to_start_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let shared = dir.path().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    // The same folder written two ways: the second through a link.
    std::os::unix::fs::symlink(&shared, dir.path().join("link")).unwrap();
    write_config(
        &main,
        &format!(
            "[[spaces]]\nname = \"one\"\nroot = \"{}\"\n\
             [[spaces]]\nname = \"two\"\nroot = \"{}\"\n",
            shared.display(),
            dir.path().join("link").display()
        ),
    );
    let out = support::serve_refused(&main, &[]);
    assert!(!out.status.success());
    let err = support::text(&out.stderr);
    assert!(
        err.contains("\"one\"") && err.contains("\"two\"") && err.contains("same root"),
        "{err}"
    );
    assert!(!err.contains("in use"), "{err}");
}
