//! Async batching across actors: one commit per batch that keeps each file's author, reading
//! the authors back, and backpressure on `record`. Real repositories in temp folders.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use git2::{Oid, Repository, StatusOptions};
use quire_store::{
    Backlog, ChangeAction, DiskName, FileChange, History, HistoryOptions, Recorded, Root,
    WriterLock,
};
use quire_vault::PagePath;

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

/// Async batching that commits only when flushed (or when a bound is reached).
fn batched(max_lag: Duration, max_pending: usize) -> HistoryOptions {
    HistoryOptions {
        async_commit: true,
        batch_window: Duration::from_secs(600),
        batch_max_size: 100_000,
        max_commit_lag: max_lag,
        max_pending,
        ..HistoryOptions::default()
    }
}

fn unbounded() -> HistoryOptions {
    batched(Duration::from_secs(3600), 100_000)
}

struct Fixture {
    dir: tempfile::TempDir,
    root: Root,
    history: History,
    _lock: WriterLock,
}

impl Fixture {
    fn new(opts: HistoryOptions) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let lock = WriterLock::acquire(dir.path(), "test").unwrap();
        let root = Root::open(dir.path(), &lock).unwrap();
        let history = History::open(&root, &lock, opts).unwrap();
        Fixture {
            dir,
            root,
            history,
            _lock: lock,
        }
    }

    /// What the write pipeline does: commit another actor's queued version of the path,
    /// write the file, record it with the bytes written.
    fn write(&self, path: &str, text: &str, actor: &str) -> Recorded {
        self.write_with(path, text, actor, &format!("Update {path}"))
    }

    fn write_with(&self, path: &str, text: &str, actor: &str, message: &str) -> Recorded {
        let disk = DiskName::from(&p(path));
        self.history.commit_others_before(&[&disk], actor).unwrap();
        self.root.write(&p(path), text.as_bytes()).unwrap();
        let change = FileChange::new(p(path), ChangeAction::Write).with_content(text.as_bytes());
        self.history.record(&[change], actor, message).unwrap()
    }

    /// Another program (an editor) saves the file, behind quire's back.
    fn save_outside(&self, path: &str, text: &str) {
        std::fs::write(self.dir.path().join(path), text).unwrap();
    }

    /// What the service does with an edit seen on disk: commit another actor's queued
    /// version first, then record the bytes found as `quire`.
    fn record_outside(&self, path: &str) {
        let disk = DiskName::from(&p(path));
        self.history
            .commit_others_before(&[&disk], "quire")
            .unwrap();
        let bytes = std::fs::read(self.dir.path().join(path)).unwrap();
        let change = FileChange::new(p(path), ChangeAction::Write).with_content(bytes);
        self.history
            .record(&[change], "quire", "Record changes made outside quire")
            .unwrap();
    }

    /// The paths `git status` reports, with their status.
    fn dirty(&self) -> Vec<String> {
        let mut opts = StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        let repo = self.repo();
        let statuses = repo.statuses(Some(&mut opts)).unwrap();
        let dirty = statuses
            .iter()
            .map(|s| format!("{:?} {}", s.status(), s.path().unwrap_or("?")))
            .collect();
        dirty
    }

    fn delete(&self, path: &str, actor: &str) {
        let disk = DiskName::from(&p(path));
        self.history.commit_others_before(&[&disk], actor).unwrap();
        self.root.remove(&p(path)).unwrap();
        self.history
            .record(
                &[FileChange::new(p(path), ChangeAction::Delete)],
                actor,
                &format!("Delete {path}"),
            )
            .unwrap();
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

    fn head_has(&self, path: &str) -> bool {
        let repo = self.repo();
        let tree = repo.head().unwrap().peel_to_tree().unwrap();
        let found = tree.get_path(path.as_ref()).is_ok();
        found
    }

    /// `(actor, content)` of every version of a path, newest first.
    fn versions(&self, path: &str) -> Vec<(String, String)> {
        self.history
            .versions(&p(path))
            .unwrap()
            .into_iter()
            .map(|v| {
                let bytes = self.history.version(&p(path), &v.hash).unwrap_or_default();
                (v.author, String::from_utf8(bytes).unwrap())
            })
            .collect()
    }

    /// `(path, actor)` of every change after the first commit, oldest first.
    fn changes_since_start(&self) -> Vec<(String, String, ChangeAction)> {
        let repo = self.repo();
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        let first = walk.last().unwrap().unwrap().to_string();
        self.history
            .changes(Some(&first), usize::MAX)
            .unwrap()
            .changes
            .into_iter()
            .map(|c| (c.path, c.actor, c.action))
            .collect()
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

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn three_actors_in_one_window_make_one_commit_with_a_trailer_per_file() {
    let f = Fixture::new(unbounded());
    let start = f.commit_count();
    f.write("a.md", "by alice\n", "alice");
    f.write("b.md", "by bob\n", "bob");
    f.write("c.md", "by carol\n", "carol");
    assert_eq!(f.commit_count(), start, "the window is ten minutes");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 1);

    let repo = f.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("quire"));
    assert_eq!(head.author().email(), Some("quire+batch@quire.local"));
    assert_eq!(
        head.message().unwrap(),
        "Batch of 3 writes by 3 actors\n\n\
         - alice: Update a.md\n- bob: Update b.md\n- carol: Update c.md\n\n\
         Quire-Actor: a.md alice\nQuire-Actor: b.md bob\nQuire-Actor: c.md carol\n"
    );
    assert_clean(&repo);
}

