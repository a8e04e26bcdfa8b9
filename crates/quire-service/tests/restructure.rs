//! Restructuring through the service, without HTTP: apply is one commit with trailers and
//! refuses with the fresh plan; approval of agents' plans; revert restores every byte.

mod support;

use quire_service::{ApplyRequest, ErrorCode, Manifest, Relink, WriteOptions};
use support::TestSpace;

const COMMENTS: &str = r#"[{"id":"c1","path":"notes/b.md","line":1,"author":"ann","body":"hi","resolved":false,"created":"2024-01-01T00:00:00Z"}]"#;

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("notes/a.md", "# A\n\nSee [B](b.md) and [[b]].\n"),
        ("notes/b.md", "# B\n"),
        ("index.md", "Start at [[/notes/b]].\n"),
        (".quire/comments/notes/b.md.json", COMMENTS),
    ]
}

fn manifest(json: &str) -> Manifest {
    quire_service::parse_manifest(json.as_bytes(), quire_service::ManifestFormat::Json).unwrap()
}

fn move_b() -> Manifest {
    manifest(r#"{"moves": [{"from": "notes/b.md", "to": "archive/b.md"}]}"#)
}

fn request(manifest: Manifest, client: &str) -> ApplyRequest {
    ApplyRequest {
        manifest,
        digest: None,
        approved: false,
        actor: "alice".into(),
        client: client.into(),
        message: None,
    }
}

#[test]
fn apply_writes_one_commit_with_trailers_and_keeps_every_link() {
    let t = TestSpace::new(&files());
    let r = t.space.restructure();
    let plan = r.plan(&move_b(), false, Some("alice")).unwrap();
    let mut req = request(move_b(), "cli");
    req.digest = Some(plan.digest.clone());
    let (applied, done) = r.apply(&req).unwrap();
    assert_eq!(done.digest, plan.digest);
    assert_eq!(
        (applied.written, applied.deleted, applied.side_files),
        (3, 1, 2)
    );
    let commit = applied.commit.expect("git");
    for path in ["archive/b.md", "notes/a.md", "index.md"] {
        assert_eq!(
            t.space.versions().of(path).unwrap()[0].hash,
            commit,
            "{path}"
        );
    }
    let message = t.last_message("archive/b.md");
    assert!(message.contains("Quire-Actor: alice\n"), "{message}");
    assert!(message.contains("Quire-Client: cli\n"), "{message}");
    assert!(message.contains(&format!("Quire-Refactor-Digest: {}\n", plan.digest)));
    assert!(message.contains("Quire-Manifest: {\"moves\""), "{message}");
    assert!(message.contains("Quire-Base: "), "{message}");
    assert_eq!(
        t.disk("notes/a.md").unwrap(),
        "# A\n\nSee [B](../archive/b.md) and [[b]].\n"
    );
    assert_eq!(t.disk("index.md").unwrap(), "Start at [[/archive/b]].\n");
    assert!(t.disk(".quire/comments/archive/b.md.json").is_some());
}

#[test]
fn a_stale_digest_is_a_conflict_carrying_the_fresh_plan_and_writes_nothing() {
    let t = TestSpace::new(&files());
    let head = t.head();
    let mut req = request(move_b(), "cli");
    req.digest = Some("0000".into());
    let err = t.space.restructure().apply(&req).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    let plan = err.plan().expect("the fresh plan comes with the error");
    assert_ne!(plan.digest, "0000");
    assert_eq!(t.head(), head);
    assert!(t.disk("notes/b.md").is_some());
}

#[test]
fn a_plan_with_errors_is_unprocessable_with_the_plan() {
    let t = TestSpace::new(&files());
    let taken = manifest(r#"{"moves": [{"from": "notes/b.md", "to": "index.md"}]}"#);
    let err = t
        .space
        .restructure()
        .apply(&request(taken, "cli"))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unprocessable);
    assert!(
        err.message.starts_with("the plan has errors"),
        "{}",
        err.message
    );
    assert!(!err.plan().unwrap().conflicts.is_empty());
}

#[test]
fn a_file_changed_behind_the_link_model_is_a_conflict_at_apply() {
    let t = TestSpace::new(&files());
    // Another program edits the page the move carries; the plan still has the old ETag.
    std::fs::write(t.root().join("notes/b.md"), "# B edited outside\n").unwrap();
    let err = t
        .space
        .restructure()
        .apply(&request(move_b(), "cli"))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
    assert!(err.plan().is_some());
    assert!(t.disk("archive/b.md").is_none(), "nothing written");
    assert_eq!(t.disk("notes/b.md").unwrap(), "# B edited outside\n");
}

#[test]
fn a_page_written_between_plan_and_apply_is_planned_again() {
    let t = TestSpace::new(&files());
    let r = t.space.restructure();
    let reviewed = r.plan(&move_b(), false, Some("alice")).unwrap();
    // A new page linking the moved one arrives after the plan was reviewed.
    t.space
        .files()
        .write(
            "notes/c.md",
            b"# C\n\n[B](b.md)\n".to_vec(),
            &WriteOptions::by("bob"),
        )
        .unwrap();
    let mut req = request(move_b(), "cli");
    req.digest = Some(reviewed.digest.clone());
    let err = r.apply(&req).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
    let fresh = err.plan().unwrap().digest.clone();
    assert_ne!(fresh, reviewed.digest);

    req.digest = Some(fresh);
    r.apply(&req).unwrap();
    assert_eq!(
        t.disk("notes/c.md").unwrap(),
        "# C\n\n[B](../archive/b.md)\n"
    );
}

#[test]
fn an_agent_over_the_limits_needs_a_persons_approval_used_once() {
    let strict = quire_config::Config::from_toml_str("[refactor]\napproval_files = 1\n", &|_| None)
        .unwrap()
        .config
        .refactor;
    let t = TestSpace::with(support::sync_git(), strict, &files());
    let r = t.space.restructure();
    let err = r.apply(&request(move_b(), "mcp-agent")).unwrap_err();
    assert_eq!(err.code, ErrorCode::ApprovalRequired);
    let plan = err.plan().unwrap().clone();
    assert!(plan.approval.as_ref().unwrap().required);
    let pending = r.pending().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].client, "mcp-agent");

    assert_eq!(
        r.approve(&move_b(), "0000").unwrap_err().code,
        ErrorCode::Conflict
    );
    r.approve(&move_b(), &plan.digest).unwrap();
    assert!(r.pending().unwrap().is_empty());
    let (applied, _) = r.apply(&request(move_b(), "mcp-agent")).unwrap();
    assert!(applied.commit.is_some());
    // A person applying never needs approval.
    let back = manifest(r#"{"moves": [{"from": "archive/b.md", "to": "notes/b.md"}]}"#);
    assert!(r.apply(&request(back, "web")).is_ok());
}

