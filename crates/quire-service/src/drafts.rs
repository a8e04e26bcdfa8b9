//! Drafts of a space: changes kept on a git branch of their own (`drafts/<id>`, see
//! `quire_store::drafts`) until they are merged into the knowledge base or discarded.
//!
//! A draft's writes are git objects only: nothing appears in the root, its tree, its index or
//! its search until the draft is merged. Merging is a three-way merge of trees (the draft's
//! base, main's HEAD, the draft); a conflict is a 409 and changes nothing, a clean merge hands
//! the merged files to the one pipeline as one change (one commit on main, authored by the
//! merger; schema enforcement and events as for any write), then deletes the branch.
//!
//! **Limits.** At most `[drafts] max_active` drafts are open at once (one more is a 409); a
//! draft not written for `[drafts] auto_discard` is discarded when the space opens and
//! whenever a draft is created or the drafts are listed.

use std::sync::atomic::{AtomicU64, Ordering};

use quire_api::{Draft, DraftDiff, DraftFile, DraftMerged, DraftSummary, DraftWritten, TreeNode};
use quire_store::{DraftChange, DraftInfo, DraftStore, Merge};
use quire_vault::PagePath;

use crate::change::WriteOptions;
use crate::change::{Announce, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::files::FileContent;
use crate::pipeline::check_writable;

/// The author of draft file writes that name no actor.
pub const DRAFT_ACTOR: &str = "draft-api";

/// The drafts of one space.
#[derive(Clone, Copy)]
pub struct Drafts<'a>(pub(crate) &'a SpaceCore);

impl Drafts<'_> {
    /// Opens a draft on main as it is now, by `actor` (default `api`).
    pub fn create(&self, actor: Option<&str>) -> Result<DraftSummary> {
        let store = self.store()?;
        self.0.discard_untouched_drafts(store);
        let open = store.list()?.len();
        let max = self.0.editorial.drafts.max_active as usize;
        if open >= max {
            return Err(Error::conflict(format!(
                "{open} drafts are open, the most [drafts] max_active allows; merge or discard one first"
            )));
        }
        let actor = actor
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .unwrap_or(crate::change::DEFAULT_ACTOR);
        check_actor(actor)?;
        // The draft starts from everything written so far, queued commits included.
        self.0.history.flush()?;
        let mut attempt = 0;
        loop {
            match store.create(&new_id(), actor) {
                Err(quire_store::DraftError::Raced { .. }) if attempt < 3 => attempt += 1,
                other => return Ok(summary(other?)),
            }
        }
    }

    /// Every open draft, oldest first.
    pub fn list(&self) -> Result<Vec<DraftSummary>> {
        let store = self.store()?;
        self.0.discard_untouched_drafts(store);
        Ok(store.list()?.into_iter().map(summary).collect())
    }

    /// One draft with the files it changed.
    pub fn get(&self, id: &str) -> Result<Draft> {
        let store = self.store()?;
        check_id(id)?;
        let info = store.info(id)?;
        let files = store.changes(id)?.iter().map(draft_file).collect();
        Ok(Draft {
            summary: summary(info),
            files,
        })
    }

    /// What the draft changed since its base, as one unified diff.
    pub fn diff(&self, id: &str) -> Result<DraftDiff> {
        let store = self.store()?;
        check_id(id)?;
        let changes = store.changes(id)?;
        Ok(DraftDiff {
            diff: changes.iter().map(DraftChange::unified_diff).collect(),
            files: changes.iter().map(draft_file).collect(),
        })
    }

    /// A file as the draft holds it.
    pub fn read(&self, id: &str, path: &str) -> Result<FileContent> {
        let store = self.store()?;
        check_id(id)?;
        let path = PagePath::new(path)?;
        let (bytes, etag) = store.read(id, path.as_str())?;
        Ok(FileContent { bytes, etag })
    }

    /// Writes a file into the draft (one commit on its branch); `opts.expect` is checked
    /// against the draft's version of the file.
    pub fn write(
        &self,
        id: &str,
        path: &str,
        content: Vec<u8>,
        opts: &WriteOptions,
    ) -> Result<DraftWritten> {
        let store = self.store()?;
        check_id(id)?;
        let path = PagePath::new(path)?;
        check_writable(&path)?;
        let actor = draft_actor(opts)?;
        let etag = store
            .write(id, path.as_str(), Some(&content), expect(opts), &actor)?
            .unwrap_or_default();
        Ok(DraftWritten {
            path: path.to_string(),
            etag,
        })
    }

    /// Deletes a file from the draft (one commit on its branch).
    pub fn delete_file(&self, id: &str, path: &str, opts: &WriteOptions) -> Result<()> {
        let store = self.store()?;
        check_id(id)?;
        let path = PagePath::new(path)?;
        check_writable(&path)?;
        let actor = draft_actor(opts)?;
        store.write(id, path.as_str(), None, expect(opts), &actor)?;
        Ok(())
    }

    /// The draft's folder tree below `under` (everything when `None` or `/`).
    pub fn tree(&self, id: &str, under: Option<&str>) -> Result<Vec<TreeNode>> {
        let store = self.store()?;
        check_id(id)?;
        let under = match under.map(str::trim).filter(|s| !s.is_empty() && *s != "/") {
            Some(p) => Some(PagePath::new(p.trim_end_matches('/'))?),
            None => None,
        };
        Ok(store
            .tree(id, under.as_ref().map(PagePath::as_str))?
            .into_iter()
            .map(crate::files::tree_node)
            .collect())
    }

    /// Merges the draft into main: one pipeline pass authored by `opts`'s actor, then the
    /// branch is deleted. A conflict (main and the draft changed the same lines since the
    /// draft's base) is a 409 naming the paths, and nothing changes.
    pub fn merge(&self, id: &str, opts: &WriteOptions) -> Result<DraftMerged> {
        let store = self.store()?;
        check_id(id)?;
        store.info(id)?;
        // HEAD must hold every write acknowledged so far: main is HEAD's tree.
        self.0.history.flush()?;
        let files = match store.merge(id)? {
            Merge::Conflicts { paths } => {
                return Err(Error::conflict(format!(
                    "draft {id} conflicts with main: both changed {} since the draft began; \
                     nothing was merged",
                    paths.join(", ")
                )))
            }
            Merge::Clean { files } => files,
        };
        let mut ops = Vec::with_capacity(files.len());
        for file in files {
            let path = PagePath::new(&file.path).map_err(|e| {
                Error::bad_request(format!(
                    "draft {id} holds {:?}, which is no valid path: {e}",
                    file.path
                ))
            })?;
            ops.push(FileOp {
                path,
                content: file.content,
                expect: match file.main_etag {
                    Some(etag) => Expect::Etag(etag),
                    None => Expect::Absent,
                },
            });
        }
        let written: Vec<String> = ops.iter().map(|op| op.path.to_string()).collect();
        let commit = if ops.is_empty() {
            None
        } else {
            let announce = if ops.len() > 1 {
                Announce::Bulk
            } else {
                Announce::PerFile
            };
            let applied = self
                .0
                .apply(Change {
                    message: opts.message_or(|| format!("Merge draft {id}")),
                    ops,
                    actor: opts.actor(),
                    announce,
                    commit: CommitMode::Now,
                })
                .map_err(|e| match e.code {
                    ErrorCode::Conflict => Error::conflict(format!(
                        "main changed while draft {id} was being merged ({}); nothing was merged",
                        e.message
                    )),
                    _ => e,
                })?;
            applied.commit
        };
        if let Err(e) = store.discard(id) {
            tracing::error!("draft {id} was merged but its branch stays: {e}");
        }
        Ok(DraftMerged {
            status: "merged".into(),
            id: id.to_string(),
            commit,
            files: written,
        })
    }

    /// Discards a draft: its branch is deleted.
    pub fn discard(&self, id: &str) -> Result<()> {
        let store = self.store()?;
        check_id(id)?;
        Ok(store.discard(id)?)
    }

    fn store(&self) -> Result<&DraftStore> {
        self.0
            .drafts
            .as_ref()
            .map_err(|why| Error::new(ErrorCode::NotImplemented, why.clone()))
    }
}