#[test]
fn versions_blame_and_changes_name_each_files_own_actor_in_a_multi_actor_batch() {
    let f = Fixture::new(unbounded());
    f.write("a.md", "first line\n", "alice");
    f.write("b.md", "b\n", "bob");
    f.write("c.md", "c\n", "carol");
    f.history.flush().unwrap();
    // A second batch: carol adds a line to alice's page, bob deletes his own, alice writes
    // another page.
    f.write("a.md", "first line\nsecond line\n", "carol");
    f.delete("b.md", "bob");
    f.write("d.md", "d\n", "alice");
    f.history.flush().unwrap();

    assert_eq!(
        f.versions("a.md"),
        owned(&[
            ("carol", "first line\nsecond line\n"),
            ("alice", "first line\n")
        ])
    );
    assert_eq!(f.versions("c.md"), owned(&[("carol", "c\n")]));
    let b: Vec<String> = f
        .history
        .versions(&p("b.md"))
        .unwrap()
        .into_iter()
        .map(|v| v.author)
        .collect();
    assert_eq!(b, ["bob", "bob"], "the deletion is bob's too");

    let blame: Vec<(String, String)> = f
        .history
        .blame(&p("a.md"))
        .unwrap()
        .into_iter()
        .map(|l| (l.content, l.author))
        .collect();
    assert_eq!(
        blame,
        owned(&[("first line", "alice"), ("second line", "carol")])
    );

    use ChangeAction::{Delete, Write};
    let changes = f.changes_since_start();
    let want = [
        ("a.md", "alice", Write),
        ("b.md", "bob", Write),
        ("c.md", "carol", Write),
        ("a.md", "carol", Write),
        ("b.md", "bob", Delete),
        ("d.md", "alice", Write),
    ];
    let want: Vec<(String, String, ChangeAction)> = want
        .iter()
        .map(|(path, actor, action)| ((*path).to_owned(), (*actor).to_owned(), *action))
        .collect();
    assert_eq!(changes, want);
}

#[test]
fn a_single_actors_batch_is_authored_by_the_actor_without_trailers() {
    let f = Fixture::new(unbounded());
    let start = f.commit_count();
    f.write("a.md", "a", "alice");
    f.write("b.md", "b", "alice");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 1);
    let repo = f.repo();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("alice"));
    assert_eq!(head.author().email(), Some("alice@quire.local"));
    assert_eq!(
        head.message().unwrap(),
        "Update a.md (+1 more)\n\n- Update a.md\n- Update b.md\n"
    );
}

