//! quire-store owns the knowledge root on disk and its history: path safety, atomic writes,
//! folder listings, and versioning by git, copy-on-write snapshots, or not at all.

pub mod backup;
mod disk;
pub mod drafts;
mod entries;
mod error;
pub mod fault;
pub mod folders;
mod history;
mod holder;
pub mod journal;
mod lock;
mod root;
mod seen;
mod spares;
pub mod watch;

pub use backup::{BackupError, BackupRemote, Integration, MovedFile};
pub use drafts::{
    DraftAction, DraftChange, DraftError, DraftInfo, DraftStore, Merge, MergedFile,
    DRAFT_REF_PREFIX,
};
pub use entries::{is_hidden, FolderEntry};
pub use error::StoreError;
pub use history::{
    Backlog, BlameLine, Change, ChangeAction, ChangesPage, CommitFile, CommitFiles, CommitMetrics,
    FileChange, History, HistoryOptions, OpeningHistory, Recorded, Strategy, UnknownStrategy,
    VersionEntry, COMMIT_BUCKETS,
};
pub use journal::{Interrupted, JournalEntry, Recovery, JOURNAL_PATH};
pub use lock::{LockHolder, WriterLock, WRITER_LOCK_PATH};
pub use root::{DiskName, Durability, EntryKind, Listing, Root, TreeNode};
pub use seen::{BlobId, FileStat, SeenFiles};

/// The ETag of some content: its git blob id (SHA-1 of `blob <len>\0<bytes>`) in hex, the same
/// whatever the versioning strategy.
pub fn etag(bytes: &[u8]) -> String {
    BlobId::of(bytes).to_string()
}
