//! Reverting any commit: a new commit that restores every file the commit changed to its
//! previous bytes, refused when any of them changed since.

use std::collections::BTreeMap;

use quire_restructure::{ContentEdit, PathChange, Plan};
use quire_store::{etag, CommitFile};
use quire_vault::PagePath;

use quire_api::AppliedResult;

use super::fold::count_applied;
use crate::change::{Announce, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};

/// The plan that reverts `commit`: what would be restored, with `reverts` set.
pub(crate) fn plan(core: &SpaceCore, commit: &str) -> Result<Plan> {
    parts(core, commit).map(|(plan, _)| plan)
}

fn parts(core: &SpaceCore, commit: &str) -> Result<(Plan, Vec<FileOp>)> {
    let id = commit.trim();
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::bad_request(format!(
            "{id:?} is not a commit id (hex, full or abbreviated)"
        )));
    }
    if core.history.strategy() != quire_store::Strategy::Git {
        return Err(Error::new(
            ErrorCode::NotImplemented,
            "revert needs git versioning",
        ));
    }
    let files = core.history.commit_files(id).map_err(|e| match e {
        quire_store::StoreError::VersionNotFound { .. } => {
            Error::bad_request(format!("no commit {id} in this knowledge base"))
        }
        other => other.into(),
    })?;
    let mut plan = Plan {
        reverts: Some(files.id.clone()),
        base: core.history.settled_head(),
        ..Plan::default()
    };
    plan.integrity.normalization = quire_restructure::normalization_notes(&core.links.names());
    let mut etags = BTreeMap::new();
    let mut changed_since = Vec::new();
    let mut ops = Vec::new();
    for file in &files.files {
        let path = PagePath::new(&file.path)?;
        let current = match core.root.read(&path) {
            Ok(bytes) => Some(etag(&bytes)),
            Err(quire_store::StoreError::NotFound { .. }) => None,
            Err(e) => return Err(e.into()),
        };
        if current != file.after {
            changed_since.push(path.to_string());
            continue;
        }
        if let Some(tag) = &current {
            etags.insert(path.clone(), tag.clone());
        }
        ops.push(FileOp {
            path: path.clone(),
            content: file.before.clone(),
            expect: match current {
                Some(tag) => Expect::Etag(tag),
                None => Expect::Absent,
            },
        });
    }
    if !changed_since.is_empty() {
        let error = format!(
            "files changed since commit {}: {}; revert would discard those changes",
            short(&files.id),
            changed_since.join(", ")
        );
        plan.errors.push(error.clone());
        return Err(Error::refused(ErrorCode::Unprocessable, error, &plan));
    }
    describe(&mut plan, &files.files);
    plan.digest = quire_restructure::digest(&plan, &etags);
    Ok((plan, ops))
}

/// Reverts a commit as a new commit by `actor` through `client` (`X-Quire-Client`), which
/// the commit's trailers record with the HEAD it was made on.
pub(crate) fn revert(
    core: &SpaceCore,
    commit: &str,
    digest: Option<&str>,
    actor: &str,
    client: &str,
) -> Result<(AppliedResult, Plan)> {
    let (plan, ops) = parts(core, commit)?;
    if let Some(d) = digest {
        if d != plan.digest {
            return Err(Error::refused(
                ErrorCode::Conflict,
                "the revert plan no longer has this digest; review the fresh plan",
                &plan,
            ));
        }
    }
    let reverted = plan.reverts.clone().unwrap_or_default();
    let message = format!(
        "Revert {}\n\nQuire-Actor: {}\nQuire-Client: {}\nQuire-Refactor-Digest: {}\nQuire-Reverts: {}\nQuire-Base: {}\n",
        short(&reverted),
        actor.replace(['\n', '\r'], " "),
        client.replace(['\n', '\r'], " "),
        plan.digest,
        reverted,
        plan.base.as_deref().unwrap_or("none")
    );
    if ops.is_empty() {
        return Ok((AppliedResult::default(), plan));
    }
    let change = Change {
        ops,
        actor: actor.to_string(),
        message,
        announce: Announce::PerFile,
        commit: CommitMode::Now,
    };
    let applied = match core.apply(change) {
        Ok(applied) => applied,
        Err(e) if e.code == ErrorCode::Conflict => {
            return Err(Error::refused(ErrorCode::Conflict, e.message, &plan))
        }
        Err(e) => return Err(e),
    };
    Ok((count_applied(&applied, 0), plan))
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn is_side_file(path: &str) -> bool {
    path.starts_with(".quire/")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How many trailing path segments two paths share.
fn shared_tail(a: &str, b: &str) -> usize {
    a.rsplit('/')
        .zip(b.rsplit('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

/// Fills the plan's records: renames undone become `moves` (one per file, also when the
/// rename rewrote the file's links), other files `content_edits`.
fn describe(plan: &mut Plan, files: &[CommitFile]) {
    let mut used = vec![false; files.len()];
    for (i, added) in files.iter().enumerate() {
        if added.before.is_some() {
            continue;
        }
        let Some(after) = &added.after else { continue };
        if let Some(j) = files.iter().position(|f| {
            f.after.is_none() && f.before.as_deref().map(etag).as_deref() == Some(after.as_str())
        }) {
            if let (Ok(from), Ok(to)) = (PagePath::new(&added.path), PagePath::new(&files[j].path))
            {
                plan.moves.push(PathChange { from, to });
                used[i] = true;
                used[j] = true;
            }
        }
    }
    // A file the commit moved and also edited (a move rewrites the moved page's own links):
    // an added file and a removed one of the same name, the longest shared folder tail first.
    // Side files under `.quire/` (comments, personal state) follow their pages and are no
    // moves of their own.
    for i in 0..files.len() {
        let added = &files[i];
        if used[i] || added.before.is_some() || added.after.is_none() || is_side_file(&added.path) {
            continue;
        }
        let best = (0..files.len())
            .filter(|&j| !used[j] && files[j].after.is_none() && files[j].before.is_some())
            .filter(|&j| file_name(&files[j].path) == file_name(&added.path))
            .max_by_key(|&j| {
                (
                    shared_tail(&files[j].path, &added.path),
                    std::cmp::Reverse(j),
                )
            });
        if let Some(j) = best {
            if let (Ok(from), Ok(to)) = (PagePath::new(&added.path), PagePath::new(&files[j].path))
            {
                plan.moves.push(PathChange { from, to });
                used[i] = true;
                used[j] = true;
            }
        }
    }
    for (file, used) in files.iter().zip(used) {
        if used {
            continue;
        }
        let Ok(path) = PagePath::new(&file.path) else {
            continue;
        };
        let change = match (&file.before, &file.after) {
            (Some(_), Some(_)) => "restore the previous content",
            (Some(_), None) => "restore the deleted file",
            (None, _) => "delete the file the commit created",
        };
        plan.content_edits.push(ContentEdit {
            path,
            from: None,
            changes: vec![change.to_string()],
        });
    }
    plan.moves.sort();
    plan.stats.pages = files.len();
}
