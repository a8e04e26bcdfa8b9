//! Git history against real repositories in temp folders.

use std::fs;
use std::time::Duration;

use git2::{Repository, StatusOptions};
use quire_store::{ChangeAction, FileChange, History, HistoryOptions, Recorded, Root, StoreError};
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

fn async_git(window: Duration, max: usize) -> HistoryOptions {
    HistoryOptions {
        async_commit: true,
        batch_window: window,
        batch_max_size: max,
        ..sync_git()
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    root: Root,
    history: History,
}

impl Fixture {
    fn new(opts: HistoryOptions) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = open_root(dir.path());
        let history = open_history(&root, opts);
        Fixture { dir, root, history }
    }

    fn write(&self, path: &str, text: &str, actor: &str) -> Recorded {
        self.root.write(&p(path), text.as_bytes()).unwrap();
        self.history
            .record(
                &[change(path, ChangeAction::Write)],
                actor,
                &format!("write {path}"),
            )
            .unwrap()
    }

    fn delete(&self, path: &str, actor: &str) -> Recorded {
        self.root.remove(&p(path)).unwrap();
        self.history
            .record(
                &[change(path, ChangeAction::Delete)],
                actor,
                &format!("delete {path}"),
            )
            .unwrap()
    }

    fn repo(&self) -> Repository {
        Repository::open(self.dir.path()).unwrap()
    }

    fn commit_count(&self) -> usize {
        let repo = self.repo();
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        walk.count()
    }
}

fn change(path: &str, action: ChangeAction) -> FileChange {
    FileChange::new(p(path), action)
}

fn committed(r: Recorded) -> String {
    match r {
        Recorded::Committed(id) => id,
        other => panic!("expected a commit, got {other:?}"),
    }
}

fn assert_clean(repo: &Repository) {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let statuses = repo.statuses(Some(&mut opts)).unwrap();
    let dirty: Vec<String> = statuses
        .iter()
        .map(|s| format!("{:?} {}", s.status(), s.path().unwrap_or("?")))
        .collect();
    assert!(dirty.is_empty(), "work tree not clean: {dirty:?}");
}

#[test]
fn open_initialises_a_plain_folder_and_commits_existing_files() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("notes")).unwrap();
    fs::write(dir.path().join("notes/a.md"), "# A\n").unwrap();
    fs::write(dir.path().join("b.md"), "# B\n").unwrap();
    let root = open_root(dir.path());
    let history = open_history(&root, sync_git());

    let repo = Repository::open(dir.path()).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(Some(head.id().to_string()), history.head());
    assert_eq!(head.author().name(), Some("quire"));
    assert_eq!(head.parent_count(), 0);
    let tree = head.tree().unwrap();
    assert!(tree.get_path("notes/a.md".as_ref()).is_ok());
    assert!(tree.get_path("b.md".as_ref()).is_ok());
    // .quire/state/tmp exists but is excluded, not committed.
    assert!(tree.get_path(".quire".as_ref()).is_err());
    assert_clean(&repo);
    let exclude = fs::read_to_string(dir.path().join(".git/info/exclude")).unwrap();
    assert!(exclude.lines().any(|l| l == "/.quire/state/"), "{exclude}");
    assert!(!dir.path().join(".gitignore").exists());
}

#[test]
fn reopening_a_clean_repository_makes_no_commit() {
    let f = Fixture::new(sync_git());
    f.write("a.md", "a", "alice");
    let before = f.commit_count();
    let exclude_before = fs::read_to_string(f.dir.path().join(".git/info/exclude")).unwrap();
    drop(open_history(&f.root, sync_git()));
    assert_eq!(f.commit_count(), before);
    let exclude_after = fs::read_to_string(f.dir.path().join(".git/info/exclude")).unwrap();
    assert_eq!(exclude_before, exclude_after);
}

