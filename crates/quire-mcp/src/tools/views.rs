//! Saved views (`.quire/views/<name>.json`) and the refresh of computed view pages.

use quire_api::mcp::{ViewDeleteInput, ViewExecuteInput, ViewNameInput, ViewSaveInput};
use quire_service::Space;

use super::{empty, if_match, input, no_args, no_handler, ok, opts, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_views_list",
            description: "Every saved view: a named DQL query with its filters, sort, grouping \
and layout. Look here before writing a query someone may have saved. Cheap.",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_views_get",
            description: "One saved view by `name`: its DQL query, filters, sort, grouping and \
layout. Run it with quire_views_execute. Cheap (one small file).",
            schema: input::<ViewNameInput>,
            read_only: true,
        },
        Def {
            name: "quire_views_save",
            description: "Create or replace the saved view `name` (stored as \
.quire/views/<name>.json, one commit). `view.query` is DQL and must parse; `filters`, `sort` \
and `group_by` are checked too (the error names what is wrong). Pass `if_match` to not \
overwrite a concurrent change.",
            schema: input::<ViewSaveInput>,
            read_only: false,
        },
        Def {
            name: "quire_views_delete",
            description: "Delete the saved view `name` (one commit). Pages are not touched.",
            schema: input::<ViewDeleteInput>,
            read_only: false,
        },
        Def {
            name: "quire_views_execute",
            description: "Run a saved view: its query with its filters, sort and grouping, a page \
of rows (`limit` default 50, at most 1000; `offset`) with the total and the groups. In \
memory, bounded by the configured row and time limits like quire_query.",
            schema: input::<ViewExecuteInput>,
            read_only: true,
        },
        Def {
            name: "quire_view_refresh",
            description: "Recompute every computed view page (`quire-view: true` with \
`quire-query` in its frontmatter) now, rewriting those whose rows changed (author quire). \
They also refresh on their own shortly after writes: call it only when you \
need them current at once. Costs one query per view page.",
            schema: empty,
            read_only: false,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, caller: &Caller) -> Answer {
    match name {
        "quire_views_list" => {
            no_args(name, args)?;
            let list = space.views().list()?;
            let text = format!("{} saved views", list.views.len());
            Ok(ok(&list, text))
        }
        "quire_views_get" => {
            let input: ViewNameInput = parse(name, args)?;
            let view = space.views().get(&input.name)?;
            let text = format!("view {}: {}", view.name, view.query);
            Ok(ok(&view, text))
        }
        "quire_views_save" => {
            let input: ViewSaveInput = parse(name, args)?;
            let o = opts(caller, input.message, if_match(input.if_match));
            let view = space.views().put(&input.name, input.view, &o)?;
            Ok(ok(&view, format!("saved view {}", view.name)))
        }
        "quire_views_delete" => {
            let input: ViewDeleteInput = parse(name, args)?;
            let o = opts(caller, input.message, if_match(input.if_match));
            let deleted = space.views().delete(&input.name, &o)?;
            Ok(ok(&deleted, format!("deleted view {}", deleted.name)))
        }
        "quire_views_execute" => {
            let input: ViewExecuteInput = parse(name, args)?;
            let result = space
                .views()
                .execute(&input.name, input.limit, input.offset)?;
            let text = format!(
                "{} of {} rows of view {}",
                result.rows.len(),
                result.total,
                input.name
            );
            Ok(ok(&result, text))
        }
        "quire_view_refresh" => {
            no_args(name, args)?;
            let refreshed = space.views().refresh()?;
            let text = format!(
                "{} computed view pages recomputed, {} written",
                refreshed.refreshed, refreshed.written
            );
            Ok(ok(&refreshed, text))
        }
        other => Err(no_handler(other)),
    }
}
