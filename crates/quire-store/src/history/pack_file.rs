//! Writing a pack file and its index ourselves.
//!
//! libgit2's pack writer (`git_odb_write_pack`) runs its indexer over the bytes it is given:
//! it inflates every object again and hashes it to learn the id the writer already knew, then
//! builds the `.idx`. For the small packs of batch commits that was about a tenth of the
//! commit thread's time. [`PackOut`] keeps, for each object it deflates, the id, the offset
//! and the CRC-32 of the entry, and writes the version 2 index from them.
//!
//! Both files are written under temporary names in the pack folder and renamed into place,
//! the pack before its index: readers find packs through their `.idx`, so none ever sees an
//! index without its pack. Like every object quire writes through libgit2, they are not
//! fsynced (libgit2's default); a crash can lose an unreferenced pack, never a referenced one
//! that the next open's recovery would not rebuild from the work tree.
//!
//! Every object is stored whole (no deltas), deflated at zlib's fastest level: searching
//! deltas costs most of the time of a pack builder, and `git gc` finds them later if anyone
//! wants them.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::{Compress, Compression, FlushCompress, Status};
use git2::{ObjectType, Oid};
use sha1::{Digest, Sha1};

/// One object of a pack as its index lists it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    id: Oid,
    crc: u32,
    offset: u64,
}

/// A pack being written into a repository's pack folder; [`PackOut::finish`] puts it and its
/// index in place, dropping it unfinished removes the temporary file.
pub(crate) struct PackOut {
    pack_dir: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
    hash: Sha1,
    offset: u64,
    declared: u32,
    deflate: Compress,
    /// Level 0: stored blocks.
    store: Compress,
    entry: Vec<u8>,
    entries: Vec<Entry>,
}

impl PackOut {
    /// Starts a pack of exactly `count` objects in `pack_dir`.
    pub(crate) fn create(pack_dir: &Path, count: usize) -> Result<PackOut, git2::Error> {
        let declared = u32::try_from(count)
            .map_err(|_| git2::Error::from_str("too many objects for one pack"))?;
        let temp = temp_name(pack_dir, "pack");
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| io_error("creating", &temp, &e))?;
        let mut out = PackOut {
            pack_dir: pack_dir.to_path_buf(),
            temp,
            file: Some(BufWriter::with_capacity(1 << 16, file)),
            hash: Sha1::new(),
            offset: 0,
            declared,
            // One deflate stream, reset for each object: setting one up allocates and clears
            // a few hundred KiB, which for 10,000 small objects cost more than compressing.
            deflate: Compress::new(Compression::fast(), true),
            store: Compress::new(Compression::none(), true),
            entry: Vec::new(),
            entries: Vec::with_capacity(count),
        };
        let mut head = [0u8; 12];
        head[..4].copy_from_slice(b"PACK");
        head[4..8].copy_from_slice(&2u32.to_be_bytes());
        head[8..].copy_from_slice(&declared.to_be_bytes());
        out.put(&head)?;
        Ok(out)
    }

    /// Appends the object `id`, of `kind`, whose content is `data`, deflated at zlib's
    /// fastest level. The caller vouches that `id` is the object's id.
    pub(crate) fn add(
        &mut self,
        id: Oid,
        kind: ObjectType,
        data: &[u8],
    ) -> Result<(), git2::Error> {
        self.add_with(id, kind, data, false)
    }

    /// [`PackOut::add`] with the object's bytes stored in the zlib stream uncompressed: a
    /// copy and a checksum instead of a search for matches.
    pub(crate) fn add_uncompressed(
        &mut self,
        id: Oid,
        kind: ObjectType,
        data: &[u8],
    ) -> Result<(), git2::Error> {
        self.add_with(id, kind, data, true)
    }

    fn add_with(
        &mut self,
        id: Oid,
        kind: ObjectType,
        data: &[u8],
        stored: bool,
    ) -> Result<(), git2::Error> {
        let kind: u8 = match kind {
            ObjectType::Commit => 1,
            ObjectType::Tree => 2,
            ObjectType::Blob => 3,
            ObjectType::Tag => 4,
            other => {
                return Err(git2::Error::from_str(&format!(
                    "cannot pack an object of kind {other}"
                )))
            }
        };
        let mut entry = std::mem::take(&mut self.entry);
        entry.clear();
        // The entry header: the kind and the size, 4 bits then 7 bits a byte, low first.
        let mut size = data.len();
        let mut byte = (kind << 4) | (size & 0x0f) as u8;
        size >>= 4;
        while size > 0 {
            entry.push(byte | 0x80);
            byte = (size & 0x7f) as u8;
            size >>= 7;
        }
        entry.push(byte);
        let deflate = if stored {
            &mut self.store
        } else {
            &mut self.deflate
        };
        deflate_into(deflate, data, &mut entry)
            .map_err(|e| git2::Error::from_str(&format!("deflating an object: {e}")))?;
        self.entries.push(Entry {
            id,
            crc: crc32fast::hash(&entry),
            offset: self.offset,
        });
        let written = self.put(&entry);
        self.entry = entry;
        written
    }

    /// Appends the object `id` as `entry`: an entry of another pack, header and zlib stream,
    /// copied as it is. The caller vouches that it is a whole object (no delta) of that id.
    pub(crate) fn add_raw(&mut self, id: Oid, entry: &[u8]) -> Result<(), git2::Error> {
        self.entries.push(Entry {
            id,
            crc: crc32fast::hash(entry),
            offset: self.offset,
        });
        self.put(entry)
    }

    /// Ends the pack with its checksum, writes its index and renames both into place.
    /// Returns the index's path.
    pub(crate) fn finish(mut self) -> Result<PathBuf, git2::Error> {
        if self.entries.len() != self.declared as usize {
            return Err(git2::Error::from_str(&format!(
                "a pack declared {} objects and holds {}",
                self.declared,
                self.entries.len()
            )));
        }
        let checksum: [u8; 20] = std::mem::take(&mut self.hash).finalize().into();
        let mut file = self.file.take().expect("an unfinished pack has its file");
        file.write_all(&checksum)
            .and_then(|()| file.flush())
            .map_err(|e| io_error("writing", &self.temp, &e))?;
        drop(file);
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_by_key(|e| e.id);
        if entries.windows(2).any(|w| w[0].id == w[1].id) {
            return Err(git2::Error::from_str("a pack names one object twice"));
        }
        let index = index_bytes(&entries, &checksum);
        let name = format!("pack-{}", hex(&checksum));
        let pack = self.pack_dir.join(format!("{name}.pack"));
        let idx = self.pack_dir.join(format!("{name}.idx"));
        let idx_temp = temp_name(&self.pack_dir, "idx");
        let placed = fs::write(&idx_temp, &index)
            .map_err(|e| io_error("writing", &idx_temp, &e))
            .and_then(|()| {
                fs::rename(&self.temp, &pack).map_err(|e| io_error("renaming", &self.temp, &e))
            })
            .and_then(|()| {
                fs::rename(&idx_temp, &idx).map_err(|e| io_error("renaming", &idx_temp, &e))
            });
        if placed.is_err() {
            let _ = fs::remove_file(&idx_temp);
        }
        placed.map(|()| idx)
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), git2::Error> {
        self.hash.update(bytes);
        self.offset += bytes.len() as u64;
        let file = self.file.as_mut().expect("an unfinished pack has its file");
        file.write_all(bytes)
            .map_err(|e| io_error("writing", &self.temp, &e))
    }
}

