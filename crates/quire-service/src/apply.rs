//! `POST /refactor/apply` and `/refactor/approve`: a plan is rebuilt, checked and written as
//! exactly one commit carrying the restructuring trailers.

use std::collections::BTreeSet;

use quire_restructure::{FileOp as PlannedOp, Manifest, Plan};
use serde::Serialize;

use crate::approvals::PendingApproval;
use crate::error::{Error, ErrorCode};
use crate::pipeline::Applied;
use crate::restructure::COMMENTS_DIR;
use crate::space::Space;
use crate::PERSONAL_DIR;

/// Who applies, and what they reviewed.
#[derive(Debug, Clone)]
pub struct ApplyRequest {
    pub manifest: Manifest,
    /// The manifest as the caller sent it (recorded in trailers and pending approvals).
    pub manifest_json: serde_json::Value,
    pub digest: Option<String>,
    /// An MCP client's user confirmed this plan.
    pub approved: bool,
    pub actor: String,
    /// `X-Quire-Client` (default `rest`); `mcp…` marks an agent.
    pub client: String,
}

/// Counts of what an apply wrote (spec "Applied result").
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct AppliedResult {
    pub written: usize,
    pub deleted: usize,
    pub side_files: usize,
    pub removed_dirs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// A refused apply: the status, the reason and the (fresh) plan.
#[derive(Debug, Clone)]
pub struct Refused {
    pub code: ErrorCode,
    pub error: String,
    pub plan: Option<Box<Plan>>,
}

impl From<Error> for Refused {
    fn from(e: Error) -> Refused {
        Refused {
            code: e.code,
            error: e.message,
            plan: None,
        }
    }
}

impl AppliedResult {
    /// Counts what the pipeline wrote: comment and personal-state files are side files,
    /// everything else a written or deleted file of the knowledge base.
    pub(crate) fn count(applied: &Applied, removed_dirs: usize) -> AppliedResult {
        let mut result = AppliedResult {
            removed_dirs,
            commit: applied.commit.clone(),
            ..AppliedResult::default()
        };
        for file in &applied.files {
            let path = file.path.as_str();
            if path.starts_with(COMMENTS_DIR) || path.starts_with(PERSONAL_DIR) {
                result.side_files += 1;
            } else if file.etag.is_some() {
                result.written += 1;
            } else {
                result.deleted += 1;
            }
        }
        result
    }
}

fn refuse(code: ErrorCode, error: String, plan: &Plan) -> Refused {
    Refused {
        code,
        error,
        plan: Some(Box::new(plan.clone())),
    }
}

/// Whether a client is an agent (restructuring spec, Authentication 3).
pub fn is_agent(client: &str) -> bool {
    client.to_ascii_lowercase().starts_with("mcp")
}

impl Space {
    /// Plans the manifest again and applies it as one commit, or says why not.
    pub fn apply_manifest(
        &self,
        req: &ApplyRequest,
    ) -> std::result::Result<(AppliedResult, Plan), Refused> {
        let mut plan = self.plan(&req.manifest, false, Some(&req.actor))?;
        if !plan.errors.is_empty() {
            let error = format!("the plan has errors: {}", plan.errors.join("; "));
            return Err(refuse(ErrorCode::Unprocessable, error, &plan));
        }
        if !plan.plan_only.is_empty() {
            let error = format!(
                "the plan cannot be applied yet: {}",
                plan.plan_only.join("; ")
            );
            return Err(refuse(ErrorCode::Unprocessable, error, &plan));
        }
        if let Some(digest) = &req.digest {
            if digest != &plan.digest {
                return Err(refuse(
                    ErrorCode::Conflict,
                    "the workspace changed since the plan was reviewed: its digest no longer matches; review the fresh plan".into(),
                    &plan,
                ));
            }
        }
        if let Some(reason) = self.approval_needed(req, &plan) {
            plan.approval = Some(quire_restructure::Approval {
                required: true,
                reason: reason.clone(),
            });
            let granted = req.approved || self.take_approval(&plan.digest)?;
            if !granted {
                self.add_pending(PendingApproval {
                    digest: plan.digest.clone(),
                    manifest: req.manifest_json.clone(),
                    actor: req.actor.clone(),
                    client: req.client.clone(),
                    reason: reason.clone(),
                    at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                })?;
                return Err(refuse(
                    ErrorCode::ApprovalRequired,
                    format!(
                        "this plan needs a person's approval: {reason}; it is listed by GET /refactor/pending"
                    ),
                    &plan,
                ));
            }
        }
        let message = commit_message(req, &plan);
        let applied = match self.apply_ops(&plan.ops, &req.actor, &message) {
            Ok(applied) => applied,
            Err(e) if e.code == ErrorCode::Conflict => {
                let fresh = self
                    .plan(&req.manifest, false, Some(&req.actor))
                    .unwrap_or(plan);
                return Err(refuse(ErrorCode::Conflict, e.message, &fresh));
            }
            Err(e) => return Err(e.into()),
        };
        let result = AppliedResult::count(&applied, plan.removed_dirs.len());
        Ok((result, plan))
    }

    /// `POST /refactor/approve`: a person approves exactly this digest of this manifest.
    pub fn approve(
        &self,
        manifest: &Manifest,
        digest: &str,
    ) -> std::result::Result<String, Refused> {
        let plan = self.plan(manifest, false, None)?;
        if !plan.errors.is_empty() {
            let error = format!("the plan has errors: {}", plan.errors.join("; "));
            return Err(refuse(ErrorCode::Conflict, error, &plan));
        }
        if plan.digest != digest {
            return Err(refuse(
                ErrorCode::Conflict,
                "the manifest no longer produces this digest; review the fresh plan".into(),
                &plan,
            ));
        }
        self.grant_approval(digest)?;
        Ok(plan.digest)
    }

    /// Why an agent needs approval for this plan, if it does.
    fn approval_needed(&self, req: &ApplyRequest, plan: &Plan) -> Option<String> {
        if !is_agent(&req.client) {
            return None;
        }
        let files = touched_files(&plan.ops);
        let links: usize = plan.edits.iter().map(|e| e.links.len()).sum();
        if let Some(limit) = self.refactor.approval_files_limit() {
            if files > limit as usize {
                return Some(format!(
                    "it writes or deletes {files} files, more than approval_files = {limit}"
                ));
            }
        }
        if let Some(limit) = self.refactor.approval_links_limit() {
            if links > limit as usize {
                return Some(format!(
                    "it rewrites {links} links, more than approval_links = {limit}"
                ));
            }
        }
        None
    }
}

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

/// A summary line, then the trailers of DECISIONS §1.
fn commit_message(req: &ApplyRequest, plan: &Plan) -> String {
    let links: usize = plan.edits.iter().map(|e| e.links.len()).sum();
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
    let summary = if parts.is_empty() {
        "Restructure".to_string()
    } else {
        format!("Restructure: {}", parts.join(", "))
    };
    let manifest = serde_json::to_string(&req.manifest_json).unwrap_or_default();
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
