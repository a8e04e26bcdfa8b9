//! History of files: versions, blame and the change feed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One version of a path, newest first in lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct VersionEntry {
    /// Commit id (git) or snapshot id (cow).
    pub hash: String,
    /// Who wrote this version of the path.
    pub author: String,
    pub message: String,
    /// RFC 3339.
    pub timestamp: String,
}

/// Who last changed one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BlameLine {
    /// 1-based.
    pub line: usize,
    pub content: String,
    pub hash: String,
    pub author: String,
    pub timestamp: String,
}

/// What a change did to its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeAction {
    Write,
    Delete,
}

/// One entry of the change feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Change {
    /// Git: the commit holding the change. Cow: an increasing number.
    pub seq: String,
    pub path: String,
    pub action: ChangeAction,
    pub actor: String,
    pub timestamp: String,
}

/// A page of the change feed; pass `last_seq` as `since` to continue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ChangesPage {
    pub changes: Vec<Change>,
    pub last_seq: Option<String>,
}
