//! The file-system layer over REST: what `quire mount` calls when a server holds the root it
//! mounts (one writer per root). Paths are space-relative, `""` is the top folder; scratch
//! files (editors' temp files, kept in memory by the server) are listed and readable like
//! any other file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A path of the mounted space (`""`: its top folder; required, so a forgotten path is a 400
/// and never the top folder).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MountPath {
    pub path: String,
}

/// A file or a folder as a mount sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct MountEntry {
    /// Space-relative path; `""` for the top folder.
    pub path: String,
    pub name: String,
    /// `file` or `folder`.
    pub kind: MountKind,
    /// Bytes (0 for a folder).
    pub size: u64,
    /// Last change, in milliseconds since the Unix epoch.
    pub modified_ms: i64,
    /// An editor's temp file, kept in memory by the server and never committed.
    #[serde(default)]
    pub scratch: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MountKind {
    File,
    Folder,
}

/// The entries of one folder, one level deep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct MountListing {
    pub entries: Vec<MountEntry>,
}

/// `PUT /mount/file`: the whole new content of a file (REST sends `content` as the body);
/// its folder must exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MountWrite {
    pub path: String,
    pub content: String,
}

/// What a write through the mount stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct MountWritten {
    pub path: String,
    /// The git blob id of the content.
    pub etag: String,
}

/// `POST /mount/rename`: a file or folder renamed the way a file system renames: pages and
/// folders through the planner (links rewritten), a temp file over a page as one write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MountRename {
    pub from: String,
    pub to: String,
    /// Replace what is at `to` (a plain `rename(2)`); `false` refuses with a conflict.
    #[serde(default)]
    pub overwrite: bool,
}

/// What a change through the mount did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct MountDone {
    pub path: String,
}
