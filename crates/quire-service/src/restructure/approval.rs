//! A person's approval of agents' large plans: whether a plan needs one (the `[refactor]`
//! limits), pending entries and one-hour, one-use approvals, kept in
//! `.quire/state/approvals.json` so they survive a restart.

use std::collections::BTreeSet;

use quire_api::{Approval, PendingApproval, Plan};
use quire_restructure::FileOp as PlannedOp;
use quire_vault::PagePath;
use serde::{Deserialize, Serialize};

use super::state::Restructuring;
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// Where approvals live (DECISIONS §4).
pub const APPROVALS_PATH: &str = ".quire/state/approvals.json";
/// How long an approval is valid.
pub const APPROVAL_SECONDS: i64 = 3600;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Granted {
    digest: String,
    /// Unix seconds.
    expires_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
struct Book {
    #[serde(default)]
    pending: Vec<PendingApproval>,
    #[serde(default)]
    approved: Vec<Granted>,
}

fn approvals_path() -> PagePath {
    PagePath::new(APPROVALS_PATH).expect("constant path is valid")
}

fn with_book<T>(core: &SpaceCore, change: impl FnOnce(&mut Book) -> T) -> Result<T> {
    let _guard = core.state_lock.lock().unwrap_or_else(|p| p.into_inner());
    let path = approvals_path();
    let mut book: Book = match core.root.read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!("{APPROVALS_PATH} is unreadable ({e}); starting afresh");
            Book::default()
        }),
        Err(quire_store::StoreError::NotFound { .. }) => Book::default(),
        Err(e) => return Err(e.into()),
    };
    let before = book.clone();
    let now = chrono::Utc::now().timestamp();
    book.approved.retain(|g| g.expires_at > now);
    let out = change(&mut book);
    if book != before {
        let bytes = serde_json::to_vec_pretty(&book).map_err(Error::internal)?;
        core.root.write(&path, &bytes)?;
    }
    Ok(out)
}

/// Plans agents tried to apply that wait for a person.
pub(crate) fn pending_approvals(core: &SpaceCore) -> Result<Vec<PendingApproval>> {
    with_book(core, |book| book.pending.clone())
}

/// Lists an agent's plan as waiting for approval (once per digest).
pub(crate) fn add_pending(core: &SpaceCore, entry: PendingApproval) -> Result<()> {
    with_book(core, |book| {
        if !book.pending.iter().any(|p| p.digest == entry.digest) {
            book.pending.push(entry);
        }
    })
}

/// Records a person's approval of a digest for one apply within the hour.
pub(crate) fn grant_approval(core: &SpaceCore, digest: &str) -> Result<()> {
    let expires_at = chrono::Utc::now().timestamp() + APPROVAL_SECONDS;
    with_book(core, |book| {
        book.pending.retain(|p| p.digest != digest);
        book.approved.retain(|g| g.digest != digest);
        book.approved.push(Granted {
            digest: digest.to_string(),
            expires_at,
        });
    })
}

/// Uses up an approval of this digest, if a valid one exists.
pub(crate) fn take_approval(core: &SpaceCore, digest: &str) -> Result<bool> {
    with_book(core, |book| {
        let before = book.approved.len();
        book.approved.retain(|g| g.digest != digest);
        book.approved.len() != before
    })
}

/// Whether a client is an agent (restructuring spec, Authentication 3): its name starts with
/// `mcp`.
pub fn is_agent(client: &str) -> bool {
    client.to_ascii_lowercase().starts_with("mcp")
}

/// The plan's `approval` for a caller: `None` for people and programs, and for agents
/// whether this plan needs a person's approval and why.
pub(super) fn approval_for(
    area: &Restructuring,
    client: &str,
    plan: &Plan,
    ops: &[PlannedOp],
) -> Option<Approval> {
    if !is_agent(client) {
        return None;
    }
    Some(match approval_needed(area, plan, ops) {
        Some(reason) => Approval {
            required: true,
            reason,
        },
        None => Approval {
            required: false,
            reason: "within the approval limits".into(),
        },
    })
}

