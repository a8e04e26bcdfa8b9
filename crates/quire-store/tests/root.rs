//! The root on disk: atomic writes, removal, errors, tree listing, symlink safety.

use std::fs;
use std::path::Path;

use quire_store::{EntryKind, Root, StoreError, TreeNode, WriterLock};
use quire_vault::PagePath;

mod common;
use common::open_root;

fn p(s: &str) -> PagePath {
    PagePath::new(s).expect("valid test path")
}

fn root() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = open_root(dir.path());
    (dir, root)
}

#[test]
fn write_creates_parents_and_read_returns_bytes() {
    let (_dir, root) = root();
    root.write(&p("a/b/c.md"), b"hello").unwrap();
    assert_eq!(root.read(&p("a/b/c.md")).unwrap(), b"hello");
    root.write(&p("a/b/c.md"), b"again").unwrap();
    assert_eq!(root.read(&p("a/b/c.md")).unwrap(), b"again");
}

fn tmp_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.join(".quire/state/tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn write_leaves_no_temp_files_behind_and_dropping_the_root_removes_its_spares() {
    let (dir, root) = root();
    for i in 0..5 {
        root.write(&p("x.md"), format!("{i}").as_bytes()).unwrap();
    }
    // Rewrites keep the old inode as a spare for the next rewrite: one is enough for one
    // writer, and nothing else is left.
    let left = tmp_names(dir.path());
    assert!(
        left.len() <= 1 && left.iter().all(|n| n.ends_with(".spare")),
        "{left:?}"
    );
    assert_eq!(root.read(&p("x.md")).unwrap(), b"4");
    drop(root);
    assert_eq!(tmp_names(dir.path()), Vec::<String>::new());
}

#[test]
fn a_rewrite_swaps_the_file_and_reuses_the_old_inode_without_touching_open_readers() {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let (dir, root) = root();
    let file = dir.path().join("page.md");
    root.write(&p("page.md"), b"first version").unwrap();
    let first = fs::metadata(&file).unwrap().ino();
    root.write(&p("page.md"), b"second").unwrap();
    let second = fs::metadata(&file).unwrap().ino();
    assert_ne!(
        first, second,
        "the new content is another inode, swapped in"
    );
    // A reader opens the page now and reads after two more rewrites: it must read what it
    // opened, whole, although its inode became a spare in between.
    let mut reader = fs::File::open(&file).unwrap();
    root.write(&p("page.md"), b"third, longer than the others")
        .unwrap();
    root.write(&p("page.md"), b"fourth").unwrap();
    root.write(&p("page.md"), b"fifth").unwrap();
    let mut read = String::new();
    reader.read_to_string(&mut read).unwrap();
    assert_eq!(read, "second");
    assert_eq!(root.read(&p("page.md")).unwrap(), b"fifth");
    drop(reader);
    // With no reader, rewrites go back and forth between two inodes: none made, none freed.
    let mut inodes = std::collections::BTreeSet::new();
    for i in 0..6 {
        root.write(&p("page.md"), format!("round {i}").as_bytes())
            .unwrap();
        inodes.insert(fs::metadata(&file).unwrap().ino());
    }
    assert!(inodes.len() <= 3, "{inodes:?}");
    assert_eq!(root.read(&p("page.md")).unwrap(), b"round 5");
}

#[test]
fn a_rewrite_keeps_the_files_permissions_and_never_writes_through_a_second_link() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, root) = root();
    let file = dir.path().join("tool.sh");
    fs::write(&file, "echo 1").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o750)).unwrap();
    root.write(&p("tool.sh"), b"echo 2").unwrap();
    assert_eq!(
        fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o750
    );
    // A page with a second name (a hard link outside the root): the rewrite replaces the
    // page, and the other name keeps the old bytes, then and after more rewrites.
    let other = tempfile::tempdir().unwrap();
    let twin = other.path().join("twin.md");
    fs::write(dir.path().join("linked.md"), "shared").unwrap();
    fs::hard_link(dir.path().join("linked.md"), &twin).unwrap();
    for i in 0..4 {
        root.write(&p("linked.md"), format!("v{i}").as_bytes())
            .unwrap();
        root.write(&p("tool.sh"), format!("echo {i}").as_bytes())
            .unwrap();
    }
    assert_eq!(fs::read(&twin).unwrap(), b"shared");
    assert_eq!(root.read(&p("linked.md")).unwrap(), b"v3");
}

