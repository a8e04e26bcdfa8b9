//! Crashes simulated with fault points: the test binary re-runs itself as a child process
//! that aborts at a named point, then the parent checks what is left on disk.

use std::fs;
use std::path::Path;
use std::process::Command;

use quire_store::{ChangeAction, FileChange, HistoryOptions};
use quire_vault::PagePath;

mod common;
use common::{open_history, open_root};

/// Set only in the child process: the root it works on.
const CHILD_ROOT: &str = "QUIRE_STORE_TEST_CHILD_ROOT";

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

fn sync_git() -> HistoryOptions {
    HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    }
}

/// The child's work: overwrite `a.md` and record it. Does nothing in a normal test run.
#[test]
fn child_writes_and_records_when_asked() {
    let Some(dir) = std::env::var_os(CHILD_ROOT) else {
        return;
    };
    let root = open_root(Path::new(&dir));
    let history = open_history(&root, sync_git());
    root.write(&p("a.md"), b"new").unwrap();
    history
        .record(
            &[FileChange::new(p("a.md"), ChangeAction::Write)],
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
    let root = open_root(dir.path());
    drop(open_history(&root, sync_git()));
    dir
}

#[test]
fn crash_before_rename_keeps_the_old_content_and_open_removes_the_temp_file() {
    let dir = committed_root();
    assert!(child_aborted(dir.path(), "store.write.before_rename"));
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"old");
    let tmp = dir.path().join(".quire/state/tmp");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 1);
    open_root(dir.path());
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn crash_before_commit_is_committed_at_the_next_open() {
    let dir = committed_root();
    assert!(child_aborted(dir.path(), "store.commit.before_ref"));
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"new");
    let root = open_root(dir.path());
    let history = open_history(&root, sync_git());
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

fn assert_clean(dir: &Path) {
    let repo = git2::Repository::open(dir).unwrap();
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let statuses = repo.statuses(Some(&mut opts)).unwrap();
    let dirty: Vec<String> = statuses
        .iter()
        .map(|s| s.path().unwrap_or_default().to_owned())
        .collect();
    assert!(dirty.is_empty(), "git status not clean: {dirty:?}");
}

/// The name of the branch HEAD points at (`refs/heads/…`), whatever `init.defaultBranch` says.
fn head_ref(dir: &Path) -> String {
    let repo = git2::Repository::open(dir).unwrap();
    let head = repo.find_reference("HEAD").unwrap();
    head.symbolic_target().unwrap().to_owned()
}

#[test]
fn stale_git_lock_files_are_removed_at_a_writable_open_and_commits_work_again() {
    let dir = committed_root();
    let git = dir.path().join(".git");
    // What a process killed in the middle of a commit leaves: a half-written index.lock, a
    // lock on the branch with half a commit id, and the other locks git takes.
    let index = fs::read(git.join("index")).unwrap();
    fs::write(git.join("index.lock"), &index[..index.len() / 2]).unwrap();
    fs::write(git.join(format!("{}.lock", head_ref(dir.path()))), "3f2a9c").unwrap();
    fs::write(git.join("HEAD.lock"), "ref: refs/hea").unwrap();
    fs::write(git.join("packed-refs.lock"), "").unwrap();
    fs::write(git.join("config.lock"), "[core]\n").unwrap();
    fs::create_dir_all(git.join("refs/tags/nested")).unwrap();
    fs::write(git.join("refs/tags/nested/v1.lock"), "").unwrap();
    // And a write whose commit never happened.
    fs::write(dir.path().join("a.md"), "written, not committed").unwrap();

    let root = open_root(dir.path());
    let history = open_history(&root, sync_git());
    let mut left: Vec<String> = Vec::new();
    for name in ["index.lock", "HEAD.lock", "packed-refs.lock", "config.lock"] {
        if git.join(name).exists() {
            left.push(name.into());
        }
    }
    if git.join("refs/tags/nested/v1.lock").exists()
        || git.join(format!("{}.lock", head_ref(dir.path()))).exists()
    {
        left.push("a lock under refs/".into());
    }
    assert!(left.is_empty(), "lock files left: {left:?}");
    assert_clean(dir.path());
    let head = history.head().unwrap();
    assert_eq!(
        history.version(&p("a.md"), &head).unwrap(),
        b"written, not committed"
    );

    // Commits work again.
    root.write(&p("b.md"), b"after the crash").unwrap();
    let recorded = history
        .record(
            &[FileChange::new(p("b.md"), ChangeAction::Write)],
            "alice",
            "add b",
        )
        .unwrap();
    assert!(matches!(recorded, quire_store::Recorded::Committed(_)));
    assert_ne!(history.head().unwrap(), head);
    history.flush().unwrap();
    assert_clean(dir.path());
}