#[test]
fn paths_with_spaces_and_percent_signs_and_actors_with_spaces_keep_their_attribution() {
    let f = Fixture::new(unbounded());
    f.write("my notes/50% done.md", "x\n", "Ada Lovelace");
    f.write("my notes/%20.md", "y\n", "bob");
    f.write("café déjà.md", "z\n", "Grace Hopper");
    f.history.flush().unwrap();

    let repo = f.repo();
    let message = repo
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .message()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("Quire-Actor: my%20notes/50%25%20done.md Ada Lovelace\n"),
        "{message}"
    );
    assert!(
        message.contains("Quire-Actor: my%20notes/%2520.md bob\n"),
        "{message}"
    );
    assert!(
        message.contains("Quire-Actor: café%20déjà.md Grace Hopper\n"),
        "{message}"
    );

    assert_eq!(f.versions("my notes/50% done.md")[0].0, "Ada Lovelace");
    assert_eq!(f.versions("my notes/%20.md")[0].0, "bob");
    assert_eq!(f.versions("café déjà.md")[0].0, "Grace Hopper");
    let blame = f.history.blame(&p("my notes/50% done.md")).unwrap();
    assert_eq!(blame[0].author, "Ada Lovelace");
    let actors: HashMap<String, String> = f
        .changes_since_start()
        .into_iter()
        .map(|(path, actor, _)| (path, actor))
        .collect();
    assert_eq!(actors["my notes/50% done.md"], "Ada Lovelace");
    assert_eq!(actors["my notes/%20.md"], "bob");
    assert_eq!(actors["café déjà.md"], "Grace Hopper");
}

#[test]
fn overwrite_by_another_actor_of_a_queued_path_keeps_both_versions() {
    let f = Fixture::new(unbounded());
    let start = f.commit_count();
    f.write("shared.md", "alice's version", "alice");
    f.write("other.md", "carol's page", "carol");
    // Bob overwrites a path alice still has queued: her version is committed first.
    f.write("shared.md", "bob's version", "bob");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 2);
    assert_eq!(
        f.versions("shared.md"),
        owned(&[("bob", "bob's version"), ("alice", "alice's version")])
    );
    assert_eq!(f.versions("other.md"), owned(&[("carol", "carol's page")]));
}

#[test]
fn a_queued_write_commits_its_own_bytes_when_an_editor_saves_the_file_before_the_batch() {
    let f = Fixture::new(unbounded());
    let start = f.commit_count();
    f.write("page.md", "# One\n", "api-client");
    f.save_outside("page.md", "# Edited in an editor\n");
    // The batch commits before the watcher reports the edit.
    f.history.flush().unwrap();
    assert_eq!(
        f.versions("page.md"),
        owned(&[("api-client", "# One\n")]),
        "the batch holds the bytes the API wrote, not the editor's"
    );
    assert_eq!(
        f.dirty(),
        ["Status(WT_MODIFIED) page.md"],
        "git sees the editor's save as a change still to record"
    );
    f.record_outside("page.md");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 2);
    assert_eq!(
        f.versions("page.md"),
        owned(&[
            ("quire", "# Edited in an editor\n"),
            ("api-client", "# One\n")
        ])
    );
    assert_clean(&f.repo());
}

#[test]
fn an_editor_save_reported_before_the_batch_commits_the_queued_write_first() {
    let f = Fixture::new(unbounded());
    let start = f.commit_count();
    f.write("page.md", "# One\n", "api-client");
    f.write("other.md", "# Other\n", "api-client");
    f.save_outside("page.md", "# Edited in an editor\n");
    // The watcher reports the edit while the API's write is still queued.
    f.record_outside("page.md");
    f.history.flush().unwrap();
    assert_eq!(f.commit_count(), start + 2);
    assert_eq!(
        f.versions("page.md"),
        owned(&[
            ("quire", "# Edited in an editor\n"),
            ("api-client", "# One\n")
        ])
    );
    assert_eq!(
        f.versions("other.md"),
        owned(&[("api-client", "# Other\n")])
    );
    assert_clean(&f.repo());
}

#[test]
fn a_queued_write_of_a_file_removed_outside_is_committed_and_the_removal_shows() {
    let f = Fixture::new(unbounded());
    f.write("gone.md", "# Written\n", "api-client");
    std::fs::remove_file(f.dir.path().join("gone.md")).unwrap();
    f.history.flush().unwrap();
    assert_eq!(
        f.versions("gone.md"),
        owned(&[("api-client", "# Written\n")])
    );
    assert_eq!(f.dirty(), ["Status(WT_DELETED) gone.md"]);
}

