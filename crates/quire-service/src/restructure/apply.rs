//! Applying a manifest and approving an agent's plan: the plan is rebuilt, checked and written
//! as exactly one commit carrying the restructuring trailers.

use quire_api::{AppliedResult, PendingApproval};
use quire_restructure::{Manifest, Plan, Planned};

use super::approval::{add_pending, approval_for, grant_approval, take_approval};
use super::fold::{apply_ops, count_applied};
use super::planning::planned;
use super::state::Restructuring;
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};

/// Who applies, and what they reviewed.
#[derive(Debug, Clone)]
pub struct ApplyRequest {
    /// The manifest (recorded in the commit's trailers and in pending approvals).
    pub manifest: Manifest,
    pub digest: Option<String>,
    /// An MCP client's user confirmed this plan.
    pub approved: bool,
    pub actor: String,
    /// The calling tool (`rest`, `cli`, `mcp…`); `mcp…` marks an agent.
    pub client: String,
    /// The summary line of the commit; `None` describes the restructuring. The trailers are
    /// always added.
    pub message: Option<String>,
}

/// Plans the manifest again and applies it as one commit, or says why not (with the
/// fresh plan).
pub(super) fn apply_manifest(
    core: &SpaceCore,
    area: &Restructuring,
    req: &ApplyRequest,
) -> Result<(AppliedResult, Plan)> {
    let Planned { mut plan, ops } = planned(core, area, &req.manifest, false, Some(&req.actor))?;
    if let Some(refusal) = plan.refusal() {
        return Err(Error::refused(ErrorCode::Unprocessable, refusal, &plan));
    }
    if let Some(digest) = &req.digest {
        if digest != &plan.digest {
            return Err(Error::refused(
                ErrorCode::Conflict,
                "the workspace changed since the plan was reviewed: its digest no longer \
                 matches; review the fresh plan",
                &plan,
            ));
        }
    }
    plan.approval = approval_for(area, &req.client, &plan, &ops);
    if let Some(reason) = plan
        .approval
        .as_ref()
        .filter(|a| a.required)
        .map(|a| a.reason.clone())
    {
        let granted = req.approved || take_approval(core, &plan.digest)?;
        if !granted {
            add_pending(
                core,
                PendingApproval {
                    digest: plan.digest.clone(),
                    manifest: req.manifest.clone(),
                    actor: req.actor.clone(),
                    client: req.client.clone(),
                    reason: reason.clone(),
                    at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                },
            )?;
            return Err(Error::refused(
                ErrorCode::ApprovalRequired,
                format!(
                    "this plan needs a person's approval: {reason}; it is listed by GET \
                     /refactor/pending"
                ),
                &plan,
            ));
        }
    }
    let message = commit_message(req, &plan);
    let applied = match apply_ops(core, &ops, &req.actor, &message) {
        Ok(applied) => applied,
        Err(e) if e.code == ErrorCode::Conflict => {
            let fresh = planned(core, area, &req.manifest, false, Some(&req.actor))
                .map(|p| p.plan)
                .unwrap_or(plan);
            return Err(Error::refused(ErrorCode::Conflict, e.message, &fresh));
        }
        Err(e) => return Err(e),
    };
    core.shares_follow(&moved_pages(&plan));
    let result = count_applied(&applied, plan.removed_dirs.len());
    Ok((result, plan))
}

/// A person approves exactly this digest of this manifest: one apply within the hour.
pub(super) fn approve(
    core: &SpaceCore,
    area: &Restructuring,
    manifest: &Manifest,
    digest: &str,
) -> Result<String> {
    let plan = planned(core, area, manifest, false, None)?.plan;
    if let Some(refusal) = plan.refusal() {
        return Err(Error::refused(ErrorCode::Conflict, refusal, &plan));
    }
    if plan.digest != digest {
        return Err(Error::refused(
            ErrorCode::Conflict,
            "the manifest no longer produces this digest; review the fresh plan",
            &plan,
        ));
    }
    grant_approval(core, digest)?;
    Ok(plan.digest)
}

/// Where each moved or merged page of a plan went (old path, new path).
pub(super) fn moved_pages(plan: &Plan) -> Vec<(String, String)> {
    plan.moves
        .iter()
        .chain(&plan.merges)
        .map(|change| (change.from.to_string(), change.to.to_string()))
        .collect()
}

/// A summary line, then the trailers of DECISIONS §1.
fn commit_message(req: &ApplyRequest, plan: &Plan) -> String {
    let links = plan.rewritten_links();
    let mut parts = Vec::new();
    if !plan.moves.is_empty() {
        parts.push(format!("{} moved", plan.moves.len()));
    }
    if !plan.merges.is_empty() {
        parts.push(format!("{} merged", plan.merges.len()));
    }
    if links > 0 {
        parts.push(format!(
            "{links} links in {} pages rewritten",
            plan.edits.len()
        ));
    }
    let summary = match req.message.as_deref().map(str::trim) {
        Some(m) if !m.is_empty() => m.to_string(),
        _ if parts.is_empty() => "Restructure".to_string(),
        _ => format!("Restructure: {}", parts.join(", ")),
    };
    let manifest = serde_json::to_string(&req.manifest).unwrap_or_default();
    format!(
        "{summary}\n\nQuire-Actor: {}\nQuire-Client: {}\nQuire-Refactor-Digest: {}\nQuire-Manifest: {}\nQuire-Base: {}\n",
        one_line(&req.actor),
        one_line(&req.client),
        plan.digest,
        one_line(&manifest),
        plan.base.as_deref().unwrap_or("none")
    )
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}
