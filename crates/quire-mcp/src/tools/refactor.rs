//! `quire_refactor_apply`, the one tool of the operation table (`quire_ops::refactor::Apply`)
//! that the MCP adapter does not run through the table's generic call: when an agent's plan
//! needs approval it asks the user first (elicitation), waiting on the async side, and its
//! input has no `approved` of its own (only the user or a person approves, never the agent).
//! Everything else (the digest check, the approval rules, the pending list, the commit) is
//! the service's apply, exactly as `POST /refactor/apply` runs it.

use std::sync::Arc;

use quire_api::mcp::{NotApplied, RefactorApplyInput};
use quire_api::{Applied, Plan};
use quire_service::{ApplyRequest, Error, ErrorCode, Space};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use rmcp::service::{ElicitationError, Peer};
use rmcp::RoleServer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{schema_object, Answer};
use crate::Caller;

/// The tool's name.
pub(super) const APPLY: &str = "quire_refactor_apply";

/// What the tool answers: applied, or not (declined by the user, or waiting for a person).
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(extend("type" = "object"))]
enum ApplyAnswer {
    Applied(Applied),
    NotApplied(NotApplied),
}

/// The input schema the tool lists (the REST body's `approved` and `actor` are not offered).
pub(super) fn input_schema() -> Arc<JsonObject> {
    schema_object(schemars::schema_for!(RefactorApplyInput))
}

/// The output schema the tool lists.
pub(super) fn output_schema() -> Arc<JsonObject> {
    schema_object(schemars::schema_for!(ApplyAnswer))
}

/// Parses the tool's arguments and applies.
pub(super) async fn apply_tool(
    space: Arc<Space>,
    args: serde_json::Value,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Answer {
    let args = match args {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        other => other,
    };
    let input: RefactorApplyInput = serde_json::from_value(args)
        .map_err(|e| Error::bad_request(format!("invalid arguments for {APPLY}: {e}")))?;
    let answer = refactor_apply(space, input, caller, peer).await?;
    let value = serde_json::to_value(&answer).map_err(Error::internal)?;
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// The form a client shows to confirm a restructuring.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Confirm {
    /// Apply this restructuring now.
    apply: bool,
}

rmcp::elicit_safe!(Confirm);

/// Over the approval limits it asks the user (elicitation) when the client can, else leaves
/// the plan to a person's approval.
async fn refactor_apply(
    space: Arc<Space>,
    input: RefactorApplyInput,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Result<ApplyAnswer, Error> {
    quire_service::validate_manifest(&input.manifest)?;
    let mut manifest = input.manifest;
    if input.now.is_some() {
        manifest.now = input.now;
    }
    let mut req = ApplyRequest {
        manifest,
        digest: input.digest,
        approved: false,
        actor: caller.actor.clone(),
        client: caller.client.clone(),
        message: input.message,
    };
    let plan = {
        let space = space.clone();
        let req = req.clone();
        tokio::task::spawn_blocking(move || {
            space
                .restructure()
                .plan_as(&req.manifest, false, Some(&req.actor), &req.client)
        })
        .await
        .map_err(Error::internal)??
    };
    let needs = plan.approval.as_ref().filter(|a| a.required).cloned();
    let can_ask = !peer.supported_elicitation_modes().is_empty();
    if let (Some(approval), true) = (needs, can_ask) {
        let question = format!(
            "An agent wants to restructure the knowledge base: {}. It needs your confirmation \
             because {}. Apply it?",
            plan_summary(&plan),
            approval.reason
        );
        let answer = peer
            .elicit_with_timeout::<Confirm>(question, Some(std::time::Duration::from_secs(600)))
            .await;
        match answer {
            Ok(Some(Confirm { apply: true })) => req.approved = true,
            Ok(_) | Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => {
                return Ok(ApplyAnswer::NotApplied(NotApplied {
                    status: "declined".into(),
                    message: "the user declined this restructuring; nothing was written".into(),
                    plan,
                }));
            }
            Err(e) => {
                return Err(Error::unavailable(format!(
                    "could not ask the user to confirm this restructuring ({e}); nothing was \
                     written"
                )))
            }
        }
    }
    let outcome = tokio::task::spawn_blocking(move || space.restructure().apply(&req))
        .await
        .map_err(Error::internal)?;
    match outcome {
        Ok((applied, plan)) => Ok(ApplyAnswer::Applied(Applied { applied, plan })),
        Err(e) if e.code == ErrorCode::ApprovalRequired => {
            let plan = e.plan().cloned().unwrap_or(plan);
            Ok(ApplyAnswer::NotApplied(NotApplied {
                status: "pending".into(),
                message: format!(
                    "{e}. Nothing was written: the plan waits in pending approvals until a \
                     person approves it (web UI, or POST /refactor/approve with this manifest \
                     and digest {}); then call quire_refactor_apply again with that digest.",
                    plan.digest
                ),
                plan,
            }))
        }
        Err(e) => Err(e),
    }
}

/// One line for the user's confirmation prompt.
fn plan_summary(plan: &Plan) -> String {
    format!(
        "plan {}: {} moves, {} merges, {} pages rewritten ({} links), {} conflicts, {} errors",
        plan.digest,
        plan.moves.len(),
        plan.merges.len(),
        plan.edits.len(),
        plan.rewritten_links(),
        plan.conflicts.len(),
        plan.errors.len()
    )
}