#[test]
fn each_record_is_one_commit_authored_by_the_actor() {
    let f = Fixture::new(sync_git());
    let start = f.commit_count();
    let first = committed(f.write("a.md", "one", "alice"));
    let second = committed(f.write("b/c.md", "two", "bob <b@x>"));
    assert_eq!(f.commit_count(), start + 2);
    let repo = f.repo();
    let c1 = repo
        .find_commit(git2::Oid::from_str(&first).unwrap())
        .unwrap();
    assert_eq!(c1.author().name(), Some("alice"));
    assert_eq!(c1.committer().name(), Some("alice"));
    assert_eq!(c1.author().email(), Some("alice@quire.local"));
    assert_eq!(c1.message(), Some("write a.md"));
    let c2 = repo
        .find_commit(git2::Oid::from_str(&second).unwrap())
        .unwrap();
    assert_eq!(c2.author().name(), Some("bob b@x"));
    assert_eq!(c2.parent_id(0).unwrap(), c1.id());
    assert_eq!(f.history.head(), Some(second));
    f.history.flush().unwrap();
    assert_clean(&repo);
}

#[test]
fn record_of_several_paths_is_a_single_commit() {
    let f = Fixture::new(sync_git());
    let start = f.commit_count();
    for (path, text) in [("x.md", "x"), ("y/z.md", "z")] {
        f.root.write(&p(path), text.as_bytes()).unwrap();
    }
    let changes = [
        change("x.md", ChangeAction::Write),
        change("y/z.md", ChangeAction::Write),
    ];
    committed(f.history.record(&changes, "bulk", "bulk write").unwrap());
    assert_eq!(f.commit_count(), start + 1);
    assert_clean(&f.repo());
}

#[test]
fn unchanged_content_makes_no_empty_commit() {
    let f = Fixture::new(sync_git());
    let first = committed(f.write("a.md", "same", "alice"));
    let again = committed(f.write("a.md", "same", "bob"));
    assert_eq!(first, again);
}

#[test]
fn delete_is_recorded_and_the_file_leaves_the_tree() {
    let f = Fixture::new(sync_git());
    f.write("gone.md", "bye", "alice");
    let id = committed(f.delete("gone.md", "bob"));
    let repo = f.repo();
    let commit = repo.find_commit(git2::Oid::from_str(&id).unwrap()).unwrap();
    assert!(commit.tree().unwrap().get_path("gone.md".as_ref()).is_err());
    assert_eq!(commit.author().name(), Some("bob"));
    f.history.flush().unwrap();
    assert_clean(&repo);
    let page = f.history.changes(None, 1).unwrap();
    assert_eq!(page.changes[0].path, "gone.md");
    assert_eq!(page.changes[0].action, ChangeAction::Delete);
}

#[test]
fn versions_are_newest_first_and_include_the_deletion() {
    let f = Fixture::new(sync_git());
    let v1 = committed(f.write("a.md", "1\n", "alice"));
    f.write("other.md", "x", "carol");
    let v2 = committed(f.write("a.md", "2\n", "bob"));
    let v3 = committed(f.delete("a.md", "dave"));
    let versions = f.history.versions(&p("a.md")).unwrap();
    let summary: Vec<(&str, &str)> = versions
        .iter()
        .map(|v| (v.hash.as_str(), v.author.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (v3.as_str(), "dave"),
            (v2.as_str(), "bob"),
            (v1.as_str(), "alice")
        ]
    );
    assert_eq!(versions[1].message, "write a.md");
    assert!(
        chrono::DateTime::parse_from_rfc3339(&versions[0].timestamp).is_ok(),
        "{}",
        versions[0].timestamp
    );
    assert!(f.history.versions(&p("never.md")).unwrap().is_empty());
}

#[test]
fn version_accepts_full_and_abbreviated_ids() {
    let f = Fixture::new(sync_git());
    let v1 = committed(f.write("a.md", "first", "alice"));
    f.write("a.md", "second", "alice");
    assert_eq!(f.history.version(&p("a.md"), &v1).unwrap(), b"first");
    assert_eq!(f.history.version(&p("a.md"), &v1[..7]).unwrap(), b"first");
    assert_eq!(
        f.history
            .version(&p("a.md"), &v1.to_uppercase()[..10])
            .unwrap(),
        b"first"
    );
}

#[test]
fn version_not_found_for_bad_ids_and_absent_paths() {
    let f = Fixture::new(sync_git());
    let v1 = committed(f.write("a.md", "first", "alice"));
    let cases = [
        ("a.md", "zzzz", "hexadecimal"),
        ("a.md", "ab", "hexadecimal"),
        ("a.md", "HEAD", "hexadecimal"),
        (
            "a.md",
            "0000000000000000000000000000000000000000",
            "no commit",
        ),
        ("a.md", "deadbeef", "no commit"),
        ("b.md", v1.as_str(), "does not exist"),
    ];
    for (path, id, reason) in cases {
        match f.history.version(&p(path), id) {
            Err(e @ StoreError::VersionNotFound { .. }) => {
                assert!(e.to_string().contains(reason), "{id}: {e}");
            }
            other => panic!("{id}: expected VersionNotFound, got {other:?}"),
        }
    }
}

