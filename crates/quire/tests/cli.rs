//! The command line: `quire init` and `quire refactor plan` against a root, and `quire api`
//! through a server.

mod support;

use std::path::Path;
use std::process::{Command, Output};

fn quire(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .current_dir(cwd)
        .env_remove("QUIRE_FAULT")
        .output()
        .expect("quire runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn root_with_pages(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("kb");
    let out = quire(&["init", root.to_str().unwrap()], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/a.md"), "# A\n\nSee [B](b.md) and [[b]].\n").unwrap();
    std::fs::write(root.join("notes/b.md"), "# B\n").unwrap();
    root
}

#[test]
fn init_creates_config_and_a_first_commit() {
    let dir = tempfile::tempdir().unwrap();
    let out = quire(&["init", "kb"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Initialised a knowledge root"));
    assert!(dir.path().join("kb/.quire/config.toml").is_file());
    let repo = git2::Repository::open(dir.path().join("kb")).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(head
        .tree()
        .unwrap()
        .get_path(Path::new(".quire/config.toml"))
        .is_ok());
    // A second init keeps the configuration.
    let out = quire(&["init", "kb"], dir.path());
    assert!(text(&out.stdout).contains("already a knowledge root"));
}

#[test]
fn refactor_plan_prints_a_summary_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    std::fs::write(
        dir.path().join("m.yaml"),
        "moves:\n  - from: notes/b.md\n    to: archive/b.md\n",
    )
    .unwrap();
    let out = quire(
        &[
            "refactor",
            "plan",
            "m.yaml",
            "--root",
            root.to_str().unwrap(),
            "--diff",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("move notes/b.md -> archive/b.md"),
        "{stdout}"
    );
    assert!(stdout.contains("../archive/b.md"), "{stdout}");
    assert!(
        stdout.contains("+See [B](../archive/b.md)"),
        "diff shown: {stdout}"
    );
    assert!(root.join("notes/b.md").exists(), "planning writes nothing");

    let out = quire(
        &[
            "refactor",
            "plan",
            "m.yaml",
            "--root",
            root.to_str().unwrap(),
            "--json",
        ],
        dir.path(),
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON plan");
    assert_eq!(plan["moves"][0]["to"], "archive/b.md");
}

#[test]
fn refactor_plan_exits_1_on_plan_errors_and_2_on_bad_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let r = root.to_str().unwrap();
    std::fs::write(
        dir.path().join("taken.yaml"),
        "moves:\n  - from: notes/a.md\n    to: notes/b.md\n",
    )
    .unwrap();
    let out = quire(&["refactor", "plan", "taken.yaml", "--root", r], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("exists"),
        "{}",
        text(&out.stdout)
    );

    std::fs::write(dir.path().join("bad.yaml"), "mvoes: []\n").unwrap();
    let out = quire(&["refactor", "plan", "bad.yaml", "--root", r], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("mvoes"), "{}", text(&out.stderr));

    let out = quire(
        &["refactor", "plan", "missing.yaml", "--root", r],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));

    let out = quire(
        &[
            "refactor",
            "plan",
            "taken.yaml",
            "--server",
            "http://127.0.0.1:9",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot reach a quire server"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn refactor_apply_and_revert_with_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let r = root.to_str().unwrap();
    std::fs::write(
        dir.path().join("m.yaml"),
        "moves:\n  - from: notes/b.md\n    to: archive/b.md\n",
    )
    .unwrap();

    // Without a terminal, apply does not guess: --yes is required.
    let out = quire(&["refactor", "apply", "m.yaml", "--root", r], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--yes"));
    assert!(root.join("notes/b.md").exists());

    let out = quire(
        &[
            "refactor", "apply", "m.yaml", "--root", r, "--yes", "--actor", "carol",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("move notes/b.md -> archive/b.md"),
        "{stdout}"
    );
    assert!(stdout.contains("Applied: "), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(root.join("notes/a.md")).unwrap(),
        "# A\n\nSee [B](../archive/b.md) and [[b]].\n"
    );
    let repo = git2::Repository::open(&root).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("carol"));
    assert!(head.message().unwrap().contains("Quire-Client: cli"));
    let commit = head.id().to_string();

    let out = quire(
        &["refactor", "revert", &commit, "--root", r, "--yes"],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes/a.md")).unwrap(),
        "# A\n\nSee [B](b.md) and [[b]].\n"
    );
    assert!(root.join("notes/b.md").exists() && !root.join("archive/b.md").exists());

    let out = quire(
        &["refactor", "revert", "zzzz", "--root", r, "--yes"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
}

/// Every manifest key parses for `plan` and `apply` (the shared parser): whatever the planner
/// makes of them, the manifest is never refused as unreadable (exit code 2).
#[test]
fn refactor_plan_and_apply_accept_every_manifest_key() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let r = root.to_str().unwrap();
    std::fs::write(root.join("dup.md"), "# Dup\n").unwrap();
    std::fs::write(
        root.join("long.md"),
        "# Long\n\n## One\n\nx\n\n## Two\n\ny\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("moved")).unwrap();
    std::fs::write(root.join("moved/c.md"), "# C\n").unwrap();
    let manifest = "\
moves:
  - from: notes/a.md
    to: archive/a.md
  - from_regex: '^notes/(b)\\.md$'
    to: archive/$1.md
merges:
  - from: dup.md
    into: notes/b.md
edits:
  - select: {glob: 'archive/**', paths: [archive/a.md], query: 'true'}
    when: 'true'
    set: {status: done}
    compute: {year: 'year(now)'}
    unset: [draft]
    add_tags: [kept]
    remove_tags: [old]
    replace: [{find: 'x', with: 'y', regex: false}]
    move_to: 'dated/{{year}}/{{slug}}.md'
    on_conflict: error
    force: false
rename_tags:
  - from: old
    to: new
relinks:
  - from: c.md
    to: moved/c.md
split:
  from: long.md
  level: 2
  into: long/
  confirm: false
delete_empty_dirs: true
now: '2024-03-01T00:00:00Z'
";
    std::fs::write(dir.path().join("all.yaml"), manifest).unwrap();
    let out = quire(
        &["refactor", "plan", "all.yaml", "--root", r, "--json"],
        dir.path(),
    );
    assert_ne!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON plan");
    assert_eq!(plan["now"], "2024-03-01T00:00:00Z");
    assert!(
        !text(&out.stderr).contains("unknown"),
        "{}",
        text(&out.stderr)
    );

    let out = quire(
        &["refactor", "apply", "all.yaml", "--root", r, "--yes"],
        dir.path(),
    );
    assert_ne!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("now: 2024-03-01T00:00:00Z"));
}

/// `apply --now` pins the clock: the plan reports it and the commit's manifest carries it.
#[test]
fn refactor_apply_now_is_passed_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let r = root.to_str().unwrap();
    std::fs::write(
        dir.path().join("m.yaml"),
        "moves:\n  - from: notes/b.md\n    to: archive/b.md\n",
    )
    .unwrap();
    let now = "2024-03-01T12:00:00Z";
    let out = quire(
        &[
            "refactor", "apply", "m.yaml", "--root", r, "--yes", "--now", now,
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains(&format!("now: {now}")), "{stdout}");
    assert!(stdout.contains("Applied: "), "{stdout}");
    let repo = git2::Repository::open(&root).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let message = head.message().unwrap();
    assert!(
        message.contains(&format!("\"now\":\"{now}\"")),
        "the applied manifest carries the clock: {message}"
    );

    // Without `--now` the plan names no clock.
    std::fs::write(
        dir.path().join("back.yaml"),
        "moves:\n  - from: archive/b.md\n    to: notes/b.md\n",
    )
    .unwrap();
    let out = quire(
        &["refactor", "apply", "back.yaml", "--root", r, "--yes"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("now:"), "{}", text(&out.stdout));
}

/// A large plan is shown in part before `apply` asks (the first 100 changes and a count of the
/// rest); `--all` shows every change; the apply writes all of them either way.
#[test]
fn refactor_apply_shows_a_long_plan_in_part_unless_asked_for_all() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let r = root.to_str().unwrap();
    for i in 0..130 {
        std::fs::write(root.join(format!("notes/n{i:03}.md")), format!("# N{i}\n")).unwrap();
    }
    std::fs::write(
        dir.path().join("m.yaml"),
        "edits:\n  - select: {glob: \"notes/n*.md\"}\n    set: {seen: true}\n",
    )
    .unwrap();
    let out = quire(
        &["refactor", "apply", "m.yaml", "--root", r, "--yes"],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("edit ")).count(),
        100
    );
    assert!(
        stdout.contains("… and 30 more changes (`quire refactor plan` lists them all)"),
        "{stdout}"
    );
    assert!(stdout.contains("stats: "), "{stdout}");
    assert!(stdout.contains("Applied: 130 written"), "{stdout}");
    assert!(std::fs::read_to_string(root.join("notes/n129.md"))
        .unwrap()
        .contains("seen: true"));

    std::fs::write(
        dir.path().join("m.yaml"),
        "edits:\n  - select: {glob: \"notes/n*.md\"}\n    set: {seen: false}\n",
    )
    .unwrap();
    let out = quire(
        &["refactor", "apply", "m.yaml", "--root", r, "--yes", "--all"],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("edit ")).count(),
        130
    );
    assert!(!stdout.contains("more change"), "{stdout}");
}

#[test]
fn api_through_a_server_sends_query_fields_path_fields_and_a_body_field() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_pages(dir.path());
    let server = support::Server::start(&root, &[]);
    let host = server.host.as_str();
    let api = |args: &[&str]| {
        let mut all = vec!["api"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--server", host, "--actor", "ann"]);
        quire(&all, dir.path())
    };
    // `POST /comments?path=`: the page in the query, the comment as the body.
    let out = api(&[
        "comment_create",
        "path=notes/a.md",
        r#"comment={"line": 1, "body": "Why this title?"}"#,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let comment: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(comment["body"], "Why this title?");
    let out = api(&["comments", "path=notes/a.md"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(listed[0]["id"], comment["id"]);
    // `PUT /workflows/{name}`: the name in the path, the workflow as the body, the commit
    // message in the query.
    let out = api(&[
        "workflow_save",
        "name=flow",
        r#"workflow={"states": [{"name": "todo"}, {"name": "done"}]}"#,
        "message=Add the flow",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = api(&["workflow", "name=flow"]);
    let flow: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(flow["states"][1]["name"], "done");
    // A route answering 204 prints nothing and succeeds.
    let out = api(&["draft_create"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let draft: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let id = format!("id={}", draft["id"].as_str().unwrap());
    let out = api(&["draft_discard", &id]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    // Bad input: the server's refusal, nothing written.
    let out = api(&["comment_create", r#"comment={"body": "no page"}"#]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("path"), "{}", text(&out.stderr));
    let out = api(&["comments", "path=notes/a.md"]);
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(listed.as_array().unwrap().len(), 1);
}
