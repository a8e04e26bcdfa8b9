//! Delivery against a real receiver on loopback: signed as Standard Webhooks (checked with
//! the `standardwebhooks` crate), retried on 500, filtered by `path_glob`, given up after the
//! last retry and kept, and resumed by a new dispatcher after a stop.

use std::sync::Arc;
use std::time::Duration;

use quire_api::{DeliveryState, WebhookRequest};
use quire_service::{Service, WriteOptions};
use quire_testkit::receiver::{Received, Receiver};
use quire_webhooks::{Settings, Webhooks};

const WAIT: Duration = Duration::from_secs(20);

struct Fixture {
    dir: tempfile::TempDir,
    service: Arc<Service>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let service = open_service(dir.path());
    Fixture { dir, service }
}

fn open_service(root: &std::path::Path) -> Arc<Service> {
    let settings = quire_service::settings_from_config(root, &quire_config::Config::default());
    Arc::new(Service::open(settings).expect("service opens"))
}

/// Quick retries for tests: 40 ms, then 160 ms, 640 ms…
fn fast(max_retries: u32) -> Settings {
    Settings {
        max_workers: 2,
        max_retries,
        retry_base: Duration::from_millis(40),
        timeout: Duration::from_secs(5),
    }
}

fn register(hooks: &Webhooks, url: &str, glob: Option<&str>) -> quire_api::Webhook {
    hooks
        .space("default")
        .unwrap()
        .create(WebhookRequest {
            url: url.to_string(),
            path_glob: glob.map(str::to_string),
        })
        .expect("registered")
}

fn write(service: &Service, path: &str) {
    service
        .default_space()
        .files()
        .write(path, b"# Page\n".to_vec(), &WriteOptions::by("alice"))
        .expect("written");
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
        .expect("the secret is a Standard Webhooks secret")
        .verify(&got.body, &headers)
        .expect("the signature verifies");
}

fn body(got: &Received) -> serde_json::Value {
    serde_json::from_slice(&got.body).expect("JSON body")
}

