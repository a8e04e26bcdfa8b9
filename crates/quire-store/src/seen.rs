//! Git blob ids, the stat data git keeps of a file, and what reading the root at open saw of
//! each file (so the history's startup scan need not read it again).

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io::Write;
use std::os::unix::fs::MetadataExt;

use sha1::{Digest, Sha1};

use crate::disk::DiskName;

/// The git blob id of some content: the SHA-1 of `blob <len>\0` followed by the bytes.
///
/// Computed with a plain SHA-1 (hardware-accelerated where the CPU has it), not libgit2's
/// collision-detecting one: the ids are the same, and content quire hashes itself is only
/// compared with ids git made, never trusted as a new object.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlobId([u8; 20]);

impl BlobId {
    /// The blob id of `bytes`.
    pub fn of(bytes: &[u8]) -> BlobId {
        let mut header = [0u8; 32];
        let mut cursor = &mut header[..];
        // "blob " + at most 20 digits + NUL fits in 32 bytes.
        let _ = write!(cursor, "blob {}\0", bytes.len());
        let used = 32 - cursor.len();
        let mut hasher = Sha1::new();
        hasher.update(&header[..used]);
        hasher.update(bytes);
        BlobId(hasher.finalize().into())
    }

    /// The 20 bytes of the id.
    pub fn as_bytes(&self) -> &[u8; 20] {
        &self.0
    }
}

impl fmt::Display for BlobId {
    /// 40 lowercase hex digits, as git prints ids.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for BlobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BlobId({self})")
    }
}

/// The stat data by which git tells whether a file was touched: size, modification and
/// change times, inode and device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    pub(crate) size: u64,
    pub(crate) mtime: (i64, i64),
    pub(crate) ctime: (i64, i64),
    pub(crate) ino: u64,
    pub(crate) dev: u64,
}

impl FileStat {
    pub(crate) fn of(meta: &fs::Metadata) -> FileStat {
        FileStat {
            size: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }
}

/// What reading the root's files at open saw of each: its stat data, taken before its bytes
/// were read, and the blob id of those bytes. A writable history's startup scan
/// ([`crate::OpeningHistory::finish`]) takes a file's id from here instead of reading and
/// hashing the file again, but only when the file provably has not changed since: its stat
/// data is still the same, and its change time is older than the moment the writer lock was
/// taken (any write after that moment would have moved the change time past it).
#[derive(Debug, Default)]
pub struct SeenFiles {
    files: HashMap<String, (FileStat, BlobId)>,
}

impl SeenFiles {
    pub fn new() -> SeenFiles {
        SeenFiles::default()
    }

    /// Records what was seen of the file named `name` on disk.
    pub fn insert(&mut self, name: DiskName, stat: FileStat, id: BlobId) {
        self.files.insert(name.as_str().to_owned(), (stat, id));
    }

    /// Adds everything `other` saw.
    pub fn extend(&mut self, other: SeenFiles) {
        self.files.extend(other.files);
    }

    /// What was seen of the file named `name` on disk.
    pub(crate) fn get(&self, name: &str) -> Option<&(FileStat, BlobId)> {
        self.files.get(name)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_id_is_git_s() {
        let big = vec![b'x'; 100_000];
        let samples: [&[u8]; 5] = [
            b"",
            b"hello\n",
            "naïve ✓\n".as_bytes(),
            &[0, 1, 2, 255],
            &big,
        ];
        for bytes in samples {
            let git = git2::Oid::hash_object(git2::ObjectType::Blob, bytes).unwrap();
            let ours = BlobId::of(bytes);
            assert_eq!(ours.as_bytes(), git.as_bytes());
            assert_eq!(ours.to_string(), git.to_string());
        }
    }
}