#[test]
fn open_removes_temp_files_left_by_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join(".quire/state/tmp");
    fs::create_dir_all(&tmp).unwrap();
    fs::write(tmp.join("123-4.tmp"), b"half").unwrap();
    open_root(dir.path());
    assert_eq!(fs::read_dir(tmp).unwrap().count(), 0);
}

#[test]
fn open_refuses_a_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = WriterLock::acquire(&missing, "test").unwrap_err();
    assert!(matches!(err, StoreError::BadRoot { .. }), "{err}");
    let err = Root::open_read_only(&missing).unwrap_err();
    assert!(matches!(err, StoreError::BadRoot { .. }), "{err}");
}

#[test]
fn dir_is_canonical() {
    let (dir, root) = root();
    assert_eq!(root.dir(), fs::canonicalize(dir.path()).unwrap());
}

#[test]
fn remove_deletes_file_and_prunes_empty_parents_but_never_the_root() {
    let (dir, root) = root();
    root.write(&p("a/b/c.md"), b"1").unwrap();
    root.write(&p("a/keep.md"), b"2").unwrap();
    root.remove(&p("a/b/c.md")).unwrap();
    assert!(!dir.path().join("a/b").exists());
    assert!(dir.path().join("a/keep.md").exists());
    root.remove(&p("a/keep.md")).unwrap();
    assert!(!dir.path().join("a").exists());
    assert!(dir.path().exists());
    root.write(&p("top.md"), b"3").unwrap();
    root.remove(&p("top.md")).unwrap();
    assert!(dir.path().exists());
}

#[test]
fn errors_name_the_situation() {
    let (_dir, root) = root();
    root.write(&p("file.md"), b"x").unwrap();
    root.write(&p("folder/inner.md"), b"y").unwrap();
    type Check = fn(&StoreError) -> bool;
    let cases: Vec<(&str, Result<(), StoreError>, Check)> = vec![
        ("read missing", root.read(&p("missing.md")).map(drop), |e| {
            matches!(e, StoreError::NotFound { .. })
        }),
        ("read folder", root.read(&p("folder")).map(drop), |e| {
            matches!(e, StoreError::IsFolder { .. })
        }),
        ("write onto folder", root.write(&p("folder"), b"z"), |e| {
            matches!(e, StoreError::IsFolder { .. })
        }),
        (
            "write below a file",
            root.write(&p("file.md/sub.md"), b"z"),
            |e| matches!(e, StoreError::ParentIsFile { .. }),
        ),
        (
            "read below a file",
            root.read(&p("file.md/sub.md")).map(drop),
            |e| matches!(e, StoreError::ParentIsFile { .. }),
        ),
        ("remove missing", root.remove(&p("missing.md")), |e| {
            matches!(e, StoreError::NotFound { .. })
        }),
        ("remove folder", root.remove(&p("folder")), |e| {
            matches!(e, StoreError::IsFolder { .. })
        }),
        (
            "readlink of a file",
            root.readlink(&p("file.md")).map(drop),
            |e| matches!(e, StoreError::NotSymlink { .. }),
        ),
        (
            "readlink missing",
            root.readlink(&p("missing.md")).map(drop),
            |e| matches!(e, StoreError::NotFound { .. }),
        ),
        (
            "tree of a file",
            root.tree(Some(&p("file.md"))).map(drop),
            |e| matches!(e, StoreError::NotFolder { .. }),
        ),
        (
            "tree of a missing folder",
            root.tree(Some(&p("nothing"))).map(drop),
            |e| matches!(e, StoreError::NotFound { .. }),
        ),
    ];
    for (name, result, check) in cases {
        let err = result.expect_err(name);
        assert!(check(&err), "{name}: unexpected error {err:?}");
    }
}

