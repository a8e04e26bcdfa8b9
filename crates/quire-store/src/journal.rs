//! The journal of pre-images that makes a multi-file change all-or-nothing across a crash.
//!
//! Before the first file of a change is written, the pre-image of every file (its bytes, or
//! "absent") and the ETag it will have afterwards go to `.quire/state/refactor-journal.json`
//! (written atomically). The journal is removed once the change is decided: committed (git,
//! synchronous), or fully on disk (async batching, cow, none: an acknowledged write is kept and
//! committed at the next start). If the process dies in between, [`recover`] at the next open
//! restores every pre-image — unless the commit landed, which it recognises by HEAD holding
//! exactly the journal's after-state.

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::root::{Root, Spelling};

/// Where the journal lives inside the root.
pub const JOURNAL_PATH: &str = ".quire/state/refactor-journal.json";

/// One file of a journaled change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The file's root-relative name exactly as on disk ([`crate::Root::disk_name`]), so a
    /// rollback restores that name and never another spelling of it.
    pub path: String,
    /// Bytes before the change, base64; `None` when the file did not exist.
    #[serde(with = "base64_bytes")]
    pub before: Option<Vec<u8>>,
    /// ETag (git blob id) after the change; `None` when the change deletes the file.
    pub after: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct JournalFile {
    version: u32,
    entries: Vec<JournalEntry>,
}

impl Root {
    /// Writes the journal of a change about to be written.
    pub fn write_journal(&self, entries: &[JournalEntry]) -> Result<(), StoreError> {
        let body = serde_json::to_vec(&JournalFile {
            version: 1,
            entries: entries.to_vec(),
        })
        .map_err(|e| StoreError::io(JOURNAL_PATH, std::io::Error::other(e)))?;
        self.write_rel(JOURNAL_PATH, &body, Spelling::Exact)
    }

    /// Removes the journal: the change it describes is decided.
    pub fn clear_journal(&self) -> Result<(), StoreError> {
        self.ensure_writable(JOURNAL_PATH)?;
        match std::fs::remove_file(self.dir().join(JOURNAL_PATH)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(JOURNAL_PATH, e)),
        }
    }

    fn read_journal(&self) -> Result<Option<Vec<JournalEntry>>, StoreError> {
        let bytes = match std::fs::read(self.dir().join(JOURNAL_PATH)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::io(JOURNAL_PATH, e)),
        };
        match serde_json::from_slice::<JournalFile>(&bytes) {
            Ok(file) => Ok(Some(file.entries)),
            // The journal is written atomically, so an unreadable one was never complete and
            // no file of its change was touched.
            Err(e) => {
                tracing::warn!("ignoring an unreadable {JOURNAL_PATH}: {e}");
                Ok(None)
            }
        }
    }
}

/// What recovery found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// No journal: the last change finished.
    Clean,
    /// The change had been committed; the journal was only left behind.
    Landed,
    /// The change was interrupted; every file is back to its pre-image.
    RolledBack,
}

/// A change a crash interrupted, as a read-only open finds it and leaves it: only the next
/// writable open (under the writer lock) finishes or undoes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    /// The files of the change, by their names on disk; some may hold their new content, some
    /// their old.
    pub paths: Vec<String>,
}

/// The change a journal left behind describes, without acting on it; `None` when there is no
/// (readable) journal.
pub fn interrupted(root: &Root) -> Result<Option<Interrupted>, StoreError> {
    Ok(root.read_journal()?.map(|entries| Interrupted {
        paths: entries.into_iter().map(|e| e.path).collect(),
    }))
}

/// Finishes or undoes a change a crash interrupted. `landed` says whether the change's commit
/// exists (for git: HEAD holds every entry's after-state).
pub fn recover(
    root: &Root,
    landed: impl FnOnce(&[JournalEntry]) -> bool,
) -> Result<Recovery, StoreError> {
    let Some(entries) = root.read_journal()? else {
        return Ok(Recovery::Clean);
    };
    if landed(&entries) {
        root.clear_journal()?;
        tracing::info!("the interrupted change had been committed; journal removed");
        return Ok(Recovery::Landed);
    }
    for entry in entries.iter().rev() {
        match &entry.before {
            Some(bytes) => root.write_rel(&entry.path, bytes, Spelling::Exact)?,
            None => match root.remove_rel(&entry.path, Spelling::Exact) {
                Ok(()) | Err(StoreError::NotFound { .. }) => {}
                Err(e) => return Err(e),
            },
        }
    }
    root.clear_journal()?;
    tracing::warn!(
        "rolled back a change of {} files that a crash interrupted",
        entries.len()
    );
    Ok(Recovery::RolledBack)
}

mod base64_bytes {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            None => s.serialize_none(),
            Some(bytes) => s.serialize_some(&STANDARD.encode(bytes)),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => STANDARD
                .decode(text)
                .map(Some)
                .map_err(|err| serde::de::Error::custom(format_args!("invalid base64: {err}"))),
        }
    }
}
