//! Copy-on-write snapshots and the `none` strategy.

use std::fs;

use quire_store::{
    ChangeAction, FileChange, History, HistoryOptions, Recorded, Root, StoreError, Strategy,
};
use quire_vault::PagePath;

mod common;
use common::{open_history, open_root};

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

fn opts(strategy: Strategy, max_versions: usize) -> HistoryOptions {
    HistoryOptions {
        strategy,
        max_versions,
        ..HistoryOptions::default()
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    root: Root,
    history: History,
}

impl Fixture {
    fn new(strategy: Strategy, max_versions: usize) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = open_root(dir.path());
        let history = open_history(&root, opts(strategy, max_versions));
        Fixture { dir, root, history }
    }

    fn write(&self, path: &str, text: &str, actor: &str) -> Recorded {
        self.root.write(&p(path), text.as_bytes()).unwrap();
        self.history
            .record(
                &[FileChange::new(p(path), ChangeAction::Write)],
                actor,
                &format!("write {path}"),
            )
            .unwrap()
    }

    fn snapshot_files(&self) -> usize {
        let files = self.dir.path().join(".quire/versions/files");
        fs::read_dir(files)
            .unwrap()
            .map(|d| {
                fs::read_dir(d.unwrap().path())
                    .unwrap()
                    .filter(|f| f.as_ref().unwrap().file_name() != "log.json")
                    .count()
            })
            .sum()
    }
}

#[test]
fn cow_records_snapshots_listed_newest_first() {
    let f = Fixture::new(Strategy::Cow, 100);
    assert_eq!(f.write("a.md", "one\n", "alice"), Recorded::Snapshot);
    f.write("a.md", "two\n", "bob");
    let versions = f.history.versions(&p("a.md")).unwrap();
    let got: Vec<(&str, &str)> = versions
        .iter()
        .map(|v| (v.hash.as_str(), v.author.as_str()))
        .collect();
    let two = quire_store::etag(b"two\n");
    let one = quire_store::etag(b"one\n");
    assert_eq!(got, [(two.as_str(), "bob"), (one.as_str(), "alice")]);
    assert_eq!(versions[0].message, "write a.md");
    assert!(!f.dir.path().join(".git").exists());
    assert!(f.history.versions(&p("never.md")).unwrap().is_empty());
}