#[test]
fn diff_is_unified_with_a_and_b_headers() {
    let f = Fixture::new(sync_git());
    let v1 = committed(f.write("n.md", "one\ntwo\nthree\n", "alice"));
    let v2 = committed(f.write("n.md", "one\n2\nthree\n", "alice"));
    let diff = f.history.diff(&p("n.md"), &v1, &v2).unwrap();
    assert_eq!(
        diff,
        "--- a/n.md\n+++ b/n.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
    );
    assert_eq!(f.history.diff(&p("n.md"), &v2, &v2).unwrap(), "");
}

#[test]
fn diff_treats_a_missing_side_as_empty() {
    let f = Fixture::new(sync_git());
    let before = committed(f.write("other.md", "x", "alice"));
    let v1 = committed(f.write("n.md", "hello\n", "alice"));
    let diff = f.history.diff(&p("n.md"), &before, &v1).unwrap();
    assert_eq!(diff, "--- a/n.md\n+++ b/n.md\n@@ -0,0 +1 @@\n+hello\n");
}

#[test]
fn blame_attributes_each_line_to_its_last_author() {
    let f = Fixture::new(sync_git());
    let v1 = committed(f.write("b.md", "alpha\nbeta\ngamma\n", "alice"));
    let v2 = committed(f.write("b.md", "alpha\nBETA\ngamma\ndelta\n", "bob"));
    let blame = f.history.blame(&p("b.md")).unwrap();
    let got: Vec<(usize, &str, &str, &str)> = blame
        .iter()
        .map(|l| {
            (
                l.line,
                l.content.as_str(),
                l.author.as_str(),
                l.hash.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, "alpha", "alice", v1.as_str()),
            (2, "BETA", "bob", v2.as_str()),
            (3, "gamma", "alice", v1.as_str()),
            (4, "delta", "bob", v2.as_str()),
        ]
    );
    assert!(matches!(
        f.history.blame(&p("missing.md")),
        Err(StoreError::NotFound { .. })
    ));
}

#[test]
fn changes_page_forward_with_since_and_last_seq() {
    let f = Fixture::new(sync_git());
    let base = f.history.head().unwrap();
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(committed(f.write(&format!("p{i}.md"), "x", "alice")));
    }
    // Without since: the newest `limit` changes, oldest first, last_seq = HEAD.
    let recent = f.history.changes(None, 2).unwrap();
    let paths: Vec<&str> = recent.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["p3.md", "p4.md"]);
    assert_eq!(recent.last_seq.as_deref(), Some(ids[4].as_str()));
    assert_eq!(recent.changes[0].seq, ids[3]);
    assert_eq!(recent.changes[0].actor, "alice");
    assert_eq!(recent.changes[0].action, ChangeAction::Write);

    // With since: commits after it, oldest first, paged by limit.
    let page1 = f.history.changes(Some(&base), 2).unwrap();
    let paths: Vec<&str> = page1.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["p0.md", "p1.md"]);
    assert_eq!(page1.last_seq.as_deref(), Some(ids[1].as_str()));
    let page2 = f
        .history
        .changes(Some(&page1.last_seq.clone().unwrap()[..8]), 10)
        .unwrap();
    let paths: Vec<&str> = page2.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["p2.md", "p3.md", "p4.md"]);
    assert_eq!(page2.last_seq.as_deref(), Some(ids[4].as_str()));
    let empty = f.history.changes(page2.last_seq.as_deref(), 10).unwrap();
    assert!(empty.changes.is_empty());
    assert_eq!(empty.last_seq.as_deref(), Some(ids[4].as_str()));
    assert!(matches!(
        f.history.changes(Some("0123456789abcdef"), 10),
        Err(StoreError::VersionNotFound { .. })
    ));
}

