//! Edits made outside quire while it runs: what differs from what quire knew is committed by
//! `quire`, indexed and announced; quire's own writes are never echoed; moves on disk are kept
//! as raw moves; a commit made by another program is picked up, not fought.

mod support;

use quire_service::{Event, OutsideChanges, Relink, Via, WriteOptions, SYSTEM_ACTOR};
use quire_vault::PagePath;
use support::TestSpace;

fn p(s: &str) -> PagePath {
    PagePath::new(s).unwrap()
}

fn seen(paths: &[&str]) -> OutsideChanges {
    OutsideChanges {
        paths: paths.iter().map(|s| p(s)).collect(),
        ..OutsideChanges::default()
    }
}

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("a.md", "# A\n\nSee [[b]].\n"),
        ("b.md", "# B\n"),
        ("pic.png", "\u{89}PNG old"),
    ]
}

#[test]
fn an_outside_edit_is_one_commit_by_quire_indexed_and_announced() {
    let t = TestSpace::new(&files());
    let mut events = t.space.events().subscribe();
    std::fs::write(t.root().join("b.md"), "# B\n\nNow see [[c]].\n").unwrap();
    std::fs::write(t.root().join("c.md"), "# C\n").unwrap();
    let done = t
        .space
        .record_outside_changes(&seen(&["b.md", "c.md"]))
        .unwrap();
    assert_eq!(done.written, [p("b.md"), p("c.md")]);
    let commit = done.commit.expect("synchronous commits");
    for path in ["b.md", "c.md"] {
        let v = &t.space.versions().of(path).unwrap()[0];
        assert_eq!(
            (v.hash.as_str(), v.author.as_str()),
            (commit.as_str(), SYSTEM_ACTOR)
        );
        assert!(
            v.message.contains(&format!("- write {path}")),
            "{}",
            v.message
        );
    }
    let vault = t.space.vault();
    let resolution = vault.resolve_wiki(&p("b.md"), "c");
    assert_eq!(
        resolution.path(),
        Some(&p("c.md")),
        "the new page's links are in the model"
    );
    drop(vault);
    let mut names = Vec::new();
    while let Ok(Event::Write { path, actor, .. }) = events.try_recv() {
        assert_eq!(actor, SYSTEM_ACTOR);
        names.push(path);
    }
    assert_eq!(names, ["b.md", "c.md"]);
}

/// Async batching whose batches close only when flushed, so an editor's save lands "within
/// the window" deterministically.
fn long_batches() -> quire_service::HistoryOptions {
    quire_service::HistoryOptions {
        async_commit: true,
        batch_window: std::time::Duration::from_secs(600),
        ..quire_service::HistoryOptions::default()
    }
}

/// `(author, text)` of every version of `path`, newest first.
fn history_of(t: &TestSpace, path: &str) -> Vec<(String, String)> {
    let versions = t.space.versions();
    versions
        .of(path)
        .unwrap()
        .into_iter()
        .map(|v| {
            let text = versions.content(path, &v.hash).unwrap();
            (v.author, String::from_utf8(text).unwrap())
        })
        .collect()
}

#[test]
fn an_editor_save_within_the_batch_window_keeps_the_queued_api_version_and_its_author() {
    for watcher_first in [false, true] {
        let t = TestSpace::with(long_batches(), Default::default(), &files());
        let written = t
            .space
            .files()
            .write(
                "page.md",
                b"# One\n".to_vec(),
                &WriteOptions::by("api-client"),
            )
            .unwrap();
        assert_eq!(written.commit, None, "acknowledged before its commit");
        std::fs::write(t.root().join("page.md"), "# One, edited in an editor\n").unwrap();
        if !watcher_first {
            // The batch closes before the watcher reports the save.
            t.space.versions().of("b.md").unwrap();
        }
        let done = t.space.record_outside_changes(&seen(&["page.md"])).unwrap();
        assert_eq!(
            done.written,
            [p("page.md")],
            "watcher first: {watcher_first}"
        );
        assert_eq!(
            history_of(&t, "page.md"),
            [
                (
                    SYSTEM_ACTOR.to_string(),
                    "# One, edited in an editor\n".to_string()
                ),
                ("api-client".to_string(), "# One\n".to_string()),
            ],
            "watcher first: {watcher_first}"
        );
    }
}

