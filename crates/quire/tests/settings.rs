//! Settings with the real binary: each is acted on (`[server] host`, `port`, `public_url`, the
//! CORS table, `[protocols.mcp]`, `[claims] default_lease`, `[analytics] stale_days`) or
//! stops the start with a message naming it and what will build it. The table of every key
//! and its evidence is the coverage test of `cmd/preflight.rs`.

mod support;

use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use support::{serve_refused, text, write_config, Server};

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

fn json(req: ureq::Request, body: Option<&str>) -> Value {
    let (status, body) = call(req, body);
    assert!((200..300).contains(&status), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn the_addresses_to_listen_on_come_from_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let (port, mcp) = (free_port(), free_port());
    write_config(
        &root,
        &format!("[server]\nhost = \"127.0.0.2\"\nport = {port}\n[protocols.mcp]\nport = {mcp}\n"),
    );
    let server = Server::start_args(&root, &[], &[]);
    assert_eq!(server.host, format!("http://127.0.0.2:{port}"));
    let (status, _) = call(ureq::get(&format!("{}/health", server.host)), None);
    assert_eq!(status, 200);
    let started = Instant::now();
    while !server.log().contains("MCP listening") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        server
            .log()
            .contains(&format!("MCP listening on http://127.0.0.2:{mcp}/mcp")),
        "{}",
        server.log()
    );
    drop(server);

    // `[protocols.mcp] enabled = false`: no listener of its own.
    write_config(
        &root,
        &format!("[server]\nport = {port}\n[protocols.mcp]\nenabled = false\nport = {mcp}\n"),
    );
    let server = Server::start_args(&root, &[], &[]);
    assert_eq!(server.host, format!("http://127.0.0.1:{port}"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!server.log().contains("MCP listening"), "{}", server.log());
    assert!(std::net::TcpStream::connect(("127.0.0.1", mcp)).is_err());
}

#[test]
fn the_versioning_strategy_comes_from_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(&root, "[versioning]\nstrategy = \"none\"\n");
    let server = Server::start(&root, &[]);
    let put = call(
        ureq::put(&format!("{}/file?path=a.md", server.base)),
        Some("# A\n"),
    );
    assert_eq!(put.0, 200, "{}", put.1);
    let (status, body) = call(
        ureq::get(&format!("{}/versions?path=a.md", server.base)),
        None,
    );
    assert_eq!(status, 501, "{body}");
    assert!(!root.join(".git").exists(), "no repository without history");
}

#[test]
fn share_links_published_pages_and_feeds_use_the_public_url() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        "[server]\npublic_url = \"https://kb.example.com/wiki/\"\n",
    );
    let server = Server::start(&root, &[]);
    let put = call(
        ureq::put(&format!("{}/file?path=notes/page.md", server.base)),
        Some("# Page\n"),
    );
    assert_eq!(put.0, 200, "{}", put.1);

    let share = json(
        ureq::post(&format!("{}/share", server.base))
            .set("content-type", "application/json")
            .set("x-actor", "alice"),
        Some(r#"{"path": "notes/page.md"}"#),
    );
    let url = share["url"].as_str().unwrap();
    let token = share["token"].as_str().unwrap();
    assert_eq!(
        url,
        format!("https://kb.example.com/wiki/api/quire/default/public/{token}")
    );

    let published = json(
        ureq::post(&format!("{}/publish", server.base)).set("content-type", "application/json"),
        Some(r#"{"path": "notes/page.md"}"#),
    );
    assert_eq!(published["url"], "https://kb.example.com/wiki/p/notes/page");
    let list = json(ureq::get(&format!("{}/publish/list", server.base)), None);
    assert_eq!(
        list["pages"][0]["url"],
        "https://kb.example.com/wiki/p/notes/page"
    );

    // Whatever Host the proxy forwards, the feeds link to the public address.
    let feed = json(
        ureq::get(&format!("{}/feed.json", server.base)).set("host", "10.0.0.7:3333"),
        None,
    );
    assert_eq!(
        feed["home_page_url"],
        "https://kb.example.com/wiki/api/quire/default"
    );
    assert_eq!(
        feed["feed_url"],
        "https://kb.example.com/wiki/api/quire/default/feed.json"
    );
    let item = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["url"].as_str().is_some_and(|u| u.contains("page.md")))
        .expect("the write is an item");
    assert_eq!(
        item["url"],
        "https://kb.example.com/wiki/api/quire/default/file?path=notes/page.md"
    );
    let (status, atom) = call(
        ureq::get(&format!("{}/feed.atom", server.base)).set("host", "10.0.0.7:3333"),
        None,
    );
    assert_eq!(status, 200);
    assert!(
        atom.contains("href=\"https://kb.example.com/wiki/api/quire/default/feed.atom\""),
        "{atom}"
    );
    assert!(!atom.contains("10.0.0.7"), "{atom}");
}

#[test]
fn without_a_public_url_links_follow_the_address_the_client_used() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start(&root, &[]);
    call(
        ureq::put(&format!("{}/file?path=page.md", server.base)),
        Some("# Page\n"),
    );
    let share = json(
        ureq::post(&format!("{}/share", server.base))
            .set("content-type", "application/json")
            .set("x-actor", "alice"),
        Some(r#"{"path": "page.md"}"#),
    );
    assert!(
        share["url"]
            .as_str()
            .unwrap()
            .starts_with("/api/quire/default/public/"),
        "{share}"
    );
    let feed = json(
        ureq::get(&format!("{}/feed.json", server.base)).set("host", "kb.local:8080"),
        None,
    );
    assert_eq!(
        feed["home_page_url"],
        "http://kb.local:8080/api/quire/default"
    );
}

