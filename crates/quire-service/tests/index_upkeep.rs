//! Index upkeep: once the index thread has been idle for `checkpoint_idle`, the WAL of
//! `.quire/state/index.db` is checkpointed into the database and emptied.

mod support;

use std::time::{Duration, Instant};

use quire_service::{
    AssetRules, FindSettings, IndexSettings, SearchQuery, Space, SpaceSettings, WriteOptions,
};

fn wal_len(root: &std::path::Path) -> u64 {
    std::fs::metadata(root.join(".quire/state/index.db-wal")).map_or(0, |m| m.len())
}

#[test]
fn the_wal_is_checkpointed_and_emptied_once_the_index_is_idle() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("start.md"), "# Start\n").unwrap();
    let space = Space::open(SpaceSettings {
        name: "test".into(),
        root: dir.path().to_path_buf(),
        history: support::sync_git(),
        assets: AssetRules::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: FindSettings {
            index: IndexSettings {
                checkpoint_idle: Duration::from_secs(2),
                ..IndexSettings::default()
            },
            ..FindSettings::default()
        },
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    })
    .unwrap();
    let find = space.find();
    find.flush();
    for i in 0..5 {
        let text = format!("# Page {i}\n\nHeron number {i} flies over the marsh.\n");
        space
            .files()
            .write(
                &format!("notes/p{i}.md"),
                text.into_bytes(),
                &WriteOptions::default(),
            )
            .unwrap();
    }
    // A synchronous index has the pages when the writes return: in the WAL for now.
    assert!(wal_len(dir.path()) > 0, "the index writes went to the WAL");

    let deadline = Instant::now() + Duration::from_secs(30);
    while wal_len(dir.path()) > 0 {
        assert!(
            Instant::now() < deadline,
            "the WAL still holds {} bytes after 30 s of quiet",
            wal_len(dir.path())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let found = find
        .search(&SearchQuery {
            q: "heron".into(),
            ..SearchQuery::default()
        })
        .unwrap();
    assert_eq!(found.total, 5, "nothing lost in the checkpoint");
}
