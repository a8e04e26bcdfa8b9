//! The file-protocol layer (`Space::file_system`) on a real root with real git: folders that
//! outlive their files, scratch files that never reach git, a page set aside and written again
//! as one update, copy-then-delete recorded as a raw move, and the server's own files out of
//! reach.

mod support;

use quire_service::{ErrorCode, FsKind, Protocol};
use support::TestSpace;

fn commits(test: &TestSpace) -> usize {
    let out = std::process::Command::new("git")
        .args(["rev-list", "--count", "HEAD"])
        .current_dir(test.root())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn folders_live_until_deleted_and_a_folder_delete_is_one_commit() {
    let test = TestSpace::new(&[("notes/a.md", "# A\n"), ("notes/sub/b.md", "# B\n")]);
    let fs = test.space.file_system(Protocol::WebDav);
    let opts = fs.options(None);
    fs.create_folder("empty").unwrap();
    assert_eq!(fs.stat("empty").unwrap().unwrap().kind, FsKind::Folder);
    assert_eq!(
        fs.create_folder("missing/child").unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        fs.create_folder("empty").unwrap_err().code,
        ErrorCode::Conflict
    );
    // The last file of a folder goes; the folder stays.
    fs.delete("notes/sub/b.md", &opts).unwrap();
    assert_eq!(fs.list("notes/sub").unwrap(), vec![]);
    // A folder with files below it: one commit.
    fs.write("notes/sub/c.md", b"# C\n".to_vec(), &opts)
        .unwrap();
    let before = commits(&test);
    fs.delete("notes", &opts).unwrap();
    assert_eq!(commits(&test), before + 1);
    assert!(fs.stat("notes").unwrap().is_none());
    assert!(test.disk("notes/a.md").is_none());
    // Writes need their folder.
    assert_eq!(
        fs.write("gone/x.md", b"x".to_vec(), &opts)
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(test.last_author("notes/a.md"), "webdav");
}

#[test]
fn scratch_files_stay_in_memory_and_a_temp_file_saved_over_a_page_is_one_update() {
    let test = TestSpace::new(&[("a.md", "# A\n"), ("b.md", "See [[a]].\n")]);
    let fs = test.space.file_system(Protocol::Fuse);
    let opts = fs.options(Some("editor"));
    let before = commits(&test);
    fs.write("._a.md", b"resource fork".to_vec(), &opts)
        .unwrap();
    fs.write("a.md.tmp", b"# A, saved\n".to_vec(), &opts)
        .unwrap();
    let names: Vec<String> = fs.list("").unwrap().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["._a.md", "a.md", "a.md.tmp", "b.md"]);
    assert!(fs.stat("._a.md").unwrap().unwrap().scratch);
    assert!(test.disk("._a.md").is_none() && test.disk("a.md.tmp").is_none());
    assert_eq!(commits(&test), before);
    fs.rename("a.md.tmp", "a.md", true, &opts).unwrap();
    assert_eq!(test.disk("a.md").as_deref(), Some("# A, saved\n"));
    assert_eq!(commits(&test), before + 1);
    assert!(
        test.last_message("a.md").starts_with("Update a.md"),
        "{}",
        test.last_message("a.md")
    );
    assert!(fs.stat("a.md.tmp").unwrap().is_none());
    // Set aside and written again: one more update, never a delete.
    fs.rename("a.md", "a.md~", false, &opts).unwrap();
    assert!(fs.stat("a.md").unwrap().is_none());
    assert_eq!(fs.read("a.md~").unwrap(), b"# A, saved\n");
    fs.write("a.md", b"# A, saved twice\n".to_vec(), &opts)
        .unwrap();
    fs.delete("a.md~", &opts).unwrap();
    assert_eq!(commits(&test), before + 2);
    assert_eq!(test.disk("a.md").as_deref(), Some("# A, saved twice\n"));
    assert_eq!(test.disk("b.md").as_deref(), Some("See [[a]].\n"));
}

#[test]
fn a_rename_keeps_links_and_a_copy_then_delete_is_a_raw_move() {
    let test = TestSpace::new(&[("a.md", "# A\n"), ("b.md", "See [[a]] and [a](a.md).\n")]);
    let fs = test.space.file_system(Protocol::S3);
    let opts = fs.options(None);
    fs.create_folder("x").unwrap();
    fs.rename("a.md", "x/a.md", false, &opts).unwrap();
    assert_eq!(
        test.disk("b.md").as_deref(),
        Some("See [[a]] and [a](x/a.md).\n")
    );
    fs.copy_object("x/a.md", "y/a.md", &opts).unwrap();
    fs.delete("x/a.md", &opts).unwrap();
    let moves = test.space.raw_moves().unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(
        (moves[0].from.as_str(), moves[0].to.as_str()),
        ("x/a.md", "y/a.md")
    );
    assert_eq!(test.last_author("y/a.md"), "s3");
}

#[test]
fn the_servers_own_files_are_out_of_reach() {
    let test = TestSpace::new(&[("a.md", "# A\n")]);
    let fs = test.space.file_system(Protocol::Nfs);
    let opts = fs.options(None);
    assert!(fs.stat(".quire").unwrap().is_none());
    assert!(!fs
        .list("")
        .unwrap()
        .iter()
        .any(|e| e.name == ".git" || e.name == ".quire"));
    for path in [".quire/config.toml", ".git/config", "notes/.git/x"] {
        assert_eq!(
            fs.put(path, b"x".to_vec(), &opts).unwrap_err().code,
            ErrorCode::Forbidden,
            "{path}"
        );
    }
    assert_eq!(fs.delete("", &opts).unwrap_err().code, ErrorCode::Forbidden);
}