#[test]
fn a_trailer_in_a_callers_message_never_changes_attribution() {
    let f = Fixture::new(unbounded());
    let forged = "Update x.md\n\nQuire-Actor: x.md alice";
    // Alone in its batch: the author is the actor, and the message is not read.
    f.write_with("x.md", "mallory's", "mallory", forged);
    f.history.flush().unwrap();
    assert_eq!(f.versions("x.md")[0].0, "mallory");
    // Among several actors: callers' messages are quoted as list items only.
    f.write_with("x.md", "mallory's again", "mallory", forged);
    f.write("y.md", "bob's", "bob");
    f.history.flush().unwrap();
    assert_eq!(f.versions("x.md")[0].0, "mallory");
    // An actor cannot take the batch signature either.
    f.write("z.md", "q", "quire");
    f.write("w.md", "b", "bob");
    f.history.flush().unwrap();
    assert_eq!(f.versions("z.md")[0].0, "quire");
}

#[test]
fn record_waits_while_more_than_max_pending_files_are_uncommitted() {
    let f = Fixture::new(batched(Duration::from_secs(3600), 2));
    let start = f.commit_count();
    f.write("1.md", "x", "alice");
    f.write("2.md", "x", "bob");
    // At the bound but not over it: nothing was committed (the window is ten minutes).
    assert_eq!(f.commit_count(), start);
    assert_eq!(f.history.backlog().files, 2);
    // Over the bound: the record returns only once the commit thread has caught up.
    f.write("3.md", "x", "carol");
    assert_eq!(f.commit_count(), start + 1);
    assert!(f.head_has("1.md") && f.head_has("2.md") && f.head_has("3.md"));
    assert_eq!(f.history.backlog(), Backlog::default());
}

#[test]
fn record_waits_while_an_uncommitted_write_is_older_than_max_commit_lag() {
    let f = Fixture::new(batched(Duration::from_millis(150), 100_000));
    let start = f.commit_count();
    f.write("old.md", "x", "alice");
    std::thread::sleep(Duration::from_millis(300));
    // The window is ten minutes: only the lag bound can have the queue committed.
    assert_eq!(f.commit_count(), start);
    let backlog = f.history.backlog();
    assert_eq!(backlog.files, 1);
    assert!(backlog.oldest.unwrap() >= Duration::from_millis(300));
    f.write("new.md", "x", "bob");
    assert_eq!(f.commit_count(), start + 1);
    assert!(f.head_has("old.md") && f.head_has("new.md"));
    assert_eq!(f.versions("old.md")[0].0, "alice");
    assert_eq!(f.versions("new.md")[0].0, "bob");
}

/// Eight writers through a pipeline-like lock, a bound of three files: after every record the
/// backlog is within the bound, and history holds every write in order under its author
/// (a path rewritten by the same actor before its commit keeps only the later version).
#[test]
fn backpressure_never_loses_or_reorders_a_write() {
    const WRITERS: usize = 8;
    const WRITES: usize = 25;
    const PATHS: usize = 5;
    let f = Fixture::new(batched(Duration::from_secs(3600), 3));
    let lock = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..WRITERS {
            let (f, lock) = (&f, &lock);
            s.spawn(move || {
                for i in 0..WRITES {
                    let path = format!("p{}.md", (t + i) % PATHS);
                    let actor = format!("writer {t}");
                    let text = format!("{actor}, write {i}");
                    let mut log = lock.lock().unwrap();
                    f.write(&path, &text, &actor);
                    let backlog = f.history.backlog();
                    assert!(backlog.files <= 3, "{backlog:?}");
                    log.push((path, actor, text));
                }
            });
        }
    });
    f.history.flush().unwrap();
    let log = lock.into_inner().unwrap();
    for n in 0..PATHS {
        let path = format!("p{n}.md");
        let writes: Vec<(String, String)> = log
            .iter()
            .filter(|(p, _, _)| *p == path)
            .map(|(_, actor, text)| (actor.clone(), text.clone()))
            .collect();
        let mut versions = f.versions(&path);
        versions.reverse();
        // Every version is a write, in the order of the writes...
        let mut next = 0;
        for version in &versions {
            let at = writes[next..]
                .iter()
                .position(|w| w == version)
                .unwrap_or_else(|| panic!("{path}: {version:?} out of order or unknown"));
            next += at + 1;
        }
        // ... and every write followed by another actor's (or the last) is a version.
        for (i, write) in writes.iter().enumerate() {
            let superseded_by_self = writes.get(i + 1).is_some_and(|w| w.0 == write.0);
            assert!(
                superseded_by_self || versions.contains(write),
                "{path}: {write:?} missing"
            );
        }
    }
    assert_clean(&f.repo());
}

