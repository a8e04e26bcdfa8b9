//! The one error type of the store: what went wrong, on which path or commit.

use std::io;

/// The longest name (one path component) a path may hold, in bytes: Linux's `NAME_MAX`.
pub const NAME_MAX: usize = 255;
/// The longest root-relative path, in bytes (Linux's `PATH_MAX` is 4,096 for the whole path,
/// root folder included; the root's own length is checked where the path is joined).
pub const PATH_MAX: usize = 4096;
use std::path::PathBuf;

/// Everything the store can refuse or fail at. `Display` is written for the person who sent the
/// request: it names the path or version and never leaks internal detail beyond the OS or git
/// message.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Nothing exists at this path.
    #[error("{path}: no such file")]
    NotFound { path: String },
    /// The path names a folder where a file was expected.
    #[error("{path}: is a folder")]
    IsFolder { path: String },
    /// The path names a file where a folder was expected.
    #[error("{path}: is not a folder")]
    NotFolder { path: String },
    /// A component above the path is a file, so the path cannot exist.
    #[error("{path}: a parent of this path is a file")]
    ParentIsFile { path: String },
    /// `readlink` on something that is not a symbolic link.
    #[error("{path}: already exists")]
    Exists { path: String },

    #[error("{path}: the folder holds files")]
    NotEmpty { path: String },

    #[error("{path}: is not a symbolic link")]
    NotSymlink { path: String },
    /// The path, or one of its names, is longer than the file system takes (the operating
    /// system's "name too long"): a client's mistake, named without echoing the whole path.
    #[error("path too long ({bytes} bytes): a name may have at most {NAME_MAX} bytes and a path at most {PATH_MAX}")]
    NameTooLong { bytes: usize },
    /// The path would leave the knowledge root (through `..` or a symbolic link).
    #[error("{path}: leads outside the knowledge root")]
    OutsideRoot { path: String },
    /// The knowledge root folder itself is missing or unusable.
    #[error("knowledge root {dir}: {reason}")]
    BadRoot { dir: PathBuf, reason: String },
    /// Another process holds the root's writer lock.
    #[error("knowledge root {dir} is in use: {holder} holds its writer lock")]
    Locked {
        dir: PathBuf,
        holder: crate::holder::LockHolder,
    },
    /// A write through a root or history opened read-only.
    #[error("{path}: the knowledge root is open read-only (writing needs its writer lock)")]
    ReadOnly { path: String },
    /// The requested version of a path does not exist (unknown, malformed or ambiguous id, or
    /// the path did not exist in it).
    #[error("{path}: version {version} not found: {reason}")]
    VersionNotFound {
        path: String,
        version: String,
        reason: String,
    },
    /// The operation needs a versioning strategy that is not configured.
    #[error("{what} is not available with versioning strategy {strategy}")]
    Unavailable {
        what: &'static str,
        strategy: &'static str,
    },
    /// An operating-system error on a path.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    /// HEAD is not the commit a change was prepared against (something was committed
    /// meanwhile); the change was not made and can be prepared again.
    #[error("the history moved while a change was prepared (HEAD is {found}, not {expected}); try again")]
    HeadMoved { expected: String, found: String },
    /// A git operation failed.
    #[error("git {action} failed: {source}{}", damaged_hint(source))]
    Git {
        action: &'static str,
        #[source]
        source: git2::Error,
    },
    /// A history file under `.quire/versions/` could not be read or written as JSON.
    #[error("version history {path} is corrupt: {source}")]
    Corrupt {
        path: String,
        #[source]
        source: serde_json::Error,
    },
}

/// What to do when libgit2 cannot find an object the repository refers to: the repository is
/// damaged (an interrupted copy, a `git gc` killed halfway), which quire cannot repair.
fn damaged_hint(source: &git2::Error) -> &'static str {
    // libgit2 reports some of these as a generic error of the object database ("object not
    // found - cannot read header for …"), so the message is what tells.
    let missing =
        source.code() == git2::ErrorCode::NotFound || source.message().contains("object not found");
    if source.class() == git2::ErrorClass::Odb && missing {
        " (the git repository of the knowledge root is missing objects it refers to: \
         `git fsck` in the root lists them; restore the repository from a backup or a clone)"
    } else {
        ""
    }
}

impl StoreError {
    pub(crate) fn io(path: impl Into<String>, source: io::Error) -> StoreError {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn git(action: &'static str) -> impl Fn(git2::Error) -> StoreError + Copy {
        move |source| StoreError::Git { action, source }
    }

    pub(crate) fn version_not_found(
        path: &str,
        version: &str,
        reason: impl Into<String>,
    ) -> StoreError {
        StoreError::VersionNotFound {
            path: path.to_owned(),
            version: version.to_owned(),
            reason: reason.into(),
        }
    }
}
