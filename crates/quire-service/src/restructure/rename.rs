//! Renaming one file or one folder: a one-move manifest planned and applied like any other, so
//! every link keeps its target; never onto an existing path.

use quire_api::{Renamed, RenamedDir};
use quire_restructure::{FileOp as PlannedOp, Manifest, ManifestFormat, Plan};
use quire_vault::PagePath;

use super::apply::moved_pages;
use super::fold::apply_ops;
use super::planning::planned;
use super::state::Restructuring;
use super::Relink;
use crate::change::WriteOptions;
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::raw_moves::Via;

/// Moves one file, rewriting links unless `relink` is off.
pub(super) fn rename(
    core: &SpaceCore,
    area: &Restructuring,
    from: &str,
    to: &str,
    relink: Relink,
    opts: &WriteOptions,
) -> Result<Renamed> {
    let actor = &opts.actor();
    let from_path = PagePath::new(from)?;
    let to_path = PagePath::new(to)?;
    if core.root.kind(&from_path)?.is_none() {
        return Err(Error::not_found(format!("{from_path} does not exist")));
    }
    if core.root.kind(&to_path)?.is_some() {
        return Err(Error::conflict(format!(
            "{to_path} already exists; rename never overwrites"
        )));
    }
    let manifest = move_manifest(from_path.as_str(), to_path.as_str())?;
    let planned = planned(core, area, &manifest, false, Some(actor))?;
    refuse_blocked(&planned.plan)?;
    let (ops, updated_links) = match relink {
        Relink::Yes => (planned.ops, planned.plan.rewritten_links()),
        // Only the moves: no page other than the moved one is touched.
        Relink::No => (
            planned
                .ops
                .iter()
                .filter(|op| matches!(op, PlannedOp::Move { .. }))
                .cloned()
                .chain(moved_page_verbatim(&planned.ops, &from_path, &to_path))
                .collect(),
            0,
        ),
    };
    let message = opts.message_or(|| format!("Rename {from_path} to {to_path}"));
    let applied = apply_ops(core, &ops, actor, &message)?;
    core.shares_follow(&moved_pages(&planned.plan));
    if relink == Relink::No {
        // Links to the old path now dangle: kept as data so they can be repaired later.
        core.record_raw_moves(
            &[(from_path.clone(), to_path.clone())],
            actor,
            Via::LinksKept,
        );
    }
    let etag = applied
        .files
        .iter()
        .find(|f| f.path == to_path)
        .and_then(|f| f.etag.clone())
        .unwrap_or_default();
    Ok(Renamed {
        from: from_path.to_string(),
        to: to_path.to_string(),
        etag,
        updated_links,
    })
}

/// Moves a folder and everything below it, rewriting links.
pub(super) fn rename_dir(
    core: &SpaceCore,
    area: &Restructuring,
    from: &str,
    to: &str,
    opts: &WriteOptions,
) -> Result<RenamedDir> {
    let actor = &opts.actor();
    let from_path = PagePath::new(from.trim_end_matches('/'))?;
    let to_path = PagePath::new(to.trim_end_matches('/'))?;
    match core.root.kind(&from_path)? {
        Some(quire_store::EntryKind::Dir) => {}
        Some(_) => return Err(Error::bad_request(format!("{from_path} is not a folder"))),
        None => return Err(Error::not_found(format!("{from_path} does not exist"))),
    }
    if core.root.kind(&to_path)?.is_some() {
        return Err(Error::conflict(format!(
            "{to_path} already exists; rename never overwrites"
        )));
    }
    let manifest = move_manifest(&format!("{from_path}/"), &format!("{to_path}/"))?;
    let planned = planned(core, area, &manifest, false, Some(actor))?;
    refuse_blocked(&planned.plan)?;
    let message = opts.message_or(|| format!("Rename folder {from_path} to {to_path}"));
    apply_ops(core, &planned.ops, actor, &message)?;
    core.shares_follow(&moved_pages(&planned.plan));
    Ok(RenamedDir {
        from: from_path.to_string(),
        to: to_path.to_string(),
        renamed: planned.plan.moves.len(),
    })
}

fn move_manifest(from: &str, to: &str) -> Result<Manifest> {
    let body = serde_json::json!({"moves": [{"from": from, "to": to}]}).to_string();
    quire_restructure::parse_manifest(body.as_bytes(), ManifestFormat::Json)
        .map_err(|e| Error::internal(format!("built-in manifest rejected: {e}")))
}

/// A plan that cannot be applied: a taken destination is a conflict, anything else
/// unprocessable.
fn refuse_blocked(plan: &Plan) -> Result<()> {
    if plan.errors.is_empty() && plan.plan_only.is_empty() {
        return Ok(());
    }
    let code = if plan.conflicts.iter().any(|c| c.code.as_str() == "exists") {
        ErrorCode::Conflict
    } else {
        ErrorCode::Unprocessable
    };
    let mut reasons: Vec<&str> = plan.errors.iter().map(String::as_str).collect();
    reasons.extend(plan.plan_only.iter().map(String::as_str));
    Err(Error::new(code, reasons.join("; ")))
}

/// Without relinking a moved page keeps its bytes: when the plan rewrote links inside the
/// moved page itself, its Write op is replaced by a plain move of the old bytes.
fn moved_page_verbatim(ops: &[PlannedOp], from: &PagePath, to: &PagePath) -> Option<PlannedOp> {
    let rewrote_itself = ops
        .iter()
        .any(|op| matches!(op, PlannedOp::Write { path, .. } if path == to));
    if !rewrote_itself {
        return None;
    }
    ops.iter().find_map(|op| match op {
        PlannedOp::Delete { path, expect } if path == from => Some(PlannedOp::Move {
            from: from.clone(),
            to: to.clone(),
            expect: expect.clone(),
        }),
        _ => None,
    })
}
