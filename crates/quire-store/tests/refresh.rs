//! A root whose files were all touched (copied, restored from a backup) opens without
//! re-hashing through libgit2's per-file attribute look-ups: the index takes the new stat data
//! of unchanged files. A file changed in the copy is still found and committed.

use std::fs;
use std::time::Duration;

use git2::{Repository, StatusOptions};
use quire_store::{BlobId, DiskName, History, HistoryOptions, Root, SeenFiles};

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

/// A root of 20 notes, committed, then every file rewritten with the same bytes (new inode
/// and times, as `cp -r` leaves them). Returns the folder.
fn copied_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("notes")).unwrap();
    for i in 0..20 {
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
    std::thread::sleep(Duration::from_millis(20));
    for i in 0..20 {
        let path = dir.path().join(format!("notes/n{i}.md"));
        let bytes = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();
        fs::write(&path, bytes).unwrap();
    }
    dir
}

/// Reads every note as the link model's loader does, recording what it saw.
fn read_all(root: &Root) -> SeenFiles {
    let mut seen = SeenFiles::new();
    for path in root.listing().unwrap().files {
        let name = DiskName::from(&path);
        let (bytes, stat) = root.read_listed(&name).unwrap();
        seen.insert(
            name,
            stat.expect("a plain file has stat data"),
            BlobId::of(&bytes),
        );
    }
    seen
}

fn status_is_clean(dir: &std::path::Path) -> bool {
    let repo = Repository::open(dir).unwrap();
    let mut opts = StatusOptions::new();
    opts.include_untracked(true);
    let clean = repo.statuses(Some(&mut opts)).unwrap().is_empty();
    clean
}

fn committed_text(dir: &std::path::Path, path: &str) -> String {
    let repo = Repository::open(dir).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let blob = head
        .tree()
        .unwrap()
        .get_path(std::path::Path::new(path))
        .unwrap()
        .to_object(&repo)
        .unwrap()
        .peel_to_blob()
        .unwrap();
    String::from_utf8(blob.content().to_vec()).unwrap()
}

#[test]
fn files_read_between_the_two_steps_of_open_give_their_ids_and_the_root_opens_clean() {
    let dir = copied_root();
    let root = open_root(dir.path());
    let lock = root.writer_lock().unwrap().clone();
    let opening = History::begin_open(&root, &lock, sync_git()).unwrap();
    let seen = read_all(&root);
    assert_eq!(seen.len(), 20);
    let _history = opening.finish(&seen).unwrap();
    assert!(status_is_clean(dir.path()));
    let repo = Repository::open(dir.path()).unwrap();
    let entry = repo
        .index()
        .unwrap()
        .get_path(std::path::Path::new("notes/n3.md"), 0)
        .unwrap();
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(dir.path().join("notes/n3.md")).unwrap();
    assert_eq!(
        entry.ino,
        meta.ino() as u32,
        "the entry took the new stat data"
    );
}

#[test]
fn a_seen_file_untouched_since_is_not_read_again() {
    // White-box: the record of n5 claims HEAD's id for bytes that differ (same length,
    // written before the writer lock was taken, so its change time is older). The scan
    // trusts the record and does not read the file: git status shows nothing.
    let dir = copied_root();
    fs::write(dir.path().join("notes/n5.md"), "# Note X\n").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let root = open_root(dir.path());
    let lock = root.writer_lock().unwrap().clone();
    let opening = History::begin_open(&root, &lock, sync_git()).unwrap();
    let mut seen = read_all(&root);
    let (_, stat) = root
        .read_listed(&DiskName::new("notes/n5.md".into()))
        .unwrap();
    seen.insert(
        DiskName::new("notes/n5.md".into()),
        stat.unwrap(),
        BlobId::of(b"# Note 5\n"),
    );
    let _history = opening.finish(&seen).unwrap();
    assert!(status_is_clean(dir.path()));
    assert_eq!(committed_text(dir.path(), "notes/n5.md"), "# Note 5\n");
}

#[test]
fn a_file_written_after_the_lock_was_taken_is_read_whatever_was_seen() {
    // The same claim as above, for a file written after the writer lock was taken: its
    // change time is not older than the lock's, so the record is not trusted and the change
    // is found and committed.
    let dir = copied_root();
    let root = open_root(dir.path());
    std::thread::sleep(Duration::from_millis(20));
    fs::write(dir.path().join("notes/n5.md"), "# Note X\n").unwrap();
    let lock = root.writer_lock().unwrap().clone();
    let opening = History::begin_open(&root, &lock, sync_git()).unwrap();
    let mut seen = read_all(&root);
    let (_, stat) = root
        .read_listed(&DiskName::new("notes/n5.md".into()))
        .unwrap();
    seen.insert(
        DiskName::new("notes/n5.md".into()),
        stat.unwrap(),
        BlobId::of(b"# Note 5\n"),
    );
    let _history = opening.finish(&seen).unwrap();
    assert!(status_is_clean(dir.path()));
    assert_eq!(committed_text(dir.path(), "notes/n5.md"), "# Note X\n");
}

#[test]
fn a_file_changed_after_it_was_read_is_read_again_and_committed() {
    let dir = copied_root();
    let root = open_root(dir.path());
    let lock = root.writer_lock().unwrap().clone();
    let opening = History::begin_open(&root, &lock, sync_git()).unwrap();
    let seen = read_all(&root);
    // Edited between the loader's read and the scan: same length, new stat data.
    std::thread::sleep(Duration::from_millis(20));
    fs::write(dir.path().join("notes/n9.md"), "# Note Y\n").unwrap();
    let _history = opening.finish(&seen).unwrap();
    assert!(status_is_clean(dir.path()));
    assert_eq!(committed_text(dir.path(), "notes/n9.md"), "# Note Y\n");
}