impl SpaceCore {
    /// Discards the drafts not written for `[drafts] auto_discard`.
    pub(crate) fn discard_untouched_drafts(&self, store: &DraftStore) {
        let age = self.editorial.drafts.auto_discard.as_std();
        let cutoff = chrono::Utc::now().timestamp() - age.as_secs() as i64;
        match store.discard_untouched(cutoff) {
            Ok(gone) => {
                for id in gone {
                    tracing::info!(space = %self.name, "draft {id} was not written for {age:?}: discarded");
                }
            }
            Err(e) => tracing::warn!("discarding untouched drafts failed: {e}"),
        }
    }
}

fn summary(info: DraftInfo) -> DraftSummary {
    DraftSummary {
        id: info.id,
        branch: info.branch,
        actor: info.actor,
        created_at: info.created_at,
        updated_at: info.updated_at,
        base: info.base,
        head: info.head,
    }
}

fn draft_file(change: &DraftChange) -> DraftFile {
    DraftFile {
        path: change.path.clone(),
        action: change.action.as_str().into(),
    }
}

fn expect(opts: &WriteOptions) -> Option<&str> {
    match &opts.expect {
        Expect::Etag(etag) => Some(etag),
        _ => None,
    }
}

fn draft_actor(opts: &WriteOptions) -> Result<String> {
    let actor = opts
        .actor
        .clone()
        .filter(|a| !a.trim().is_empty())
        .unwrap_or_else(|| DRAFT_ACTOR.to_string());
    check_actor(&actor)?;
    Ok(actor)
}

fn check_actor(actor: &str) -> Result<()> {
    if actor.contains(['<', '>', '\n']) {
        return Err(Error::bad_request(
            "the actor must be a name without '<', '>' or newlines",
        ));
    }
    Ok(())
}

/// A draft id is `[A-Za-z0-9_-]{1,64}` (quire makes 12 hex digits).
fn check_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request(format!("invalid draft id {id:?}")))
    }
}

/// A fresh draft id: 12 hex digits of a hash of the time, the process and a counter.
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = format!(
        "{:?} {} {}",
        std::time::SystemTime::now(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    quire_store::etag(seed.as_bytes())[..12].to_string()
}