#[test]
fn quires_own_writes_are_not_echoed_back() {
    let t = TestSpace::new(&files());
    let opts = WriteOptions::by("alice");
    t.space
        .files()
        .write("b.md", b"# B by alice\n".to_vec(), &opts)
        .unwrap();
    t.space
        .files()
        .write("pic.png", b"\x89PNG new".to_vec(), &opts)
        .unwrap();
    t.space.files().delete("a.md", &opts).unwrap();
    let head = t.head();
    let done = t
        .space
        .record_outside_changes(&seen(&["a.md", "b.md", "pic.png"]))
        .unwrap();
    assert!(done.is_empty(), "{done:?}");
    assert_eq!(t.head(), head);
    assert_eq!(t.last_author("b.md"), "alice");
}

#[test]
fn untouched_files_reported_again_change_nothing() {
    let t = TestSpace::new(&files());
    let head = t.head();
    let done = t
        .space
        .record_outside_changes(&OutsideChanges {
            everything: true,
            ..OutsideChanges::default()
        })
        .unwrap();
    assert!(done.is_empty(), "{done:?}");
    assert_eq!(t.head(), head);
}

#[test]
fn an_outside_delete_and_an_asset_edit_are_recorded() {
    let t = TestSpace::new(&files());
    std::fs::remove_file(t.root().join("b.md")).unwrap();
    std::fs::write(t.root().join("pic.png"), "\u{89}PNG edited").unwrap();
    let done = t
        .space
        .record_outside_changes(&seen(&["b.md", "pic.png"]))
        .unwrap();
    assert_eq!(done.deleted, [p("b.md")]);
    assert_eq!(done.written, [p("pic.png")]);
    assert!(!t.space.vault().contains(&p("b.md")));
    let v = &t.space.versions().of("b.md").unwrap()[0];
    assert!(v.message.contains("- delete b.md"), "{}", v.message);
}

#[test]
fn a_move_on_disk_is_recorded_as_a_raw_move_and_links_are_left_alone() {
    let t = TestSpace::new(&files());
    std::fs::rename(t.root().join("b.md"), t.root().join("moved.md")).unwrap();
    // Reported as two unrelated paths: the content pairs them.
    let done = t
        .space
        .record_outside_changes(&seen(&["b.md", "moved.md"]))
        .unwrap();
    assert_eq!(done.moves, [(p("b.md"), p("moved.md"))]);
    let v = &t.space.versions().of("moved.md").unwrap()[0];
    assert!(
        v.message.contains("- move b.md -> moved.md"),
        "{}",
        v.message
    );
    let raw = t.space.raw_moves().unwrap();
    assert_eq!(raw.len(), 1);
    assert_eq!(
        (raw[0].from.as_str(), raw[0].to.as_str()),
        ("b.md", "moved.md")
    );
    assert_eq!(raw[0].via, Via::Watcher);
    assert_eq!(
        t.disk("a.md").unwrap(),
        "# A\n\nSee [[b]].\n",
        "nothing relinked"
    );
}

#[test]
fn a_copy_is_not_a_move() {
    let t = TestSpace::new(&files());
    std::fs::copy(t.root().join("b.md"), t.root().join("copy1.md")).unwrap();
    std::fs::copy(t.root().join("b.md"), t.root().join("copy2.md")).unwrap();
    std::fs::remove_file(t.root().join("b.md")).unwrap();
    let done = t
        .space
        .record_outside_changes(&seen(&["b.md", "copy1.md", "copy2.md"]))
        .unwrap();
    assert!(done.moves.is_empty(), "two candidates: no move guessed");
    assert!(t.space.raw_moves().unwrap().is_empty());
}

#[test]
fn a_reported_rename_is_kept_as_reported() {
    let t = TestSpace::new(&files());
    std::fs::rename(t.root().join("a.md"), t.root().join("z.md")).unwrap();
    let done = t
        .space
        .record_outside_changes(&OutsideChanges {
            moves: vec![(p("a.md"), p("z.md"))],
            ..OutsideChanges::default()
        })
        .unwrap();
    assert_eq!(done.moves, [(p("a.md"), p("z.md"))]);
}

#[test]
fn a_commit_made_by_another_program_is_picked_up_not_fought() {
    let t = TestSpace::new(&files());
    std::fs::write(t.root().join("b.md"), "# B from git\n").unwrap();
    let repo = git2::Repository::open(t.root()).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(std::path::Path::new("b.md")).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("Someone", "someone@example.com").unwrap();
    let parent = repo.head().unwrap().peel_to_commit().unwrap();
    let theirs = repo
        .commit(
            Some("HEAD"),
            &sig,
            &sig,
            "edited with git",
            &tree,
            &[&parent],
        )
        .unwrap()
        .to_string();
    let done = t.space.record_outside_changes(&seen(&["b.md"])).unwrap();
    assert_eq!(
        done.written,
        [p("b.md")],
        "the model learns the new content"
    );
    assert_eq!(
        t.head().as_deref(),
        Some(theirs.as_str()),
        "no commit of its own"
    );
    let v = &t.space.versions().of("b.md").unwrap()[0];
    assert_eq!(v.author, "Someone");
    let statuses = repo.statuses(None).unwrap();
    assert!(
        statuses.iter().all(|s| s.status().is_ignored()),
        "git status clean"
    );
}

