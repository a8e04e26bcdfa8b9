//! The new trees and the commit object of a batch commit, built in memory.
//!
//! libgit2 writes every object through `git_odb_write`, which first looks the id up in every
//! backend to "freshen" an object that already exists. A new tree is in none of them, and a
//! miss in the pack backend re-reads the pack folder (a `readdir`, then a lookup of each index
//! found): per new tree, about a tenth of a commit thread's time under sustained writes. The
//! trees of a batch commit are only ever read from the pack they go into, so they are built
//! here instead, as bytes with their ids ([`Built`]), and handed to the pack writer with the
//! blobs. What this builds is exactly what `git_tree_create_updated` (`TreeUpdateBuilder`)
//! builds, which a property test checks; what it refuses (a file replacing a folder or the
//! reverse, a name git would not store) the caller leaves to libgit2.

use std::collections::{BTreeMap, HashMap};

use std::sync::Arc;

use git2::{FileMode, ObjectType, Odb, Oid, Signature};

/// Trees by id, as git stores them, and the tree of the last commit made: a batch commit's
/// new trees are the next one's base, so it reads none of them back from the pack (where
/// each read inflates and hashes a tree, and the first also re-reads the pack folder to find
/// the pack just written). Objects never change under their id, so nothing here goes stale.
#[derive(Debug, Default)]
pub(crate) struct TreeCache {
    trees: HashMap<Oid, Arc<[u8]>>,
    bytes: usize,
    /// A commit and its tree.
    head: Option<(Oid, Oid)>,
}

impl TreeCache {
    /// At most this many bytes of trees are kept; past it the cache starts again empty.
    const MAX_BYTES: usize = 64 << 20;

    /// The tree `id`, from here or else from `odb`.
    fn tree(&mut self, odb: &Odb<'_>, id: Oid) -> Result<Arc<[u8]>, git2::Error> {
        if let Some(tree) = self.trees.get(&id) {
            return Ok(Arc::clone(tree));
        }
        let object = odb.read(id)?;
        if object.kind() != ObjectType::Tree {
            return Err(git2::Error::from_str(&format!("{id} is not a tree")));
        }
        let data: Arc<[u8]> = object.data().into();
        self.keep(id, Arc::clone(&data));
        Ok(data)
    }

    fn keep(&mut self, id: Oid, data: Arc<[u8]>) {
        if self.bytes + data.len() > Self::MAX_BYTES {
            self.trees.clear();
            self.bytes = 0;
        }
        self.bytes += data.len();
        self.trees.insert(id, data);
    }

    /// Keeps the trees of `built`, once its commit `commit` (of tree `tree`) is stored.
    pub(crate) fn remember(&mut self, built: &Built, commit: Oid, tree: Oid) {
        for (id, (kind, data)) in &built.objects {
            if *kind == ObjectType::Tree && !self.trees.contains_key(id) {
                self.keep(*id, Arc::clone(data));
            }
        }
        self.head = Some((commit, tree));
    }

    /// The tree of `commit` if it is the last one remembered.
    pub(crate) fn tree_of(&self, commit: Oid) -> Option<Oid> {
        self.head
            .filter(|(c, _)| *c == commit)
            .map(|(_, tree)| tree)
    }
}

/// Objects built in memory, by id.
#[derive(Debug, Default)]
pub(crate) struct Built {
    objects: HashMap<Oid, (ObjectType, Arc<[u8]>)>,
}

impl Built {
    pub(crate) fn get(&self, id: &Oid) -> Option<(ObjectType, &[u8])> {
        self.objects.get(id).map(|(kind, data)| (*kind, &data[..]))
    }

