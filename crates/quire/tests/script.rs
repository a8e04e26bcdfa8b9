//! Restructuring scripts run by the real binary: `POST /refactor/script` on `quire serve` (the
//! script in a child process of the server) and `quire refactor script`. Whatever a script
//! does — loop forever, eat memory, try to write — the server keeps answering and the root
//! does not change.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{quire, text, Server};

/// The time limit the runaway test gives scripts (`QUIRE_SCRIPT_TIMEOUT_MS`), instead of
/// 30 s; other tests keep 30 s, so a busy machine cannot make a good script late.
const SHORT_TIMEOUT_MS: &str = "2000";

fn root_with_pages(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("kb");
    for (path, text) in [
        (
            "inbox/a.md",
            "---\nstatus: done\n---\n# A\n\nSee [[b]] and [C](../notes/c.md).\n",
        ),
        ("inbox/b.md", "---\nstatus: open\n---\n# B\n"),
        (
            "inbox/d.md",
            "---\nstatus: done\n---\n# D\n\nBack to [[a]].\n",
        ),
        ("notes/c.md", "# C\n\nSee [[a]] and [[d]].\n"),
    ] {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    root
}

/// A server on `root`, once its index has been built.
fn serve(root: &Path) -> Server {
    serve_with(root, &[])
}

fn serve_with(root: &Path, env: &[(&str, &str)]) -> Server {
    let server = Server::start_with(root, &[], env);
    // Queries answer 503 until the index's first pass ends.
    let ready = format!("{}/query?q=COUNT", server.base);
    let started = Instant::now();
    while ureq::get(&ready).call().is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the index was not ready in time"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// Status and JSON body of a POST.
fn post(server: &Server, route: &str, body: Value) -> (u16, Value) {
    let url = format!("{}{route}", server.base);
    let (status, text) = match ureq::post(&url).send_json(body) {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
        Err(e) => panic!("transport error: {e}"),
    };
    let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (status, json)
}

fn script(server: &Server, source: &str) -> (u16, Value) {
    post(server, "/refactor/script", json!({ "script": source }))
}

/// HEAD, and the paths git sees changed.
fn git_state(root: &Path) -> (String, Vec<String>) {
    let repo = git2::Repository::open(root).unwrap();
    let head = repo
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .id()
        .to_string();
    let mut options = git2::StatusOptions::new();
    options.include_untracked(true);
    let changed = repo
        .statuses(Some(&mut options))
        .unwrap()
        .iter()
        .filter_map(|s| s.path().map(str::to_string))
        .collect();
    (head, changed)
}

/// The server still answers and the root is as it was.
fn unharmed(server: &Server, root: &Path, before: &(String, Vec<String>)) {
    let health = ureq::get(&format!("{}/health", server.host)).call();
    assert_eq!(
        health.map(|r| r.status()).ok(),
        Some(200),
        "/health answers"
    );
    let tree = ureq::get(&format!("{}/tree", server.base)).call();
    assert_eq!(tree.map(|r| r.status()).ok(), Some(200), "the API answers");
    let after = git_state(root);
    assert_eq!(&after, before, "HEAD and the working tree are unchanged");
    assert!(after.1.is_empty(), "git status is clean: {:?}", after.1);
}

const MOVE_DONE: &str = r#"
def main():
    done = [row["File"] for row in query('LIST FROM "inbox" WHERE status = "done"')]
    print("moving", len(done), "pages")
    return {"moves": [{"from": p, "to": "archive/"} for p in done]}
"#;

#[test]
fn a_script_moving_pages_by_a_query_plans_like_the_same_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let server = serve(&root);
    let before = git_state(&root);

    let (status, answer) = script(&server, MOVE_DONE);
    assert_eq!(status, 200, "{answer}");
    let manifest = json!({"moves": [
        {"from": "inbox/a.md", "to": "archive/"},
        {"from": "inbox/d.md", "to": "archive/"},
    ]});
    assert_eq!(answer["manifest"], manifest);
    assert_eq!(answer["output"], "moving 2 pages\n");
    let (status, plan) = post(&server, "/refactor/plan", manifest);
    assert_eq!(status, 200, "{plan}");
    assert_eq!(answer["plan"], plan, "the same plan as POST /refactor/plan");
    assert!(answer["plan"]["digest"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));
    unharmed(&server, &root, &before);
}

#[test]
fn a_runaway_loop_is_stopped_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let server = serve_with(&root, &[("QUIRE_SCRIPT_TIMEOUT_MS", SHORT_TIMEOUT_MS)]);
    let before = git_state(&root);
    let started = Instant::now();
    let (status, answer) = script(
        &server,
        "def main():\n    n = 0\n    for i in range(1000000000):\n        for j in range(1000000000):\n            n += 1\n    return {}\n",
    );
    let took = started.elapsed();
    assert_eq!(status, 422, "{answer}");
    assert_eq!(
        answer["error"], "the script ran longer than 2 s; it was stopped",
        "{answer}"
    );
    assert!(took < Duration::from_secs(10), "stopped in time: {took:?}");
    unharmed(&server, &root, &before);
}

