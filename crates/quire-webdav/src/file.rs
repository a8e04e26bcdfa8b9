//! An open file: its bytes in memory, read from the space when opened and written through the
//! pipeline, whole, when dav-server flushes it (the end of a PUT).

use std::io::SeekFrom;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::{Buf, Bytes};
use dav_server::fs::{DavFile, DavMetaData, FsError, FsFuture};
use futures_util::FutureExt;
use quire_service::{Protocol, Space};

use crate::buffer::{read_from, seek_in, write_at, Meta};
use crate::calls::{blocking, fs_error, Caller};

pub(crate) struct OpenFile {
    space: Arc<Space>,
    path: String,
    caller: Caller,
    bytes: Vec<u8>,
    pos: u64,
    modified: SystemTime,
    writable: bool,
    /// Written since the last flush.
    dirty: bool,
}

impl std::fmt::Debug for OpenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenFile")
            .field("path", &self.path)
            .field("len", &self.bytes.len())
            .finish()
    }
}

impl OpenFile {
    pub(crate) fn new(
        space: Arc<Space>,
        path: String,
        caller: Caller,
        bytes: Vec<u8>,
        modified: SystemTime,
        writable: bool,
        append: bool,
    ) -> OpenFile {
        let pos = if append { bytes.len() as u64 } else { 0 };
        OpenFile {
            space,
            path,
            caller,
            bytes,
            pos,
            modified,
            writable,
            // A file created empty (an empty PUT) is written at flush too.
            dirty: writable,
        }
    }

    fn meta(&self) -> Meta {
        Meta::new(self.bytes.len() as u64, self.modified, false)
    }
}

impl DavFile for OpenFile {
    fn metadata(&mut self) -> FsFuture<'_, Box<dyn DavMetaData>> {
        let meta: Box<dyn DavMetaData> = Box::new(self.meta());
        Box::pin(futures_util::future::ready(Ok(meta)))
    }

    fn write_buf(&mut self, buf: Box<dyn Buf + Send>) -> FsFuture<'_, ()> {
        self.write_bytes(Bytes::copy_from_slice(buf.chunk()))
    }

    fn write_bytes(&mut self, buf: Bytes) -> FsFuture<'_, ()> {
        if !self.writable {
            return Box::pin(futures_util::future::ready(Err(FsError::Forbidden)));
        }
        if self.pos as usize + buf.len() > crate::MAX_FILE_BYTES {
            return Box::pin(futures_util::future::ready(Err(FsError::TooLarge)));
        }
        write_at(&mut self.bytes, &mut self.pos, buf);
        self.dirty = true;
        self.modified = SystemTime::now();
        Box::pin(futures_util::future::ready(Ok(())))
    }

    fn read_bytes(&mut self, count: usize) -> FsFuture<'_, Bytes> {
        let chunk = read_from(&self.bytes, &mut self.pos, count);
        Box::pin(futures_util::future::ready(Ok(chunk)))
    }

    fn seek(&mut self, pos: SeekFrom) -> FsFuture<'_, u64> {
        let result = seek_in(self.bytes.len() as u64, self.pos, pos).inspect(|&p| self.pos = p);
        Box::pin(futures_util::future::ready(result))
    }

    fn flush(&mut self) -> FsFuture<'_, ()> {
        async move {
            if !self.writable || !self.dirty {
                return Ok(());
            }
            let (space, path, actor) = (
                self.space.clone(),
                self.path.clone(),
                self.caller.actor.clone(),
            );
            let bytes = self.bytes.clone();
            blocking(move || {
                let fs = space.file_system(Protocol::WebDav);
                let opts = fs.options(actor.as_deref());
                fs.write(&path, bytes, &opts).map(|_| ()).map_err(fs_error)
            })
            .await?;
            self.dirty = false;
            Ok(())
        }
        .boxed()
    }
}
