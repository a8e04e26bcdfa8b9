//! `POST /refactor/script` through the router. The script process is a stand-in `sh` script
//! speaking the line protocol (the real one, `quire __script`, is exercised by the binary's
//! own tests): the success shape, and every refusal as a JSON `{error}` with nothing written.

#![cfg(unix)]

mod support;

use std::path::PathBuf;
use std::time::Duration;

use axum::body::Body;
use axum::http::Method;
use quire_service::{ScriptLimits, ScriptRunner};
use serde_json::json;
use support::TestServer;

const PAGES: &[(&str, &str)] = &[
    ("notes/a.md", "# A\n\nSee [[b]] and [B](b.md).\n"),
    ("notes/b.md", "# B\n"),
];

/// A server whose script process prints `line` after reading the job.
fn server_answering(line: &str) -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("child.sh");
    std::fs::write(&program, format!("read -r job\nprintf '%s\\n' '{line}'\n")).unwrap();
    let runner = ScriptRunner {
        program: PathBuf::from("/bin/sh"),
        args: vec![program.to_string_lossy().into_owned()],
        limits: ScriptLimits {
            time: Duration::from_secs(10),
            memory_bytes: 256 << 20,
        },
    };
    (TestServer::scripted(runner, PAGES), dir)
}

const MOVE_B: &str = r#"{"done":{"manifest":{"moves":[{"from":"notes/b.md","to":"archive/b.md"}]},"output":"one move\n"}}"#;

#[tokio::test]
async fn a_script_answers_its_manifest_output_and_the_plan_of_that_manifest() {
    let (s, _dir) = server_answering(MOVE_B);
    let commits = s.commit_count();
    let r = s
        .post_json(
            "/api/quire/refactor/script",
            json!({"script": "manifest = {}"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let answer = r.json();
    let manifest = json!({"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]});
    assert_eq!(answer["manifest"], manifest);
    assert_eq!(answer["output"], "one move\n");
    let plan = s.post_json("/api/quire/refactor/plan", manifest).await;
    assert_eq!(plan.status, 200);
    assert_eq!(
        answer["plan"],
        plan.json(),
        "exactly what /refactor/plan returns"
    );
    assert!(answer["plan"].get("diffs").is_none());

    // `diffs` in the query or in the body adds the diffs.
    for (uri, body) in [
        (
            "/api/quire/refactor/script?diffs=true",
            json!({"script": "x = 1"}),
        ),
        (
            "/api/quire/refactor/script",
            json!({"script": "x = 1", "diffs": true}),
        ),
    ] {
        let r = s.post_json(uri, body).await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.json()["plan"]["diffs"].is_array(), "{}", r.text());
    }
    assert_eq!(s.commit_count(), commits, "nothing was written");
    s.assert_clean();
}

#[tokio::test]
async fn an_empty_script_is_a_bad_request() {
    let (s, _dir) = server_answering(MOVE_B);
    for body in [json!({"script": ""}), json!({"script": "  \n"}), json!({})] {
        let r = s.post_json("/api/quire/refactor/script", body).await;
        assert!(r.expect_error(400).contains("the script is empty"));
    }
}

#[tokio::test]
async fn a_body_that_is_not_a_script_request_is_a_bad_request() {
    let (s, _dir) = server_answering(MOVE_B);
    let r = s
        .post_json("/api/quire/refactor/script", json!({"source": "x = 1"}))
        .await;
    assert!(r.expect_error(400).contains("source"));
    let r = s
        .call(
            Method::POST,
            "/api/quire/refactor/script",
            &[("content-type", "application/json")],
            Body::from("not json"),
        )
        .await;
    r.expect_error(400);
}

#[tokio::test]
async fn a_failing_script_is_unprocessable_and_writes_nothing() {
    let (s, _dir) = server_answering(
        r#"{"failed":{"error":"the script has a syntax error at line 1, column 3: unexpected symbol"}}"#,
    );
    let commits = s.commit_count();
    let r = s
        .post_json("/api/quire/refactor/script", json!({"script": "x ="}))
        .await;
    assert_eq!(
        r.expect_error(422),
        "the script has a syntax error at line 1, column 3: unexpected symbol"
    );
    assert_eq!(s.commit_count(), commits);
    s.assert_clean();
}

#[tokio::test]
async fn an_invalid_manifest_is_unprocessable() {
    let (s, _dir) =
        server_answering(r#"{"done":{"manifest":{"moves":[{"from":"notes/b.md"}]},"output":""}}"#);
    let r = s
        .post_json("/api/quire/refactor/script", json!({"script": "x = 1"}))
        .await;
    assert!(r
        .expect_error(422)
        .starts_with("the script returned an invalid manifest"));
}

#[tokio::test]
async fn without_a_script_runner_scripts_are_not_implemented() {
    let s = TestServer::with(support::sync_git(), Default::default(), PAGES);
    let r = s
        .post_json("/api/quire/refactor/script", json!({"script": "x = 1"}))
        .await;
    assert!(r.expect_error(501).contains("scripts are not available"));
}