#[test]
fn changes_page_never_splits_a_commit() {
    let f = Fixture::new(sync_git());
    let base = f.history.head().unwrap();
    for path in ["a.md", "b.md", "c.md"] {
        f.root.write(&p(path), b"x").unwrap();
    }
    let changes: Vec<FileChange> = ["a.md", "b.md", "c.md"]
        .iter()
        .map(|path| change(path, ChangeAction::Write))
        .collect();
    let big = committed(f.history.record(&changes, "bulk", "three").unwrap());
    let small = committed(f.write("d.md", "x", "alice"));
    // A commit larger than the limit still comes whole, so polling always advances.
    let page = f.history.changes(Some(&base), 2).unwrap();
    assert_eq!(page.changes.len(), 3);
    assert_eq!(page.last_seq.as_deref(), Some(big.as_str()));
    let page = f.history.changes(Some(&big), 2).unwrap();
    assert_eq!(page.changes.len(), 1);
    assert_eq!(page.last_seq.as_deref(), Some(small.as_str()));
}

#[test]
fn open_commits_a_file_written_without_record() {
    let f = Fixture::new(sync_git());
    f.write("a.md", "committed", "alice");
    // A crash between the write and the commit, or an edit while the server was down.
    fs::write(f.dir.path().join("a.md"), "edited outside").unwrap();
    fs::write(f.dir.path().join("new.md"), "new").unwrap();
    let before = f.commit_count();
    let history = open_history(&f.root, sync_git());
    assert_eq!(f.commit_count(), before + 1);
    let repo = f.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("quire"));
    assert!(head.message().unwrap().contains("outside quire"));
    assert_clean(&repo);
    assert_eq!(
        history.version(&p("a.md"), &head.id().to_string()).unwrap(),
        b"edited outside"
    );
}

#[test]
fn async_batches_many_records_into_few_commits() {
    let f = Fixture::new(async_git(Duration::from_secs(60), 1000));
    let start = f.commit_count();
    for i in 0..20 {
        assert_eq!(f.write(&format!("n{i}.md"), "x", "alice"), Recorded::Queued);
    }
    // The window is a minute: nothing is committed until flushed.
    assert_eq!(f.commit_count(), start);
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 1);
    let page = f.history.changes(None, 100).unwrap();
    let mut paths: Vec<String> = page.changes.into_iter().map(|c| c.path).collect();
    paths.sort();
    let mut want: Vec<String> = (0..20).map(|i| format!("n{i}.md")).collect();
    want.sort();
    assert_eq!(paths, want);
    assert_clean(&f.repo());
}

#[test]
fn async_different_actors_share_one_commit_that_names_each_files_actor() {
    let f = Fixture::new(async_git(Duration::from_secs(60), 1000));
    let start = f.commit_count();
    f.write("a1.md", "x", "alice");
    f.write("a2.md", "x", "alice");
    f.write("b1.md", "x", "bob");
    f.write("a3.md", "x", "alice");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 1);
    let page = f.history.changes(None, 10).unwrap();
    let got: Vec<(&str, &str)> = page
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.actor.as_str()))
        .collect();
    // One commit: its changes come in path order.
    assert_eq!(
        got,
        [
            ("a1.md", "alice"),
            ("a2.md", "alice"),
            ("a3.md", "alice"),
            ("b1.md", "bob")
        ]
    );
    assert_clean(&f.repo());
}

#[test]
fn async_path_written_twice_is_committed_once_with_latest_content() {
    let f = Fixture::new(async_git(Duration::from_secs(60), 1000));
    let start = f.commit_count();
    f.write("n.md", "first", "alice");
    f.write("n.md", "second", "alice");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 1);
    let head = f.history.head().unwrap();
    assert_eq!(f.history.version(&p("n.md"), &head).unwrap(), b"second");
    let versions = f.history.versions(&p("n.md")).unwrap();
    assert_eq!(versions.len(), 1);
    assert!(versions[0].message.contains("write n.md"));
}