#[test]
fn a_memory_hog_is_stopped_at_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let server = serve(&root);
    let before = git_state(&root);
    let (status, answer) = script(
        &server,
        "def main():\n    xs = []\n    for i in range(100000000):\n        xs.append(\"x\" * 10000000 + str(i))\n    return {}\n",
    );
    assert_eq!(status, 422, "{answer}");
    assert_eq!(
        answer["error"], "the script exceeded the 256 MB memory limit",
        "{answer}"
    );
    unharmed(&server, &root, &before);
}

#[test]
fn a_script_that_tries_to_write_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let server = serve(&root);
    let before = git_state(&root);
    for call in [
        "write(\"inbox/a.md\", \"gone\")",
        "open(\"inbox/a.md\", \"w\")",
    ] {
        let (status, answer) = script(
            &server,
            &format!("def main():\n    {call}\n    return {{\"moves\": []}}\n"),
        );
        assert_eq!(status, 422, "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.contains("line 2") && error.contains("scripts cannot write or open files"),
            "{error}"
        );
    }
    // Reading outside the knowledge base is refused by the service that answers reads.
    let (status, answer) = script(
        &server,
        "def main():\n    read(\"../../etc/passwd\")\n    return {}\n",
    );
    assert_eq!(status, 422, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("read(\"../../etc/passwd\") failed"));
    assert_eq!(
        std::fs::read_to_string(root.join("inbox/a.md"))
            .unwrap()
            .lines()
            .nth(1),
        Some("status: done")
    );
    unharmed(&server, &root, &before);
}

#[test]
fn bad_scripts_and_bad_manifests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let server = serve(&root);
    let before = git_state(&root);

    let (status, answer) = script(&server, "  \n");
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("the script is empty"));

    let (status, answer) = post(&server, "/refactor/script", json!({"source": "x"}));
    assert_eq!(status, 400, "unknown field: {answer}");

    let (status, answer) = script(&server, "manifest = {\"moves\": [{\"from\": \"a.md\"}]}\n");
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .starts_with("the script returned an invalid manifest"),
        "{answer}"
    );

    let (status, answer) = script(&server, "manifest = {}\n");
    assert_eq!(status, 422, "an empty manifest: {answer}");

    let (status, answer) = script(&server, "def main():\n    while True:\n        pass\n");
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .starts_with("the script has a syntax error at line 2, column 5"),
        "{answer}"
    );

    let (status, answer) = script(
        &server,
        "def f(n):\n    return f(n)\nmanifest = {\"x\": f(1)}\n",
    );
    assert_eq!(status, 422, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .starts_with("recursion is not allowed"));
    unharmed(&server, &root, &before);
}

#[test]
fn quire_refactor_script_prints_output_and_plan_on_a_root_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let file = dir.path().join("move.star");
    std::fs::write(&file, MOVE_DONE).unwrap();

    // Nobody serves the root: the command reads it itself (and runs the script as its own
    // child process).
    let out = quire()
        .args(["refactor", "script"])
        .arg(&file)
        .arg("--root")
        .arg(&root)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.starts_with("moving 2 pages\n"), "{stdout}");
    assert!(
        stdout.contains("move inbox/a.md -> archive/a.md"),
        "{stdout}"
    );
    assert!(root.join("inbox/a.md").exists(), "nothing was written");

    // A server holds the root: the command goes through it.
    let server = serve(&root);
    let before = git_state(&root);
    let out = quire()
        .args(["refactor", "script", "--json", "--root"])
        .arg(&root)
        .arg(&file)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["output"], "moving 2 pages\n");
    assert_eq!(answer["plan"]["moves"].as_array().map(Vec::len), Some(2));

    // A plan with errors exits 1; a failing script exits with the refusal's code.
    std::fs::write(
        &file,
        "manifest = {\"moves\": [{\"from\": \"inbox/a.md\", \"to\": \"inbox/b.md\"}]}\n",
    )
    .unwrap();
    let out = quire()
        .args(["refactor", "script", "--root"])
        .arg(&root)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    std::fs::write(&file, "manifest = nothing\n").unwrap();
    let out = quire()
        .args(["refactor", "script", "--root"])
        .arg(&root)
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("Variable `nothing` not found"),
        "{}",
        text(&out.stderr)
    );
    unharmed(&server, &root, &before);
}
