//! `quire serve` as an operator starts it: the configured protection is enforced or the start
//! is refused, and the default listens on loopback only.

mod support;

use std::time::Duration;

use support::{serve_refused, status_of, text, write_config, Server};

const KEY: &str = "k3y-that-must-stay-secret-7f1c";
const WRONG: &str = "wrong-key-that-must-stay-secret-2b9a";

#[test]
fn apikey_auth_is_enforced_and_the_key_never_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        "[auth]\ntype = \"apikey\"\napi_key = \"${TEST_QUIRE_KEY}\"\n",
    );
    let mut server = Server::start_with(&root, &[], &[("TEST_QUIRE_KEY", KEY)]);
    let url = format!("{}/file?path=secret.md", server.base);

    let anonymous = ureq::put(&url).send_string("# no\n");
    assert_eq!(status_of(anonymous), 401);
    let wrong = ureq::put(&url)
        .set("Authorization", &format!("Bearer {WRONG}"))
        .send_string("# no\n");
    assert_eq!(status_of(wrong), 401);
    assert!(!root.join("secret.md").exists(), "nothing was written");
    assert_eq!(status_of(ureq::get(&url).call()), 401);

    let ok = ureq::put(&url)
        .set("Authorization", &format!("Bearer {KEY}"))
        .set("X-Actor", "alice")
        .send_string("# yes\n");
    assert_eq!(status_of(ok), 200);
    let body = ureq::get(&url)
        .set("Authorization", &format!("Bearer {KEY}"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert_eq!(body, "# yes\n");

    // Probes stay open.
    assert_eq!(
        status_of(ureq::get(&format!("{}/health", server.host)).call()),
        200
    );
    assert_eq!(
        status_of(ureq::get(&format!("{}/readyz", server.host)).call()),
        200
    );

    server.terminate(Duration::from_secs(10));
    let log = server.log();
    assert!(log.contains("request denied"), "denials are logged:\n{log}");
    assert!(!log.contains(KEY), "the key leaked into the log:\n{log}");
    assert!(!log.contains(WRONG), "a presented key leaked:\n{log}");
}

#[test]
fn quire_api_key_in_the_environment_switches_auth_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start_with(&root, &[], &[("QUIRE_API_KEY", KEY)]);
    let url = format!("{}/tree", server.base);
    assert_eq!(status_of(ureq::get(&url).call()), 401);
    let ok = ureq::get(&url)
        .set("Authorization", &format!("Bearer {KEY}"))
        .call();
    assert_eq!(status_of(ok), 200);
}

#[test]
fn oidc_with_an_unreachable_issuer_refuses_to_start_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    // A loopback port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    write_config(
        &root,
        &format!(
            "[auth]\ntype = \"oidc\"\nissuer = \"http://127.0.0.1:{port}/realm\"\nclient_id = \"quire\"\n"
        ),
    );
    let out = serve_refused(&root, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("auth.issuer"), "{stderr}");
    assert!(stderr.contains("discovery document"), "{stderr}");
    assert!(
        !root.join(".git").exists(),
        "a refused start touches nothing"
    );
}

#[test]
fn a_perspace_key_for_an_unknown_space_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        "[auth]\ntype = \"perspace\"\n[[auth.api_keys]]\nkey = \"abc\"\nspace = \"wrok\"\n",
    );
    let out = serve_refused(&root, &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("auth.api_keys[0].space"), "{stderr}");
}

#[test]
fn a_backup_remote_this_build_cannot_reach_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(&root, "[backup]\nremote = \"git@example.com:kb.git\"\n");
    let out = serve_refused(&root, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("backup.remote"), "{stderr}");
    assert!(
        !root.join(".git").exists(),
        "a refused start touches nothing"
    );
}

#[test]
fn cors_answers_preflight_for_configured_origins_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    write_config(
        &root,
        "[server]\ncors_origins = [\"https://app.example.com\"]\n",
    );
    let server = Server::start(&root, &[]);
    let url = format!("{}/file?path=a.md", server.base);
    let allowed = ureq::request("OPTIONS", &url)
        .set("Origin", "https://app.example.com")
        .set("Access-Control-Request-Method", "PUT")
        .call()
        .unwrap();
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    let other = ureq::request("OPTIONS", &url)
        .set("Origin", "https://evil.example.com")
        .set("Access-Control-Request-Method", "PUT")
        .call();
    let allow = match other {
        Ok(r) => r.header("access-control-allow-origin").map(str::to_string),
        Err(ureq::Error::Status(_, r)) => {
            r.header("access-control-allow-origin").map(str::to_string)
        }
        Err(e) => panic!("{e}"),
    };
    assert_eq!(allow, None);
}

#[test]
fn the_default_bind_address_is_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start(&root, &[]);
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    assert!(!server.log().contains("anyone who can reach"));
}

#[test]
fn listening_on_every_interface_without_auth_warns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    let server = Server::start(&root, &["--host", "0.0.0.0"]);
    // The warning is printed right after the address.
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        server.log().contains("anyone who can reach"),
        "{}",
        server.log()
    );
}