impl Drop for PackOut {
    fn drop(&mut self) {
        // Finished or not, nothing is left under the temporary name (after a successful
        // finish the rename already moved it, and this removes nothing).
        self.file.take();
        let _ = fs::remove_file(&self.temp);
    }
}

/// The version 2 pack index of `entries` (sorted by id) for the pack whose checksum is
/// `pack_checksum`.
fn index_bytes(entries: &[Entry], pack_checksum: &[u8; 20]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + 256 * 4 + entries.len() * 28 + 40);
    out.extend_from_slice(&[0xff, b't', b'O', b'c']);
    out.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for entry in entries {
        fanout[usize::from(entry.id.as_bytes()[0])] += 1;
    }
    let mut running = 0u32;
    for count in fanout {
        running += count;
        out.extend_from_slice(&running.to_be_bytes());
    }
    for entry in entries {
        out.extend_from_slice(entry.id.as_bytes());
    }
    for entry in entries {
        out.extend_from_slice(&entry.crc.to_be_bytes());
    }
    // Offsets past 2 GiB go to a table of 8-byte offsets, named by their place in it.
    let mut large = Vec::new();
    for entry in entries {
        let small = match u32::try_from(entry.offset) {
            Ok(offset) if offset < 0x8000_0000 => offset,
            _ => {
                large.push(entry.offset);
                0x8000_0000 | (large.len() as u32 - 1)
            }
        };
        out.extend_from_slice(&small.to_be_bytes());
    }
    for offset in large {
        out.extend_from_slice(&offset.to_be_bytes());
    }
    out.extend_from_slice(pack_checksum);
    let checksum: [u8; 20] = Sha1::digest(&out).into();
    out.extend_from_slice(&checksum);
    out
}

/// A name in `dir` no other writer of this process or another uses at the same time.
fn temp_name(dir: &Path, what: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("tmp_quire_{what}_{}_{n}", std::process::id()))
}

