//! Keeping the object database small while the server runs.
//!
//! Every batch commit of many files writes one pack (see `repo::commit_packed`), and every
//! small commit writes loose objects. Nothing else ever packs them: quire runs no `git gc`.
//! Left alone, a server under sustained writes gathers thousands of packs and hundreds of
//! thousands of loose files, and every object libgit2 does not find re-reads the pack folder
//! (a new blob is looked up before it is written), so each commit gets slower as packs pile up.
//!
//! The packer thread tidies when the commits pause (no commit for [`QUIET`], or at the latest
//! [`MOST_DELAY`] after the first untidied commit), and during a long burst as soon as there
//! are more than [`BUSY_MAX_PACKS`] packs (each time libgit2 re-reads the folder it looks every
//! index found up among the packs it knows, so that cost grows faster than the pack count):
//! * **packs**, once there are more than [`MAX_PACKS`], are merged geometrically: sorted by
//!   object count, the small packs that break a progression of factor 2 are rolled into one
//!   pack, so each object is rewritten a logarithmic number of times over the life of the
//!   repository, never the whole database at each tidy;
//! * **loose objects**, once about [`MAX_LOOSE`] are estimated (from one of the 256 fan-out
//!   folders, as git does), are packed into one pack and their files removed.
//!
//! Nothing is ever pruned: every object of a merged pack or a loose file is in the new pack
//! before the old files go, so a crash between the two only leaves duplicates. A pack with a
//! `.keep` or `.promisor` file is left alone, and so is a repository with a multi-pack index
//! (which names its packs). Readers holding an old pack open keep reading it; a reader that
//! has not opened it yet misses, re-reads the pack folder and finds the new pack.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use git2::{Odb, Oid, Repository};

use super::pack_file::PackOut;

/// More packs than this are merged.
pub(crate) const MAX_PACKS: usize = 8;
/// More packs than this are merged at once, without waiting for commits to pause.
pub(crate) const BUSY_MAX_PACKS: usize = 100;
/// About this many loose objects are packed.
pub(crate) const MAX_LOOSE: usize = 4096;
/// The pause in commits the packer waits for.
const QUIET: Duration = Duration::from_secs(1);
/// The longest the packer waits for a pause.
const MOST_DELAY: Duration = Duration::from_secs(30);
/// How often the packer looks at the commit count.
const LOOK: Duration = Duration::from_millis(250);

/// What one tidy did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Tidied {
    /// Packs merged into one (0 when none were).
    pub(crate) packs_merged: usize,
    /// Loose objects packed (and their files removed).
    pub(crate) loose_packed: usize,
}

/// Merges packs and packs loose objects of the repository at `git_dir` when past the limits.
pub(crate) fn tidy(git_dir: &Path) -> Result<Tidied, git2::Error> {
    tidy_with(git_dir, MAX_PACKS, MAX_LOOSE, Merge::Recompress)
}

/// How packs are merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Merge {
    /// Every object read, inflated, checked and deflated again at zlib's fastest level: when
    /// the commits pause, so the trees batch commits stored uncompressed get compressed.
    Recompress,
    /// Each entry's bytes copied as they are when every entry of the packs is a whole object
    /// (the packs quire writes); else as [`Merge::Recompress`]. During a burst, where
    /// recompressing took the packer an eighth of the process's CPU.
    Copy,
}