/// Set only in the child process: the root it writes to in a burst until killed.
const BURST_ROOT: &str = "QUIRE_STORE_TEST_BURST_ROOT";

/// The child's work: async-batched writes as fast as it can, for at most 30 s. Does nothing in
/// a normal test run.
#[test]
fn child_writes_a_burst_when_asked() {
    let Some(dir) = std::env::var_os(BURST_ROOT) else {
        return;
    };
    let root = open_root(Path::new(&dir));
    let history = open_history(
        &root,
        HistoryOptions {
            async_commit: true,
            batch_window: std::time::Duration::from_millis(5),
            batch_max_size: 5,
            ..HistoryOptions::default()
        },
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut n = 0;
    while std::time::Instant::now() < deadline {
        let path = p(&format!("burst/{}.md", n % 50));
        root.write(&path, format!("revision {n}\n").as_bytes())
            .unwrap();
        history
            .record(
                &[FileChange::new(path, ChangeAction::Write)],
                "child",
                "burst",
            )
            .unwrap();
        if n == 20 {
            println!("bursting");
        }
        n += 1;
    }
}

#[test]
fn killed_during_a_burst_of_writes_the_root_opens_again_clean() {
    use std::io::{BufRead, BufReader};
    let dir = committed_root();
    for delay_ms in [0u64, 37, 113] {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_writes_a_burst_when_asked", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(BURST_ROOT, dir.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let bursting = BufReader::new(stdout)
            .lines()
            .any(|l| l.is_ok_and(|l| l.trim_end().ends_with("bursting")));
        assert!(bursting, "the child never started its burst");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let root = open_root(dir.path());
        let history = open_history(&root, sync_git());
        assert_clean(dir.path());
        // Whatever was on disk is in HEAD now.
        let head = history.head().unwrap();
        let on_disk = fs::read(dir.path().join("burst/0.md")).unwrap();
        assert_eq!(history.version(&p("burst/0.md"), &head).unwrap(), on_disk);
    }
}

/// The child's work for a packed commit: write 40 notes and record them in one commit.
#[test]
fn child_writes_many_and_records_when_asked() {
    let Some(dir) = std::env::var_os(CHILD_MANY_ROOT) else {
        return;
    };
    let root = open_root(Path::new(&dir));
    let history = open_history(&root, sync_git());
    let mut changes = Vec::new();
    for i in 0..40 {
        let path = format!("many/n{i}.md");
        root.write(&p(&path), format!("note {i}\n").as_bytes())
            .unwrap();
        changes.push(FileChange::new(p(&path), ChangeAction::Write));
    }
    history.record(&changes, "child", "many notes").unwrap();
}

/// Set only in the child process of the packed commit: the root it works on.
const CHILD_MANY_ROOT: &str = "QUIRE_STORE_TEST_CHILD_MANY_ROOT";

#[test]
fn crash_after_a_commit_s_pack_before_head_moves_is_committed_at_the_next_open() {
    let dir = committed_root();
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writes_many_and_records_when_asked",
            "--nocapture",
        ])
        .args(["--test-threads", "1"])
        .env(CHILD_MANY_ROOT, dir.path())
        .env("QUIRE_FAULT", "store.commit.before_ref")
        .status()
        .unwrap();
    assert!(!status.success(), "the child aborted at the fault point");
    let packs = fs::read_dir(dir.path().join(".git/objects/pack"))
        .unwrap()
        .count();
    assert!(packs > 0, "the pack was written before HEAD moved");
    let root = open_root(dir.path());
    let history = open_history(&root, sync_git());
    let head = history.head().unwrap();
    assert_eq!(
        history.version(&p("many/n17.md"), &head).unwrap(),
        b"note 17\n"
    );
    assert_clean(dir.path());
}