#[test]
fn revert_of_a_restructuring_restores_every_byte_as_a_new_commit() {
    let t = TestSpace::new(&files());
    let snapshot = |t: &TestSpace| {
        [
            "notes/a.md",
            "notes/b.md",
            "archive/b.md",
            "index.md",
            ".quire/comments/notes/b.md.json",
            ".quire/comments/archive/b.md.json",
        ]
        .map(|p| t.disk(p))
    };
    let before = snapshot(&t);
    let r = t.space.restructure();
    let (applied, _) = r.apply(&request(move_b(), "cli")).unwrap();
    let commit = applied.commit.unwrap();
    let plan = r.revert_plan(&commit).unwrap();
    assert_eq!(plan.reverts.as_deref(), Some(commit.as_str()));
    let (reverted, _) = r.revert(&commit, Some(&plan.digest), "bob", "cli").unwrap();
    assert_ne!(reverted.commit.as_deref(), Some(commit.as_str()));
    assert_eq!(snapshot(&t), before);
    let message = t.last_message("notes/b.md");
    assert!(
        message.contains(&format!("Quire-Reverts: {commit}")),
        "{message}"
    );
    assert!(message.contains("Quire-Client: cli"), "{message}");
}

#[test]
fn a_revert_plan_counts_moved_files_as_moves_even_when_the_move_rewrote_their_links() {
    let t = TestSpace::new(&[
        ("old/a.md", "# A\n\nSee [[old/b]].\n"),
        ("old/b.md", "# B\n\nBack to [[old/a]].\n"),
        ("old/c.md", "# C\n"),
        ("index.md", "Start at [[old/c]].\n"),
    ]);
    let r = t.space.restructure();
    let folder = manifest(r#"{"moves": [{"from": "old/", "to": "new/"}]}"#);
    let (applied, _) = r.apply(&request(folder, "cli")).unwrap();
    let commit = applied.commit.unwrap();
    let plan = r.revert_plan(&commit).unwrap();
    let moves: Vec<(String, String)> = plan
        .moves
        .iter()
        .map(|m| (m.from.to_string(), m.to.to_string()))
        .collect();
    assert_eq!(
        moves,
        [
            ("new/a.md".to_string(), "old/a.md".to_string()),
            ("new/b.md".to_string(), "old/b.md".to_string()),
            ("new/c.md".to_string(), "old/c.md".to_string()),
        ]
    );
    let edited: Vec<String> = plan
        .content_edits
        .iter()
        .map(|e| e.path.to_string())
        .collect();
    assert_eq!(
        edited,
        ["index.md"],
        "only the page that links in is an edit"
    );
}

#[test]
fn revert_is_refused_when_a_file_changed_since_and_needs_git() {
    let t = TestSpace::new(&files());
    let r = t.space.restructure();
    let (applied, _) = r.apply(&request(move_b(), "cli")).unwrap();
    let commit = applied.commit.unwrap();
    t.space
        .files()
        .write(
            "archive/b.md",
            b"# B later\n".to_vec(),
            &WriteOptions::by("carol"),
        )
        .unwrap();
    let err = r.revert(&commit, None, "bob", "cli").unwrap_err();
    assert_eq!(err.code, ErrorCode::Unprocessable);
    assert!(err.message.contains("archive/b.md"), "{}", err.message);
    assert_eq!(t.disk("archive/b.md").unwrap(), "# B later\n");

    let cow = TestSpace::cow();
    let err = cow.space.restructure().revert_plan("abcd").unwrap_err();
    assert_eq!(err.code, ErrorCode::NotImplemented);
}

#[test]
fn rename_without_relink_moves_only_the_file() {
    let t = TestSpace::new(&files());
    let done = t
        .space
        .restructure()
        .rename(
            "notes/b.md",
            "notes/c.md",
            Relink::No,
            &WriteOptions::by("dan"),
        )
        .unwrap();
    assert_eq!(done.updated_links, 0);
    assert_eq!(t.disk("notes/c.md").as_deref(), Some("# B\n"));
    assert_eq!(
        t.disk("notes/a.md").unwrap(),
        "# A\n\nSee [B](b.md) and [[b]].\n",
        "no link rewritten"
    );
    assert_eq!(t.last_author("notes/c.md"), "dan");
}

/// With batched commits, a write still queued when a plan is made is committed first: the
/// plan's `base` holds what the plan read, and the batch landing later does not make the
/// reviewed digest stale.
#[test]
fn a_plan_made_while_writes_wait_for_their_batch_commit_stays_valid() {
    let history = quire_service::HistoryOptions {
        async_commit: true,
        batch_window: std::time::Duration::from_secs(30),
        batch_max_size: 1_000,
        max_commit_lag: std::time::Duration::from_secs(60),
        ..support::sync_git()
    };
    let t = TestSpace::with(history, Default::default(), &files());
    let before = t.head();
    t.space
        .files()
        .write(
            "notes/c.md",
            b"# C\n\nAlso [[b]].\n".to_vec(),
            &WriteOptions {
                actor: Some("bob".into()),
                ..WriteOptions::default()
            },
        )
        .unwrap();
    assert_eq!(t.head(), before, "the write waits for its batch");

    let r = t.space.restructure();
    let plan = r.plan(&move_b(), false, Some("alice")).unwrap();
    assert_ne!(t.head(), before, "planning committed the queued write");
    assert_eq!(plan.base, t.head());
    assert_eq!(t.last_author("notes/c.md"), "bob");

    let mut req = request(move_b(), "cli");
    req.digest = Some(plan.digest.clone());
    let (applied, _) = r.apply(&req).expect("the reviewed digest still holds");
    assert!(applied.commit.is_some());
    assert_eq!(t.disk("notes/c.md").unwrap(), "# C\n\nAlso [[b]].\n");
}