    pub(crate) fn ids(&self) -> impl Iterator<Item = Oid> + '_ {
        self.objects.keys().copied()
    }

    fn add(&mut self, kind: ObjectType, data: Vec<u8>) -> Result<Oid, git2::Error> {
        let id = Oid::hash_object(kind, &data)?;
        self.objects.insert(id, (kind, data.into()));
        Ok(id)
    }

    /// Builds `base` with each staged path set to its blob and mode, or removed (`None`; a
    /// path that is not there is left alone, as is a folder left empty, which goes). Returns
    /// the new root tree's id, or `None` when libgit2 has to do it (see the module).
    pub(crate) fn updated_tree(
        &mut self,
        odb: &Odb<'_>,
        trees: &mut TreeCache,
        base: Oid,
        staged: &[(&str, Option<(Oid, FileMode)>)],
    ) -> Result<Option<Oid>, git2::Error> {
        let mut root = Node::default();
        for (path, entry) in staged {
            let mut parts: Vec<&str> = path.split('/').collect();
            if parts.iter().any(|p| !storable(p)) {
                return Ok(None);
            }
            let name = parts.pop().expect("split yields one part at least");
            let mut node = &mut root;
            for part in parts {
                node = node.folders.entry(part.as_bytes().to_vec()).or_default();
            }
            let change = match entry {
                Some((id, mode)) => Change::Set(*id, u32::try_from(i32::from(*mode)).unwrap_or(0)),
                None => Change::Remove,
            };
            node.files.insert(name.as_bytes().to_vec(), change);
        }
        match self.write_folder(odb, trees, Some(base), &root, true)? {
            Step::Tree(id) => Ok(Some(id)),
            Step::Gone => unreachable!("the root tree is always written"),
            Step::Refused => Ok(None),
        }
    }

    fn write_folder(
        &mut self,
        odb: &Odb<'_>,
        trees: &mut TreeCache,
        base: Option<Oid>,
        node: &Node,
        root: bool,
    ) -> Result<Step, git2::Error> {
        let mut entries: BTreeMap<Vec<u8>, (u32, Oid)> = BTreeMap::new();
        if let Some(base) = base {
            let data = trees.tree(odb, base)?;
            for entry in TreeEntries(&data) {
                let (name, mode, id) = entry?;
                entries.insert(name.to_vec(), (mode, id));
            }
        }
        for (name, change) in &node.files {
            if node.folders.contains_key(name) {
                return Ok(Step::Refused);
            }
            match change {
                Change::Set(id, mode) => {
                    if entries
                        .get(name)
                        .is_some_and(|(m, _)| kind(*m) != kind(*mode))
                    {
                        return Ok(Step::Refused);
                    }
                    entries.insert(name.clone(), (*mode, *id));
                }
                Change::Remove => {
                    entries.remove(name);
                }
            }
        }
        for (name, folder) in &node.folders {
            let sub = match entries.get(name) {
                Some((mode, id)) if is_tree(*mode) => Some(*id),
                // A folder's path through a file: only removals may pass (they find nothing).
                Some(_) if folder.only_removes() => continue,
                Some(_) => return Ok(Step::Refused),
                None => None,
            };
            match self.write_folder(odb, trees, sub, folder, false)? {
                Step::Tree(id) => {
                    entries.insert(name.clone(), (TREE_MODE, id));
                }
                Step::Gone => {
                    entries.remove(name);
                }
                Step::Refused => return Ok(Step::Refused),
            }
        }
        if entries.is_empty() && !root {
            return Ok(Step::Gone);
        }
        // Git's order: by name, a folder's name compared as if it ended in '/'.
        let mut sorted: Vec<(Vec<u8>, u32, Oid)> = entries
            .into_iter()
            .map(|(name, (mode, id))| (name, mode, id))
            .collect();
        sorted.sort_by(|a, b| sort_key(&a.0, a.1).cmp(&sort_key(&b.0, b.1)));
        let mut data = Vec::with_capacity(sorted.len() * 48);
        for (name, mode, id) in &sorted {
            data.extend_from_slice(format!("{mode:o} ").as_bytes());
            data.extend_from_slice(name);
            data.push(0);
            data.extend_from_slice(id.as_bytes());
        }
        self.add(ObjectType::Tree, data).map(Step::Tree)
    }

    /// The commit object of `tree` on `parent`, as `git_commit_create` writes it.
    pub(crate) fn commit(
        &mut self,
        tree: Oid,
        parent: Oid,
        author: &Signature<'_>,
        committer: &Signature<'_>,
        message: &str,
    ) -> Result<Oid, git2::Error> {
        let mut data = Vec::with_capacity(256 + message.len());
        data.extend_from_slice(format!("tree {tree}\nparent {parent}\n").as_bytes());
        signature_line(&mut data, "author", author);
        signature_line(&mut data, "committer", committer);
        data.push(b'\n');
        data.extend_from_slice(message.as_bytes());
        self.add(ObjectType::Commit, data)
    }
}

