//! Workflows (drafts are operations of the table, `quire_ops::drafts`).

use quire_api::mcp::{WorkflowAdvanceInput, WorkflowNameInput, WorkflowSaveInput};
use quire_api::WorkflowAdvance;
use quire_service::Space;

use super::{empty, if_match, input, no_args, no_handler, ok, opts, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
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
    let workflows = space.workflows();
    match name {
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