#[test]
fn a_public_url_that_is_no_http_url_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(&root, "[server]\npublic_url = \"kb.example.com\"\n");
    let out = serve_refused(&root, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("server.public_url"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn cors_settings_shape_the_preflight_answer() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        "[server.cors]\nallowed_origins = [\"https://app.example.com\"]\n\
         allowed_methods = [\"GET\"]\nallow_credentials = true\nmax_age = 60\n",
    );
    let server = Server::start(&root, &[]);
    let url = format!("{}/file?path=a.md", server.base);
    let preflight = |method: &str| match ureq::request("OPTIONS", &url)
        .set("Origin", "https://app.example.com")
        .set("Access-Control-Request-Method", method)
        .call()
    {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{e}"),
    };
    let get = preflight("GET");
    assert_eq!(
        get.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    assert_eq!(get.header("access-control-allow-credentials"), Some("true"));
    assert_eq!(get.header("access-control-max-age"), Some("60"));
    let methods = get.header("access-control-allow-methods").unwrap_or("");
    assert!(
        methods.contains("GET") && !methods.contains("PUT"),
        "{methods}"
    );
}

#[test]
fn a_claim_without_a_lease_gets_the_configured_default_lease() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(&root, "[claims]\ndefault_lease = \"2h\"\n");
    let server = Server::start(&root, &[]);
    let claim = json(
        ureq::post(&format!("{}/claim", server.base))
            .set("content-type", "application/json")
            .set("x-actor", "alice"),
        Some(r#"{"path": "notes/plan.md"}"#),
    );
    assert_eq!(claim["lease_duration"], "2h", "{claim}");
    // A lease asked for still wins.
    let claim = json(
        ureq::post(&format!("{}/claim", server.base))
            .set("content-type", "application/json")
            .set("x-actor", "alice"),
        Some(r#"{"path": "notes/other.md", "lease_duration": "5m"}"#),
    );
    assert_eq!(claim["lease_duration"], "5m", "{claim}");
}

/// Writes `path` with a modification time `days` ago.
fn old_page(root: &std::path::Path, path: &str, days: u64) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!("# {path}\n\nSome words here.\n")).unwrap();
    let then = SystemTime::now() - Duration::from_secs(days * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(then)
        .unwrap();
}

/// `GET url`, answered once the catalog is built (503 until then).
fn when_ready(url: &str) -> Value {
    let started = Instant::now();
    loop {
        let (status, body) = call(ureq::get(url), None);
        if status != 503 {
            assert_eq!(status, 200, "{body}");
            return serde_json::from_str(&body).unwrap();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{body}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_dashboard_counts_pages_untouched_for_analytics_stale_days() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    old_page(&root, "old.md", 40);
    old_page(&root, "older.md", 100);
    old_page(&root, "fresh.md", 1);
    write_config(&root, "[analytics]\nstale_days = 60\n");
    let server = Server::start(&root, &[]);
    let dashboard = when_ready(&format!("{}/analytics", server.base));
    assert_eq!(dashboard["stale_pages"], 1, "{dashboard}");
    let health = when_ready(&format!("{}/health-check?path=older.md", server.base));
    assert!(
        health["issues"].as_array().unwrap().iter().any(
            |i| i["type"] == "stale" && i["message"].as_str().unwrap().contains("not modified")
        ),
        "{health}"
    );
    drop(server);

    // The default, 30 days, counts both old pages.
    write_config(&root, "");
    let server = Server::start(&root, &[]);
    let dashboard = when_ready(&format!("{}/analytics", server.base));
    assert_eq!(dashboard["stale_pages"], 2, "{dashboard}");
    drop(server);

    // 0: only review-by dates make a page stale.
    write_config(&root, "[analytics]\nstale_days = 0\n");
    let server = Server::start(&root, &[]);
    let dashboard = when_ready(&format!("{}/analytics", server.base));
    assert_eq!(dashboard["stale_pages"], 0, "{dashboard}");
}

#[test]
fn settings_not_built_yet_stop_the_start_naming_the_key_and_what_builds_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"pinecone\"\n",
            "search.vector.store.provider",
            "not built",
        ),
        (
            "[protocols.s3]\nenabled = true\n",
            "protocols.s3.enabled",
            "secret_key",
        ),
        (
            "[dataview.custom_fields]\npriority = \"number\"\n",
            "dataview.custom_fields",
            "not built",
        ),
        (
            "[backup]\nremote = \"git@example.com:me/kb.git\"\n",
            "backup.remote",
            "local",
        ),
    ];
    for (i, (config, key, says)) in cases.iter().enumerate() {
        let root = dir.path().join(format!("kb{i}"));
        write_config(&root, config);
        let out = serve_refused(&root, &[]);
        assert!(!out.status.success(), "{config}");
        let err = text(&out.stderr);
        assert!(err.contains("refusing to start"), "{config}: {err}");
        assert!(err.contains(key) && err.contains(says), "{config}: {err}");
        assert!(
            !root.join(".git").exists(),
            "{config}: the root was opened before the refusal"
        );
    }
}
