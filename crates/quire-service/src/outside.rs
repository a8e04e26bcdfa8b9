//! Edits made outside quire while it runs (an editor saving a file, `git pull`, a sync tool,
//! `mv` in a shell): the second entry into the write pipeline, for files that are already on
//! disk. Under the space's write lock each reported path is compared with what quire last knew
//! of it; what differs is committed in one change by `quire`, indexed and announced. Quire's own
//! writes are never taken for outside edits: the pipeline updates the link model before it
//! releases the lock, so by the time a report is looked at, quire knows what it wrote.

use std::collections::{BTreeMap, BTreeSet};

use quire_api::Event;
use quire_store::{etag, DiskName, FileChange, Recorded, StoreError};
use quire_vault::PagePath;

use crate::core::SpaceCore;
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::pipeline::check_writable;
use crate::raw_moves::Via;

/// The author of what quire records on its own.
pub const SYSTEM_ACTOR: &str = "quire";

/// What a watcher (or any other observer of the disk) saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutsideChanges {
    /// Paths that may have changed.
    pub paths: Vec<PagePath>,
    /// Renames the observer saw as such: `(from, to)`.
    pub moves: Vec<(PagePath, PagePath)>,
    /// Look at every file, not only `paths` (after `git checkout`, a lost event, a restart).
    pub everything: bool,
}

/// What was recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reconciled {
    pub written: Vec<PagePath>,
    pub deleted: Vec<PagePath>,
    /// Files that moved on disk without their links being rewritten: kept as raw moves.
    pub moves: Vec<(PagePath, PagePath)>,
    /// The commit, when versioning is git and commits are synchronous.
    pub commit: Option<String>,
}

impl Reconciled {
    pub fn is_empty(&self) -> bool {
        self.written.is_empty() && self.deleted.is_empty()
    }
}

/// One file that differs from what quire knew.
struct Differs {
    path: PagePath,
    disk: DiskName,
    /// The ETag quire knew; `None` when it knew no such file.
    before: Option<String>,
    /// The bytes on disk now; `None` when the file is gone.
    now: Option<Vec<u8>>,
}

impl SpaceCore {
    /// Records what changed on disk behind quire's back (see the module docs).
    pub(crate) fn record_outside(&self, seen: &OutsideChanges) -> Result<Reconciled> {
        let _guard = self.write_lock.lock().unwrap_or_else(|p| p.into_inner());
        let candidates = self.candidates(seen)?;
        let mut differs = Vec::new();
        for path in candidates {
            if check_writable(&path).is_err() {
                continue;
            }
            let disk = match self.root.disk_name(&path) {
                Ok(disk) => disk,
                Err(e) => {
                    tracing::warn!("skipping {path} seen on disk: {e}");
                    continue;
                }
            };
            let now = match self.root.read_on_disk(&disk) {
                Ok(bytes) => Some(bytes),
                Err(StoreError::NotFound { .. }) | Err(StoreError::IsFolder { .. }) => None,
                Err(e) => return Err(e.into()),
            };
            let before = self.known_etag(&path)?;
            if now.as_deref().map(etag) != before {
                differs.push(Differs {
                    path,
                    disk,
                    before,
                    now,
                });
            }
        }
        let mut recorded = Reconciled::default();
        if differs.is_empty() {
            return Ok(recorded);
        }
        recorded.moves = moves_of(&differs, &seen.moves);
        let changes: Vec<FileChange> = differs
            .iter()
            .map(|d| {
                let change = FileChange::of(d.path.clone(), d.disk.clone(), d.now.is_some());
                match &d.now {
                    Some(bytes) => change.with_content(bytes.as_slice()),
                    None => change,
                }
            })
            .collect();
        for d in &differs {
            match d.now {
                Some(_) => recorded.written.push(d.path.clone()),
                None => recorded.deleted.push(d.path.clone()),
            }
        }
        let message = describe(&recorded);
        // A write still queued for a batch commit (an API write the editor overwrote within
        // the window) is committed first, as its own author with its own bytes; folded into
        // this change it would be lost from history.
        let names: Vec<&DiskName> = differs.iter().map(|d| &d.disk).collect();
        if let Err(e) = self.history.commit_others_before(&names, SYSTEM_ACTOR) {
            return Err(Error::internal(format!(
                "committing queued writes before an outside change failed: {e}"
            )));
        }
        match self.history.record(&changes, SYSTEM_ACTOR, &message) {
            Ok(Recorded::Committed(id)) => recorded.commit = Some(id),
            Ok(_) => {}
            Err(e) => {
                return Err(Error::internal(format!(
                    "recording changes made outside quire failed: {e}"
                )))
            }
        }
        self.index_files(differs.iter().map(|d| (&d.path, &d.disk, d.now.as_deref())));
        self.record_raw_moves(&recorded.moves, SYSTEM_ACTOR, Via::Watcher);
        let timestamp = now_rfc3339();
        let events = differs.iter().map(|d| {
            let path = d.path.to_string();
            let actor = SYSTEM_ACTOR.to_string();
            let timestamp = timestamp.clone();
            match d.now {
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
            }
        });
        // In turn with the pipeline's announcements still waiting for the index.
        self.events.ticket().publish(events);
        Ok(recorded)
    }

