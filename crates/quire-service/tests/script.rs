//! The service's side of restructuring scripts, with stand-in script processes (`sh`
//! scripts that speak the line protocol): reads answered from the space, the manifest
//! checked and planned, and every way a process can end — its last line, the wall-time
//! limit (its whole process group killed), an allocation failure, an unexpected death.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use quire_service::{ErrorCode, HistoryOptions, ScriptLimits, ScriptRunner, Space, SpaceSettings};
use serde_json::{json, Value};

struct Scripted {
    _dir: tempfile::TempDir,
    space: Space,
}

const PAGES: &[(&str, &str)] = &[
    (
        "notes/a.md",
        "---\nstatus: done\n---\n# A\n\nSee [[b]] and [[nowhere]].\n",
    ),
    ("notes/b.md", "# B\n\nBack to [[a]].\n"),
    ("index.md", "Start at [[notes/a]].\n"),
];

/// A space whose script process is `sh` running `body` (the job line is read first).
fn scripted(body: &str, time: Duration) -> Scripted {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    for (path, text) in PAGES {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let program = dir.path().join("child.sh");
    std::fs::write(&program, format!("read job\n{body}\n")).unwrap();
    let runner = ScriptRunner {
        program: PathBuf::from("/bin/sh"),
        args: vec![program.to_string_lossy().into_owned()],
        limits: ScriptLimits {
            time,
            memory_bytes: 256 << 20,
        },
    };
    let space = Space::open(SpaceSettings {
        name: "test".into(),
        root,
        history: HistoryOptions {
            async_commit: false,
            ..HistoryOptions::default()
        },
        assets: Default::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: Default::default(),
        script: Some(runner),
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    })
    .unwrap();
    let started = Instant::now();
    while space.find().query("COUNT").is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the index is built"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Scripted { _dir: dir, space }
}

impl Scripted {
    fn run(&self) -> quire_service::Result<quire_api::ScriptResponse> {
        self.space
            .restructure()
            .script("manifest = {}", false, None, "rest")
    }
}

const SECOND: Duration = Duration::from_secs(1);

/// Asks for every kind of read, keeps the answers (and its arguments) in `answers`, and
/// returns a manifest.
fn conversation(answers: &Path) -> String {
    let out = answers.display();
    format!(
        r#"echo "$@" > {out}
for call in \
  '{{"fn":"files","glob":"notes/*.md"}}' \
  '{{"fn":"read","path":"notes/a.md"}}' \
  '{{"fn":"frontmatter","path":"notes/a.md"}}' \
  '{{"fn":"links","path":"notes/a.md"}}' \
  '{{"fn":"query","dql":"LIST FROM \"notes\" WHERE status = \"done\""}}' \
  '{{"fn":"read","path":"missing.md"}}'; do
  printf '{{"call":%s}}\n' "$call"
  read -r answer
  printf '%s\n' "$answer" >> {out}
done
printf '%s\n' '{{"done":{{"manifest":{{"moves":[{{"from":"notes/a.md","to":"archive/"}}]}},"output":"hi\n"}}}}'"#
    )
}

#[test]
fn reads_are_answered_from_the_space_and_the_manifest_is_planned() {
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("answers");
    let s = scripted(&conversation(&answers), 10 * SECOND);
    let answer = s.run().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.output, "hi\n");
    let manifest = &answer.manifest;
    assert_eq!(manifest.moves.len(), 1);
    let plan = s
        .space
        .restructure()
        .plan_as(manifest, false, None, "rest")
        .unwrap();
    assert_eq!(
        answer.plan, plan,
        "the plan of the manifest, as planning gives it"
    );
    assert!(
        s.space.root_dir().join("notes/a.md").exists(),
        "nothing written"
    );

    let text = std::fs::read_to_string(&answers).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(format!("--memory-bytes {} --cpu-seconds 12", 256 << 20).as_str()),
        "the limits are passed to the process"
    );
    let answers: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers[0], json!({"ok": ["notes/a.md", "notes/b.md"]}));
    assert_eq!(answers[1], json!({"ok": PAGES[0].1}));
    assert_eq!(answers[2], json!({"ok": {"status": "done"}}));
    assert_eq!(
        answers[3],
        json!({"ok": [
            {"target": "b", "path": "notes/b.md"},
            {"target": "nowhere", "path": null},
        ]})
    );
    assert_eq!(
        answers[4]["ok"]["rows"],
        json!([["notes/a.md"]]),
        "{}",
        answers[4]
    );
    assert!(
        answers[5]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "a failed read is an error sentence: {}",
        answers[5]
    );
}

