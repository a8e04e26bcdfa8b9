//! The object database is tidied while the history is open: after a burst of batch commits
//! (each writes a pack) the packs are merged once commits pause, and every file of every
//! commit can still be read. A real repository in a temp folder.

use std::time::{Duration, Instant};

use git2::Repository;
use quire_store::{ChangeAction, FileChange, History, HistoryOptions, Root, WriterLock};
use quire_vault::PagePath;

fn packs(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join(".git/objects/pack"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".pack"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn packs_of_a_burst_are_merged_when_commits_pause() {
    let dir = tempfile::tempdir().unwrap();
    let lock = WriterLock::acquire(dir.path(), "test").unwrap();
    let root = Root::open(dir.path(), &lock).unwrap();
    let history = History::open(
        &root,
        &lock,
        HistoryOptions {
            async_commit: false,
            ..HistoryOptions::default()
        },
    )
    .unwrap();
    let mut commits = Vec::new();
    for round in 0..12 {
        let mut changes = Vec::new();
        for i in 0..40 {
            let path = PagePath::new(&format!("notes/n{i}.md")).unwrap();
            let text = format!("# Note {i}\n\nround {round}\n");
            root.write(&path, text.as_bytes()).unwrap();
            changes.push(FileChange::new(path, ChangeAction::Write).with_content(text.as_bytes()));
        }
        history
            .record(&changes, "tester", &format!("round {round}"))
            .unwrap();
        commits.push(
            Repository::open(dir.path())
                .unwrap()
                .head()
                .unwrap()
                .target()
                .unwrap(),
        );
    }
    let burst = packs(dir.path());
    assert!(burst >= 10, "each batch commit wrote a pack ({burst})");
    let deadline = Instant::now() + Duration::from_secs(20);
    while packs(dir.path()) > 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        packs(dir.path()) <= 2,
        "packs merged: {}",
        packs(dir.path())
    );
    // Every file of every commit reads back.
    let repo = Repository::open(dir.path()).unwrap();
    for (round, id) in commits.iter().enumerate() {
        let tree = repo.find_commit(*id).unwrap().tree().unwrap();
        for i in 0..40 {
            let entry = tree
                .get_path(std::path::Path::new(&format!("notes/n{i}.md")))
                .unwrap();
            let blob = repo.find_blob(entry.id()).unwrap();
            assert_eq!(
                std::str::from_utf8(blob.content()).unwrap(),
                format!("# Note {i}\n\nround {round}\n")
            );
        }
    }
    drop(history);
}