    /// The paths to look at: the reported ones and both ends of reported moves — a folder
    /// standing for every file below it, on disk and in the model — or every file on disk and
    /// in the model.
    fn candidates(&self, seen: &OutsideChanges) -> Result<BTreeSet<PagePath>> {
        let mut reported: BTreeSet<PagePath> = seen.paths.iter().cloned().collect();
        for (from, to) in &seen.moves {
            reported.insert(from.clone());
            reported.insert(to.clone());
        }
        if seen.everything {
            let mut out: BTreeSet<PagePath> = self.root.listing()?.files.into_iter().collect();
            out.extend(self.links.vault().files().cloned());
            out.extend(reported);
            return Ok(out);
        }
        let mut out = BTreeSet::new();
        let mut listing = None;
        for path in reported {
            let below = format!("{path}/");
            out.extend(
                self.links
                    .vault()
                    .files()
                    .filter(|f| f.as_str().starts_with(&below))
                    .cloned(),
            );
            if matches!(self.root.kind(&path), Ok(Some(quire_store::EntryKind::Dir))) {
                if listing.is_none() {
                    listing = Some(self.root.listing()?.files);
                }
                out.extend(
                    listing
                        .iter()
                        .flatten()
                        .filter(|f| f.as_str().starts_with(&below))
                        .cloned(),
                );
            } else {
                out.insert(path);
            }
        }
        Ok(out)
    }

    /// What quire believes a path holds: the link model's ETag (pages, canvases, files it
    /// wrote), else the committed version (files it has not touched since it started).
    fn known_etag(&self, path: &PagePath) -> Result<Option<String>> {
        if let Some(tag) = self.links.cached_etag(path) {
            return Ok(Some(tag));
        }
        if crate::links::is_indexed(path) && !self.links.vault().contains(path) {
            return Ok(None);
        }
        let Some(head) = self.history.head() else {
            return Ok(None);
        };
        match self.history.version(path, &head) {
            Ok(bytes) => Ok(Some(etag(&bytes))),
            Err(StoreError::VersionNotFound { .. }) | Err(StoreError::NotFound { .. }) => Ok(None),
            // Versioning off or cow: nothing to compare with, so the file counts as changed.
            Err(StoreError::Unavailable { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// Moves among the changed files: the pairs the observer reported, and a file that vanished
/// while exactly one new file with exactly its bytes appeared (a copy is never taken for a
/// move).
fn moves_of(differs: &[Differs], reported: &[(PagePath, PagePath)]) -> Vec<(PagePath, PagePath)> {
    let gone: BTreeMap<&PagePath, Option<&String>> = differs
        .iter()
        .filter(|d| d.now.is_none())
        .map(|d| (&d.path, d.before.as_ref()))
        .collect();
    let new: Vec<(&PagePath, String)> = differs
        .iter()
        .filter(|d| d.before.is_none())
        .filter_map(|d| d.now.as_deref().map(|bytes| (&d.path, etag(bytes))))
        .collect();
    let mut moves: Vec<(PagePath, PagePath)> = reported
        .iter()
        .filter(|(from, to)| gone.contains_key(from) && new.iter().any(|(p, _)| *p == to))
        .cloned()
        .collect();
    let paired: BTreeSet<PagePath> = moves
        .iter()
        .flat_map(|(f, t)| [f.clone(), t.clone()])
        .collect();
    for (from, before) in &gone {
        let Some(before) = before else { continue };
        if paired.contains(*from) {
            continue;
        }
        let mut same = new
            .iter()
            .filter(|(to, tag)| tag == *before && !paired.contains(*to));
        if let (Some((to, _)), None) = (same.next(), same.next()) {
            moves.push(((*from).clone(), (*to).clone()));
        }
    }
    moves.sort();
    moves
}

/// The commit message: what happened to which files.
fn describe(recorded: &Reconciled) -> String {
    let mut text = String::from("Record changes made outside quire\n\n");
    let moved_from: BTreeSet<&PagePath> = recorded.moves.iter().map(|(f, _)| f).collect();
    let moved_to: BTreeSet<&PagePath> = recorded.moves.iter().map(|(_, t)| t).collect();
    for (from, to) in &recorded.moves {
        text.push_str(&format!("- move {from} -> {to}\n"));
    }
    for path in &recorded.written {
        if !moved_to.contains(path) {
            text.push_str(&format!("- write {path}\n"));
        }
    }
    for path in &recorded.deleted {
        if !moved_from.contains(path) {
            text.push_str(&format!("- delete {path}\n"));
        }
    }
    text
}
