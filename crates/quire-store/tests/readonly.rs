//! Read-only opens: they change nothing on disk (no recovery, no commit, no `.git/` write, no
//! folder), serve reads and history queries, refuse writes, and report an interrupted change.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::SystemTime;

use git2::{Repository, StatusOptions};
use quire_store::{
    ChangeAction, FileChange, History, HistoryOptions, JournalEntry, Root, StoreError, Strategy,
};
use quire_vault::PagePath;

mod common;
use common::{open_history, open_root};

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

fn sync_git() -> HistoryOptions {
    HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    }
}

/// Every entry below `dir` (`.git/` included) with its bytes (files) and modification time.
fn snapshot(dir: &Path) -> BTreeMap<String, (Option<Vec<u8>>, SystemTime)> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, (Option<Vec<u8>>, SystemTime)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            if meta.is_dir() {
                out.insert(rel, (None, meta.modified().unwrap()));
                walk(&path, base, out);
            } else {
                out.insert(
                    rel,
                    (Some(fs::read(&path).unwrap()), meta.modified().unwrap()),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn assert_clean(dir: &Path) {
    let repo = Repository::open(dir).unwrap();
    let mut opts = StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let statuses = repo.statuses(Some(&mut opts)).unwrap();
    let dirty: Vec<String> = statuses
        .iter()
        .map(|s| s.path().unwrap_or_default().to_owned())
        .collect();
    assert!(dirty.is_empty(), "git status not clean: {dirty:?}");
}

/// A git root with two commits of `a.md`, then everything a crash could leave for recovery:
/// a temp file, a journal of an interrupted change, a file edited outside quire, a new file.
fn root_awaiting_recovery() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    {
        let root = open_root(dir.path());
        let history = open_history(&root, sync_git());
        for text in ["one\n", "one\ntwo\n"] {
            root.write(&p("a.md"), text.as_bytes()).unwrap();
            history
                .record(
                    &[FileChange::new(p("a.md"), ChangeAction::Write)],
                    "alice",
                    "edit a",
                )
                .unwrap();
        }
        root.write(&p("b.md"), b"b before").unwrap();
        history
            .record(
                &[FileChange::new(p("b.md"), ChangeAction::Write)],
                "alice",
                "add b",
            )
            .unwrap();
        // An interrupted change of b.md: journaled, written, never committed.
        root.write_journal(&[JournalEntry {
            path: "b.md".into(),
            before: Some(b"b before".to_vec()),
            after: Some(quire_store::etag(b"b after")),
        }])
        .unwrap();
        root.write(&p("b.md"), b"b after").unwrap();
    }
    fs::write(dir.path().join(".quire/state/tmp/99-1.tmp"), "half").unwrap();
    fs::write(dir.path().join("outside.md"), "edited by hand").unwrap();
    dir
}

#[test]
fn read_only_open_changes_nothing_and_serves_reads_and_history() {
    let dir = root_awaiting_recovery();
    let before = snapshot(dir.path());

    let root = Root::open_read_only(dir.path()).unwrap();
    let history = History::open_read_only(&root, sync_git()).unwrap();
    assert!(root.is_read_only() && history.is_read_only());

    // The interrupted change is reported, not rolled back.
    let interrupted = history.interrupted().expect("the journal is reported");
    assert_eq!(interrupted.paths, ["b.md"]);

    // Reads see the disk as it is.
    assert_eq!(root.read(&p("b.md")).unwrap(), b"b after");
    assert_eq!(root.read(&p("outside.md")).unwrap(), b"edited by hand");
    let files: Vec<String> = root
        .files()
        .unwrap()
        .iter()
        .map(|f| f.to_string())
        .collect();
    assert_eq!(files, ["a.md", "b.md", "outside.md"]);

    // History queries answer from the commits.
    let versions = history.versions(&p("a.md")).unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0].author, "alice");
    let newest = &versions[0].hash;
    assert_eq!(history.version(&p("a.md"), newest).unwrap(), b"one\ntwo\n");
    let diff = history.diff(&p("a.md"), &versions[1].hash, newest).unwrap();
    assert!(diff.contains("+two"), "{diff}");
    assert_eq!(history.blame(&p("a.md")).unwrap().len(), 2);
    assert_eq!(history.changes(None, 10).unwrap().changes.len(), 3);
    assert!(history.head().is_some());
    history.flush().unwrap();

    assert_eq!(
        snapshot(dir.path()),
        before,
        "a read-only open changed the disk"
    );
}

