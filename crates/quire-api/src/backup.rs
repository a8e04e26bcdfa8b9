//! The backup status of a space (`[backup]`: its history pushed to a git remote).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /backup`: where the space's history is pushed, and how the last attempt went.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BackupStatus {
    /// Whether `[backup] remote` is set and this server pushes the space. Every other field
    /// is `null` when it is not.
    pub enabled: bool,
    /// The remote repository (a path or a `file://` URL).
    pub remote: Option<String>,
    /// The branch of the remote this space's history goes to.
    pub branch: Option<String>,
    /// `[backup] interval`, as a Go duration (`1h`).
    pub interval: Option<String>,
    /// `[backup] rebase_before_push`.
    pub rebase_before_push: Option<bool>,
    /// When the remote last confirmed holding the space's history (RFC 3339): a push, or a
    /// check that found nothing to push.
    pub last_push: Option<String>,
    /// The commit the remote then held.
    pub last_pushed_commit: Option<String>,
    /// When the last attempt started (RFC 3339).
    pub last_attempt: Option<String>,
    /// Why the last attempt failed (unreachable remote, conflicting changes, a push
    /// refused); `null` when it succeeded.
    pub error: Option<String>,
    /// When the attempts began failing, while they fail.
    pub failing_since: Option<String>,
    /// The last time the space's history was moved onto the remote's: the remote had commits
    /// this space lacked.
    pub last_rebase: Option<BackupRebase>,
}

/// The space's history moved onto commits fetched from the backup remote: the remote's files
/// were written here, and the space's commits the remote lacked were replayed on top of them
/// (new ids, same authors, times and messages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BackupRebase {
    /// When (RFC 3339).
    pub at: String,
    /// The remote's commit the history now builds on.
    pub onto: String,
    /// The space's commits replayed, oldest first, with their new ids.
    pub replayed: Vec<ReplayedCommit>,
    /// The files the remote's commits changed here.
    pub files: Vec<String>,
}

/// One commit of the space replayed onto the remote's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ReplayedCommit {
    pub before: String,
    pub after: String,
}
