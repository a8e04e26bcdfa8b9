//! The one write pipeline, called directly: a change is written and committed together or not
//! at all, preconditions are checked before anything is touched, and every finished change is
//! indexed and announced.

mod support;

use quire_service::{Announce, Change, CommitMode, ErrorCode, Event, Expect, FileOp};
use quire_vault::PagePath;
use support::TestSpace;

fn op(path: &str, content: Option<&str>, expect: Expect) -> FileOp {
    FileOp {
        path: PagePath::new(path).unwrap(),
        content: content.map(|c| c.as_bytes().to_vec()),
        expect,
    }
}

fn change(ops: Vec<FileOp>, actor: &str, message: &str) -> Change {
    Change {
        ops,
        actor: actor.into(),
        message: message.into(),
        announce: Announce::PerFile,
        commit: CommitMode::AsConfigured,
    }
}

#[test]
fn a_change_of_several_files_is_one_commit_by_its_actor() {
    let t = TestSpace::new(&[("a.md", "# A\n")]);
    let before = t.head();
    let applied = t
        .space
        .apply(change(
            vec![
                op("a.md", Some("# A2\n"), Expect::Anything),
                op("b.md", Some("# B\n"), Expect::Absent),
                op("c/d.md", Some("# D\n"), Expect::Anything),
            ],
            "alice",
            "three at once",
        ))
        .unwrap();
    assert_eq!(applied.files.len(), 3);
    assert!(applied.files[1].created && !applied.files[0].created);
    let commit = applied.commit.expect("synchronous git commits");
    assert_ne!(Some(commit.clone()), before);
    for path in ["a.md", "b.md", "c/d.md"] {
        let versions = t.space.versions().of(path).unwrap();
        assert_eq!(versions[0].hash, commit, "{path} is in the one commit");
        assert_eq!(versions[0].author, "alice");
        assert_eq!(versions[0].message.trim(), "three at once");
    }
    assert_eq!(t.disk("c/d.md").as_deref(), Some("# D\n"));
}

#[test]
fn a_failed_precondition_on_any_file_writes_nothing() {
    let t = TestSpace::new(&[("a.md", "# A\n"), ("b.md", "# B\n")]);
    let head = t.head();
    let err = t
        .space
        .apply(change(
            vec![
                op("a.md", Some("# A2\n"), Expect::Anything),
                op("b.md", Some("# B2\n"), Expect::Etag("0000".into())),
            ],
            "alice",
            "",
        ))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("b.md"), "{}", err.message);
    assert_eq!(t.disk("a.md").as_deref(), Some("# A\n"));
    assert_eq!(t.disk("b.md").as_deref(), Some("# B\n"));
    assert_eq!(t.head(), head, "no commit");
}