pub(crate) fn tidy_with(
    git_dir: &Path,
    max_packs: usize,
    max_loose: usize,
    how: Merge,
) -> Result<Tidied, git2::Error> {
    let repo = Repository::open(git_dir)?;
    let objects = repo.commondir().join("objects");
    let pack_dir = objects.join("pack");
    let mut tidied = Tidied::default();
    if pack_dir.join("multi-pack-index").exists() {
        return Ok(tidied);
    }
    let odb = repo.odb()?;
    if estimate_loose(&objects) >= max_loose {
        let loose = loose_objects(&objects);
        if !loose.is_empty() {
            let ids: Vec<Oid> = loose.iter().map(|(id, _)| *id).collect();
            stream_pack(&odb, &pack_dir, &ids)?;
            for (_, file) in &loose {
                let _ = fs::remove_file(file);
            }
            tidied.loose_packed = loose.len();
        }
    }
    let packs = packs_in(&pack_dir);
    if packs.len() > max_packs {
        let merge = geometric_merge(&packs);
        if merge.len() >= 2 {
            let copied = how == Merge::Copy && copy_packs(&pack_dir, &merge)?;
            if !copied {
                let mut ids = Vec::new();
                for pack in &merge {
                    ids.extend(read_idx(&pack.idx)?);
                }
                ids.sort();
                ids.dedup();
                stream_pack(&odb, &pack_dir, &ids)?;
            }
            for pack in &merge {
                pack.remove();
            }
            tidied.packs_merged = merge.len();
        }
    }
    Ok(tidied)
}

/// A pack of the repository that may be merged.
#[derive(Debug, Clone)]
pub(crate) struct PackFile {
    /// `pack-<hash>.idx`.
    idx: PathBuf,
    objects: u64,
}

impl PackFile {
    /// Removes the pack: the index first, so no reader finds an index without its pack.
    fn remove(&self) {
        let _ = fs::remove_file(&self.idx);
        for ext in ["pack", "rev", "bitmap", "mtimes"] {
            let _ = fs::remove_file(self.idx.with_extension(ext));
        }
    }
}

/// The packs of `pack_dir` that may be merged (no `.keep`, no `.promisor`), with their
/// object counts.
pub(crate) fn packs_in(pack_dir: &Path) -> Vec<PackFile> {
    let Ok(entries) = fs::read_dir(pack_dir) else {
        return Vec::new();
    };
    let mut packs = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let is_idx = path.extension().is_some_and(|e| e == "idx")
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("pack-"));
        if !is_idx
            || path.with_extension("keep").exists()
            || path.with_extension("promisor").exists()
            || !path.with_extension("pack").exists()
        {
            continue;
        }
        if let Some(objects) = idx_count(&path) {
            packs.push(PackFile { idx: path, objects });
        }
    }
    packs
}

/// The packs to merge so that the rest, sorted by size, grow by a factor of two at least:
/// the smallest packs up to the last break of that progression, then every next pack smaller
/// than twice what is merged so far.
pub(crate) fn geometric_merge(packs: &[PackFile]) -> Vec<PackFile> {
    let mut sorted = packs.to_vec();
    sorted.sort_by_key(|p| p.objects);
    let weight = |p: &PackFile| p.objects.max(1);
    // The first pack from which on every pack is at least twice the one before.
    let mut split = 0;
    for i in (1..sorted.len()).rev() {
        if weight(&sorted[i]) < 2 * weight(&sorted[i - 1]) {
            split = i + 1;
            break;
        }
    }
    let mut total: u64 = sorted[..split].iter().map(weight).sum();
    while split < sorted.len() && weight(&sorted[split]) < 2 * total {
        total += weight(&sorted[split]);
        split += 1;
    }
    sorted.truncate(split);
    sorted
}

/// The object count a pack index declares (`None` when it is not a pack index).
fn idx_count(idx: &Path) -> Option<u64> {
    use std::io::Read;
    let mut file = fs::File::open(idx).ok()?;
    let mut head = [0u8; 8 + 256 * 4];
    file.read_exact(&mut head).ok()?;
    let fanout = if head[..4] == [0xff, b't', b'O', b'c'] {
        &head[8..]
    } else {
        &head[..256 * 4]
    };
    Some(u64::from(u32::from_be_bytes(
        fanout[255 * 4..256 * 4].try_into().ok()?,
    )))
}

