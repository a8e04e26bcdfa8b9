//! Names on disk that are not NFC (as macOS and sync tools write them): addressed by their NFC
//! path, written in place, committed under their real name; names differing only by
//! normalization are both kept. Real folders and real git.

use std::fs;
use std::path::Path;

use git2::Repository;
use quire_store::{DiskName, FileChange, HistoryOptions, JournalEntry, Recorded, Root, Strategy};
use quire_vault::{PagePath, Shadowed};

mod common;
use common::{open_history, open_root};

/// `café.md` with a precomposed `é` (NFC) and with `e` + combining acute (NFD).
const NFC: &str = "caf\u{e9}.md";
const NFD: &str = "cafe\u{301}.md";

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

fn sync_git() -> HistoryOptions {
    HistoryOptions {
        strategy: Strategy::Git,
        async_commit: false,
        ..HistoryOptions::default()
    }
}

fn root_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let full = dir.path().join(name);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, text).unwrap();
    }
    let root = open_root(dir.path());
    (dir, root)
}

/// The names in a folder as they are on disk, sorted, hidden ones left out.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

fn head_names(dir: &Path) -> Vec<String> {
    let repo = Repository::open(dir).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let mut names = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |folder, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            names.push(format!("{folder}{}", entry.name().unwrap()));
        }
        git2::TreeWalkResult::Ok
    })
    .unwrap();
    names.sort();
    names
}

#[test]
fn nfd_named_file_is_listed_and_read_under_its_nfc_path() {
    let (_dir, root) = root_with(&[(NFD, "# Café\n"), ("plain.md", "x")]);
    let listing = root.listing().unwrap();
    assert_eq!(listing.files, [p(NFC), p("plain.md")]);
    assert_eq!(
        listing.names.non_nfc.get(&p(NFC)).map(String::as_str),
        Some(NFD)
    );
    assert!(listing.names.shadowed.is_empty());
    assert_eq!(root.files().unwrap(), listing.files);
    assert_eq!(root.read(&p(NFC)).unwrap(), b"# Caf\xc3\xa9\n");
    assert_eq!(root.disk_name(&p(NFC)).unwrap().as_str(), NFD);
    assert_eq!(root.disk_name(&p("plain.md")).unwrap().as_str(), "plain.md");
}

#[test]
fn writing_the_nfc_path_of_an_nfd_file_writes_it_in_place() {
    let (dir, root) = root_with(&[(NFD, "old")]);
    root.write(&p(NFC), b"new").unwrap();
    assert_eq!(names_in(dir.path()), [NFD]);
    assert_eq!(fs::read(dir.path().join(NFD)).unwrap(), b"new");
    root.remove(&p(NFC)).unwrap();
    assert!(names_in(dir.path()).is_empty());
}

#[test]
fn a_new_file_gets_the_nfc_name_and_lands_in_an_nfd_folder() {
    let folder_nfd = "re\u{301}sume\u{301}";
    let (dir, root) = root_with(&[(&format!("{folder_nfd}/a.md"), "a")]);
    root.write(&p("naïve.md"), b"n").unwrap();
    assert!(
        dir.path().join("naïve.md").is_file(),
        "{:?}",
        names_in(dir.path())
    );
    root.write(&p("résumé/b.md"), b"b").unwrap();
    assert_eq!(names_in(dir.path()), ["naïve.md", folder_nfd]);
    assert_eq!(names_in(&dir.path().join(folder_nfd)), ["a.md", "b.md"]);
    assert_eq!(
        root.disk_name(&p("résumé/b.md")).unwrap().as_str(),
        format!("{folder_nfd}/b.md")
    );
    // A path that does not exist keeps its own spelling below the folder that does.
    assert_eq!(
        root.disk_name(&p("résumé/new/ü.md")).unwrap().as_str(),
        format!("{folder_nfd}/new/ü.md")
    );
}

#[test]
fn tree_shows_nfc_names_that_read_back() {
    let (_dir, root) = root_with(&[(&format!("dossier/{NFD}"), "text")]);
    let tree = root.tree(None).unwrap();
    let child = &tree[0].children.as_ref().unwrap()[0];
    assert_eq!(child.name, NFC);
    assert_eq!(child.path, format!("dossier/{NFC}"));
    assert_eq!(root.read(&p(&child.path)).unwrap(), b"text");
}

#[test]
fn names_differing_only_by_normalization_are_both_kept_and_the_nfc_one_is_addressed() {
    let (dir, root) = root_with(&[(NFC, "composed"), (NFD, "decomposed")]);
    let listing = root.listing().unwrap();
    assert_eq!(listing.files, [p(NFC)]);
    assert!(listing.names.non_nfc.is_empty());
    assert_eq!(
        listing.names.shadowed,
        [Shadowed {
            path: p(NFC),
            disk: NFD.into(),
            by: NFC.into(),
        }]
    );
    assert_eq!(root.read(&p(NFC)).unwrap(), b"composed");
    root.write(&p(NFC), b"changed").unwrap();
    assert_eq!(fs::read(dir.path().join(NFD)).unwrap(), b"decomposed");
    assert_eq!(root.tree(None).unwrap().len(), 1);

    // Removing the addressed file leaves the shadowed one, which the path now reaches.
    root.remove(&p(NFC)).unwrap();
    assert_eq!(names_in(dir.path()), [NFD]);
    assert_eq!(root.read(&p(NFC)).unwrap(), b"decomposed");
}