#[test]
fn absent_refuses_an_existing_file_and_deleting_a_missing_one_is_not_found() {
    let t = TestSpace::new(&[("a.md", "# A\n")]);
    let err = t
        .space
        .apply(change(
            vec![op("a.md", Some("x"), Expect::Absent)],
            "alice",
            "",
        ))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    let err = t
        .space
        .apply(change(
            vec![op("gone.md", None, Expect::Anything)],
            "alice",
            "",
        ))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[test]
fn reserved_paths_duplicate_paths_and_bad_actors_are_refused() {
    let t = TestSpace::new(&[]);
    for (ops, actor) in [
        (
            vec![op(".git/config", Some("x"), Expect::Anything)],
            "alice",
        ),
        (
            vec![op(".quire/state/x", Some("x"), Expect::Anything)],
            "alice",
        ),
        (
            vec![
                op("a.md", Some("1"), Expect::Anything),
                op("a.md", Some("2"), Expect::Anything),
            ],
            "alice",
        ),
        (vec![op("a.md", Some("x"), Expect::Anything)], "eve <e@x>"),
        (vec![op("a.md", Some("x"), Expect::Anything)], "  "),
        (vec![], "alice"),
    ] {
        let err = t.space.apply(change(ops, actor, "")).unwrap_err();
        assert_eq!(err.code, ErrorCode::BadRequest, "{}", err.message);
    }
    assert!(t.disk("a.md").is_none());
}

#[test]
fn identical_bytes_make_no_commit_and_no_event() {
    let t = TestSpace::new(&[("a.md", "# A\n")]);
    let head = t.head();
    let mut events = t.space.events().subscribe();
    let applied = t
        .space
        .apply(change(
            vec![op("a.md", Some("# A\n"), Expect::Anything)],
            "alice",
            "",
        ))
        .unwrap();
    assert_eq!(applied.commit, None);
    assert_eq!(t.head(), head);
    assert!(events.try_recv().is_err(), "nothing was announced");
}

#[test]
fn a_finished_change_is_indexed_and_announced() {
    let t = TestSpace::new(&[("a.md", "# A\n")]);
    let mut events = t.space.events().subscribe();
    t.space
        .apply(change(
            vec![
                op("b.md", Some("See [[a]].\n"), Expect::Absent),
                op("a.md", None, Expect::Anything),
            ],
            "bob",
            "",
        ))
        .unwrap();
    {
        let vault = t.space.vault();
        assert!(vault.contains(&PagePath::new("b.md").unwrap()));
        assert!(!vault.contains(&PagePath::new("a.md").unwrap()));
    }
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        seen.push(event);
    }
    assert!(seen.iter().any(
        |e| matches!(e, Event::Delete { path, actor, .. } if path == "a.md" && actor == "bob")
    ));
    assert!(seen
        .iter()
        .any(|e| matches!(e, Event::Write { path, .. } if path == "b.md")));
}

#[test]
fn a_failed_commit_restores_every_file_and_leaves_no_journal() {
    let t = TestSpace::new(&[("a.md", "# A\n"), ("b.md", "# B\n")]);
    let head = t.head();
    // A ref lock left by a dead git makes the commit fail after the files were written.
    let lock = t.head_ref().with_extension("lock");
    std::fs::write(&lock, "").unwrap();
    let err = t
        .space
        .apply(change(
            vec![
                op("a.md", Some("# A2\n"), Expect::Anything),
                op("b.md", None, Expect::Anything),
                op("c.md", Some("# C\n"), Expect::Absent),
            ],
            "alice",
            "",
        ))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Internal);
    assert!(
        err.detail.as_deref().unwrap_or("").contains("commit"),
        "{err:?}"
    );
    assert_eq!(t.disk("a.md").as_deref(), Some("# A\n"));
    assert_eq!(t.disk("b.md").as_deref(), Some("# B\n"));
    assert_eq!(t.disk("c.md"), None);
    assert!(!t.root().join(".quire/state/refactor-journal.json").exists());
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(t.head(), head);
    // The link model still describes the files as they are.
    assert!(t.space.vault().contains(&PagePath::new("b.md").unwrap()));
}

#[test]
fn a_change_applied_after_a_failed_one_commits_normally() {
    let t = TestSpace::new(&[("a.md", "# A\n")]);
    let lock = t.head_ref().with_extension("lock");
    std::fs::write(&lock, "").unwrap();
    assert!(t
        .space
        .apply(change(
            vec![op("a.md", Some("1"), Expect::Anything)],
            "x",
            ""
        ))
        .is_err());
    std::fs::remove_file(&lock).unwrap();
    let applied = t
        .space
        .apply(change(
            vec![op("a.md", Some("2"), Expect::Anything)],
            "x",
            "",
        ))
        .unwrap();
    assert!(applied.commit.is_some());
    assert_eq!(t.last_message("a.md").trim(), "Update a.md");
}

#[test]
fn concurrent_writers_are_announced_in_the_order_of_their_commits() {
    let t = TestSpace::new(&[("a.md", "# A\n")]);
    let mut events = t.space.events().subscribe();
    std::thread::scope(|scope| {
        for w in 0..6 {
            let space = &t.space;
            scope.spawn(move || {
                for n in 0..15 {
                    let text = format!("# A\nwriter {w} write {n}\n");
                    space
                        .apply(change(
                            vec![op("a.md", Some(&text), Expect::Anything)],
                            &format!("writer-{w}"),
                            "",
                        ))
                        .unwrap();
                }
            });
        }
    });
    let mut announced = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let Event::Write { actor, .. } = event {
            announced.push(actor);
        }
    }
    // Oldest first, as committed.
    let committed: Vec<String> = t
        .space
        .versions()
        .of("a.md")
        .unwrap()
        .into_iter()
        .rev()
        .skip(1)
        .map(|v| v.author)
        .collect();
    assert_eq!(announced.len(), 90);
    assert_eq!(announced, committed);
}