#[test]
fn the_process_group_is_killed_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let s = scripted(
        &format!("sleep 30 &\necho $! > {}\nwait", pidfile.display()),
        Duration::from_millis(300),
    );
    let started = Instant::now();
    let e = s.run().unwrap_err();
    assert!(started.elapsed() < 5 * SECOND, "{:?}", started.elapsed());
    assert_eq!(e.code, ErrorCode::Unprocessable);
    assert_eq!(
        e.message,
        "the script ran longer than 0.3 s; it was stopped"
    );
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let status = format!("/proc/{}/status", pid.trim());
    let until = Instant::now() + 5 * SECOND;
    loop {
        let state = std::fs::read_to_string(&status).unwrap_or_default();
        if state.is_empty() || state.contains("State:\tZ") {
            break;
        }
        assert!(Instant::now() < until, "the process it started is gone too");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_allocation_failure_is_the_memory_limit() {
    let s = scripted(
        "echo 'memory allocation of 1048576 bytes failed' >&2\nkill -ABRT $$",
        10 * SECOND,
    );
    let e = s.run().unwrap_err();
    assert_eq!(e.code, ErrorCode::Unprocessable);
    assert_eq!(e.message, "the script exceeded the 256 MB memory limit");
}

#[test]
fn a_process_that_dies_says_how() {
    let s = scripted("echo 'something broke' >&2\nexit 3", 10 * SECOND);
    let e = s.run().unwrap_err();
    assert_eq!(e.code, ErrorCode::Unprocessable);
    assert!(e.message.contains("stopped unexpectedly"), "{}", e.message);
    assert!(e.message.contains("something broke"), "{}", e.message);
}

#[test]
fn the_scripts_own_failure_is_passed_on() {
    let s = scripted(
        r#"echo '{"failed":{"error":"the script failed at line 3, column 1: boom"}}'"#,
        10 * SECOND,
    );
    let e = s.run().unwrap_err();
    assert_eq!(e.code, ErrorCode::Unprocessable);
    assert_eq!(e.message, "the script failed at line 3, column 1: boom");
}

#[test]
fn invalid_manifests_are_unprocessable() {
    for (manifest, says) in [
        (
            r#"{"moves":[{"from":"a.md"}]}"#,
            "the script returned an invalid manifest",
        ),
        (r#"{}"#, "the script returned an invalid manifest"),
        (r#"{"mvoes":[]}"#, "mvoes"),
        (r#""a.md""#, "returned a string instead of a manifest"),
    ] {
        let s = scripted(
            &format!(r#"echo '{{"done":{{"manifest":{manifest},"output":""}}}}'"#),
            10 * SECOND,
        );
        let e = s.run().unwrap_err();
        assert_eq!(
            e.code,
            ErrorCode::Unprocessable,
            "{manifest}: {}",
            e.message
        );
        assert!(e.message.contains(says), "{manifest}: {}", e.message);
    }
}

#[test]
fn a_process_speaking_nonsense_is_an_internal_error() {
    let s = scripted("echo 'hello'", 10 * SECOND);
    let e = s.run().unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
}

#[test]
fn empty_scripts_and_missing_runners_are_refused_before_anything_runs() {
    let s = scripted("exit 0", 10 * SECOND);
    let e = s
        .space
        .restructure()
        .script(" \n", false, None, "rest")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(e.message.contains("the script is empty"), "{}", e.message);

    let dir = tempfile::tempdir().unwrap();
    let space = Space::open(SpaceSettings {
        name: "plain".into(),
        root: dir.path().to_path_buf(),
        history: HistoryOptions::default(),
        assets: Default::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: Default::default(),
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    })
    .unwrap();
    let e = space
        .restructure()
        .script("manifest = {}", false, None, "rest")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotImplemented);
    assert!(
        e.message.contains("scripts are not available"),
        "{}",
        e.message
    );
}