#[test]
fn kind_reports_file_folder_symlink_or_nothing() {
    let (dir, root) = root();
    root.write(&p("f.md"), b"x").unwrap();
    root.write(&p("d/g.md"), b"x").unwrap();
    std::os::unix::fs::symlink("f.md", dir.path().join("l.md")).unwrap();
    let cases = [
        ("f.md", Some(EntryKind::File)),
        ("d", Some(EntryKind::Dir)),
        ("l.md", Some(EntryKind::Symlink)),
        ("none.md", None),
        ("f.md/below", None),
    ];
    for (path, want) in cases {
        assert_eq!(root.kind(&p(path)).unwrap(), want, "{path}");
    }
}

fn shape(nodes: &[TreeNode]) -> Vec<String> {
    let mut out = Vec::new();
    for n in nodes {
        if n.is_dir {
            out.push(format!("{}/", n.path));
            out.extend(shape(n.children.as_deref().unwrap_or_default()));
        } else {
            out.push(format!("{} {}", n.path, n.size));
        }
    }
    out
}

#[test]
fn tree_lists_sorted_nodes_without_dot_entries() {
    let (dir, root) = root();
    root.write(&p("b.md"), b"12345").unwrap();
    root.write(&p("a/z.md"), b"1").unwrap();
    root.write(&p("a/c/d.md"), b"12").unwrap();
    root.write(&p(".hidden"), b"x").unwrap();
    root.write(&p("a/.obsidian/x.json"), b"x").unwrap();
    root.write(&p(".quire/config.toml"), b"x").unwrap();
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    let tree = root.tree(None).unwrap();
    assert_eq!(
        shape(&tree),
        ["a/", "a/c/", "a/c/d.md 2", "a/z.md 1", "b.md 5"]
    );
    let sub = root.tree(Some(&p("a"))).unwrap();
    assert_eq!(shape(&sub), ["a/c/", "a/c/d.md 2", "a/z.md 1"]);
    assert_eq!(sub[0].name, "c");
}

#[test]
fn tree_node_serializes_with_spec_field_names() {
    let (_dir, root) = root();
    root.write(&p("a/b.md"), b"xy").unwrap();
    let json = serde_json::to_value(root.tree(None).unwrap()).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{
            "path": "a", "name": "a", "isDir": true, "size": 0,
            "children": [{"path": "a/b.md", "name": "b.md", "isDir": false, "size": 2}]
        }])
    );
}

#[test]
fn files_lists_regular_files_sorted_skipping_git_quire_and_symlinks() {
    let (dir, root) = root();
    for path in [
        "z.md",
        "a/b.md",
        "a/.hidden.md",
        ".quire/config.toml",
        "img.png",
    ] {
        root.write(&p(path), b"x").unwrap();
    }
    fs::create_dir_all(dir.path().join(".git/objects")).unwrap();
    fs::write(dir.path().join(".git/HEAD"), b"x").unwrap();
    std::os::unix::fs::symlink("z.md", dir.path().join("link.md")).unwrap();
    std::os::unix::fs::symlink("a", dir.path().join("linkdir")).unwrap();
    let files: Vec<String> = root
        .files()
        .unwrap()
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(files, ["a/.hidden.md", "a/b.md", "img.png", "z.md"]);
}

#[test]
fn symlink_escape_is_refused_for_read_and_write() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.md"), b"secret").unwrap();
    let (dir, root) = root();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("s.md")).unwrap();
    std::os::unix::fs::symlink("../../nowhere/x.md", dir.path().join("dangling.md")).unwrap();
    let refused = [
        root.read(&p("out/secret.md")).map(drop),
        root.read(&p("s.md")).map(drop),
        root.write(&p("out/new.md"), b"x"),
        root.write(&p("s.md"), b"x"),
        root.write(&p("dangling.md"), b"x"),
        root.tree(Some(&p("out"))).map(drop),
    ];
    for (i, result) in refused.into_iter().enumerate() {
        assert!(
            matches!(result, Err(StoreError::OutsideRoot { .. })),
            "case {i}: {result:?}"
        );
    }
    assert!(!outside.path().join("new.md").exists());
    assert_eq!(
        fs::read(outside.path().join("secret.md")).unwrap(),
        b"secret"
    );
}

