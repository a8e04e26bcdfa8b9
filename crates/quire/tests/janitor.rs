//! The janitor with the real binary: `[janitor] startup_scan` and `interval` run the scan on
//! schedule (its report kept in `.quire/state/janitor.json`, a line of counts in the log);
//! `quire janitor` prints the report, 90 days stale by default, on the root or through the
//! server holding it; `GET /janitor?stale_days=` takes the threshold and refuses a bad one.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{quire, text, write_config, Server};

fn vault(root: &Path) {
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/old.md"),
        "---\nreview-by: 2001-01-01\n---\n# Old\n\nSee [[missing page]].\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/empty.md"), "").unwrap();
}

fn last_scan(root: &Path) -> Option<Value> {
    let bytes = std::fs::read(root.join(".quire/state/janitor.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[test]
fn the_scheduled_scan_runs_at_start_and_every_interval() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    vault(&root);
    write_config(
        &root,
        "[janitor]\nstartup_scan = true\ninterval = \"1s\"\nstale_days = 0\n",
    );
    let server = Server::start(&root, &[]);
    let started = Instant::now();
    let first = loop {
        if let Some(scan) = last_scan(&root) {
            break scan;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no scan at start:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(first["stale_days"], 0);
    assert_eq!(
        first["report"]["stale"],
        serde_json::json!(["notes/old.md"])
    );
    assert_eq!(first["report"]["broken_links"][0]["target"], "missing page");
    assert!(first["report"]["empty"]
        .as_array()
        .unwrap()
        .contains(&"notes/empty.md".into()));
    // The next scan of the interval sees a change.
    std::fs::remove_file(root.join("notes/empty.md")).unwrap();
    let started = Instant::now();
    loop {
        let scan = last_scan(&root).unwrap_or_default();
        if scan["scanned_at"] != first["scanned_at"]
            && scan["report"]["empty"] == serde_json::json!([])
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no later scan saw the removal: {scan}\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(server.log().contains("janitor scan"), "{}", server.log());
    // The scan wrote nothing into the history.
    let repo = git2::Repository::open(&root).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(head
        .tree()
        .unwrap()
        .get_path(Path::new(".quire/state/janitor.json"))
        .is_err());
}

#[test]
fn without_startup_scan_the_first_scan_waits_an_interval() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    vault(&root);
    write_config(&root, "[janitor]\ninterval = \"1h\"\n");
    let server = Server::start(&root, &[]);
    // The server answers, and no scan ran.
    let r = ureq::get(&format!("{}/janitor", server.base))
        .call()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(last_scan(&root).is_none());
}

#[test]
fn quire_janitor_reports_ninety_days_stale_by_default_on_the_root_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    vault(&root);
    let out = quire()
        .args(["janitor", "--json", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stale"], serde_json::json!(["notes/old.md"]));
    assert_eq!(report["broken_links"][0]["path"], "notes/old.md");
    let out = quire()
        .args(["janitor", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert!(
        shown.contains("1 stale (not modified for 90 days"),
        "{shown}"
    );
    assert!(shown.contains("notes/old.md → missing page"), "{shown}");

    let out = quire()
        .args(["janitor", "--stale-days", "-3", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));

    let server = Server::start(&root, &[]);
    let out = quire()
        .args(["janitor", "--json", "--stale-days", "0", "--server"])
        .arg(&server.host)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let through: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(through["stale"], serde_json::json!(["notes/old.md"]));
    let bad = ureq::get(&format!("{}/janitor?stale_days=soon", server.base)).call();
    match bad {
        Err(ureq::Error::Status(400, r)) => {
            let body: Value = r.into_json().unwrap();
            assert!(
                body["error"].as_str().unwrap().contains("stale_days"),
                "{body}"
            );
        }
        other => panic!("expected 400, got {other:?}"),
    }
}