/// The object ids a pack index lists (version 2, or the original format).
pub(crate) fn read_idx(idx: &Path) -> Result<Vec<Oid>, git2::Error> {
    let bytes = fs::read(idx).map_err(|e| io_error(idx, &e))?;
    let bad = || git2::Error::from_str(&format!("{} is not a pack index", idx.display()));
    let (v2, fanout_at) = if bytes.get(..4) == Some(&[0xff, b't', b'O', b'c']) {
        (true, 8)
    } else {
        (false, 0)
    };
    let last = bytes
        .get(fanout_at + 255 * 4..fanout_at + 256 * 4)
        .ok_or_else(bad)?;
    let count = u32::from_be_bytes(last.try_into().map_err(|_| bad())?) as usize;
    let start = fanout_at + 256 * 4;
    let (stride, skip) = if v2 { (20, 0) } else { (24, 4) };
    let mut ids = Vec::with_capacity(count);
    for i in 0..count {
        let at = start + i * stride + skip;
        let raw = bytes.get(at..at + 20).ok_or_else(bad)?;
        ids.push(Oid::from_bytes(raw)?);
    }
    Ok(ids)
}

/// Writes one pack of every object of `packs`, each entry's bytes copied as they are.
/// `false` (nothing written) when some pack has an entry that is a delta (its base is named
/// by an offset in its own pack) or an index of the original format (no CRC-32s).
fn copy_packs(pack_dir: &Path, packs: &[PackFile]) -> Result<bool, git2::Error> {
    let mut sources = Vec::with_capacity(packs.len());
    for pack in packs {
        let Some(mut entries) = read_idx_v2(&pack.idx)? else {
            return Ok(false);
        };
        let path = pack.idx.with_extension("pack");
        let bytes = fs::read(&path).map_err(|e| io_error(&path, &e))?;
        let bad = || git2::Error::from_str(&format!("{} is not a pack", path.display()));
        if bytes.len() < 32 || &bytes[..4] != b"PACK" {
            return Err(bad());
        }
        // Each entry runs to the next one, the last to the checksum.
        entries.sort_by_key(|e| e.1);
        let end = bytes.len() as u64 - 20;
        let mut spans = Vec::with_capacity(entries.len());
        for (i, (id, offset)) in entries.iter().enumerate() {
            let next = entries.get(i + 1).map_or(end, |e| e.1);
            let span = usize::try_from(*offset).map_err(|_| bad())?
                ..usize::try_from(next).map_err(|_| bad())?;
            let first = *bytes.get(span.start).ok_or_else(bad)?;
            if span.start >= span.end || span.end > bytes.len() {
                return Err(bad());
            }
            if !(1..=4).contains(&((first >> 4) & 7)) {
                return Ok(false);
            }
            spans.push((*id, span));
        }
        sources.push((bytes, spans));
    }
    let mut seen = std::collections::HashSet::new();
    let mut count = 0;
    for (_, spans) in &sources {
        count += spans.iter().filter(|(id, _)| seen.insert(*id)).count();
    }
    let mut out = PackOut::create(pack_dir, count)?;
    let mut written = std::collections::HashSet::with_capacity(count);
    for (bytes, spans) in &sources {
        for (id, span) in spans {
            if written.insert(*id) {
                out.add_raw(*id, &bytes[span.clone()])?;
            }
        }
    }
    out.finish()?;
    Ok(true)
}

/// The ids and offsets a version 2 pack index lists (`None` for the original format).
fn read_idx_v2(idx: &Path) -> Result<Option<Vec<(Oid, u64)>>, git2::Error> {
    let bytes = fs::read(idx).map_err(|e| io_error(idx, &e))?;
    if bytes.get(..8) != Some(&[0xff, b't', b'O', b'c', 0, 0, 0, 2]) {
        return Ok(None);
    }
    let bad = || git2::Error::from_str(&format!("{} is not a pack index", idx.display()));
    let be32 = |at: usize| -> Result<u32, git2::Error> {
        let raw = bytes.get(at..at + 4).ok_or_else(bad)?;
        Ok(u32::from_be_bytes(raw.try_into().map_err(|_| bad())?))
    };
    let count = be32(8 + 255 * 4)? as usize;
    let ids_at = 8 + 256 * 4;
    let offsets_at = ids_at + count * 24;
    let large_at = offsets_at + count * 4;
    let mut entries = Vec::with_capacity(count);
    for i in 0..count {
        let raw = bytes
            .get(ids_at + i * 20..ids_at + i * 20 + 20)
            .ok_or_else(bad)?;
        let small = be32(offsets_at + i * 4)?;
        let offset = if small & 0x8000_0000 == 0 {
            u64::from(small)
        } else {
            let at = large_at + (small & 0x7fff_ffff) as usize * 8;
            let raw = bytes.get(at..at + 8).ok_or_else(bad)?;
            u64::from_be_bytes(raw.try_into().map_err(|_| bad())?)
        };
        entries.push((Oid::from_bytes(raw)?, offset));
    }
    Ok(Some(entries))
}