#[test]
fn async_commits_on_its_own_after_the_window_or_at_max_size() {
    let f = Fixture::new(async_git(Duration::from_millis(30), 1000));
    let start = f.commit_count();
    f.write("w.md", "x", "alice");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while f.commit_count() == start {
        assert!(std::time::Instant::now() < deadline, "window never closed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let g = Fixture::new(async_git(Duration::from_secs(600), 3));
    let start = g.commit_count();
    for i in 0..3 {
        g.write(&format!("m{i}.md"), "x", "alice");
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while g.commit_count() == start {
        assert!(std::time::Instant::now() < deadline, "size limit never hit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn async_drop_commits_everything_pending() {
    let dir = tempfile::tempdir().unwrap();
    let root = open_root(dir.path());
    let history = open_history(&root, async_git(Duration::from_secs(600), 1000));
    root.write(&p("late.md"), b"late").unwrap();
    history
        .record(&[change("late.md", ChangeAction::Write)], "alice", "late")
        .unwrap();
    drop(history);
    let repo = Repository::open(dir.path()).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("alice"));
    assert!(head.tree().unwrap().get_path("late.md".as_ref()).is_ok());
    assert_clean(&repo);
}

#[test]
fn history_reads_see_queued_writes() {
    let f = Fixture::new(async_git(Duration::from_secs(600), 1000));
    f.write("q.md", "queued", "alice");
    let versions = f.history.versions(&p("q.md")).unwrap();
    assert_eq!(versions.len(), 1);
    assert_eq!(versions[0].author, "alice");
}

#[test]
fn record_is_safe_from_many_threads() {
    let f = Fixture::new(sync_git());
    let start = f.commit_count();
    std::thread::scope(|s| {
        for t in 0..4 {
            let f = &f;
            s.spawn(move || {
                for i in 0..10 {
                    f.write(&format!("t{t}/n{i}.md"), "x", &format!("actor{t}"));
                }
            });
        }
    });
    assert_eq!(f.commit_count(), start + 40);
    f.history.flush().unwrap();
    assert_clean(&f.repo());
}

#[test]
fn single_record_leaves_git_status_clean_at_once() {
    let f = Fixture::new(sync_git());
    f.write("a.md", "one", "alice");
    assert_clean(&f.repo());
}

#[test]
fn index_behind_after_a_burst_is_saved_without_flush() {
    let f = Fixture::new(sync_git());
    for i in 0..20 {
        f.write(&format!("burst/{i}.md"), "x", "alice");
    }
    // The saver thread catches up on its own shortly after the burst.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let repo = f.repo();
        let mut opts = StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        if repo.statuses(Some(&mut opts)).unwrap().is_empty() {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "index never saved");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn reopen_with_an_index_behind_head_makes_no_commit() {
    let f = Fixture::new(sync_git());
    f.write("a.md", "one", "alice");
    let index = fs::read(f.dir.path().join(".git/index")).unwrap();
    f.write("a.md", "two", "alice");
    f.history.flush().unwrap();
    // As if the process died before saving the index of the last commit.
    fs::write(f.dir.path().join(".git/index"), index).unwrap();
    let before = f.commit_count();
    drop(open_history(&f.root, sync_git()));
    assert_eq!(f.commit_count(), before);
    assert_clean(&f.repo());
}

#[test]
fn ignored_state_paths_are_never_committed() {
    let f = Fixture::new(sync_git());
    f.root.write(&p(".quire/state/index.db"), b"db").unwrap();
    f.root
        .write(&p(".quire/comments/a.md.json"), b"[]")
        .unwrap();
    let changes = [
        change(".quire/state/index.db", ChangeAction::Write),
        change(".quire/comments/a.md.json", ChangeAction::Write),
    ];
    let id = committed(f.history.record(&changes, "alice", "comments").unwrap());
    let repo = f.repo();
    let tree = repo
        .find_commit(git2::Oid::from_str(&id).unwrap())
        .unwrap()
        .tree()
        .unwrap();
    assert!(tree.get_path(".quire/comments/a.md.json".as_ref()).is_ok());
    assert!(tree.get_path(".quire/state".as_ref()).is_err());
    assert_clean(&repo);
}

/// Every loose object file under `.git/objects/`.
fn loose_objects(dir: &std::path::Path) -> usize {
    let mut n = 0;
    for entry in fs::read_dir(dir.join(".git/objects")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.len() == 2 {
            n += fs::read_dir(entry.path()).unwrap().count();
        }
    }
    n
}

/// Runs `git args` in `dir` and asserts it succeeds (skipped where no `git` is installed).
fn git_checks(dir: &std::path::Path, args: &[&str]) {
    let Ok(out) = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
    else {
        eprintln!("no git command here: `git {}` skipped", args.join(" "));
        return;
    };
    assert!(
        out.status.success(),
        "git {} failed: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_commit_of_many_files_is_one_pack_and_reads_back_like_any_other() {
    let f = Fixture::new(sync_git());
    f.write("keep.md", "kept\n", "alice");
    f.write("old/gone.md", "bye\n", "alice");
    let before_loose = loose_objects(f.dir.path());
    let parent = f.repo().head().unwrap().target().unwrap();
    let mut changes = Vec::new();
    // Sizes of one, two and three bytes in the pack's entry headers.
    let text = |i: usize| match i {
        5 => "long line\n".repeat(30_000),
        6 => "x".repeat(200),
        _ => format!("note {i}\n"),
    };
    for i in 0..40 {
        let path = format!("notes/sub{}/n{i}.md", i % 4);
        f.root.write(&p(&path), text(i).as_bytes()).unwrap();
        changes.push(change(&path, ChangeAction::Write));
    }
    f.root.remove(&p("old/gone.md")).unwrap();
    changes.push(change("old/gone.md", ChangeAction::Delete));
    let id = committed(f.history.record(&changes, "bob", "Many notes").unwrap());

    let repo = f.repo();
    assert_eq!(
        loose_objects(f.dir.path()),
        before_loose,
        "nothing written loose"
    );
    let symbolic = repo.find_reference("HEAD").unwrap();
    assert!(
        symbolic.symbolic_target().is_some(),
        "HEAD still names its branch"
    );
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(commit.id().to_string(), id);
    assert_eq!(commit.parent_id(0).unwrap(), parent);
    assert_eq!(commit.author().name(), Some("bob"));
    let tree = commit.tree().unwrap();
    for i in [0, 5, 6, 17, 39] {
        let path = format!("notes/sub{}/n{i}.md", i % 4);
        let blob = tree
            .get_path(std::path::Path::new(&path))
            .unwrap()
            .to_object(&repo)
            .unwrap()
            .peel_to_blob()
            .unwrap();
        assert_eq!(blob.content(), text(i).as_bytes());
    }
    assert!(tree.get_path(std::path::Path::new("old/gone.md")).is_err());
    assert!(tree.get_path(std::path::Path::new("keep.md")).is_ok());
    // Every object the commit reaches is in the object database.
    let odb = repo.odb().unwrap();
    tree.walk(git2::TreeWalkMode::PreOrder, |_, entry| {
        assert!(odb.exists(entry.id()), "{:?} is stored", entry.name());
        git2::TreeWalkResult::Ok
    })
    .unwrap();
    // The reflog says what git says for a commit.
    let reflog = repo.reflog("HEAD").unwrap();
    assert_eq!(reflog.get(0).unwrap().message(), Some("commit: Many notes"));
    f.history.flush().unwrap();
    assert_clean(&repo);
    // Git itself finds the pack, its index, the trees and the commit well formed.
    git_checks(f.dir.path(), &["fsck", "--strict", "--no-dangling"]);
    for idx in fs::read_dir(f.dir.path().join(".git/objects/pack")).unwrap() {
        let idx = idx.unwrap().path();
        if idx.extension().is_some_and(|e| e == "idx") {
            git_checks(f.dir.path(), &["verify-pack", idx.to_str().unwrap()]);
        }
    }
    assert_eq!(
        f.history.versions(&p("notes/sub1/n17.md")).unwrap().len(),
        1
    );

    // A small commit after it is loose again, on top of the packed one.
    f.write("notes/sub0/n0.md", "changed\n", "carol");
    assert_eq!(
        loose_objects(f.dir.path()),
        before_loose + 5,
        "blob, 3 trees, commit"
    );
    f.history.flush().unwrap();
    assert_clean(&f.repo());
}

#[test]
fn batch_commits_in_a_row_build_on_each_other_and_on_a_commit_made_by_git_between_them() {
    let f = Fixture::new(sync_git());
    f.write("keep.md", "kept\n", "alice");
    let batch = |round: usize| {
        let mut changes = Vec::new();
        for i in 0..40 {
            // Overlapping folders, so each batch rewrites trees the one before built.
            let path = format!("notes/sub{}/n{}.md", i % 3, i + 20 * round);
            f.root
                .write(&p(&path), format!("round {round} note {i}\n").as_bytes())
                .unwrap();
            changes.push(change(&path, ChangeAction::Write));
        }
        committed(
            f.history
                .record(&changes, "bob", &format!("Round {round}"))
                .unwrap(),
        )
    };
    batch(0);
    batch(1);
    // Another program commits on top (once `.git/index` is saved, as it is within 250 ms).
    f.history.flush().unwrap();
    {
        let repo = f.repo();
        let mut index = repo.index().unwrap();
        fs::write(f.dir.path().join("outside.md"), "from git\n").unwrap();
        index.add_path(std::path::Path::new("outside.md")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let parent = repo.head().unwrap().peel_to_commit().unwrap();
        let sig = git2::Signature::now("git user", "git@example.org").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "outside", &tree, &[&parent])
            .unwrap();
    }
    batch(2);
    let last = batch(3);

    let repo = f.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.id().to_string(), last);
    let tree = head.tree().unwrap();
    let text = |path: &str| {
        let blob = tree
            .get_path(std::path::Path::new(path))
            .unwrap()
            .to_object(&repo)
            .unwrap()
            .peel_to_blob()
            .unwrap();
        String::from_utf8(blob.content().to_vec()).unwrap()
    };
    assert_eq!(
        text("outside.md"),
        "from git\n",
        "the other program's commit is kept"
    );
    assert_eq!(text("keep.md"), "kept\n");
    // Round r writes n(20r)..n(20r+39), the i-th in folder sub(i % 3).
    assert_eq!(text("notes/sub0/n0.md"), "round 0 note 0\n");
    assert_eq!(text("notes/sub2/n20.md"), "round 0 note 20\n");
    assert_eq!(text("notes/sub0/n20.md"), "round 1 note 0\n");
    assert_eq!(text("notes/sub1/n79.md"), "round 3 note 19\n");
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    assert_eq!(
        walk.count(),
        7,
        "keep, rounds 0 and 1, outside, rounds 2 and 3, and the first"
    );
    f.history.flush().unwrap();
    assert_clean(&repo);
    git_checks(f.dir.path(), &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn a_commit_of_many_files_keeps_the_executable_bit_and_leaves_git_status_clean() {
    use std::os::unix::fs::PermissionsExt;

    let f = Fixture::new(sync_git());
    f.write("keep.md", "kept\n", "alice");
    let mut changes = Vec::new();
    for i in 0..40 {
        let path = format!("tools/t{i}.sh");
        f.root
            .write(&p(&path), format!("echo {i}\n").as_bytes())
            .unwrap();
        if i % 2 == 0 {
            let on_disk = f.dir.path().join(&path);
            fs::set_permissions(&on_disk, fs::Permissions::from_mode(0o755)).unwrap();
        }
        changes.push(change(&path, ChangeAction::Write));
    }
    committed(f.history.record(&changes, "bob", "Tools").unwrap());
    f.history.flush().unwrap();
    let repo = f.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    for i in [0, 1, 2, 39] {
        let entry = tree
            .get_path(std::path::Path::new(&format!("tools/t{i}.sh")))
            .unwrap();
        let expected = if i % 2 == 0 { 0o100755 } else { 0o100644 };
        assert_eq!(entry.filemode(), expected, "t{i}.sh");
    }
    assert_clean(&repo);
}

#[test]
fn a_commit_of_many_files_applies_the_line_endings_gitattributes_asks_for() {
    let f = Fixture::new(sync_git());
    f.write(".gitattributes", "*.md text=auto\n", "alice");
    let mut changes = Vec::new();
    for i in 0..40 {
        let path = format!("notes/n{i}.md");
        f.root
            .write(&p(&path), format!("line one\r\nline {i}\r\n").as_bytes())
            .unwrap();
        changes.push(change(&path, ChangeAction::Write));
    }
    committed(f.history.record(&changes, "bob", "Notes").unwrap());
    f.history.flush().unwrap();
    let repo = f.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let blob = tree
        .get_path(std::path::Path::new("notes/n7.md"))
        .unwrap()
        .to_object(&repo)
        .unwrap()
        .peel_to_blob()
        .unwrap();
    assert_eq!(
        blob.content(),
        b"line one\nline 7\n",
        "normalized as git would"
    );
}

#[test]
fn a_gitattributes_in_a_folder_applies_below_it_and_nowhere_else() {
    let f = Fixture::new(sync_git());
    f.write("notes/.gitattributes", "*.md text=auto\n", "alice");
    let mut changes = Vec::new();
    for i in 0..40 {
        let path = if i % 2 == 0 {
            format!("notes/deep/n{i}.md")
        } else {
            format!("other/n{i}.md")
        };
        f.root
            .write(&p(&path), format!("line one\r\nline {i}\r\n").as_bytes())
            .unwrap();
        changes.push(change(&path, ChangeAction::Write));
    }
    committed(f.history.record(&changes, "bob", "Notes").unwrap());
    let repo = f.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let content = |path: &str| {
        tree.get_path(std::path::Path::new(path))
            .unwrap()
            .to_object(&repo)
            .unwrap()
            .peel_to_blob()
            .unwrap()
            .content()
            .to_vec()
    };
    assert_eq!(content("notes/deep/n4.md"), b"line one\nline 4\n");
    assert_eq!(content("other/n5.md"), b"line one\r\nline 5\r\n");
}

#[test]
fn an_index_naming_a_missing_object_is_repaired_instead_of_failing_every_commit() {
    let f = Fixture::new(sync_git());
    f.write("a/b.md", "# B\n", "ann");
    std::thread::sleep(Duration::from_millis(200));
    // Something left the index naming a blob the repository does not have.
    {
        let repo = f.repo();
        let mut index = repo.index().unwrap();
        let mut entry = index.get_path(std::path::Path::new("a/b.md"), 0).unwrap();
        let ghost = repo.blob(b"never committed, then lost\n").unwrap();
        entry.path = b"ghost.md".to_vec();
        entry.id = ghost;
        index.add(&entry).unwrap();
        index.write().unwrap();
        let hex = ghost.to_string();
        fs::remove_file(
            f.dir
                .path()
                .join(".git/objects")
                .join(&hex[..2])
                .join(&hex[2..]),
        )
        .unwrap();
    }
    // A file replacing a folder: the tree is written from the index.
    f.root.remove(&p("a/b.md")).unwrap();
    let _ = fs::remove_dir(f.dir.path().join("a"));
    f.root.write(&p("a"), b"now a file\n").unwrap();
    let recorded = f
        .history
        .record(
            &[
                change("a/b.md", ChangeAction::Delete),
                change("a", ChangeAction::Write),
            ],
            "ann",
            "a becomes a file",
        )
        .unwrap();
    committed(recorded);
    let repo = f.repo();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(
        tree.get_path(std::path::Path::new("a")).unwrap().kind() == Some(git2::ObjectType::Blob)
    );
    assert!(tree.get_path(std::path::Path::new("ghost.md")).is_err());
    f.history.flush().unwrap();
    assert_clean(&repo);
}

#[test]
fn a_repository_missing_the_objects_it_refers_to_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.md"), "# A\n").unwrap();
    let (tree, blob) = {
        let repo = Repository::init(dir.path()).unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(std::path::Path::new("a.md")).unwrap();
        index.write().unwrap();
        let tree = index.write_tree().unwrap();
        let signature = git2::Signature::now("t", "t@example.com").unwrap();
        let tree_object = repo.find_tree(tree).unwrap();
        repo.commit(
            Some("HEAD"),
            &signature,
            &signature,
            "base",
            &tree_object,
            &[],
        )
        .unwrap();
        let blob = index.get_path(std::path::Path::new("a.md"), 0).unwrap().id;
        (tree.to_string(), blob.to_string())
    };
    // A copy taken while `git gc` packed the objects, say: the objects are gone, and the
    // copied file's stat data differs from the index.
    for object in [&tree, &blob] {
        fs::remove_file(
            dir.path()
                .join(".git/objects")
                .join(&object[..2])
                .join(&object[2..]),
        )
        .unwrap();
    }
    std::thread::sleep(Duration::from_millis(20));
    fs::write(dir.path().join("a.md"), "# A\n").unwrap();
    let root = open_root(dir.path());
    let lock = root.writer_lock().expect("a writable root");
    let err = match History::open(&root, lock, sync_git()) {
        Ok(_) => panic!("a damaged repository opened"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("git fsck"), "{err}");
    assert!(err.contains("missing objects"), "{err}");
}
