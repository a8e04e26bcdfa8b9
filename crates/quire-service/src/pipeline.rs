//! The one write pipeline: validate → write under the space's lock → commit → index → events.
//!
//! Every entry point (REST, CLI with `--root`, later MCP, LSP and protocol servers) reaches the
//! disk only through here ([`crate::Space::apply`], and the services built on it). A failure
//! after the first file was written restores the pre-images of every file of the change, so
//! nothing half-written stays on disk.

use quire_store::{etag, fault, DiskName, FileChange, JournalEntry, Recorded};
use quire_vault::PagePath;

use quire_api::Event;

use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::events::now_rfc3339;

/// One file of a change: its new bytes, or `None` to delete it.
#[derive(Debug, Clone)]
pub struct FileOp {
    pub path: PagePath,
    pub content: Option<Vec<u8>>,
    /// What the file must look like before; a mismatch refuses the whole change.
    pub expect: Expect,
}

/// A precondition on a file's current state, checked under the write lock.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Expect {
    /// No check.
    #[default]
    Anything,
    /// The file must not exist (a move or rename destination).
    Absent,
    /// The file must hold exactly this content: the ETag the caller last read.
    Etag(String),
}

impl Expect {
    /// The precondition of an ETag the caller read (quoted or bare), or none.
    pub fn etag(value: Option<&str>) -> Expect {
        match value {
            Some(v) => Expect::Etag(v.trim().trim_matches('"').to_string()),
            None => Expect::Anything,
        }
    }
}

/// How the finished change is announced on the event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announce {
    /// One `write` or `delete` event per file.
    PerFile,
    /// One `bulk` event listing every path.
    Bulk,
}

/// When the change is committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommitMode {
    /// As the space's versioning says (possibly batched with other writes).
    #[default]
    AsConfigured,
    /// Exactly one commit for this change, made before `apply` returns (restructurings).
    Now,
}

/// A change as the pipeline receives it.
#[derive(Debug, Clone)]
pub struct Change {
    pub ops: Vec<FileOp>,
    pub actor: String,
    /// Commit message; empty lets the pipeline name a one-file change from what it finds
    /// (`Create`, `Update` or `Delete <path>`).
    pub message: String,
    pub announce: Announce,
    pub commit: CommitMode,
}

/// What the pipeline did.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// Every file of the change with its ETag afterwards (`None` when deleted) and whether it
    /// existed before.
    pub files: Vec<AppliedFile>,
    /// The commit, when versioning is git and the commit was synchronous.
    pub commit: Option<String>,
}

#[derive(Debug, Clone)]
pub struct AppliedFile {
    pub path: PagePath,
    pub etag: Option<String>,
    pub created: bool,
}

struct Prepared {
    path: PagePath,
    /// The file's name on disk, fixed before anything is written: every write, removal,
    /// rollback and the commit use it, so the pass never reaches another spelling of the name
    /// (a file shadowed by the one it removes, say).
    disk: DiskName,
    before: Option<Vec<u8>>,
    after: Option<Vec<u8>>,
}

impl SpaceCore {
    /// Runs a change through the pipeline. All files are written and committed together, or
    /// none is.
    pub(crate) fn apply(&self, change: Change) -> Result<Applied> {
        let files = change.ops.len() as u64;
        let applied = self.apply_counted(change)?;
        self.activity.add(&self.activity.writes, 1);
        self.activity.add(&self.activity.files_written, files);
        Ok(applied)
    }

    fn apply_counted(&self, change: Change) -> Result<Applied> {
        validate(&change)?;
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());

        // Read pre-images and check preconditions before touching anything.
        let mut prepared = Vec::with_capacity(change.ops.len());
        for op in &change.ops {
            let disk = self.root.disk_name(&op.path)?;
            let before = self.read_existing(&disk)?;
            match &op.expect {
                Expect::Anything => {}
                Expect::Absent if before.is_some() => {
                    return Err(Error::conflict(format!(
                        "{} already exists; it is never overwritten",
                        op.path
                    )));
                }
                Expect::Absent => {}
                Expect::Etag(expected) => {
                    let current = before.as_deref().map(etag);
                    if current.as_deref() != Some(expected.as_str()) {
                        return Err(Error::conflict(format!(
                            "{} was modified since the last read (If-Match {} does not match the current ETag {})",
                            op.path,
                            expected,
                            current.as_deref().unwrap_or("none: the file does not exist")
                        )));
                    }
                }
            }
            if op.content.is_none() && before.is_none() {
                return Err(Error::not_found(format!("{} does not exist", op.path)));
            }
            prepared.push(Prepared {
                path: op.path.clone(),
                disk,
                before,
                after: op.content.clone(),
            });
        }

        let mut applied = Applied {
            files: prepared
                .iter()
                .map(|p| AppliedFile {
                    path: p.path.clone(),
                    etag: p.after.as_deref().map(etag),
                    created: p.before.is_none(),
                })
                .collect(),
            commit: None,
        };
        // A write of identical bytes changes nothing: no commit, no event.
        prepared.retain(|p| p.before != p.after);
        if prepared.is_empty() {
            return Ok(applied);
        }

        let names: Vec<&DiskName> = prepared.iter().map(|p| &p.disk).collect();
        if let Err(e) = self.history.commit_others_before(&names, &change.actor) {
            return Err(Error::internal(format!(
                "committing queued writes failed: {e}"
            )));
        }

