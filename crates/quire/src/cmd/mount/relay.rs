//! A mount of a root a server holds: every call of the FUSE file system goes to that server's
//! file-system layer (`/mount/…` routes), so the server stays the root's one writer. Errors
//! come back as the service's, their code read from the status.

use std::time::{Duration, UNIX_EPOCH};

use quire_api::{MountEntry, MountKind, MountListing, MountRename};
use quire_fuse::Files;
use quire_service::{Error, ErrorCode, FsEntry, FsKind, Result};

use crate::cmd::remote::Remote;

/// The held root's server, and who writes.
pub struct Relay {
    remote: Remote,
    actor: String,
}

impl Relay {
    pub fn new(remote: Remote, actor: &str) -> Relay {
        Relay {
            remote,
            actor: actor.to_string(),
        }
    }

    /// `method` on `route`, with `path` as the query's `path` when given.
    fn call(
        &self,
        method: &str,
        route: &str,
        path: Option<&str>,
        body: Option<(&[u8], &str)>,
    ) -> Result<Vec<u8>> {
        let query: Vec<(String, String)> = path
            .map(|p| ("path".to_string(), p.to_string()))
            .into_iter()
            .collect();
        let headers = [("X-Actor", self.actor.as_str())];
        self.remote
            .send(method, route, &query, &headers, body)
            .map(|(_, bytes)| bytes)
            .map_err(service_error)
    }

    fn json<T: serde::de::DeserializeOwned>(&self, route: &str, path: &str) -> Result<T> {
        let bytes = self.call("GET", route, Some(path), None)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::new(
                ErrorCode::Unavailable,
                format!("the server's answer to {route} is not what was expected: {e}"),
            )
        })
    }
}

/// The server's refusal as the service's error; anything else (no answer) as unavailable.
fn service_error(e: anyhow::Error) -> Error {
    match e.downcast::<Error>() {
        Ok(e) => e,
        Err(e) => Error::new(ErrorCode::Unavailable, format!("{e:#}")),
    }
}

fn entry(wire: MountEntry) -> FsEntry {
    FsEntry {
        path: wire.path,
        name: wire.name,
        kind: match wire.kind {
            MountKind::Folder => FsKind::Folder,
            MountKind::File => FsKind::File,
        },
        size: wire.size,
        modified: UNIX_EPOCH + Duration::from_millis(u64::try_from(wire.modified_ms).unwrap_or(0)),
        scratch: wire.scratch,
    }
}

impl Files for Relay {
    fn stat(&self, path: &str) -> Result<Option<FsEntry>> {
        match self.json::<MountEntry>("/mount/stat", path) {
            Ok(wire) => Ok(Some(entry(wire))),
            Err(e) if e.code == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn list(&self, folder: &str) -> Result<Vec<FsEntry>> {
        let listing: MountListing = self.json("/mount/list", folder)?;
        Ok(listing.entries.into_iter().map(entry).collect())
    }

    fn read(&self, path: &str) -> Result<Vec<u8>> {
        self.call("GET", "/mount/file", Some(path), None)
    }

    fn write(&self, path: &str, bytes: Vec<u8>) -> Result<()> {
        let body = Some((bytes.as_slice(), "application/octet-stream"));
        self.call("PUT", "/mount/file", Some(path), body)
            .map(|_| ())
    }

    fn create_folder(&self, path: &str) -> Result<()> {
        let body = serde_json::json!({ "path": path }).to_string();
        let body = Some((body.as_bytes(), "application/json"));
        self.call("POST", "/mount/folder", None, body).map(|_| ())
    }

    fn delete(&self, path: &str) -> Result<()> {
        self.call("DELETE", "/mount/file", Some(path), None)
            .map(|_| ())
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        let body = serde_json::to_vec(&MountRename {
            from: from.to_string(),
            to: to.to_string(),
            overwrite,
        })
        .map_err(Error::internal)?;
        let body = Some((body.as_slice(), "application/json"));
        self.call("POST", "/mount/rename", None, body).map(|_| ())
    }
}