#[test]
fn a_write_is_posted_signed_with_the_spec_body_and_headers() {
    let f = fixture();
    let receiver = Receiver::start();
    let hooks = Webhooks::open(&f.service, fast(3)).unwrap();
    hooks.start();
    let hook = register(&hooks, &receiver.url(), None);
    let secret = hook
        .secret
        .clone()
        .expect("the secret comes with the creation");
    assert!(secret.starts_with("whsec_"));
    assert_eq!(hook.path_glob, "**");
    assert!(hook.enabled);

    write(&f.service, "notes/a.md");
    let got = receiver.wait_for(1, WAIT);
    assert_eq!(got.len(), 1, "one delivery");
    let got = &got[0];
    assert_eq!(got.method, "POST");
    assert_eq!(got.target, "/hook");
    assert_eq!(got.header("content-type"), Some("application/json"));
    assert!(got.header("webhook-id").unwrap().starts_with("msg_"));
    let ts: i64 = got.header("webhook-timestamp").unwrap().parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - ts).abs() < 60);
    assert!(got.header("webhook-signature").unwrap().starts_with("v1,"));
    verify(&secret, got);
    let json = body(got);
    assert_eq!(json["type"], "write");
    assert_eq!(json["path"], "notes/a.md");
    assert_eq!(json["actor"], "alice");
    assert!(json["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(json.as_object().unwrap().len(), 4, "{json}");

    // A tampered body or another secret does not verify.
    let mut forged = got.clone();
    forged.body = br#"{"type":"delete"}"#.to_vec();
    let mut headers = http::HeaderMap::new();
    for (name, value) in &forged.headers {
        headers.append(
            http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    let wh = standardwebhooks::Webhook::new(&secret).unwrap();
    assert!(wh.verify(&forged.body, &headers).is_err());

    // Deletes are reported too; the queue is empty once delivered.
    f.service
        .default_space()
        .files()
        .delete("notes/a.md", &WriteOptions::by("bob"))
        .unwrap();
    let got = receiver.wait_for(2, WAIT);
    assert_eq!(body(&got[1])["type"], "delete");
    assert_eq!(body(&got[1])["actor"], "bob");
    verify(&secret, &got[1]);
    let space = hooks.space("default").unwrap();
    wait_until(|| space.metrics().delivered == 2);
    assert!(space.deliveries(&hook.id).unwrap().is_empty());
    hooks.stop(Duration::from_secs(2));
}

#[test]
fn a_receiver_failing_twice_gets_the_delivery_on_the_third_try() {
    let f = fixture();
    let receiver = Receiver::start();
    receiver.answer(&[500, 500]);
    let hooks = Webhooks::open(&f.service, fast(3)).unwrap();
    hooks.start();
    let hook = register(&hooks, &receiver.url(), None);
    write(&f.service, "a.md");
    let got = receiver.wait_for(3, WAIT);
    assert_eq!(
        got.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec![500, 500, 200]
    );
    // One message: the same id on every attempt, a fresh signature each time.
    let ids: Vec<_> = got
        .iter()
        .map(|r| r.header("webhook-id").unwrap())
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    for r in &got {
        verify(hook.secret.as_deref().unwrap(), r);
    }
    let space = hooks.space("default").unwrap();
    wait_until(|| space.metrics().delivered == 1);
    let m = space.metrics();
    assert_eq!((m.failed_attempts, m.gave_up, m.queued), (2, 0, 0));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.received().len(), 3, "nothing more after success");
    hooks.stop(Duration::from_secs(2));
}

#[test]
fn after_the_last_retry_a_delivery_is_kept_as_failed() {
    let f = fixture();
    let receiver = Receiver::start();
    receiver.answer(&[503, 500, 502]);
    let hooks = Webhooks::open(&f.service, fast(2)).unwrap();
    hooks.start();
    let hook = register(&hooks, &receiver.url(), None);
    write(&f.service, "a.md");
    let got = receiver.wait_for(3, WAIT);
    assert_eq!(got.len(), 3, "1 + max_retries attempts");
    let space = hooks.space("default").unwrap();
    wait_until(|| space.metrics().gave_up == 1);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        receiver.received().len(),
        3,
        "no attempt after the last retry"
    );
    let kept = space.deliveries(&hook.id).unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].state, DeliveryState::Failed);
    assert_eq!(kept[0].attempts, 3);
    assert_eq!(kept[0].last_error.as_deref(), Some("HTTP 502"));
    assert_eq!(kept[0].payload.path, "a.md");
    assert_eq!(kept[0].id, got[0].header("webhook-id").unwrap());
    let m = space.metrics();
    assert_eq!((m.failed, m.queued, m.failed_attempts), (1, 0, 3));
    // Deleting the webhook removes what was kept for it.
    space.delete(&hook.id).unwrap();
    assert_eq!(space.metrics().failed, 0);
    hooks.stop(Duration::from_secs(2));
}