const TREE_MODE: u32 = 0o040000;

fn is_tree(mode: u32) -> bool {
    mode == TREE_MODE
}

/// The kind of object an entry of `mode` names: libgit2 replaces an entry only by one of the
/// same kind.
fn kind(mode: u32) -> ObjectType {
    match mode {
        TREE_MODE => ObjectType::Tree,
        0o160000 => ObjectType::Commit,
        _ => ObjectType::Blob,
    }
}

/// A name and the byte git compares after it: '/' for a folder, nothing for a file.
fn sort_key(name: &[u8], mode: u32) -> SortKey<'_> {
    SortKey(name, is_tree(mode))
}

/// A tree entry's name as git orders it.
#[derive(PartialEq, Eq)]
struct SortKey<'a>(&'a [u8], bool);

impl Ord for SortKey<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let tail = |folder: bool| -> &'static [u8] {
            if folder {
                b"/"
            } else {
                b""
            }
        };
        self.0
            .iter()
            .chain(tail(self.1))
            .cmp(other.0.iter().chain(tail(other.1)))
    }
}

impl PartialOrd for SortKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether git stores `name` as a tree entry as it is (libgit2 refuses the others).
fn storable(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.eq_ignore_ascii_case(".git")
        && !name.contains('\0')
}

/// `header name <email> time ±hhmm`, as libgit2 writes a signature.
fn signature_line(out: &mut Vec<u8>, header: &str, sig: &Signature<'_>) {
    let when = sig.when();
    let offset = when.offset_minutes();
    let sign = if offset < 0 || when.sign() == '-' {
        '-'
    } else {
        '+'
    };
    let offset = offset.unsigned_abs();
    out.extend_from_slice(header.as_bytes());
    out.push(b' ');
    out.extend_from_slice(sig.name_bytes());
    out.extend_from_slice(b" <");
    out.extend_from_slice(sig.email_bytes());
    out.extend_from_slice(
        format!(
            "> {} {sign}{:02}{:02}\n",
            when.seconds(),
            offset / 60,
            offset % 60
        )
        .as_bytes(),
    );
}

/// The entries of a tree as git stores it: name, mode (as libgit2 normalizes it), id.
struct TreeEntries<'a>(&'a [u8]);

impl<'a> Iterator for TreeEntries<'a> {
    type Item = Result<(&'a [u8], u32, Oid), git2::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let bad = || git2::Error::from_str("a tree object is malformed");
        let parsed = (|| {
            let space = self.0.iter().position(|b| *b == b' ')?;
            let nul = space + 1 + self.0[space + 1..].iter().position(|b| *b == 0)?;
            let id = self.0.get(nul + 1..nul + 21)?;
            let mode = std::str::from_utf8(&self.0[..space]).ok()?;
            let mode = u32::from_str_radix(mode, 8).ok()?;
            let entry = (
                &self.0[space + 1..nul],
                normalize(mode),
                Oid::from_bytes(id).ok()?,
            );
            self.0 = &self.0[nul + 21..];
            Some(entry)
        })();
        match parsed {
            Some(entry) => Some(Ok(entry)),
            None => {
                self.0 = &[];
                Some(Err(bad()))
            }
        }
    }
}

/// A mode as libgit2 reads it from a tree (`git_tree_entry_filemode`).
fn normalize(mode: u32) -> u32 {
    match mode & 0o170000 {
        0o040000 => TREE_MODE,
        _ if mode & 0o100 != 0 => 0o100755,
        0o160000 => 0o160000,
        0o120000 => 0o120000,
        _ => 0o100644,
    }
}