/// Appends `data` deflated as one zlib stream (header and checksum included) to `out`.
fn deflate_into(deflate: &mut Compress, data: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    deflate.reset();
    let mut input = data;
    loop {
        out.reserve(input.len() / 2 + 64);
        let before_in = deflate.total_in();
        let status = deflate
            .compress_vec(input, out, FlushCompress::Finish)
            .map_err(|e| e.to_string())?;
        let consumed = (deflate.total_in() - before_in) as usize;
        input = &input[consumed..];
        if status == Status::StreamEnd {
            return Ok(());
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn io_error(doing: &str, path: &Path, e: &std::io::Error) -> git2::Error {
    git2::Error::from_str(&format!("{doing} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::Repository;

    fn objects(n: usize) -> Vec<(Oid, ObjectType, Vec<u8>)> {
        let mut all: Vec<(Oid, ObjectType, Vec<u8>)> = (0..n)
            .map(|i| {
                // Sizes across the header's 4- and 7-bit steps, one large enough to span
                // several deflate rounds.
                let data: Vec<u8> = match i % 4 {
                    0 => format!("note {i}\n").into_bytes(),
                    1 => vec![b'x'; 15 + i],
                    2 => (0..(2048 + i * 37)).map(|k| (k * 7 + i) as u8).collect(),
                    _ => (0..300_000).map(|k| ((k * 31) ^ i) as u8).collect(),
                };
                let id = Oid::hash_object(ObjectType::Blob, &data).unwrap();
                (id, ObjectType::Blob, data)
            })
            .collect();
        all.sort_by_key(|o| o.0);
        all.dedup_by_key(|o| o.0);
        all
    }

    fn pack_of(objects: &[(Oid, ObjectType, Vec<u8>)], dir: &Path) -> PathBuf {
        let mut pack = PackOut::create(dir, objects.len()).unwrap();
        for (id, kind, data) in objects {
            pack.add(*id, *kind, data).unwrap();
        }
        pack.finish().unwrap()
    }

    #[test]
    fn every_object_of_a_written_pack_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let pack_dir = repo.path().join("objects/pack");
        let all = objects(40);
        let idx = pack_of(&all, &pack_dir);
        assert!(idx.exists() && idx.with_extension("pack").exists());
        let leftovers: Vec<_> = fs::read_dir(&pack_dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("tmp_"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
        let repo = Repository::open(dir.path()).unwrap();
        let odb = repo.odb().unwrap();
        for (id, kind, data) in &all {
            let object = odb.read(*id).unwrap();
            assert_eq!(object.kind(), *kind);
            assert_eq!(object.data(), data.as_slice());
        }
    }

    #[test]
    fn the_index_is_the_one_libgit2_builds_for_the_same_pack() {
        let ours = tempfile::tempdir().unwrap();
        let repo = Repository::init(ours.path()).unwrap();
        let all = objects(64);
        let idx = pack_of(&all, &repo.path().join("objects/pack"));
        let pack = fs::read(idx.with_extension("pack")).unwrap();

        let theirs = tempfile::tempdir().unwrap();
        let other = Repository::init(theirs.path()).unwrap();
        let odb = other.odb().unwrap();
        let mut writer = odb.packwriter().unwrap();
        writer.write_all(&pack).unwrap();
        writer.commit().unwrap();
        let their_idx = other
            .path()
            .join("objects/pack")
            .join(idx.file_name().unwrap());
        assert_eq!(fs::read(&idx).unwrap(), fs::read(their_idx).unwrap());
    }

    #[test]
    fn large_offsets_go_to_the_eight_byte_table() {
        let id = |n: u8| Oid::from_bytes(&[n; 20]).unwrap();
        let entries = [
            Entry {
                id: id(1),
                crc: 7,
                offset: 12,
            },
            Entry {
                id: id(2),
                crc: 8,
                offset: 0x9000_0000,
            },
        ];
        let index = index_bytes(&entries, &[0; 20]);
        let offsets = 8 + 256 * 4 + 2 * 20 + 2 * 4;
        assert_eq!(index[offsets..offsets + 4], 12u32.to_be_bytes());
        assert_eq!(
            index[offsets + 4..offsets + 8],
            0x8000_0000u32.to_be_bytes()
        );
        assert_eq!(
            index[offsets + 8..offsets + 16],
            0x9000_0000u64.to_be_bytes()
        );
        assert_eq!(index.len(), offsets + 16 + 40);
    }

    #[test]
    fn a_pack_short_of_its_declared_count_is_refused_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let all = objects(3);
        let mut pack = PackOut::create(dir.path(), all.len() + 1).unwrap();
        for (id, kind, data) in &all {
            pack.add(*id, *kind, data).unwrap();
        }
        assert!(pack.finish().is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