#[test]
fn among_several_non_nfc_spellings_the_byte_smallest_is_addressed() {
    // Both normalize to U+1EAD; neither is NFC, only the second is NFD.
    let unordered = "a\u{302}\u{323}.md";
    let nfd = "a\u{323}\u{302}.md";
    assert!(unordered < nfd);
    let (_dir, root) = root_with(&[(nfd, "nfd"), (unordered, "unordered")]);
    let path = p("\u{1ead}.md");
    assert_eq!(root.read(&path).unwrap(), b"unordered");
    assert_eq!(root.disk_name(&path).unwrap().as_str(), unordered);
    let listing = root.listing().unwrap();
    assert_eq!(listing.files, [path]);
    assert_eq!(listing.names.shadowed[0].disk, nfd);
    assert_eq!(listing.names.shadowed[0].by, unordered);
}

#[test]
fn every_file_below_a_shadowed_folder_is_reported() {
    let (_dir, root) = root_with(&[("caf\u{e9}/a.md", "a"), ("cafe\u{301}/b.md", "b")]);
    let listing = root.listing().unwrap();
    assert_eq!(listing.files, [p("café/a.md")]);
    assert_eq!(
        listing.names.shadowed,
        [Shadowed {
            path: p("café/b.md"),
            disk: "cafe\u{301}/b.md".into(),
            by: "caf\u{e9}".into(),
        }]
    );
}

#[test]
fn commits_record_the_name_on_disk_and_history_queries_find_it_by_path() {
    let (dir, root) = root_with(&[(NFD, "one\n")]);
    let history = open_history(&root, sync_git());
    assert_eq!(
        head_names(dir.path()),
        [NFD],
        "the first import keeps the name"
    );

    let path = p(NFC);
    let disk = root.disk_name(&path).unwrap();
    root.write(&path, b"one\ntwo\n").unwrap();
    let change = FileChange::of(path.clone(), disk.clone(), true);
    let Recorded::Committed(second) = history.record(&[change], "alice", "edit").unwrap() else {
        panic!("a synchronous git record commits");
    };
    assert_eq!(head_names(dir.path()), [NFD], "no second spelling in git");

    let versions = history.versions(&path).unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0].hash, second);
    assert_eq!(history.version(&path, &second).unwrap(), b"one\ntwo\n");
    let diff = history.diff(&path, &versions[1].hash, &second).unwrap();
    assert!(diff.contains(&format!("+++ b/{NFC}")), "{diff}");
    assert!(diff.contains("+two"), "{diff}");
    let blame = history.blame(&path).unwrap();
    assert_eq!(blame[1].author, "alice");
    let feed = history.changes(None, 10).unwrap();
    assert!(feed.changes.iter().all(|c| c.path == NFC), "{feed:?}");

    // A removal is committed under the name it had.
    root.remove_on_disk(&disk).unwrap();
    let change = FileChange::of(path.clone(), disk, false);
    history.record(&[change], "alice", "remove").unwrap();
    assert!(head_names(dir.path()).is_empty());
}

#[test]
fn revert_input_names_the_file_as_git_holds_it() {
    let (_dir, root) = root_with(&[(NFD, "one\n")]);
    let history = open_history(&root, sync_git());
    let path = p(NFC);
    let disk = root.disk_name(&path).unwrap();
    root.write(&path, b"two\n").unwrap();
    let change = FileChange::of(path.clone(), disk, true);
    let Recorded::Committed(id) = history.record(&[change], "alice", "edit").unwrap() else {
        panic!("a synchronous git record commits");
    };
    let files = history.commit_files(&id).unwrap().files;
    assert_eq!(files.len(), 1);
    // Git gives the name on disk; its path is the NFC form, and the root maps it back.
    assert_eq!(files[0].path, NFD);
    assert_eq!(root.read(&p(&files[0].path)).unwrap(), b"two\n");
}

#[test]
fn a_rollback_restores_the_exact_name_and_never_touches_a_shadowed_file() {
    let (dir, root) = root_with(&[(NFC, "composed"), (NFD, "decomposed")]);
    drop(open_history(&root, sync_git()));
    // A change removed the addressed (NFC) file and crashed before committing.
    let disk = root.disk_name(&p(NFC)).unwrap();
    assert_eq!(disk, DiskName::new(NFC.into()));
    root.write_journal(&[JournalEntry {
        path: disk.to_string(),
        before: Some(b"composed".to_vec()),
        after: None,
    }])
    .unwrap();
    root.remove_on_disk(&disk).unwrap();

    drop(open_history(&root, sync_git()));
    assert_eq!(fs::read(dir.path().join(NFC)).unwrap(), b"composed");
    assert_eq!(fs::read(dir.path().join(NFD)).unwrap(), b"decomposed");
    assert_eq!(head_names(dir.path()), [NFD, NFC]);
}
