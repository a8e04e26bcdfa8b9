//! The adapter's trait, called as nfsserve calls it, over a real space with real git.

use super::*;

struct Fixture {
    dir: tempfile::TempDir,
    nfs: QuireNfs,
}

fn fixture(files: &[(&str, &str)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    let nfs = QuireNfs::new(crate::testing::service(dir.path()), Settings::default());
    Fixture { dir, nfs }
}

impl Fixture {
    fn commits(&self) -> Vec<String> {
        crate::testing::commits(self.dir.path())
    }

    async fn id(&self, path: &str) -> u64 {
        let mut id = ROOT_ID;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            id = self.nfs.lookup(id, &part.as_bytes().into()).await.unwrap();
        }
        id
    }

    fn flush(&self) {
        self.nfs.flush_quiet(true);
    }
}

fn name(s: &str) -> filename3 {
    s.as_bytes().into()
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_in_pieces_are_one_commit_and_visible_before_it() {
    let f = fixture(&[("notes/a.md", "# A\n")]);
    let before = f.commits().len();
    let notes = f.id("notes").await;
    let (id, _) = f
        .nfs
        .create(notes, &name("new.md"), sattr3::default())
        .await
        .unwrap();
    f.nfs.write(id, 0, b"# New\n").await.unwrap();
    f.nfs.write(id, 6, b"\nbody\n").await.unwrap();
    // Seen at once: size, contents, listing, lookup.
    assert_eq!(f.nfs.getattr(id).await.unwrap().size, 12);
    assert_eq!(
        f.nfs.read(id, 0, 100).await.unwrap(),
        (b"# New\n\nbody\n".to_vec(), true)
    );
    let listed = f.nfs.readdir(notes, 0, 100).await.unwrap();
    assert!(listed.entries.iter().any(|e| e.fileid == id));
    assert_eq!(f.id("notes/new.md").await, id);
    assert_eq!(f.commits().len(), before, "nothing committed yet");
    f.flush();
    let commits = f.commits();
    assert_eq!(commits.len(), before + 1, "{commits:?}");
    assert!(commits[0].starts_with("nfs\t"), "{commits:?}");
    assert_eq!(
        std::fs::read(f.dir.path().join("notes/new.md")).unwrap(),
        b"# New\n\nbody\n"
    );
    // Truncation is a write of the truncated bytes.
    let attr = sattr3 {
        size: set_size3::size(5),
        ..sattr3::default()
    };
    f.nfs.setattr(id, attr).await.unwrap();
    f.flush();
    assert_eq!(f.commits().len(), before + 2);
    assert_eq!(
        std::fs::read(f.dir.path().join("notes/new.md")).unwrap(),
        b"# New"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_created_and_removed_before_its_commit_leaves_no_commit() {
    let f = fixture(&[("a.md", "# A\n")]);
    let before = f.commits().len();
    let (id, _) = f
        .nfs
        .create(ROOT_ID, &name("gone.md"), sattr3::default())
        .await
        .unwrap();
    f.nfs.write(id, 0, b"x").await.unwrap();
    f.nfs.remove(ROOT_ID, &name("gone.md")).await.unwrap();
    f.flush();
    assert_eq!(f.commits().len(), before);
    assert_eq!(
        f.nfs.getattr(id).await.unwrap_err() as u32,
        nfsstat3::NFS3ERR_STALE as u32
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_rename_keeps_links_and_moves_the_ids_below_it() {
    let f = fixture(&[
        ("index.md", "[[notes/sub/b]] and [b](notes/sub/b.md)\n"),
        ("notes/sub/b.md", "# B\n"),
    ]);
    let b = f.id("notes/sub/b.md").await;
    let notes = f.id("notes").await;
    f.nfs
        .rename(notes, &name("sub"), ROOT_ID, &name("moved"))
        .await
        .unwrap();
    assert_eq!(f.id("moved/b.md").await, b, "the handle follows the file");
    assert_eq!(f.nfs.getattr(b).await.unwrap().size, 4);
    let index = std::fs::read_to_string(f.dir.path().join("index.md")).unwrap();
    assert!(index.contains("(moved/b.md)"), "{index}");
    assert!(f.commits()[0].starts_with("nfs\t"));
    // A non-empty folder is not removed by RMDIR; an empty one is.
    assert_eq!(
        f.nfs.remove(ROOT_ID, &name("moved")).await.unwrap_err() as u32,
        nfsstat3::NFS3ERR_NOTEMPTY as u32
    );
    let (_, _) = f.nfs.mkdir(ROOT_ID, &name("empty")).await.unwrap();
    f.nfs.remove(ROOT_ID, &name("empty")).await.unwrap();
    assert!(!f.dir.path().join("empty").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn readdir_resumes_after_the_cookie() {
    let files: Vec<(String, String)> = (0..25)
        .map(|i| (format!("many/p{i:02}.md"), format!("# {i}\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let f = fixture(&refs);
    let dir = f.id("many").await;
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = f.nfs.readdir(dir, after, 10).await.unwrap();
        assert!(page.entries.len() <= 10);
        for e in &page.entries {
            seen.push(String::from_utf8(e.name.to_vec()).unwrap());
        }
        if page.end {
            break;
        }
        after = page.entries.last().unwrap().fileid;
    }
    let expected: Vec<String> = (0..25).map(|i| format!("p{i:02}.md")).collect();
    assert_eq!(seen, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_export_refuses_every_change() {
    let f = fixture(&[("a.md", "# A\n")]);
    let nfs = QuireNfs::new(
        f.nfs.inner.service.clone(),
        Settings {
            read_only: true,
            ..Settings::default()
        },
    );
    let a = nfs.lookup(ROOT_ID, &name("a.md")).await.unwrap();
    let rofs = nfsstat3::NFS3ERR_ROFS as u32;
    assert_eq!(nfs.write(a, 0, b"x").await.unwrap_err() as u32, rofs);
    assert_eq!(
        nfs.create(ROOT_ID, &name("b.md"), sattr3::default())
            .await
            .unwrap_err() as u32,
        rofs
    );
    assert_eq!(
        nfs.mkdir(ROOT_ID, &name("d")).await.unwrap_err() as u32,
        rofs
    );
    assert_eq!(
        nfs.rename(ROOT_ID, &name("a.md"), ROOT_ID, &name("z.md"))
            .await
            .unwrap_err() as u32,
        rofs
    );
    assert_eq!(
        nfs.remove(ROOT_ID, &name("a.md")).await.unwrap_err() as u32,
        rofs
    );
    assert_eq!(nfs.read(a, 0, 10).await.unwrap().0, b"# A\n");
}