/// Loose objects, estimated from one fan-out folder.
fn estimate_loose(objects: &Path) -> usize {
    fs::read_dir(objects.join("17"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| is_loose_name(&e.file_name().to_string_lossy()))
                .count()
                * 256
        })
        .unwrap_or(0)
}

fn is_loose_name(name: &str) -> bool {
    name.len() == 38 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Every loose object and its file.
fn loose_objects(objects: &Path) -> Vec<(Oid, PathBuf)> {
    let mut found = Vec::new();
    for fan in 0..=255u8 {
        let dir = objects.join(format!("{fan:02x}"));
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !is_loose_name(&name) {
                continue;
            }
            if let Ok(id) = Oid::from_str(&format!("{fan:02x}{name}")) {
                found.push((id, entry.path()));
            }
        }
    }
    found.sort();
    found
}

/// Writes one pack of `objects` (read from `odb`) into `pack_dir`, streamed.
fn stream_pack(odb: &Odb<'_>, pack_dir: &Path, objects: &[Oid]) -> Result<(), git2::Error> {
    let mut pack = PackOut::create(pack_dir, objects.len())?;
    for id in objects {
        let object = odb.read(*id)?;
        pack.add(*id, object.kind(), object.data())?;
    }
    pack.finish().map(|_| ())
}

fn io_error(path: &Path, e: &std::io::Error) -> git2::Error {
    git2::Error::from_str(&format!("reading {}: {e}", path.display()))
}

/// The thread that tidies the object database when commits pause; dropping it stops the
/// thread (a tidy under way finishes first).
pub(crate) struct Packer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    closing: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Packer {
    /// Starts the thread for the repository at `git_dir`; `commits` counts the commits made
    /// so far (it tells a pause from a burst).
    pub(crate) fn start(git_dir: PathBuf, commits: impl Fn() -> u64 + Send + 'static) -> Packer {
        let shared = Arc::new(Shared {
            closing: AtomicBool::new(false),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("quire-packer".into())
            .spawn(move || run(&worker, &git_dir, &commits))
            .map_err(|e| tracing::error!(error = %e, "cannot start the packer thread"))
            .ok();
        Packer { shared, thread }
    }
}

impl Drop for Packer {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::Release);
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("the packer thread panicked");
            }
        }
    }
}

fn run(shared: &Shared, git_dir: &Path, commits: &dyn Fn() -> u64) {
    let pack_dir = Repository::open(git_dir)
        .map(|r| r.commondir().join("objects/pack"))
        .unwrap_or_else(|_| git_dir.join("objects/pack"));
    let mut tidied_at = commits();
    let mut seen = tidied_at;
    let mut changed_at = Instant::now();
    let mut first_untidied: Option<Instant> = None;
    loop {
        {
            let guard = shared.lock.lock().unwrap_or_else(|e| e.into_inner());
            if shared.closing.load(Ordering::Acquire) {
                return;
            }
            let _ = shared
                .wake
                .wait_timeout(guard, LOOK)
                .unwrap_or_else(|e| e.into_inner());
        }
        if shared.closing.load(Ordering::Acquire) {
            return;
        }
        let now = Instant::now();
        let count = commits();
        if count != seen {
            seen = count;
            changed_at = now;
            first_untidied.get_or_insert(now);
        }
        let Some(first) = first_untidied else {
            continue;
        };
        let quiet =
            now.duration_since(changed_at) >= QUIET || now.duration_since(first) >= MOST_DELAY;
        let result = if quiet && count != tidied_at {
            tidied_at = count;
            first_untidied = None;
            tidy(git_dir)
        } else if changed_at == now && pack_count(&pack_dir) > BUSY_MAX_PACKS {
            // A long burst: keep the packs few while it lasts (loose objects wait).
            tidy_with(git_dir, BUSY_MAX_PACKS, usize::MAX, Merge::Copy)
        } else {
            continue;
        };
        match result {
            Ok(t) if t != Tidied::default() => tracing::info!(
                packs_merged = t.packs_merged,
                loose_packed = t.loose_packed,
                "tidied the git object database"
            ),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "tidying the git object database failed"),
        }
    }
}

