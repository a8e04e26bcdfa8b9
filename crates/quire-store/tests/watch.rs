//! The watcher on a real folder: writes, deletes, moves and git ref changes arrive as debounced
//! batches; `.quire/state/` and the rest of `.git/` are ignored.

use std::fs;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use quire_store::watch::{RootWatcher, WatchBatch, WatchOptions};
use quire_store::Root;
use quire_vault::PagePath;

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

const QUIET: Duration = Duration::from_millis(100);

struct Watched {
    dir: tempfile::TempDir,
    batches: Receiver<WatchBatch>,
    _watcher: RootWatcher,
}

/// A root with `files`, watched with a quiet period of [`QUIET`] and a maximum delay of 2 s.
fn watched(files: &[&str]) -> Watched {
    watched_with(
        files,
        WatchOptions {
            quiet: QUIET,
            max_delay: Duration::from_secs(2),
        },
    )
}

fn watched_with(files: &[&str], opts: WatchOptions) -> Watched {
    let dir = tempfile::tempdir().unwrap();
    for name in files {
        let full = dir.path().join(name);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, "before").unwrap();
    }
    fs::create_dir_all(dir.path().join(".git/refs/heads")).unwrap();
    fs::create_dir_all(dir.path().join(".quire/state/tmp")).unwrap();
    let root = Root::open_read_only(dir.path()).unwrap();
    let (tx, batches) = mpsc::channel();
    let watcher = RootWatcher::start(&root, opts, move |batch| {
        let _ = tx.send(batch);
    })
    .unwrap();
    Watched {
        dir,
        batches,
        _watcher: watcher,
    }
}

impl Watched {
    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    /// The next batch, waiting at most five seconds.
    fn next(&self) -> WatchBatch {
        self.batches
            .recv_timeout(Duration::from_secs(5))
            .expect("no batch arrived")
    }

    /// Every batch until none arrives for `idle`.
    fn drain(&self, idle: Duration) -> Vec<WatchBatch> {
        let mut out = Vec::new();
        while let Ok(batch) = self.batches.recv_timeout(idle) {
            out.push(batch);
        }
        out
    }

    fn assert_nothing(&self) {
        let got = self.drain(QUIET * 4);
        assert!(got.is_empty(), "unexpected batches: {got:?}");
    }
}

fn paths(batch: &WatchBatch) -> Vec<&str> {
    batch.paths.iter().map(|p| p.as_str()).collect()
}

#[test]
fn a_write_is_reported_once_quiet() {
    let w = watched(&["a.md"]);
    let start = Instant::now();
    fs::write(w.path("a.md"), "after").unwrap();
    fs::write(w.path("b.md"), "new").unwrap();
    let batch = w.next();
    assert!(start.elapsed() >= QUIET, "reported before the quiet period");
    assert_eq!(paths(&batch), ["a.md", "b.md"]);
    assert!(batch.moves.is_empty() && !batch.git_refs_moved && !batch.rescan);
    w.assert_nothing();
}

#[test]
fn a_delete_is_reported() {
    let w = watched(&["a.md", "sub/b.md"]);
    fs::remove_file(w.path("sub/b.md")).unwrap();
    let batch = w.next();
    assert_eq!(paths(&batch), ["sub/b.md"]);
}

#[test]
fn a_move_inside_the_root_is_reported_as_a_move() {
    let w = watched(&["old.md", "sub/keep.md"]);
    fs::rename(w.path("old.md"), w.path("sub/new.md")).unwrap();
    let batch = w.next();
    assert_eq!(batch.moves, [(p("old.md"), p("sub/new.md"))]);
    assert_eq!(paths(&batch), ["old.md", "sub/new.md"]);
}

#[test]
fn a_move_into_a_folder_just_created_is_covered_by_the_folder_path() {
    // The folder may not be watched yet when the file arrives in it: its own path, reported
    // as created, stands for everything below it.
    let w = watched(&["old.md"]);
    fs::create_dir_all(w.path("fresh")).unwrap();
    fs::rename(w.path("old.md"), w.path("fresh/new.md")).unwrap();
    let batch = w.next();
    let reported = paths(&batch);
    assert!(reported.contains(&"old.md"), "{reported:?}");
    assert!(reported.contains(&"fresh"), "{reported:?}");
}

#[test]
fn a_folder_moved_in_from_outside_is_reported_by_its_path() {
    let w = watched(&[]);
    let outside = tempfile::tempdir_in(w.dir.path().parent().unwrap()).unwrap();
    fs::write(outside.path().join("x.md"), "x").unwrap();
    fs::rename(outside.path(), w.path("imported")).unwrap();
    let batch = w.next();
    assert_eq!(paths(&batch), ["imported"]);
    assert!(batch.moves.is_empty(), "one end is outside the root");
}