/// Batched commits that wait for a flush (the window is ten minutes).
fn batched() -> quire_service::HistoryOptions {
    quire_service::HistoryOptions {
        async_commit: true,
        batch_window: std::time::Duration::from_secs(600),
        batch_max_size: 100_000,
        ..quire_service::HistoryOptions::default()
    }
}

#[test]
fn a_small_write_at_once_passes_the_whole_pipeline() {
    let t = TestSpace::with(batched(), Default::default(), &[("a.md", "# A\n")]);
    let mut events = t.space.events().subscribe();
    let written = t
        .space
        .files()
        .try_write_at_once(
            "b.md",
            b"See [[a]].\n",
            &quire_service::WriteOptions::by("alice"),
        )
        .expect("nothing makes it wait")
        .unwrap();
    assert!(written.created);
    assert_eq!(t.disk("b.md").as_deref(), Some("See [[a]].\n"));
    assert!(t.space.vault().contains(&PagePath::new("b.md").unwrap()));
    assert!(matches!(
        events.try_recv(),
        Ok(Event::Write { path, actor, .. }) if path == "b.md" && actor == "alice"
    ));
    // Queued, then committed with the batch under its actor.
    assert_eq!(written.commit, None);
    t.space.flush().unwrap();
    assert_eq!(t.last_author("b.md"), "alice");
    assert_eq!(t.last_message("b.md"), "Create b.md");
}

#[test]
fn a_write_at_once_refuses_what_the_pipeline_refuses_and_writes_nothing() {
    let t = TestSpace::with(batched(), Default::default(), &[("a.md", "# A\n")]);
    let files = t.space.files();
    let stale = quire_service::WriteOptions {
        expect: Expect::Etag("0000000000000000000000000000000000000000".into()),
        ..quire_service::WriteOptions::by("alice")
    };
    let err = files
        .try_write_at_once("a.md", b"new", &stale)
        .unwrap()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(t.disk("a.md").as_deref(), Some("# A\n"));
    for (path, actor) in [(".git/config", "alice"), ("b.md", "eve <e@x>")] {
        let err = files
            .try_write_at_once(path, b"x", &quire_service::WriteOptions::by(actor))
            .unwrap()
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::BadRequest, "{}", err.message);
    }
    assert!(t.disk("b.md").is_none());
}

#[test]
fn a_write_that_could_wait_is_left_to_a_blocking_thread() {
    let opts = quire_service::WriteOptions::by("alice");
    // Each write committed before the answer.
    let sync = TestSpace::new(&[]);
    assert!(sync
        .space
        .files()
        .try_write_at_once("a.md", b"x", &opts)
        .is_none());
    assert!(sync.disk("a.md").is_none());

    let t = TestSpace::with(batched(), Default::default(), &[]);
    let files = t.space.files();
    // A large file.
    let large = vec![b'x'; 65 * 1024];
    assert!(files.try_write_at_once("big.md", &large, &opts).is_none());
    assert!(t.disk("big.md").is_none());
    // Another actor's queued version is committed first: a commit on this thread.
    files
        .write(
            "shared.md",
            b"bob's".to_vec(),
            &quire_service::WriteOptions::by("bob"),
        )
        .unwrap();
    assert!(files
        .try_write_at_once("shared.md", b"alice's", &opts)
        .is_none());
    assert_eq!(t.disk("shared.md").as_deref(), Some("bob's"));
    files
        .write("shared.md", b"alice's".to_vec(), &opts)
        .unwrap();
    t.space.flush().unwrap();
    let authors: Vec<String> = t
        .space
        .versions()
        .of("shared.md")
        .unwrap()
        .into_iter()
        .map(|v| v.author)
        .collect();
    assert_eq!(authors, ["alice", "bob"]);
}
