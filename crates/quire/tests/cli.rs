//! The command line: `quire init` and `quire refactor plan` against a root.

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