#[test]
fn a_rename_that_keeps_links_is_recorded_as_a_raw_move() {
    let t = TestSpace::new(&files());
    t.space
        .restructure()
        .rename("b.md", "kept.md", Relink::No, &WriteOptions::by("erin"))
        .unwrap();
    let raw = t.space.raw_moves().unwrap();
    assert_eq!(raw.len(), 1);
    assert_eq!(raw[0].via, Via::LinksKept);
    assert_eq!(raw[0].actor, "erin");
    // Renaming with links kept working is not a raw move.
    t.space
        .restructure()
        .rename("kept.md", "b.md", Relink::Yes, &WriteOptions::by("erin"))
        .unwrap();
    assert_eq!(t.space.raw_moves().unwrap().len(), 1);
}

#[test]
fn a_folder_reported_as_a_whole_stands_for_every_file_below_it() {
    let t = TestSpace::new(&[
        ("old/x.md", "# X\n"),
        ("old/y.md", "# Y\n"),
        ("keep.md", "k"),
    ]);
    std::fs::remove_dir_all(t.root().join("old")).unwrap();
    std::fs::create_dir_all(t.root().join("new/deep")).unwrap();
    std::fs::write(t.root().join("new/deep/z.md"), "# Z\n").unwrap();
    let done = t
        .space
        .record_outside_changes(&seen(&["old", "new"]))
        .unwrap();
    assert_eq!(done.deleted, [p("old/x.md"), p("old/y.md")]);
    assert_eq!(done.written, [p("new/deep/z.md")]);
    assert!(t.space.vault().contains(&p("new/deep/z.md")));
}

/// An editor's unsaved texts (the language server's read-only space): they stand in for
/// their files in links and plans, are dropped again, and a re-read picks up what another
/// program saved; nothing is written. A writable space refuses both.
#[test]
fn unsaved_texts_and_rereads_serve_a_read_only_space_only() {
    let t = TestSpace::new(&files());
    let err = t
        .space
        .set_unsaved(&p("a.md"), Some("# A\n".into()))
        .unwrap_err();
    assert_eq!(err.code, quire_service::ErrorCode::BadRequest);
    assert!(t.space.reread(&[p("a.md")]).is_err());

    let reader = quire_service::Space::open_as(
        quire_service::SpaceSettings {
            name: "reader".into(),
            root: t.root().to_path_buf(),
            history: support::sync_git(),
            assets: Default::default(),
            refactor: Default::default(),
            claims: Default::default(),
            find: Default::default(),
            script: None,
            editorial: Default::default(),
            public_url: None,
            backup: None,
        },
        &quire_service::Access::ReadOnly,
    )
    .unwrap();
    let before = t.head();
    // An unsaved page and an unsaved link to it.
    reader
        .set_unsaved(&p("new.md"), Some("# New\n".into()))
        .unwrap();
    reader
        .set_unsaved(&p("a.md"), Some("# A\n\nSee [[new]] and [[b]].\n".into()))
        .unwrap();
    assert_eq!(
        reader.vault().resolve_wiki(&p("a.md"), "new").path(),
        Some(&p("new.md"))
    );
    assert_eq!(reader.vault().backlinks(&p("new.md")).len(), 1);
    // Plans read the unsaved text.
    let manifest = quire_service::parse_manifest(
        b"moves:\n  - from: new.md\n    to: old.md\n",
        quire_service::ManifestFormat::Yaml,
    )
    .unwrap();
    let plan = reader.restructure().plan(&manifest, false, None).unwrap();
    assert_eq!(plan.edits.len(), 1, "{:?}", plan.edits);
    assert_eq!(plan.edits[0].links[0].new, "old");
    // Dropped: back to the files.
    reader.set_unsaved(&p("new.md"), None).unwrap();
    reader.set_unsaved(&p("a.md"), None).unwrap();
    assert!(!reader.vault().contains(&p("new.md")));
    assert!(reader.vault().backlinks(&p("b.md")).len() == 1);
    // Saved by another program, then re-read.
    std::fs::write(t.root().join("c.md"), "# C\n[[b]]\n").unwrap();
    reader.reread(&[p("c.md")]).unwrap();
    assert_eq!(reader.vault().backlinks(&p("b.md")).len(), 2);
    assert_eq!(t.head(), before, "nothing was committed");
    assert!(!t.root().join("new.md").exists());
}
