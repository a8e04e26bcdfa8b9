//! Webhooks with the real binary: `[webhooks] enabled = true` starts; a write is delivered to
//! a receiver on loopback, signed so that the `standardwebhooks` crate verifies it; and a
//! delivery whose receiver was down survives a stop and a restart of the server.

mod support;

use std::time::{Duration, Instant};

use quire_testkit::receiver::{Received, Receiver};
use support::{write_config, Server};

const ADMIN: &str = "admin-key-0123";

fn configure(root: &std::path::Path) {
    write_config(
        root,
        &format!(
            "[webhooks]\nenabled = true\nmax_workers = 2\nmax_retries = 3\n\
             [auth]\ntype = \"apikey\"\napi_key = \"{ADMIN}\"\n"
        ),
    );
}

fn register(server: &Server, url: &str) -> serde_json::Value {
    let reply = ureq::post(&format!("{}/webhooks", server.base))
        .set("authorization", &format!("Bearer {ADMIN}"))
        .send_json(serde_json::json!({"url": url}))
        .expect("registered");
    assert_eq!(reply.status(), 201);
    reply.into_json().unwrap()
}

fn write(server: &Server, path: &str) {
    let reply = ureq::put(&format!("{}/file?path={path}", server.base))
        .set("authorization", &format!("Bearer {ADMIN}"))
        .set("x-actor", "dana")
        .send_string("# Page\n")
        .expect("written");
    assert_eq!(reply.status(), 200);
}

fn verify(secret: &str, got: &Received) {
    let mut headers = http::HeaderMap::new();
    for (name, value) in &got.headers {
        headers.append(
            http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    standardwebhooks::Webhook::new(secret)
        .unwrap()
        .verify(&got.body, &headers)
        .expect("the signature verifies with standardwebhooks");
}

fn wait_for_log(server: &Server, needle: &str) {
    let started = Instant::now();
    while !server.log().contains(needle) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{needle:?} not logged:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn metrics(server: &Server) -> String {
    ureq::get(&format!("{}/metrics", server.host))
        .call()
        .unwrap()
        .into_string()
        .unwrap()
}

#[test]
fn a_write_is_delivered_signed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    configure(&root);
    let receiver = Receiver::start();
    let server = Server::start(&root, &[]);
    let hook = register(&server, &receiver.url());
    let secret = hook["secret"].as_str().unwrap();
    write(&server, "notes/a.md");
    let got = receiver.wait_for(1, Duration::from_secs(30));
    assert_eq!(got.len(), 1, "{}", server.log());
    verify(secret, &got[0]);
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body["type"], "write");
    assert_eq!(body["path"], "notes/a.md");
    assert_eq!(body["actor"], "dana");
    let started = Instant::now();
    while !metrics(&server).contains("quire_webhook_deliveries_total{space=\"default\"} 1") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{}",
            metrics(&server)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!server.log().contains(secret), "the secret is never logged");
}

#[test]
fn a_delivery_to_a_receiver_that_was_down_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    configure(&root);
    let port = Receiver::free_port();
    let url = format!("http://127.0.0.1:{port}/hook");

    let mut server = Server::start(&root, &[]);
    let secret = register(&server, &url)["secret"]
        .as_str()
        .unwrap()
        .to_string();
    write(&server, "a.md");
    // Nobody listens: the first attempt fails and a retry is scheduled (about 5 s later).
    wait_for_log(&server, "webhook delivery attempt 1 failed");
    server.terminate(Duration::from_secs(20));
    drop(server);

    let receiver = Receiver::on(port).expect("the port is still free");
    let server = Server::start(&root, &[]);
    let got = receiver.wait_for(1, Duration::from_secs(30));
    assert_eq!(
        got.len(),
        1,
        "not delivered after the restart:\n{}",
        server.log()
    );
    verify(&secret, &got[0]);
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body["path"], "a.md");
    assert_eq!(body["type"], "write");
    // The registration survived too, still without its secret in the list.
    let listed: serde_json::Value = ureq::get(&format!("{}/webhooks", server.base))
        .set("authorization", &format!("Bearer {ADMIN}"))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert!(listed[0].get("secret").is_none());
    // The queue and the secrets stay out of git.
    assert!(root.join(".quire/state/webhooks.db").exists());
    let repo = git2::Repository::open(&root).unwrap();
    assert!(repo
        .status_should_ignore(std::path::Path::new(".quire/state/webhooks.db"))
        .unwrap());
}