#[derive(Debug, Default)]
struct Node {
    files: BTreeMap<Vec<u8>, Change>,
    folders: BTreeMap<Vec<u8>, Node>,
}

impl Node {
    fn only_removes(&self) -> bool {
        self.files.values().all(|c| matches!(c, Change::Remove))
            && self.folders.values().all(Node::only_removes)
    }
}

#[derive(Debug, Clone, Copy)]
enum Change {
    Set(Oid, u32),
    Remove,
}

enum Step {
    Tree(Oid),
    /// The folder is empty: its entry goes.
    Gone,
    Refused,
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::build::TreeUpdateBuilder;
    use git2::{Repository, Tree};
    use proptest::prelude::*;
    use std::path::Path;

    /// What libgit2 builds for the same updates (removals of what is not there skipped, as
    /// the commit path does).
    fn libgit2_tree(
        repo: &Repository,
        base: &Tree<'_>,
        staged: &[(&str, Option<(Oid, FileMode)>)],
    ) -> Result<Oid, git2::Error> {
        let mut update = TreeUpdateBuilder::new();
        for (path, entry) in staged {
            match entry {
                Some((id, mode)) => {
                    update.upsert(*path, *id, *mode);
                }
                None if base.get_path(Path::new(path)).is_ok() => {
                    update.remove(*path);
                }
                None => {}
            }
        }
        update.create_updated(repo, base)
    }

    /// Checks that every object built reads back from `repo` once written there.
    fn store(repo: &Repository, built: &Built) {
        let odb = repo.odb().unwrap();
        for id in built.ids() {
            let (kind, data) = built.get(&id).unwrap();
            assert_eq!(odb.write(kind, data).unwrap(), id);
        }
    }

