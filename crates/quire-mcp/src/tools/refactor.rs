//! Restructuring: rename, plan, apply (asking the user when the plan needs approval), script,
//! revert.

use std::sync::Arc;

use quire_api::mcp::{NotApplied, RefactorApplyInput, RefactorPlanInput, RefactorRevertInput};
use quire_api::{Applied, RenameRequest, ScriptRequest};
use quire_service::{ApplyRequest, Error, ErrorCode, Expect, Relink, Space};
use rmcp::service::{ElicitationError, Peer};
use rmcp::RoleServer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{input, no_handler, ok, opts, parse, Answer, Area, Def};
use crate::Caller;

/// The one tool that runs on the async side (it may wait for the user's answer).
pub(super) const APPLY: &str = "quire_refactor_apply";

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_rename",
            description: "Move or rename one file and rewrite every link to it (default \
`relink: true`), as one commit. Never overwrites an existing file. Cost grows with the number \
of pages linking to it.",
            schema: input::<RenameRequest>,
            read_only: false,
        },
        Def {
            name: "quire_refactor_plan",
            description:
                "Plan a restructuring from a manifest (moves, merges, edits, tag renames, \
relinks, split) without writing anything: which files move, every link rewritten, conflicts, \
integrity and the `digest` to apply it with. Says whether the user must confirm it \
(`approval`). Reads only the pages it rewrites.",
            schema: input::<RefactorPlanInput>,
            read_only: true,
        },
        Def {
            name: "quire_refactor_apply",
            description:
                "Apply a planned manifest as exactly one revertible commit, keeping every \
link working. Pass the plan's `digest`: nothing is written when the workspace changed since. \
Plans over the approval limits ask the user to confirm (when the client can ask), else wait \
for a person's approval (web UI or POST /refactor/approve) and the answer says so; apply the \
same digest again once approved. `now` pins the clock of date expressions.",
            schema: input::<RefactorApplyInput>,
            read_only: false,
        },
        Def {
            name: "quire_refactor_script",
            description: "Compute a manifest with a Starlark script and plan it, when the change \
depends on what the pages hold. The script may call query(dql), files(glob), read(path), \
frontmatter(path), links(path), slug(text), json.encode/decode and print, and returns the \
manifest from main() (or sets `manifest`). It runs in a separate read-only process (256 MB, \
30 s, no while, no recursion). Answers the manifest, what it printed and the plan; apply the \
manifest with quire_refactor_apply. Nothing is written.",
            schema: input::<ScriptRequest>,
            read_only: true,
        },
        Def {
            name: "quire_refactor_revert",
            description: "Undo a commit (a restructuring or any write) as a new commit; refused \
when a file it changed has changed since. `dry_run` answers the revert plan and its digest.",
            schema: input::<RefactorRevertInput>,
            read_only: false,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, caller: &Caller) -> Answer {
    match name {
        "quire_rename" => {
            let input: RenameRequest = parse(name, args)?;
            let mut o = opts(caller, input.message, Expect::Anything);
            if let Some(actor) = input.actor {
                o.actor = Some(actor);
            }
            let relink = if input.relink {
                Relink::Yes
            } else {
                Relink::No
            };
            let renamed = space
                .restructure()
                .rename(&input.from, &input.to, relink, &o)?;
            let text = format!(
                "renamed {} to {} ({} links updated)",
                renamed.from, renamed.to, renamed.updated_links
            );
            Ok(ok(&renamed, text))
        }
        "quire_refactor_plan" => {
            let input: RefactorPlanInput = parse(name, args)?;
            quire_service::validate_manifest(&input.manifest)?;
            let plan = space.restructure().plan_as(
                &input.manifest,
                input.diffs,
                Some(&caller.actor),
                &caller.client,
            )?;
            let text = plan_summary(&plan);
            Ok(ok(&plan, text))
        }
        "quire_refactor_script" => {
            let input: ScriptRequest = parse(name, args)?;
            let answer = space.restructure().script(
                &input.script,
                input.diffs,
                Some(&caller.actor),
                &caller.client,
            )?;
            let text = format!(
                "script output {} bytes; {}",
                answer.output.len(),
                plan_summary(&answer.plan)
            );
            Ok(ok(&answer, text))
        }
        "quire_refactor_revert" => {
            let input: RefactorRevertInput = parse(name, args)?;
            if input.dry_run {
                let plan = space.restructure().revert_plan(&input.commit)?;
                let text = plan_summary(&plan);
                return Ok(ok(&plan, text));
            }
            let (applied, plan) = space.restructure().revert(
                &input.commit,
                input.digest.as_deref(),
                &caller.actor,
                &caller.client,
            )?;
            let text = format!(
                "reverted {} as commit {}",
                input.commit,
                applied.commit.as_deref().unwrap_or("-")
            );
            Ok(ok(&Applied { applied, plan }, text))
        }
        other => Err(no_handler(other)),
    }
}

/// `quire_refactor_apply`: parses its arguments and applies.
pub(super) async fn apply_tool(
    space: Arc<Space>,
    args: serde_json::Value,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Answer {
    let input: RefactorApplyInput = parse(APPLY, args)?;
    refactor_apply(space, input, caller, peer).await
}

/// The form a client shows to confirm a restructuring.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Confirm {
    /// Apply this restructuring now.
    apply: bool,
}

rmcp::elicit_safe!(Confirm);

/// `quire_refactor_apply`: over the approval limits it asks the user (elicitation) when the
/// client can, else leaves the plan to a person's approval.
async fn refactor_apply(
    space: Arc<Space>,
    input: RefactorApplyInput,
    caller: &Caller,
    peer: &Peer<RoleServer>,
) -> Answer {
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
                let not = NotApplied {
                    status: "declined".into(),
                    message: "the user declined this restructuring; nothing was written".into(),
                    plan,
                };
                let text = not.message.clone();
                return Ok(ok(&not, text));
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
        Ok((applied, plan)) => {
            let text = format!(
                "applied as commit {} ({} written, {} deleted)",
                applied.commit.as_deref().unwrap_or("-"),
                applied.written,
                applied.deleted
            );
            Ok(ok(&Applied { applied, plan }, text))
        }
        Err(e) if e.code == ErrorCode::ApprovalRequired => {
            let plan = e.plan().cloned().unwrap_or(plan);
            let not = NotApplied {
                status: "pending".into(),
                message: format!(
                    "{e}. Nothing was written: the plan waits in pending approvals until a \
                     person approves it (web UI, or POST /refactor/approve with this manifest \
                     and digest {}); then call quire_refactor_apply again with that digest.",
                    plan.digest
                ),
                plan,
            };
            let text = not.message.clone();
            Ok(ok(&not, text))
        }
        Err(e) => Err(e),
    }
}

fn plan_summary(plan: &quire_api::Plan) -> String {
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
