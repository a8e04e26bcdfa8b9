//! The file-system layer of a space as a mount calls it: `quire mount` relays every call of
//! its FUSE file system here when a server holds the root (one writer per root). Each call is
//! the same call of [`quire_service::FileSystem`] the server's own mount makes, as protocol
//! `fuse`: scratch files stay in the server's memory, renames of pages and folders go through
//! the planner, a temp file renamed over a page is one write.

use std::time::UNIX_EPOCH;

use quire_api::mcp::FileBytes;
use quire_api::{
    MountDone, MountEntry, MountKind, MountListing, MountPath, MountRename, MountWrite,
    MountWritten,
};
use quire_service::{Error, FileSystem, FsEntry, FsKind, Protocol, Result, Space, WriteOptions};

use crate::{Caller, Meta, Operation, Rest, Visit};

const AREA: &str = "mount";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Stat>();
    v.op::<List>();
    v.op::<Read>();
    v.op::<Write>();
    v.op::<CreateFolder>();
    v.op::<Delete>();
    v.op::<Rename>();
}

fn fs(space: &Space) -> FileSystem<'_> {
    space.file_system(Protocol::Fuse)
}

/// The author of a change: the caller's actor, else the protocol's (`fuse`).
fn options(fs: &FileSystem<'_>, caller: &Caller) -> WriteOptions {
    fs.options(caller.actor.as_deref())
}

/// A layer entry on the wire.
pub fn wire_entry(entry: FsEntry) -> MountEntry {
    let modified_ms = entry
        .modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    MountEntry {
        path: entry.path,
        name: entry.name,
        kind: match entry.kind {
            FsKind::Folder => MountKind::Folder,
            FsKind::File => MountKind::File,
        },
        size: entry.size,
        modified_ms,
        scratch: entry.scratch,
    }
}

/// `GET /mount/stat`: what a path is.
pub struct Stat;

impl Operation for Stat {
    type Input = MountPath;
    type Output = MountEntry;
    const META: Meta = Meta::read(
        "mount_stat",
        AREA,
        "What a path of the mounted space is (404 when nothing is there)",
    )
    .rest(Rest::get("/mount/stat"));

    fn run(space: &Space, input: MountPath, _: &Caller) -> Result<MountEntry> {
        match fs(space).stat(&input.path)? {
            Some(entry) => Ok(wire_entry(entry)),
            None => Err(Error::not_found(format!("{}: no such file", input.path))),
        }
    }
}

/// `GET /mount/list`: a folder's entries, scratch files included.
pub struct List;

impl Operation for List {
    type Input = MountPath;
    type Output = MountListing;
    const META: Meta = Meta::read(
        "mount_list",
        AREA,
        "The entries of one folder of the mounted space, one level deep",
    )
    .rest(Rest::get("/mount/list"));

    fn run(space: &Space, input: MountPath, _: &Caller) -> Result<MountListing> {
        let entries = fs(space).list(&input.path)?;
        Ok(MountListing {
            entries: entries.into_iter().map(wire_entry).collect(),
        })
    }
}

/// `GET /mount/file`: a file's bytes (a scratch file's too).
pub struct Read;

impl Read {
    /// The bytes themselves (REST answers them raw).
    pub fn bytes(space: &Space, path: &str) -> Result<Vec<u8>> {
        fs(space).read(path)
    }
}

impl Operation for Read {
    type Input = MountPath;
    type Output = FileBytes;
    const META: Meta = Meta::read(
        "mount_read",
        AREA,
        "A file's bytes as the mount reads them (editors' scratch files too)",
    )
    .rest(Rest::get("/mount/file").raw_answer("application/octet-stream"));

    fn run(space: &Space, input: MountPath, _: &Caller) -> Result<FileBytes> {
        use base64::Engine as _;
        let bytes = Read::bytes(space, &input.path)?;
        let etag = quire_service::etag(&bytes);
        let size = bytes.len();
        let (content, content_base64) = match String::from_utf8(bytes) {
            Ok(text) => (Some(text), None),
            Err(e) => (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(e.as_bytes())),
            ),
        };
        Ok(FileBytes {
            path: input.path,
            etag,
            size,
            content,
            content_base64,
        })
    }
}

/// `PUT /mount/file`: a file's whole content; its folder must exist.
pub struct Write;

impl Write {
    /// The write of `bytes` (REST sends any bytes).
    pub fn bytes(
        space: &Space,
        path: &str,
        bytes: Vec<u8>,
        caller: &Caller,
    ) -> Result<MountWritten> {
        let fs = fs(space);
        let etag = fs.write(path, bytes, &options(&fs, caller))?;
        Ok(MountWritten {
            path: path.trim_matches('/').to_string(),
            etag,
        })
    }
}

impl Operation for Write {
    type Input = MountWrite;
    type Output = MountWritten;
    const META: Meta = Meta::write(
        "mount_write",
        AREA,
        "Writes a file through the mount: one pass of the pipeline (a scratch file stays in memory)",
    )
    .rest(Rest::put("/mount/file").raw_body("content", "application/octet-stream"));

    fn run(space: &Space, input: MountWrite, caller: &Caller) -> Result<MountWritten> {
        Write::bytes(space, &input.path, input.content.into_bytes(), caller)
    }
}

/// `POST /mount/folder`: a new folder; its parent must exist.
pub struct CreateFolder;

impl Operation for CreateFolder {
    type Input = MountPath;
    type Output = MountDone;
    const META: Meta = Meta::write(
        "mount_create_folder",
        AREA,
        "Creates a folder through the mount (its parent must exist)",
    )
    .rest(Rest::post("/mount/folder").created());

    fn run(space: &Space, input: MountPath, _: &Caller) -> Result<MountDone> {
        fs(space).create_folder(&input.path)?;
        Ok(MountDone { path: input.path })
    }
}

/// `DELETE /mount/file`: a file, or a folder with everything below it (one commit).
pub struct Delete;

impl Operation for Delete {
    type Input = MountPath;
    type Output = MountDone;
    const META: Meta = Meta::write(
        "mount_delete",
        AREA,
        "Deletes a file, or a folder with everything below it, through the mount (one commit)",
    )
    .rest(Rest::delete("/mount/file"));

    fn run(space: &Space, input: MountPath, caller: &Caller) -> Result<MountDone> {
        let fs = fs(space);
        fs.delete(&input.path, &options(&fs, caller))?;
        Ok(MountDone { path: input.path })
    }
}

/// `POST /mount/rename`: a rename as a file system makes it, links kept.
pub struct Rename;

impl Operation for Rename {
    type Input = MountRename;
    type Output = MountDone;
    const META: Meta = Meta::write(
        "mount_rename",
        AREA,
        "Renames a file or folder through the mount: pages and folders through the planner, \
         every link kept",
    )
    .rest(Rest::post("/mount/rename"));

    fn run(space: &Space, input: MountRename, caller: &Caller) -> Result<MountDone> {
        let fs = fs(space);
        fs.rename(
            &input.from,
            &input.to,
            input.overwrite,
            &options(&fs, caller),
        )?;
        Ok(MountDone { path: input.to })
    }
}