    fn base_tree<'r>(repo: &'r Repository, files: &[(String, u8)]) -> Tree<'r> {
        let mut update = TreeUpdateBuilder::new();
        let empty = repo.treebuilder(None).unwrap().write().unwrap();
        let empty = repo.find_tree(empty).unwrap();
        for (path, n) in files {
            let blob = repo.blob(format!("content {n}\n").as_bytes()).unwrap();
            let mode = if n % 5 == 0 {
                FileMode::BlobExecutable
            } else {
                FileMode::Blob
            };
            update.upsert(path.as_str(), blob, mode);
        }
        let id = update.create_updated(repo, &empty).unwrap();
        repo.find_tree(id).unwrap()
    }

    fn path() -> impl Strategy<Value = String> {
        // Names chosen so git's folder ordering matters ("a" vs "a.md" vs "a-b").
        let name = prop::sample::select(vec!["a", "a.md", "a-b", "b", "B", "z.md", "a0"]);
        prop::collection::vec(name, 1..4).prop_map(|parts| parts.join("/"))
    }

    fn without_conflicts(files: Vec<(String, u8)>) -> Vec<(String, u8)> {
        // A base tree cannot hold a file and a folder of one name: keep the first of each.
        let mut kept: Vec<(String, u8)> = Vec::new();
        for (path, n) in files {
            let clash = kept.iter().any(|(k, _)| {
                k == &path
                    || k.starts_with(&format!("{path}/"))
                    || path.starts_with(&format!("{k}/"))
            });
            if !clash {
                kept.push((path, n));
            }
        }
        kept
    }

    /// Whether some staged path is a folder of another path, staged or in the base.
    fn file_and_folder(staged: &[(&str, Option<(Oid, FileMode)>)], base: &[String]) -> bool {
        let all: Vec<&str> = staged
            .iter()
            .map(|(p, _)| *p)
            .chain(base.iter().map(String::as_str))
            .collect();
        staged.iter().any(|(p, _)| {
            all.iter()
                .any(|q| q.starts_with(&format!("{p}/")) || p.starts_with(&format!("{q}/")))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn builds_what_libgit2_builds(
            files in prop::collection::vec((path(), any::<u8>()), 0..12),
            rounds in prop::collection::vec(
                prop::collection::vec((path(), prop::option::of(any::<u8>())), 1..8),
                1..4,
            ),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let repo = Repository::init(dir.path()).unwrap();
            let odb = repo.odb().unwrap();
            let files = without_conflicts(files);
            let mut base = base_tree(&repo, &files).id();
            // One cache across the rounds, as across a server's commits: each round's base is
            // the tree the round before built.
            let mut cache = TreeCache::default();
            for updates in rounds {
                // One change per path, as the commit path stages them.
                let mut seen = std::collections::HashSet::new();
                let updates: Vec<(String, Option<u8>)> =
                    updates.into_iter().filter(|(p, _)| seen.insert(p.clone())).collect();
                let blobs: Vec<Option<(Oid, FileMode)>> = updates
                    .iter()
                    .map(|(_, n)| n.map(|n| {
                        let id = repo.blob(format!("new {n}\n").as_bytes()).unwrap();
                        let mode =
                            if n % 3 == 0 { FileMode::BlobExecutable } else { FileMode::Blob };
                        (id, mode)
                    }))
                    .collect();
                let staged: Vec<(&str, Option<(Oid, FileMode)>)> = updates
                    .iter()
                    .zip(&blobs)
                    .map(|((p, _), b)| (p.as_str(), *b))
                    .collect();
                let base_tree = repo.find_tree(base).unwrap();
                let theirs = libgit2_tree(&repo, &base_tree, &staged);
                let mut built = Built::default();
                let ours = built.updated_tree(&odb, &mut cache, base, &staged).unwrap();
                match (ours, theirs) {
                    (Some(ours), Ok(theirs)) => {
                        prop_assert_eq!(ours, theirs);
                        store(&repo, &built);
                        // Every tree on the way is there: the new tree reads back whole.
                        let tree = repo.find_tree(ours).unwrap();
                        tree.walk(git2::TreeWalkMode::PreOrder, |_, _| git2::TreeWalkResult::Ok)
                            .unwrap();
                        cache.remember(&built, Oid::zero(), ours);
                        base = ours;
                    }
                    // What libgit2 refuses, this refuses too.
                    (None, Err(_)) => {}
                    (Some(ours), Err(e)) => {
                        prop_assert!(false, "built {ours}, libgit2 refused: {e}")
                    }
                    // Refusing what libgit2 builds only costs speed; it happens only where a
                    // name is a file on one side and a folder on the other.
                    (None, Ok(theirs)) => {
                        prop_assert!(
                            file_and_folder(&staged, &paths_of(&repo, base)),
                            "refused what libgit2 built: {theirs}"
                        );
                        base = theirs;
                    }
                }
            }
        }
    }

    /// Every file path of the tree `id`.
    fn paths_of(repo: &Repository, id: Oid) -> Vec<String> {
        let mut paths = Vec::new();
        repo.find_tree(id)
            .unwrap()
            .walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
                if entry.kind() == Some(ObjectType::Blob) {
                    paths.push(format!("{dir}{}", entry.name().unwrap()));
                }
                git2::TreeWalkResult::Ok
            })
            .unwrap();
        paths
    }

    #[test]
    fn a_commit_is_the_bytes_libgit2_writes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let tree = base_tree(&repo, &[("a.md".into(), 1), ("f/b.md".into(), 2)]);
        let sig = Signature::new(
            "Ada Lovelace",
            "ada@example.org",
            &git2::Time::new(1_800_000_000, -90),
        )
        .unwrap();
        let other = Signature::new(
            "quire",
            "quire@localhost",
            &git2::Time::new(1_700_000_000, 330),
        )
        .unwrap();
        let parent = repo.commit(None, &sig, &sig, "first", &tree, &[]).unwrap();
        let parent = repo.find_commit(parent).unwrap();
        let message = "Edit a.md\n\nquire-actor: ada\n";
        let theirs = repo
            .commit_create_buffer(&sig, &other, message, &tree, &[&parent])
            .unwrap();
        let mut built = Built::default();
        let ours = built
            .commit(tree.id(), parent.id(), &sig, &other, message)
            .unwrap();
        assert_eq!(built.get(&ours).unwrap().1, &*theirs);
    }
}
