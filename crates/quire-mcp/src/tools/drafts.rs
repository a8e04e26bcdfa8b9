//! Drafts (changes on a branch of their own until merged) and workflows.

use quire_api::mcp::{
    DraftFileContent, DraftIdInput, DraftMergeInput, DraftReadInput, DraftWriteInput,
    WorkflowAdvanceInput, WorkflowNameInput, WorkflowSaveInput,
};
use quire_api::WorkflowAdvance;
use quire_service::Space;

use super::{empty, if_match, input, no_args, no_handler, ok, opts, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_draft_create",
            description: "Open a draft: a branch holding changes apart from the knowledge base \
until quire_draft_merge. Returns its `id`. Writes into a draft are invisible to reads, search \
and the tree until merged. At most [drafts] max_active drafts are open.",
            schema: empty,
            read_only: false,
        },
        Def {
            name: "quire_draft_list",
            description: "Every open draft: id, branch, actor, created_at, updated_at. Cheap.",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_draft_read",
            description: "With `path`: that file as the draft holds it (content and etag). \
Without: the draft with the files it changed since it began.",
            schema: input::<DraftReadInput>,
            read_only: true,
        },
        Def {
            name: "quire_draft_write",
            description: "Write `content` to `path` in draft `id` (or remove it with `delete: \
true`): one commit on the draft's branch, nothing in the knowledge base. Pass `if_match` (the \
etag quire_draft_read gave) to not overwrite a concurrent change.",
            schema: input::<DraftWriteInput>,
            read_only: false,
        },
        Def {
            name: "quire_draft_diff",
            description: "What draft `id` changed since it began, as one unified diff, with the \
files and whether each was added, modified or deleted.",
            schema: input::<DraftIdInput>,
            read_only: true,
        },
        Def {
            name: "quire_draft_merge",
            description: "Merge draft `id` into the knowledge base as one commit by you, then \
delete it. Lines changed on both sides since the draft began are a conflict: nothing is \
merged and the error names the files.",
            schema: input::<DraftMergeInput>,
            read_only: false,
        },
        Def {
            name: "quire_draft_discard",
            description: "Discard draft `id`: its branch is deleted, nothing is merged.",
            schema: input::<DraftIdInput>,
            read_only: false,
        },
        Def {
            name: "quire_workflow_list",
            description: "Every workflow definition: states, transitions, initial state. Cheap.",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_workflow_get",
            description: "One workflow definition by `name`: its states, the transitions between \
them and its initial state. Cheap (one small file).",
            schema: input::<WorkflowNameInput>,
            read_only: true,
        },
        Def {
            name: "quire_workflow_save",
            description: "Create or replace workflow `name` (.quire/workflows/<name>.json, one \
commit): `states` (unique names), `transitions` between them, optional `initial`.",
            schema: input::<WorkflowSaveInput>,
            read_only: false,
        },
        Def {
            name: "quire_workflow_advance",
            description: "Move page `path` to `target_state` of its workflow (frontmatter \
`state`, one commit). Refused when the page is in no workflow, the state does not exist, or \
enforced transitions do not list the move.",
            schema: input::<WorkflowAdvanceInput>,
            read_only: false,
        },
        Def {
            name: "quire_workflow_board",
            description: "The pages of workflow `name` by state, each column in its stored \
order, with title and priority, assignee, due, status.",
            schema: input::<WorkflowNameInput>,
            read_only: true,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, caller: &Caller) -> Answer {
    let drafts = space.drafts();
    let workflows = space.workflows();
    match name {
        "quire_draft_create" => {
            no_args(name, args)?;
            let draft = drafts.create(Some(&caller.actor))?;
            let text = format!("opened draft {}", draft.id);
            Ok(ok(&draft, text))
        }
        "quire_draft_list" => {
            no_args(name, args)?;
            let list = drafts.list()?;
            let text = format!("{} open drafts", list.len());
            Ok(ok(&serde_json::json!({ "drafts": list }), text))
        }
        "quire_draft_read" => {
            let input: DraftReadInput = parse(name, args)?;
            match input.path {
                Some(path) => {
                    let file = drafts.read(&input.id, &path)?;
                    let content = String::from_utf8_lossy(&file.bytes).into_owned();
                    let text = format!("{path} in draft {} ({} bytes)", input.id, file.bytes.len());
                    let answer = DraftFileContent {
                        id: input.id,
                        path,
                        content,
                        etag: file.etag,
                    };
                    Ok(ok(&answer, text))
                }
                None => {
                    let draft = drafts.get(&input.id)?;
                    let text = format!("draft {}: {} files changed", input.id, draft.files.len());
                    Ok(ok(&draft, text))
                }
            }
        }
        "quire_draft_write" => {
            let input: DraftWriteInput = parse(name, args)?;
            let o = opts(caller, None, if_match(input.if_match));
            if input.delete {
                drafts.delete_file(&input.id, &input.path, &o)?;
                let answer = serde_json::json!({"path": input.path, "deleted": true});
                Ok(ok(
                    &answer,
                    format!("removed {} from draft {}", input.path, input.id),
                ))
            } else {
                let written =
                    drafts.write(&input.id, &input.path, input.content.into_bytes(), &o)?;
                let text = format!("wrote {} in draft {}", written.path, input.id);
                Ok(ok(&written, text))
            }
        }
        "quire_draft_diff" => {
            let input: DraftIdInput = parse(name, args)?;
            let diff = drafts.diff(&input.id)?;
            let text = format!("{} files changed in draft {}", diff.files.len(), input.id);
            Ok(ok(&diff, text))
        }
        "quire_draft_merge" => {
            let input: DraftMergeInput = parse(name, args)?;
            let o = opts(caller, input.message, Default::default());
            let merged = drafts.merge(&input.id, &o)?;
            let text = format!("merged draft {}: {} files", input.id, merged.files.len());
            Ok(ok(&merged, text))
        }
        "quire_draft_discard" => {
            let input: DraftIdInput = parse(name, args)?;
            drafts.discard(&input.id)?;
            let answer = serde_json::json!({"discarded": input.id});
            Ok(ok(&answer, format!("discarded draft {}", input.id)))
        }
        "quire_workflow_list" => {
            no_args(name, args)?;
            let list = workflows.list()?;
            let text = format!("{} workflows", list.workflows.len());
            Ok(ok(&list, text))
        }
        "quire_workflow_get" => {
            let input: WorkflowNameInput = parse(name, args)?;
            let workflow = workflows.get(&input.name)?;
            let text = format!(
                "workflow {}: {} states",
                workflow.name,
                workflow.states.len()
            );
            Ok(ok(&workflow, text))
        }
        "quire_workflow_save" => {
            let input: WorkflowSaveInput = parse(name, args)?;
            let o = opts(caller, input.message, if_match(input.if_match));
            let saved = workflows.put(&input.name, input.workflow, &o)?;
            Ok(ok(&saved, format!("saved workflow {}", saved.name)))
        }
        "quire_workflow_advance" => {
            let input: WorkflowAdvanceInput = parse(name, args)?;
            let o = opts(caller, None, Default::default());
            let request = WorkflowAdvance {
                path: input.path,
                target_state: input.target_state,
                actor: None,
            };
            let page = workflows.advance(&request, &o)?;
            let text = format!("{} is now {} in {}", page.path, page.state, page.workflow);
            Ok(ok(&page, text))
        }
        "quire_workflow_board" => {
            let input: WorkflowNameInput = parse(name, args)?;
            let board = workflows.board(&input.name)?;
            let cards: usize = board.board.values().map(Vec::len).sum();
            let text = format!("workflow {}: {cards} pages", board.workflow);
            Ok(ok(&board, text))
        }
        other => Err(no_handler(other)),
    }
}