#[test]
fn a_ref_change_under_git_is_flagged_and_other_git_files_are_ignored() {
    let w = watched(&["a.md"]);
    // A commit by another program: objects and the index change, then the branch moves
    // (through a lock file renamed over the ref).
    fs::create_dir_all(w.path(".git/objects/ab")).unwrap();
    fs::write(w.path(".git/objects/ab/cdef"), "object").unwrap();
    fs::write(w.path(".git/index"), "index").unwrap();
    w.assert_nothing();
    fs::write(w.path(".git/refs/heads/main.lock"), "0123").unwrap();
    fs::rename(
        w.path(".git/refs/heads/main.lock"),
        w.path(".git/refs/heads/main"),
    )
    .unwrap();
    let batch = w.next();
    assert!(batch.git_refs_moved);
    assert!(batch.paths.is_empty() && batch.moves.is_empty());
}

#[test]
fn nothing_is_reported_for_quire_state() {
    let w = watched(&["a.md"]);
    fs::write(w.path(".quire/state/index.db"), "db").unwrap();
    fs::write(w.path(".quire/state/tmp/1-1.tmp"), "tmp").unwrap();
    fs::remove_file(w.path(".quire/state/tmp/1-1.tmp")).unwrap();
    fs::create_dir_all(w.path(".quire/state/deep/er")).unwrap();
    fs::write(w.path(".quire/state/deep/er/x"), "x").unwrap();
    w.assert_nothing();
    // Reading a page is no change either.
    assert_eq!(fs::read(w.path("a.md")).unwrap(), b"before");
    w.assert_nothing();
}

#[test]
fn an_atomic_write_through_quire_state_reports_only_the_target() {
    let w = watched(&["a.md"]);
    let tmp = w.path(".quire/state/tmp/7-1.tmp");
    fs::write(&tmp, "new").unwrap();
    fs::rename(&tmp, w.path("a.md")).unwrap();
    let batch = w.next();
    assert_eq!(paths(&batch), ["a.md"]);
    assert!(batch.moves.is_empty());
}

#[test]
fn a_burst_of_100_writes_arrives_in_a_few_batches() {
    let w = watched(&[]);
    for i in 0..100 {
        fs::write(w.path(&format!("n{i:03}.md")), "x").unwrap();
    }
    let batches = w.drain(QUIET * 5);
    assert!(
        (1..=3).contains(&batches.len()),
        "{} batches",
        batches.len()
    );
    let mut all: Vec<String> = batches
        .iter()
        .flat_map(|b| b.paths.iter().map(|p| p.to_string()))
        .collect();
    all.sort();
    all.dedup();
    let expected: Vec<String> = (0..100).map(|i| format!("n{i:03}.md")).collect();
    assert_eq!(all, expected);
}

#[test]
fn a_steady_stream_of_writes_still_flushes_at_the_maximum_delay() {
    // The quiet period never comes: only the maximum delay can end a batch.
    let w = watched_with(
        &[],
        WatchOptions {
            quiet: Duration::from_secs(1),
            max_delay: Duration::from_millis(300),
        },
    );
    let start = Instant::now();
    let mut first_batch_at = None;
    let mut i = 0;
    // One write every 20 ms for 1.5 s.
    while start.elapsed() < Duration::from_millis(1500) {
        fs::write(w.path(&format!("s{i}.md")), "x").unwrap();
        i += 1;
        if first_batch_at.is_none() && w.batches.try_recv().is_ok() {
            first_batch_at = Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = first_batch_at.expect("no batch while the stream went on");
    assert!(
        first < Duration::from_millis(1200),
        "first batch after {first:?}"
    );
}

#[test]
fn a_name_on_disk_that_is_not_nfc_is_reported_by_its_nfc_path() {
    let w = watched(&[]);
    fs::write(w.path("cafe\u{301}.md"), "x").unwrap();
    let batch = w.next();
    assert_eq!(paths(&batch), ["caf\u{e9}.md"]);
}

#[test]
fn dropping_the_watcher_stops_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open_read_only(dir.path()).unwrap();
    let (tx, rx) = mpsc::channel();
    let watcher = RootWatcher::start(&root, WatchOptions::default(), move |batch| {
        let _ = tx.send(batch);
    })
    .unwrap();
    drop(watcher);
    fs::write(dir.path().join("a.md"), "x").unwrap();
    // The callback (and with it the sender) is gone: the channel disconnects.
    assert!(matches!(
        rx.recv_timeout(Duration::from_secs(2)),
        Err(mpsc::RecvTimeoutError::Disconnected)
    ));
}