#[test]
fn backlog_counts_queued_files_and_the_age_of_the_oldest() {
    let f = Fixture::new(unbounded());
    assert_eq!(f.history.backlog(), Backlog::default());
    f.write("a.md", "x", "alice");
    std::thread::sleep(Duration::from_millis(20));
    f.write("b.md", "x", "bob");
    f.write("a.md", "y", "alice");
    let backlog = f.history.backlog();
    // Alice rewrote her own queued page: it is queued once.
    assert_eq!(backlog.files, 2);
    assert!(backlog.oldest.unwrap() >= Duration::from_millis(20));
    f.history.flush().unwrap();
    assert_eq!(f.history.backlog(), Backlog::default());
}

#[test]
fn flush_commits_everything_queued_by_many_actors_in_one_commit() {
    let f = Fixture::new(unbounded());
    let start = f.commit_count();
    for i in 0..300 {
        f.write(&format!("n/{i}.md"), "x", &format!("actor-{}", i % 30));
    }
    assert_eq!(f.history.backlog().files, 300);
    let flush = Instant::now();
    f.history.flush().unwrap();
    let took = flush.elapsed();
    assert_eq!(f.commit_count(), start + 1);
    assert!(took < Duration::from_secs(30), "flush took {took:?}");
    let changes = f.changes_since_start();
    assert_eq!(changes.len(), 300);
    for (path, actor, _) in changes {
        let i: usize = path[2..path.len() - 3].parse().unwrap();
        assert_eq!(actor, format!("actor-{}", i % 30), "{path}");
    }
    assert_clean(&f.repo());
}

#[test]
fn drop_commits_every_actors_queued_writes_under_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let lock = WriterLock::acquire(dir.path(), "test").unwrap();
    let root = Root::open(dir.path(), &lock).unwrap();
    let history = History::open(&root, &lock, unbounded()).unwrap();
    for (path, actor) in [("a.md", "alice"), ("b.md", "bob")] {
        root.write(&p(path), actor.as_bytes()).unwrap();
        history
            .record(
                &[FileChange::new(p(path), ChangeAction::Write)],
                actor,
                "write",
            )
            .unwrap();
    }
    drop(history);
    let repo = Repository::open(dir.path()).unwrap();
    assert_clean(&repo);
    let head = repo.head().unwrap().peel_to_commit().unwrap().id();
    // Reopening finds nothing to commit under `quire`, and the authors read back.
    let history = History::open(&root, &lock, unbounded()).unwrap();
    assert_eq!(history.head(), Some(head.to_string()));
    assert_eq!(history.versions(&p("a.md")).unwrap()[0].author, "alice");
    assert_eq!(history.versions(&p("b.md")).unwrap()[0].author, "bob");
    assert_ne!(head, Oid::zero());
}

/// `records_at_once` says when `commit_others_before` and `record` return without committing
/// or waiting: what lets a small write run on an async executor's thread.
#[test]
fn records_at_once_only_while_nothing_would_be_committed_or_waited_for() {
    let f = Fixture::new(batched(Duration::from_millis(200), 100_000));
    let name = |s: &str| f.root.disk_name(&p(s)).unwrap();
    let (shared, own) = (name("shared.md"), name("own.md"));
    assert!(f.history.records_at_once(&[&shared], "alice"));
    let start = f.commit_count();
    f.write("shared.md", "alice's version", "alice");
    // Her own path again, or another path: queued at once.
    assert!(f.history.records_at_once(&[&shared], "alice"));
    assert!(f.history.records_at_once(&[&own], "bob"));
    // Another actor's queued write of the path would be committed first.
    assert!(!f.history.records_at_once(&[&shared], "bob"));
    // Once the oldest queued write is older than the lag bound, a record waits for a commit.
    std::thread::sleep(Duration::from_millis(400));
    assert!(!f.history.records_at_once(&[&own], "alice"));
    // Asking commits nothing and changes nothing.
    assert_eq!(f.commit_count(), start);
    assert_eq!(f.history.backlog().files, 1);
    f.history.flush().unwrap();
    assert!(f.history.records_at_once(&[&shared], "bob"));
}

#[test]
fn a_history_that_commits_each_write_never_records_at_once() {
    let f = Fixture::new(HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    });
    let page = f.root.disk_name(&p("a.md")).unwrap();
    assert!(!f.history.records_at_once(&[&page], "alice"));
}
