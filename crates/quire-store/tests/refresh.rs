//! A root whose files were all touched (copied, restored from a backup) opens without
//! re-hashing through libgit2's per-file attribute look-ups: the index takes the new stat data
//! of unchanged files. A file changed in the copy is still found and committed.

use std::fs;
use std::time::Duration;

use git2::{Repository, StatusOptions};
use quire_store::HistoryOptions;

mod common;
use common::{open_history, open_root};

fn sync_git() -> HistoryOptions {
    HistoryOptions {
        async_commit: false,
        ..HistoryOptions::default()
    }
}

#[test]
fn a_copied_root_opens_clean_and_a_changed_file_is_still_committed() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..50 {
        fs::create_dir_all(dir.path().join("notes")).unwrap();
        fs::write(
            dir.path().join(format!("notes/n{i}.md")),
            format!("# Note {i}\n"),
        )
        .unwrap();
    }
    {
        let root = open_root(dir.path());
        let _history = open_history(&root, sync_git());
    }
    // Copy every file over itself: new inode, new times, same bytes; one file's bytes change
    // but keep their length.
    std::thread::sleep(Duration::from_millis(20));
    for i in 0..50 {
        let path = dir.path().join(format!("notes/n{i}.md"));
        let bytes = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();
        fs::write(&path, bytes).unwrap();
    }
    fs::write(dir.path().join("notes/n7.md"), "# Note X\n").unwrap();

    let root = open_root(dir.path());
    let _history = open_history(&root, sync_git());
    let repo = Repository::open(dir.path()).unwrap();
    let mut opts = StatusOptions::new();
    opts.include_untracked(true);
    assert!(
        repo.statuses(Some(&mut opts)).unwrap().is_empty(),
        "git status is clean"
    );
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let blob = head
        .tree()
        .unwrap()
        .get_path(std::path::Path::new("notes/n7.md"))
        .unwrap()
        .to_object(&repo)
        .unwrap()
        .peel_to_blob()
        .unwrap();
    assert_eq!(blob.content(), b"# Note X\n");
    // The unchanged files' index entries carry their new stat data.
    let index = repo.index().unwrap();
    let entry = index
        .get_path(std::path::Path::new("notes/n3.md"), 0)
        .unwrap();
    let meta = fs::metadata(dir.path().join("notes/n3.md")).unwrap();
    assert_eq!(u64::from(entry.file_size), meta.len());
    use std::os::unix::fs::MetadataExt;
    assert_eq!(entry.ino, meta.ino() as u32);
}