#[test]
fn cow_version_and_diff_by_full_or_abbreviated_id() {
    let f = Fixture::new(Strategy::Cow, 100);
    f.write("a.md", "one\ntwo\n", "alice");
    f.write("a.md", "one\n2\n", "alice");
    let v1 = quire_store::etag(b"one\ntwo\n");
    let v2 = quire_store::etag(b"one\n2\n");
    assert_eq!(f.history.version(&p("a.md"), &v1).unwrap(), b"one\ntwo\n");
    assert_eq!(
        f.history.version(&p("a.md"), &v2[..6]).unwrap(),
        b"one\n2\n"
    );
    let diff = f.history.diff(&p("a.md"), &v1[..8], &v2).unwrap();
    assert_eq!(
        diff,
        "--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    );
    for bad in ["nothex", "ffff", "12"] {
        assert!(
            matches!(
                f.history.version(&p("a.md"), bad),
                Err(StoreError::VersionNotFound { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn cow_prunes_beyond_max_versions_and_deletes_unreferenced_snapshots() {
    let f = Fixture::new(Strategy::Cow, 3);
    for i in 0..6 {
        f.write("a.md", &format!("v{i}"), "alice");
    }
    let versions = f.history.versions(&p("a.md")).unwrap();
    let hashes: Vec<String> = versions.iter().map(|v| v.hash.clone()).collect();
    let want: Vec<String> = (3..6)
        .rev()
        .map(|i| quire_store::etag(format!("v{i}").as_bytes()))
        .collect();
    assert_eq!(hashes, want);
    assert_eq!(f.snapshot_files(), 3);
    assert!(matches!(
        f.history.version(&p("a.md"), &quire_store::etag(b"v0")),
        Err(StoreError::VersionNotFound { .. })
    ));
}

#[test]
fn cow_rewriting_same_content_adds_no_version() {
    let f = Fixture::new(Strategy::Cow, 10);
    f.write("a.md", "same", "alice");
    f.write("a.md", "same", "bob");
    assert_eq!(f.history.versions(&p("a.md")).unwrap().len(), 1);
}

#[test]
fn cow_changes_are_numbered_and_page_with_since() {
    let f = Fixture::new(Strategy::Cow, 10);
    assert_eq!(f.history.head(), None);
    f.write("a.md", "1", "alice");
    f.write("b.md", "1", "bob");
    f.root.remove(&p("a.md")).unwrap();
    f.history
        .record(
            &[FileChange::new(p("a.md"), ChangeAction::Delete)],
            "carol",
            "delete",
        )
        .unwrap();
    assert_eq!(f.history.head().as_deref(), Some("3"));
    let all = f.history.changes(None, 10).unwrap();
    let got: Vec<(&str, &str, ChangeAction, &str)> = all
        .changes
        .iter()
        .map(|c| (c.seq.as_str(), c.path.as_str(), c.action, c.actor.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("1", "a.md", ChangeAction::Write, "alice"),
            ("2", "b.md", ChangeAction::Write, "bob"),
            ("3", "a.md", ChangeAction::Delete, "carol"),
        ]
    );
    assert_eq!(all.last_seq.as_deref(), Some("3"));
    let recent = f.history.changes(None, 1).unwrap();
    assert_eq!(recent.changes.len(), 1);
    assert_eq!(recent.changes[0].seq, "3");
    let page = f.history.changes(Some("1"), 1).unwrap();
    assert_eq!(page.changes[0].seq, "2");
    assert_eq!(page.last_seq.as_deref(), Some("2"));
    let empty = f.history.changes(Some("3"), 10).unwrap();
    assert!(empty.changes.is_empty());
    assert_eq!(empty.last_seq.as_deref(), Some("3"));
    assert!(matches!(
        f.history.changes(Some("abc"), 10),
        Err(StoreError::VersionNotFound { .. })
    ));

    // The numbering continues after a restart.
    let reopened = open_history(&f.root, opts(Strategy::Cow, 10));
    assert_eq!(reopened.head().as_deref(), Some("3"));
    // Versions of a deleted file survive the deletion.
    assert_eq!(reopened.versions(&p("a.md")).unwrap().len(), 1);
}

#[test]
fn cow_change_log_survives_a_torn_last_line() {
    let f = Fixture::new(Strategy::Cow, 10);
    f.write("a.md", "1", "alice");
    let log = f.dir.path().join(".quire/versions/changes.jsonl");
    let mut text = fs::read_to_string(&log).unwrap();
    text.push_str("{\"seq\":\"2\",\"pa");
    fs::write(&log, text).unwrap();
    let reopened = open_history(&f.root, opts(Strategy::Cow, 10));
    f.root.write(&p("b.md"), b"2").unwrap();
    reopened
        .record(
            &[FileChange::new(p("b.md"), ChangeAction::Write)],
            "bob",
            "b",
        )
        .unwrap();
    let page = reopened.changes(None, 10).unwrap();
    let seqs: Vec<&str> = page.changes.iter().map(|c| c.seq.as_str()).collect();
    assert_eq!(seqs, ["1", "2"]);
}

#[test]
fn cow_blame_is_unavailable() {
    let f = Fixture::new(Strategy::Cow, 10);
    f.write("a.md", "x", "alice");
    assert!(matches!(
        f.history.blame(&p("a.md")),
        Err(StoreError::Unavailable { .. })
    ));
}

#[test]
fn none_records_nothing_and_history_calls_are_unavailable() {
    let f = Fixture::new(Strategy::None, 10);
    assert_eq!(f.write("a.md", "x", "alice"), Recorded::Unversioned);
    assert_eq!(f.history.strategy(), Strategy::None);
    assert_eq!(f.history.head(), None);
    f.history.flush().unwrap();
    let unavailable = [
        f.history.versions(&p("a.md")).map(drop),
        f.history.version(&p("a.md"), "abcd").map(drop),
        f.history.diff(&p("a.md"), "abcd", "abcd").map(drop),
        f.history.blame(&p("a.md")).map(drop),
        f.history.changes(None, 10).map(drop),
    ];
    for (i, result) in unavailable.into_iter().enumerate() {
        match result {
            Err(e @ StoreError::Unavailable { .. }) => {
                assert!(e.to_string().contains("none"), "{e}")
            }
            other => panic!("case {i}: {other:?}"),
        }
    }
    assert!(!f.dir.path().join(".git").exists());
    assert!(!f.dir.path().join(".quire/versions").exists());
}

#[test]
fn strategy_parses_from_configuration_names() {
    for (text, want) in [
        ("git", Strategy::Git),
        ("cow", Strategy::Cow),
        ("none", Strategy::None),
    ] {
        assert_eq!(text.parse::<Strategy>().unwrap(), want);
        assert_eq!(want.to_string(), text);
    }
    assert!("svn".parse::<Strategy>().is_err());
}