/// The pack indexes in `pack_dir` (a `readdir`, no file opened).
fn pack_count(pack_dir: &Path) -> usize {
    fs::read_dir(pack_dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".idx"))
                .count()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(objects: u64) -> PackFile {
        PackFile {
            idx: PathBuf::from(format!("pack-{objects}.idx")),
            objects,
        }
    }

    fn merged(counts: &[u64]) -> Vec<u64> {
        let packs: Vec<PackFile> = counts.iter().map(|c| pack(*c)).collect();
        geometric_merge(&packs).iter().map(|p| p.objects).collect()
    }

    #[test]
    fn packs_in_a_progression_stay() {
        assert_eq!(merged(&[100, 50, 25, 3, 1]), Vec::<u64>::new());
    }

    #[test]
    fn equal_small_packs_merge_and_a_large_one_stays() {
        assert_eq!(merged(&[10, 1000, 10, 10]), vec![10, 10, 10]);
        assert_eq!(merged(&[1, 1, 1, 1]), vec![1, 1, 1, 1]);
    }

    #[test]
    fn a_pack_smaller_than_twice_the_merge_joins_it() {
        // 5, 5 break the progression; 12 < 2 × 10 joins; 100 stays.
        assert_eq!(merged(&[5, 5, 12, 100]), vec![5, 5, 12]);
    }

    /// A repository with `packs` packs of `per` new blobs each and `loose` loose blobs.
    fn repository(packs: usize, per: usize, loose: usize) -> (tempfile::TempDir, Vec<Oid>) {
        use git2::ObjectType;
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let odb = repo.odb().unwrap();
        let mut all = Vec::new();
        let memory = Odb::new().unwrap();
        memory.add_new_mempack_backend(3).unwrap();
        for p in 0..packs {
            let ids: Vec<Oid> = (0..per)
                .map(|i| {
                    memory
                        .write(ObjectType::Blob, format!("pack {p} blob {i}\n").as_bytes())
                        .unwrap()
                })
                .collect();
            stream_pack(&memory, &repo.path().join("objects/pack"), &ids).unwrap();
            all.extend(ids);
        }
        for i in 0..loose {
            all.push(
                odb.write(ObjectType::Blob, format!("loose {i}\n").as_bytes())
                    .unwrap(),
            );
        }
        (dir, all)
    }

    fn pack_count(dir: &Path) -> usize {
        packs_in(&dir.join(".git/objects/pack")).len()
    }

    #[test]
    fn merging_packs_keeps_every_object() {
        for how in [Merge::Recompress, Merge::Copy] {
            let (dir, ids) = repository(6, 20, 0);
            assert_eq!(pack_count(dir.path()), 6);
            let tidied = tidy_with(&dir.path().join(".git"), 4, usize::MAX, how).unwrap();
            assert_eq!(tidied.packs_merged, 6);
            assert_eq!(pack_count(dir.path()), 1);
            let repo = Repository::open(dir.path()).unwrap();
            let odb = repo.odb().unwrap();
            for id in &ids {
                // A read checks the content against the id.
                assert!(odb.read(*id).is_ok(), "{id} lost ({how:?})");
            }
            verify_packs(dir.path());
            // Under the limit: nothing to do.
            let again = tidy_with(&dir.path().join(".git"), 4, usize::MAX, how).unwrap();
            assert_eq!(again, Tidied::default());
        }
    }

    /// `git verify-pack` of every pack (skipped where no `git` is installed).
    fn verify_packs(dir: &Path) {
        for entry in fs::read_dir(dir.join(".git/objects/pack")).unwrap() {
            let idx = entry.unwrap().path();
            if idx.extension().is_none_or(|e| e != "idx") {
                continue;
            }
            let Ok(out) = std::process::Command::new("git")
                .arg("verify-pack")
                .arg(&idx)
                .current_dir(dir)
                .output()
            else {
                return;
            };
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    #[test]
    fn packs_with_deltas_are_merged_by_recompressing_even_when_copying_is_asked() {
        use git2::ObjectType;
        let (dir, mut ids) = repository(3, 5, 0);
        let repo = Repository::open(dir.path()).unwrap();
        // A pack libgit2's pack builder makes of similar blobs holds deltas.
        let text: String = (0..400)
            .map(|i| format!("line {i} of a long page\n"))
            .collect();
        let mut builder = repo.packbuilder().unwrap();
        for n in 0..4 {
            let id = repo.blob(format!("{text}edit {n}\n").as_bytes()).unwrap();
            builder.insert_object(id, None).unwrap();
            ids.push(id);
        }
        let mut buf = git2::Buf::new();
        builder.write_buf(&mut buf).unwrap();
        let odb = repo.odb().unwrap();
        let mut writer = odb.packwriter().unwrap();
        std::io::Write::write_all(&mut writer, &buf).unwrap();
        writer.commit().unwrap();
        let packs = packs_in(&dir.path().join(".git/objects/pack"));
        assert_eq!(packs.len(), 4);
        assert!(!copy_packs(&dir.path().join(".git/objects/pack"), &packs).unwrap());
        let tidied = tidy_with(&dir.path().join(".git"), 1, usize::MAX, Merge::Copy).unwrap();
        assert!(tidied.packs_merged >= 2);
        let repo = Repository::open(dir.path()).unwrap();
        let odb = repo.odb().unwrap();
        for id in &ids {
            assert_eq!(odb.read(*id).unwrap().kind(), ObjectType::Blob);
        }
        verify_packs(dir.path());
    }

    #[test]
    fn a_kept_pack_is_left_alone() {
        let (dir, _) = repository(3, 5, 0);
        let pack_dir = dir.path().join(".git/objects/pack");
        let first = packs_in(&pack_dir)[0].idx.clone();
        fs::write(first.with_extension("keep"), "").unwrap();
        tidy_with(&dir.path().join(".git"), 1, usize::MAX, Merge::Recompress).unwrap();
        assert!(first.exists(), "the kept pack stays");
        assert_eq!(pack_count(dir.path()), 1, "the two others merged");
    }

    #[test]
    fn loose_objects_are_packed_and_their_files_removed() {
        let (dir, ids) = repository(0, 0, 300);
        let objects = dir.path().join(".git/objects");
        assert_eq!(loose_objects(&objects).len(), 300);
        let tidied = tidy_with(&dir.path().join(".git"), 8, 0, Merge::Recompress).unwrap();
        assert_eq!(tidied.loose_packed, 300);
        assert!(loose_objects(&objects).is_empty());
        let repo = Repository::open(dir.path()).unwrap();
        let odb = repo.odb().unwrap();
        for id in &ids {
            assert!(odb.read(*id).is_ok(), "{id} lost");
        }
    }

    #[test]
    fn an_index_reads_back_its_ids() {
        let (dir, mut ids) = repository(1, 50, 0);
        let pack = &packs_in(&dir.path().join(".git/objects/pack"))[0];
        assert_eq!(pack.objects, 50);
        let mut read = read_idx(&pack.idx).unwrap();
        read.sort();
        ids.sort();
        assert_eq!(read, ids);
    }
}