#[test]
fn paths_into_git_folders_are_refused() {
    let (dir, root) = root();
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    fs::write(dir.path().join(".git/config"), b"[core]").unwrap();
    let refused = [
        root.read(&p(".git/config")).map(drop),
        root.write(&p(".git/config"), b"x"),
        root.write(&p("sub/.git/HEAD"), b"x"),
        root.remove(&p(".GIT/config")),
    ];
    for (i, result) in refused.into_iter().enumerate() {
        assert!(
            matches!(result, Err(StoreError::OutsideRoot { .. })),
            "case {i}: {result:?}"
        );
    }
    assert_eq!(fs::read(dir.path().join(".git/config")).unwrap(), b"[core]");
}

#[test]
fn root_and_history_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Root>();
    shareable::<quire_store::History>();
}

#[test]
fn symlink_inside_the_root_is_followed_for_read() {
    let (dir, root) = root();
    root.write(&p("notes/real.md"), b"real").unwrap();
    std::os::unix::fs::symlink("notes/real.md", dir.path().join("alias.md")).unwrap();
    std::os::unix::fs::symlink("notes", dir.path().join("n")).unwrap();
    assert_eq!(root.read(&p("alias.md")).unwrap(), b"real");
    assert_eq!(root.read(&p("n/real.md")).unwrap(), b"real");
}

#[test]
fn readlink_returns_link_text_even_when_it_points_outside() {
    let (dir, root) = root();
    std::os::unix::fs::symlink("target.md", dir.path().join("l.md")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("abs.md")).unwrap();
    assert_eq!(root.readlink(&p("l.md")).unwrap(), "target.md");
    assert_eq!(root.readlink(&p("abs.md")).unwrap(), "/etc/passwd");
}

#[test]
fn write_replaces_an_inside_symlink_instead_of_writing_through_it() {
    let (dir, root) = root();
    root.write(&p("real.md"), b"real").unwrap();
    std::os::unix::fs::symlink("real.md", dir.path().join("alias.md")).unwrap();
    root.write(&p("alias.md"), b"own").unwrap();
    assert_eq!(root.read(&p("real.md")).unwrap(), b"real");
    assert_eq!(root.kind(&p("alias.md")).unwrap(), Some(EntryKind::File));
    assert!(
        !fs::symlink_metadata(Path::new(&dir.path().join("alias.md")))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn etag_is_the_git_blob_id() {
    // Both checked with `git hash-object --stdin`.
    assert_eq!(
        quire_store::etag(b"hello\n"),
        "ce013625030ba8dba906f756967f9e9ca394464a"
    );
    assert_eq!(
        quire_store::etag(b""),
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    );
}

#[test]
fn a_path_longer_than_the_file_system_takes_is_refused_as_too_long() {
    let (dir, root) = root();
    let long_name = "a".repeat(5000);
    let long_path = vec!["abcdefgh"; 600].join("/");
    for path in [format!("{long_name}.md"), format!("{long_path}.md")] {
        let path = p(&path);
        let refused = [
            root.read(&path).map(drop),
            root.write(&path, b"x"),
            root.tree(Some(&path)).map(drop),
            root.readlink(&path).map(drop),
        ];
        for (i, result) in refused.into_iter().enumerate() {
            let Err(e) = result else {
                panic!("case {i} succeeded")
            };
            assert!(
                matches!(e, StoreError::NameTooLong { .. }),
                "case {i}: {e:?}"
            );
            // The message names the length, not the 5,000 bytes of the path.
            assert!(e.to_string().len() < 200, "{e}");
        }
    }
    assert!(!dir.path().join("abcdefgh").exists(), "nothing was written");
}
