//! Crashes simulated with fault points: the test binary re-runs itself as a child process
//! that aborts at a named point, then the parent checks what is left on disk.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use quire_store::{ChangeAction, FileChange, History, HistoryOptions, Root, Strategy};
use quire_vault::PagePath;

/// Set only in the child process: the root it works on.
const CHILD_ROOT: &str = "QUIRE_STORE_TEST_CHILD_ROOT";

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

fn sync_git() -> HistoryOptions {
    HistoryOptions {
        strategy: Strategy::Git,
        async_commit: false,
        batch_window: Duration::from_millis(200),
        batch_max_size: 50,
        max_versions: 100,
    }
}

/// The child's work: overwrite `a.md` and record it. Does nothing in a normal test run.
#[test]
fn child_writes_and_records_when_asked() {
    let Some(dir) = std::env::var_os(CHILD_ROOT) else {
        return;
    };
    let root = Root::open(Path::new(&dir)).unwrap();
    let history = History::open(&root, sync_git()).unwrap();
    root.write(&p("a.md"), b"new").unwrap();
    history
        .record(
            &[FileChange {
                path: p("a.md"),
                action: ChangeAction::Write,
            }],
            "child",
            "overwrite a.md",
        )
        .unwrap();
}

/// Runs the child against `dir` with `fault` armed; returns whether it aborted.
fn child_aborted(dir: &Path, fault: &str) -> bool {
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writes_and_records_when_asked",
            "--nocapture",
        ])
        .args(["--test-threads", "1"])
        .env(CHILD_ROOT, dir)
        .env("QUIRE_FAULT", fault)
        .status()
        .unwrap();
    !status.success()
}

fn committed_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.md"), "old").unwrap();
    let root = Root::open(dir.path()).unwrap();
    drop(History::open(&root, sync_git()).unwrap());
    dir
}

#[test]
fn crash_before_rename_keeps_the_old_content_and_open_removes_the_temp_file() {
    let dir = committed_root();
    assert!(child_aborted(dir.path(), "store.write.before_rename"));
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"old");
    let tmp = dir.path().join(".quire/state/tmp");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 1);
    Root::open(dir.path()).unwrap();
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn crash_before_commit_is_committed_at_the_next_open() {
    let dir = committed_root();
    assert!(child_aborted(dir.path(), "store.commit.before_ref"));
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"new");
    let root = Root::open(dir.path()).unwrap();
    let history = History::open(&root, sync_git()).unwrap();
    let head = history.head().unwrap();
    assert_eq!(history.version(&p("a.md"), &head).unwrap(), b"new");
    let repo = git2::Repository::open(dir.path()).unwrap();
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true);
    assert!(repo.statuses(Some(&mut opts)).unwrap().is_empty());
}

#[test]
fn fault_point_with_another_name_does_nothing() {
    quire_store::fault::point("a point no test arms");
}