        // Several files, or a restructuring: a crash must not leave half of it behind.
        let journaled = prepared.len() > 1 || change.commit == CommitMode::Now;
        if journaled {
            let entries: Vec<JournalEntry> = prepared
                .iter()
                .map(|p| JournalEntry {
                    path: p.disk.to_string(),
                    before: p.before.clone(),
                    after: p.after.as_deref().map(etag),
                })
                .collect();
            self.root.write_journal(&entries)?;
            fault::point("after-journal");
        }
        for (written, p) in prepared.iter().enumerate() {
            let result = match &p.after {
                Some(bytes) => self.root.write_on_disk(&p.disk, bytes),
                None => self.root.remove_on_disk(&p.disk),
            };
            if let Err(e) = result {
                self.roll_back(&prepared[..written], journaled);
                return Err(e.into());
            }
            if written == 0 {
                fault::point("after-first-write");
            }
        }
        fault::point("after-write");

        let changes: Vec<FileChange> = prepared
            .iter()
            .map(|p| FileChange::of(p.path.clone(), p.disk.clone(), p.after.is_some()))
            .collect();
        let message = match (change.message.as_str(), prepared.as_slice()) {
            ("", [only]) => {
                let verb = match (&only.before, &only.after) {
                    (None, _) => "Create",
                    (Some(_), Some(_)) => "Update",
                    (Some(_), None) => "Delete",
                };
                format!("{verb} {}", only.path)
            }
            ("", _) => format!("Change {} files", prepared.len()),
            (text, _) => text.to_string(),
        };
        let recorded = match change.commit {
            CommitMode::AsConfigured => self.history.record(&changes, &change.actor, &message),
            CommitMode::Now => self.history.record_now(&changes, &change.actor, &message),
        };
        match recorded {
            Ok(Recorded::Committed(id)) => applied.commit = Some(id),
            Ok(_) => {}
            Err(e) => {
                self.roll_back(&prepared, journaled);
                return Err(Error::internal(format!(
                    "commit failed, change rolled back: {e}"
                )));
            }
        }
        fault::point("after-commit");
        if journaled {
            if let Err(e) = self.root.clear_journal() {
                tracing::error!("removing the journal failed (recovered at next start): {e}");
            }
        }

        self.index_files(
            prepared
                .iter()
                .map(|p| (&p.path, &p.disk, p.after.as_deref())),
        );
        self.announce(&prepared, &change);
        Ok(applied)
    }

    /// The pipeline's index step, for its own changes and for changes seen on disk: the link
    /// model takes the new contents at once, and the index thread hears which paths changed.
    pub(crate) fn index_files<'a>(
        &self,
        files: impl Iterator<Item = (&'a PagePath, &'a DiskName, Option<&'a [u8]>)> + Clone,
    ) {
        self.links.index_changes(&self.root, files.clone());
        if let Some(indexer) = &self.indexer {
            indexer.changed(files.map(|(path, _, _)| path.clone()).collect());
        }
    }

    fn read_existing(&self, disk: &DiskName) -> Result<Option<Vec<u8>>> {
        match self.root.read_on_disk(disk) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(quire_store::StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn roll_back(&self, prepared: &[Prepared], journaled: bool) {
        let mut clean = true;
        for p in prepared.iter().rev() {
            let result = match &p.before {
                Some(bytes) => self.root.write_on_disk(&p.disk, bytes),
                None => self.root.remove_on_disk(&p.disk),
            };
            if let Err(e) = result {
                clean = false;
                tracing::error!("rolling back {} failed: {e}", p.path);
            }
        }
        // A failed rollback keeps the journal: the next start retries it.
        if journaled && clean {
            if let Err(e) = self.root.clear_journal() {
                tracing::error!("removing the journal failed: {e}");
            }
        }
    }

    fn announce(&self, prepared: &[Prepared], change: &Change) {
        let timestamp = now_rfc3339();
        match change.announce {
            Announce::Bulk => self.events.publish(Event::Bulk {
                paths: prepared.iter().map(|p| p.path.to_string()).collect(),
                actor: change.actor.clone(),
                timestamp,
            }),
            Announce::PerFile => {
                for p in prepared {
                    let path = p.path.to_string();
                    let actor = change.actor.clone();
                    let timestamp = timestamp.clone();
                    self.events.publish(match p.after {
                        Some(_) => Event::Write {
                            path,
                            actor,
                            timestamp,
                        },
                        None => Event::Delete {
                            path,
                            actor,
                            timestamp,
                        },
                    });
                }
            }
        }
    }
}

/// A change names files at most once, and never a reserved path; the actor is a plain name.
fn validate(change: &Change) -> Result<()> {
    if change.ops.is_empty() {
        return Err(Error::bad_request("the change holds no files"));
    }
    if change.actor.trim().is_empty() || change.actor.contains(['<', '>', '\n']) {
        return Err(Error::bad_request(
            "the actor must be a non-empty name without '<', '>' or newlines",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for op in &change.ops {
        check_writable(&op.path)?;
        if !seen.insert(op.path.as_str()) {
            return Err(Error::new(
                ErrorCode::BadRequest,
                format!("{} appears twice in one change", op.path),
            ));
        }
    }
    Ok(())
}

/// Paths no change may write: git's own folder and quire's runtime state.
pub(crate) fn check_writable(path: &PagePath) -> Result<()> {
    let s = path.as_str();
    let first = s.split('/').next().unwrap_or("");
    if first == ".git" || s == ".quire/state" || s.starts_with(".quire/state/") {
        return Err(Error::bad_request(format!(
            "{s} is reserved: .git/ and .quire/state/ cannot be written"
        )));
    }
    Ok(())
}
