//! An open file's bytes in memory and the metadata dav-server reads.

use std::io::SeekFrom;
use std::time::SystemTime;

use bytes::{Buf, Bytes};
use dav_server::fs::{DavMetaData, FsError, FsResult};
use quire_service::{FsEntry, FsKind};

/// The metadata of one entry.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    len: u64,
    modified: SystemTime,
    dir: bool,
}

impl Meta {
    pub(crate) fn new(len: u64, modified: SystemTime, dir: bool) -> Meta {
        Meta { len, modified, dir }
    }

    pub(crate) fn of(entry: &FsEntry) -> Meta {
        Meta {
            len: entry.size,
            modified: entry.modified,
            dir: entry.kind == FsKind::Folder,
        }
    }
}

impl DavMetaData for Meta {
    fn len(&self) -> u64 {
        self.len
    }
    fn modified(&self) -> FsResult<SystemTime> {
        Ok(self.modified)
    }
    fn is_dir(&self) -> bool {
        self.dir
    }
}

/// Buffered reading and writing of one file: read whole, written whole at `flush`.
pub(crate) fn read_from(bytes: &[u8], pos: &mut u64, count: usize) -> Bytes {
    let start = (*pos as usize).min(bytes.len());
    let end = start.saturating_add(count).min(bytes.len());
    *pos = end as u64;
    Bytes::copy_from_slice(&bytes[start..end])
}

pub(crate) fn seek_in(len: u64, pos: u64, to: SeekFrom) -> FsResult<u64> {
    let next = match to {
        SeekFrom::Start(n) => Some(n),
        SeekFrom::End(d) => len.checked_add_signed(d),
        SeekFrom::Current(d) => pos.checked_add_signed(d),
    };
    next.ok_or(FsError::GeneralFailure)
}

pub(crate) fn write_at(bytes: &mut Vec<u8>, pos: &mut u64, mut buf: impl Buf) {
    while buf.has_remaining() {
        let chunk = buf.chunk();
        let at = *pos as usize;
        if bytes.len() < at {
            bytes.resize(at, 0);
        }
        let overlap = (bytes.len() - at).min(chunk.len());
        bytes[at..at + overlap].copy_from_slice(&chunk[..overlap]);
        bytes.extend_from_slice(&chunk[overlap..]);
        let n = chunk.len();
        *pos += n as u64;
        buf.advance(n);
    }
}