/// Why an agent needs approval for this plan, if it does.
fn approval_needed(area: &Restructuring, plan: &Plan, ops: &[PlannedOp]) -> Option<String> {
    let files = touched_files(ops);
    let links = plan.rewritten_links();
    if let Some(limit) = area.settings.approval_files_limit() {
        if files > limit as usize {
            return Some(format!(
                "it writes or deletes {files} files, more than approval_files = {limit}"
            ));
        }
    }
    if let Some(limit) = area.settings.approval_links_limit() {
        if links > limit as usize {
            return Some(format!(
                "it rewrites {links} links, more than approval_links = {limit}"
            ));
        }
    }
    None
}

/// Distinct files of the knowledge base an apply writes or deletes (a move counts its source
/// and its destination).
fn touched_files(ops: &[PlannedOp]) -> usize {
    let mut paths = BTreeSet::new();
    for op in ops {
        match op {
            PlannedOp::Write { path, .. } | PlannedOp::Delete { path, .. } => {
                paths.insert(path.clone());
            }
            PlannedOp::Move { from, to, .. } => {
                paths.insert(from.clone());
                paths.insert(to.clone());
            }
        }
    }
    paths.retain(|p| !p.as_str().starts_with(".quire/state/"));
    paths.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{Access, SpaceSettings};

    fn open(dir: &std::path::Path) -> SpaceCore {
        SpaceCore::open(
            SpaceSettings {
                name: "t".into(),
                root: dir.to_path_buf(),
                history: quire_store::HistoryOptions {
                    strategy: quire_store::Strategy::None,
                    ..Default::default()
                },
                assets: Default::default(),
                refactor: Default::default(),
                claims: quire_config::ClaimsConfig {
                    enabled: false,
                    ..Default::default()
                },
                find: Default::default(),
                script: None,
                editorial: Default::default(),
                public_url: None,
                backup: None,
                janitor: Default::default(),
            },
            &Access::serve(),
            crate::hooks::Hooks::default(),
        )
        .expect("space opens")
    }

    fn pending(digest: &str) -> PendingApproval {
        PendingApproval {
            digest: digest.into(),
            manifest: quire_api::Manifest::default(),
            actor: "agent".into(),
            client: "mcp".into(),
            reason: "big".into(),
            at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn an_approval_is_used_once() {
        let dir = tempfile::tempdir().unwrap();
        let space = open(dir.path());
        grant_approval(&space, "d1").unwrap();
        assert!(take_approval(&space, "d1").unwrap());
        assert!(!take_approval(&space, "d1").unwrap(), "second use refused");
        assert!(!take_approval(&space, "other").unwrap());
    }

    #[test]
    fn approvals_and_pending_entries_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        {
            let space = open(dir.path());
            add_pending(&space, pending("p1")).unwrap();
            add_pending(&space, pending("p1")).unwrap();
            grant_approval(&space, "d1").unwrap();
        }
        let space = open(dir.path());
        assert_eq!(pending_approvals(&space).unwrap(), vec![pending("p1")]);
        assert!(take_approval(&space, "d1").unwrap());
    }

    #[test]
    fn approving_removes_the_pending_entry() {
        let dir = tempfile::tempdir().unwrap();
        let space = open(dir.path());
        add_pending(&space, pending("p1")).unwrap();
        grant_approval(&space, "p1").unwrap();
        assert!(pending_approvals(&space).unwrap().is_empty());
    }

    #[test]
    fn an_approval_expires_after_an_hour() {
        let dir = tempfile::tempdir().unwrap();
        let space = open(dir.path());
        let expired = chrono::Utc::now().timestamp() - 1;
        let fresh = chrono::Utc::now().timestamp() + APPROVAL_SECONDS;
        let book = serde_json::json!({
            "pending": [],
            "approved": [{"digest": "old", "expires_at": expired}, {"digest": "new", "expires_at": fresh}]
        });
        std::fs::write(dir.path().join(APPROVALS_PATH), book.to_string()).unwrap();
        assert!(!take_approval(&space, "old").unwrap(), "expired");
        assert!(take_approval(&space, "new").unwrap());
    }
}
