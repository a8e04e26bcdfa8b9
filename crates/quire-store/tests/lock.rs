//! The writer lock of a root: one holder at a time, across processes and within one; released
//! by the OS when its holder dies. The cross-process tests re-run this test binary as a child
//! that takes the lock and waits to be killed.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use quire_store::{History, HistoryOptions, Root, StoreError, WriterLock, WRITER_LOCK_PATH};

/// Set only in the child process: the root whose lock it takes.
const CHILD_ROOT: &str = "QUIRE_STORE_TEST_LOCK_CHILD_ROOT";
const CHILD_API: &str = "http://127.0.0.1:3333";

/// The child's work: take the lock as a server would, say so, and wait (at most a minute) to
/// be killed. Does nothing in a normal test run.
#[test]
fn child_holds_the_writer_lock_when_asked() {
    let Some(dir) = std::env::var_os(CHILD_ROOT) else {
        return;
    };
    let lock = WriterLock::acquire(Path::new(&dir), "serve").unwrap();
    lock.set_api(CHILD_API).unwrap();
    println!("locked");
    std::thread::sleep(Duration::from_secs(60));
}

/// Starts the child on `dir` and returns once it holds the lock.
fn child_holding_the_lock(dir: &Path) -> Child {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_holds_the_writer_lock_when_asked",
            "--nocapture",
        ])
        .args(["--test-threads", "1"])
        .env(CHILD_ROOT, dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let locked = lines.any(|line| line.is_ok_and(|l| l.trim_end().ends_with("locked")));
    assert!(locked, "the child never took the lock");
    child
}

fn sync_git() -> HistoryOptions {
    HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    }
}

#[test]
fn another_process_holding_the_lock_is_named_and_its_death_frees_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = child_holding_the_lock(dir.path());

    let holder = WriterLock::holder(dir.path()).unwrap().expect("a holder");
    assert_eq!(holder.pid, child.id());
    assert_eq!(holder.kind, "serve");
    assert_eq!(holder.api.as_deref(), Some(CHILD_API));
    assert!(!holder.started.is_empty());

    let err = WriterLock::acquire(dir.path(), "apply").unwrap_err();
    match &err {
        StoreError::Locked { holder, .. } => {
            assert_eq!(holder.pid, child.id());
            assert_eq!(holder.kind, "serve");
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains(&format!("pid {}", child.id())),
        "{message}"
    );
    assert!(message.contains("serve"), "{message}");
    assert!(message.contains(CHILD_API), "{message}");

    // Reading needs no lock.
    let root = Root::open_read_only(dir.path()).unwrap();
    History::open_read_only(&root, sync_git()).unwrap();

    // SIGKILL: no destructor runs, the record stays behind, the OS frees the lock.
    child.kill().unwrap();
    child.wait().unwrap();
    let record = fs::read_to_string(dir.path().join(WRITER_LOCK_PATH)).unwrap();
    assert!(record.contains("serve"), "the stale record is still there");
    assert_eq!(WriterLock::holder(dir.path()).unwrap(), None);

    let lock = WriterLock::acquire(dir.path(), "apply").unwrap();
    assert_eq!(lock.info().pid, std::process::id());
    let holder = WriterLock::holder(dir.path()).unwrap().expect("a holder");
    assert_eq!(
        (holder.pid, holder.kind.as_str()),
        (std::process::id(), "apply")
    );
    assert_eq!(holder.api, None, "the stale record's address is gone");
}

#[test]
fn holder_of_a_root_never_locked_is_nobody_and_reading_it_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(WriterLock::holder(dir.path()).unwrap(), None);
    assert!(!dir.path().join(".quire").exists());
}

#[test]
fn one_holder_within_a_process_too_and_dropping_releases_it() {
    let dir = tempfile::tempdir().unwrap();
    let lock = WriterLock::acquire(dir.path(), "serve").unwrap();
    let info = lock.info();
    assert_eq!(
        (info.pid, info.kind.as_str()),
        (std::process::id(), "serve")
    );
    assert_eq!(lock.dir(), fs::canonicalize(dir.path()).unwrap());

    let err = WriterLock::acquire(dir.path(), "apply").unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");

    lock.set_api("http://127.0.0.1:4000").unwrap();
    let holder = WriterLock::holder(dir.path()).unwrap().expect("a holder");
    assert_eq!(holder.api.as_deref(), Some("http://127.0.0.1:4000"));
    assert_eq!(holder, lock.info());

    drop(lock);
    assert_eq!(WriterLock::holder(dir.path()).unwrap(), None);
    WriterLock::acquire(dir.path(), "apply").unwrap();
}

#[test]
fn a_writable_root_keeps_the_lock_until_its_last_clone_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let lock = WriterLock::acquire(dir.path(), "serve").unwrap();
    let root = Root::open(dir.path(), &lock).unwrap();
    let clone = root.clone();
    drop(lock);
    drop(root);
    assert!(WriterLock::acquire(dir.path(), "apply").is_err());
    drop(clone);
    WriterLock::acquire(dir.path(), "apply").unwrap();
}

#[test]
fn the_lock_of_another_root_opens_nothing() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let lock_a = WriterLock::acquire(a.path(), "serve").unwrap();
    let err = Root::open(b.path(), &lock_a).unwrap_err();
    assert!(matches!(err, StoreError::BadRoot { .. }), "{err}");

    let lock_b = WriterLock::acquire(b.path(), "serve").unwrap();
    let root_b = Root::open(b.path(), &lock_b).unwrap();
    let err = History::open(&root_b, &lock_a, sync_git()).err().unwrap();
    assert!(matches!(err, StoreError::BadRoot { .. }), "{err}");
    History::open(&root_b, &lock_b, sync_git()).unwrap();
}

#[test]
fn a_read_only_root_cannot_be_opened_for_writing_history() {
    let dir = tempfile::tempdir().unwrap();
    let lock = WriterLock::acquire(dir.path(), "serve").unwrap();
    let root = Root::open_read_only(dir.path()).unwrap();
    let err = History::open(&root, &lock, sync_git()).err().unwrap();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err}");
}

#[test]
fn acquire_waits_out_a_reader_probing_the_lock() {
    // `holder` takes a shared lock for a moment; `acquire` must not mistake it for a holder.
    let dir = tempfile::tempdir().unwrap();
    drop(WriterLock::acquire(dir.path(), "init").unwrap());
    let stop = Instant::now() + Duration::from_millis(300);
    std::thread::scope(|s| {
        s.spawn(|| {
            while Instant::now() < stop {
                // Nobody, or this process between its acquisitions.
                if let Some(holder) = WriterLock::holder(dir.path()).unwrap() {
                    assert!(holder.pid == std::process::id() || holder.pid == 0);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        while Instant::now() < stop {
            drop(WriterLock::acquire(dir.path(), "apply").unwrap());
        }
    });
}