#[test]
fn read_only_open_refuses_every_write() {
    let dir = root_awaiting_recovery();
    let before = snapshot(dir.path());
    let root = Root::open_read_only(dir.path()).unwrap();
    let history = History::open_read_only(&root, sync_git()).unwrap();

    let read_only = |r: Result<(), StoreError>| match r {
        Err(StoreError::ReadOnly { .. }) => {}
        other => panic!("expected ReadOnly, got {other:?}"),
    };
    read_only(root.write(&p("a.md"), b"x"));
    read_only(root.write(&p("new/c.md"), b"x"));
    read_only(root.remove(&p("a.md")));
    read_only(root.write_journal(&[]));
    read_only(root.clear_journal());
    let err = history
        .record(
            &[FileChange::new(p("a.md"), ChangeAction::Write)],
            "bob",
            "x",
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err}");
    assert!(err.to_string().contains("read-only"), "{err}");
    let err = history
        .record_now(
            &[FileChange::new(p("a.md"), ChangeAction::Write)],
            "bob",
            "x",
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err}");

    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn writable_open_afterwards_recovers_what_the_read_only_open_left_alone() {
    let dir = root_awaiting_recovery();
    drop(History::open_read_only(&Root::open_read_only(dir.path()).unwrap(), sync_git()).unwrap());

    let root = open_root(dir.path());
    let history = open_history(&root, sync_git());
    assert!(history.interrupted().is_none());
    assert_eq!(root.read(&p("b.md")).unwrap(), b"b before", "rolled back");
    assert!(!dir.path().join(quire_store::JOURNAL_PATH).exists());
    // The crash's temp file is gone; the rollback's rewrite may have left a spare (the old
    // inode, kept for the next rewrite), never a `.tmp`.
    let left: Vec<String> = fs::read_dir(dir.path().join(".quire/state/tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.iter().all(|n| n.ends_with(".spare")), "{left:?}");
    let head = history.versions(&p("outside.md")).unwrap();
    assert_eq!(head[0].author, "quire", "the outside edit is committed");
    assert_clean(dir.path());
}

#[test]
fn read_only_open_of_a_plain_folder_creates_neither_repository_nor_state() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.md"), "hello").unwrap();
    let root = Root::open_read_only(dir.path()).unwrap();
    let history = History::open_read_only(&root, sync_git()).unwrap();
    assert_eq!(root.read(&p("a.md")).unwrap(), b"hello");
    assert!(history.interrupted().is_none());
    // No repository: no history to read.
    assert_eq!(history.head(), None);
    assert!(matches!(
        history.versions(&p("a.md")),
        Err(StoreError::Unavailable { .. })
    ));
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["a.md"]);
}

#[test]
fn read_only_history_sees_commits_made_after_it_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = open_root(dir.path());
    let history = open_history(&root, sync_git());
    root.write(&p("a.md"), b"one").unwrap();
    history
        .record(
            &[FileChange::new(p("a.md"), ChangeAction::Write)],
            "alice",
            "one",
        )
        .unwrap();

    let reader =
        History::open_read_only(&Root::open_read_only(dir.path()).unwrap(), sync_git()).unwrap();
    assert_eq!(reader.versions(&p("a.md")).unwrap().len(), 1);
    root.write(&p("a.md"), b"two").unwrap();
    history
        .record(
            &[FileChange::new(p("a.md"), ChangeAction::Write)],
            "bob",
            "two",
        )
        .unwrap();
    let versions = reader.versions(&p("a.md")).unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0].author, "bob");
    assert_eq!(reader.head(), history.head());
}

#[test]
fn read_only_cow_history_leaves_a_torn_change_log_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let cow = HistoryOptions {
        strategy: Strategy::Cow,
        ..HistoryOptions::default()
    };
    {
        let root = open_root(dir.path());
        let history = open_history(&root, cow.clone());
        root.write(&p("a.md"), b"one").unwrap();
        history
            .record(
                &[FileChange::new(p("a.md"), ChangeAction::Write)],
                "alice",
                "one",
            )
            .unwrap();
    }
    let log = dir.path().join(".quire/versions/changes.jsonl");
    let mut text = fs::read(&log).unwrap();
    text.extend_from_slice(b"{\"seq\":\"2\",\"pa");
    fs::write(&log, &text).unwrap();

    let history = History::open_read_only(&Root::open_read_only(dir.path()).unwrap(), cow).unwrap();
    assert_eq!(history.versions(&p("a.md")).unwrap().len(), 1);
    assert_eq!(history.changes(None, 10).unwrap().changes.len(), 1);
    assert_eq!(fs::read(&log).unwrap(), text);
}