#[test]
fn path_glob_picks_the_paths_and_bulk_is_sent_once_per_matching_path() {
    let f = fixture();
    let notes = Receiver::start();
    let top = Receiver::start();
    let hooks = Webhooks::open(&f.service, fast(3)).unwrap();
    hooks.start();
    register(&hooks, &notes.url(), Some("notes/**"));
    register(&hooks, &top.url(), Some("*.md"));
    f.service
        .default_space()
        .files()
        .bulk(
            vec![
                ("notes/a.md".into(), b"a".to_vec()),
                ("notes/deep/b.md".into(), b"b".to_vec()),
                ("c.md".into(), b"c".to_vec()),
                ("other/d.md".into(), b"d".to_vec()),
            ],
            &WriteOptions::by("carol"),
        )
        .unwrap();
    write(&f.service, "e.md");
    let mut paths: Vec<String> = notes
        .wait_for(2, WAIT)
        .iter()
        .map(|r| {
            let json = body(r);
            assert_eq!(json["type"], "bulk");
            assert_eq!(json["actor"], "carol");
            json["path"].as_str().unwrap().to_string()
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["notes/a.md", "notes/deep/b.md"]);
    let got = top.wait_for(2, WAIT);
    let mut seen: Vec<(String, String)> = got
        .iter()
        .map(|r| {
            let json = body(r);
            (
                json["path"].as_str().unwrap().to_string(),
                json["type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("c.md".to_string(), "bulk".to_string()),
            ("e.md".to_string(), "write".to_string())
        ]
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(notes.received().len(), 2);
    assert_eq!(top.received().len(), 2);
    hooks.stop(Duration::from_secs(2));
}

#[test]
fn deliveries_queued_while_stopped_are_sent_by_the_next_dispatcher() {
    let dir = tempfile::tempdir().unwrap();
    let port = Receiver::free_port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let secret;
    {
        let service = open_service(dir.path());
        let hooks = Webhooks::open(&service, fast(5)).unwrap();
        hooks.start();
        secret = register(&hooks, &url, None).secret.unwrap();
        // Nobody listens: the first attempt fails and a retry is scheduled.
        write(&service, "a.md");
        let space = hooks.space("default").unwrap();
        wait_until(|| space.metrics().failed_attempts >= 1);
        hooks.stop(Duration::from_secs(2));
        // Written after the stop: queued, not sent.
        write(&service, "b.md");
        assert_eq!(space.metrics().queued, 2);
        drop(hooks);
        Arc::try_unwrap(service)
            .ok()
            .expect("one owner")
            .close_for_exit();
    }
    let receiver = Receiver::on(port).expect("the port is free again");
    let service = open_service(dir.path());
    let hooks = Webhooks::open(&service, fast(5)).unwrap();
    let space = hooks.space("default").unwrap();
    assert_eq!(space.metrics().queued, 2, "the queue survived the restart");
    hooks.start();
    let got = receiver.wait_for(2, WAIT);
    let mut paths: Vec<String> = got
        .iter()
        .map(|r| {
            verify(&secret, r);
            body(r)["path"].as_str().unwrap().to_string()
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["a.md", "b.md"]);
    wait_until(|| space.metrics().queued == 0);
    hooks.stop(Duration::from_secs(2));
}

#[test]
fn registrations_persist_and_bad_ones_store_nothing() {
    let f = fixture();
    let hooks = Webhooks::open(&f.service, fast(3)).unwrap();
    let space = hooks.space("default").unwrap();
    for (url, glob) in [
        ("http://example.com/hook", None),
        ("ftp://127.0.0.1/hook", None),
        ("not a url", None),
        ("https://example.com/hook", Some("[oops")),
        ("https://example.com/hook", Some("/abs/**")),
    ] {
        let err = space
            .create(WebhookRequest {
                url: url.into(),
                path_glob: glob.map(str::to_string),
            })
            .expect_err(url);
        assert_eq!(err.code, quire_api::ErrorCode::BadRequest, "{url} {glob:?}");
    }
    assert!(space.list().unwrap().is_empty());
    let created = register(&hooks, "https://hooks.example.com/q", Some("notes/*.md"));
    let listed = space.list().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].secret, None, "never listed with its secret");
    assert_eq!(listed[0].id, created.id);
    assert_eq!(
        space.delete("wh_missing").unwrap_err().code,
        quire_api::ErrorCode::NotFound
    );
    drop(hooks);
    // Reopened: the registration is there, the database is private to its owner.
    let hooks = Webhooks::open(&f.service, fast(3)).unwrap();
    assert_eq!(hooks.space("default").unwrap().list().unwrap(), listed);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(f.dir.path().join(".quire/state/webhooks.db"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

fn wait_until(done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + WAIT;
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for a condition"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_import_is_delivered_once_per_matching_page_as_type_import() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("people.csv"), "name\nAnn\nBob\n").unwrap();
    let service = open_service(dir.path());
    let people = Receiver::start();
    let hooks = Webhooks::open(&service, fast(3)).unwrap();
    hooks.start();
    register(&hooks, &people.url(), Some("people/**"));
    let request = quire_api::ImportRequest {
        source: "csv".into(),
        connection: quire_api::ImportConnection {
            file: Some("people.csv".into()),
            ..Default::default()
        },
        prefix: Some("people".into()),
        ..Default::default()
    };
    let result = service
        .default_space()
        .import()
        .run(&request, &WriteOptions::by("dana"))
        .unwrap();
    assert_eq!(result.imported, 2);
    let mut got: Vec<(String, String, String)> = people
        .wait_for(2, WAIT)
        .iter()
        .map(|r| {
            let json = body(r);
            let text = |k: &str| json[k].as_str().unwrap().to_string();
            (text("type"), text("path"), text("actor"))
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("import".into(), "people/ann.md".into(), "dana".into()),
            ("import".into(), "people/bob.md".into(), "dana".into()),
        ]
    );
    hooks.stop(Duration::from_secs(2));
    drop(dir);
}
