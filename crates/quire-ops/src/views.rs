//! Saved views (`.quire/views/<name>.json`): list, read, save, delete, run; and the refresh of
//! computed view pages.

use quire_api::mcp::{NoInput, ViewDeleteInput, ViewExecuteInput, ViewNameInput, ViewSaveInput};
use quire_api::{View, ViewDeleted, ViewList, ViewRefresh, ViewResult};
use quire_service::{Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "views";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<ViewsList>();
    v.op::<ViewsGet>();
    v.op::<ViewsSave>();
    v.op::<ViewsDelete>();
    v.op::<ViewsExecute>();
    v.op::<ViewRefreshOp>();
}

/// `GET /views`, `quire_views_list`.
pub struct ViewsList;

impl Operation for ViewsList {
    type Input = NoInput;
    type Output = ViewList;
    const META: Meta = Meta::read("views_list", AREA, "Every saved view")
        .rest(Rest::get("/views"))
        .tool(Tool::named("quire_views_list"))
        .describe(
            "Every saved view: a named DQL query with its filters, sort, grouping \
and layout. Look here before writing a query someone may have saved. Cheap.",
        );

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<ViewList> {
        space.views().list()
    }
}

/// `GET /views/{name}`, `quire_views_get`.
pub struct ViewsGet;

impl Operation for ViewsGet {
    type Input = ViewNameInput;
    type Output = View;
    const META: Meta = Meta::read("views_get", AREA, "One saved view")
        .rest(Rest::get("/views/{name}"))
        .tool(Tool::named("quire_views_get"))
        .describe(
            "One saved view by `name`: its DQL query, filters, sort, grouping and \
layout. Run it with quire_views_execute. Cheap (one small file).",
        );

    fn run(space: &Space, input: ViewNameInput, _: &Caller) -> Result<View> {
        space.views().get(&input.name)
    }
}

/// `PUT /views/{name}`, `quire_views_save`. REST sends the view as the body (the name in the
/// URL, the ETag in `If-Match`).
pub struct ViewsSave;

impl Operation for ViewsSave {
    type Input = ViewSaveInput;
    type Output = View;
    const META: Meta = Meta::write(
        "views_save",
        AREA,
        "Creates or replaces a saved view, stored as `.quire/views/{name}.json` and committed",
    )
    .rest(Rest::put("/views/{name}").raw_body("view", "application/json"))
    .tool(Tool::named("quire_views_save"))
    .describe(
        "Create or replace the saved view `name` (stored as \
.quire/views/<name>.json, one commit). `view.query` is DQL and must parse; `filters`, `sort` \
and `group_by` are checked too (the error names what is wrong). Pass `if_match` to not \
overwrite a concurrent change.",
    );

    fn run(space: &Space, input: ViewSaveInput, caller: &Caller) -> Result<View> {
        let opts = caller.write_options(input.message, input.if_match);
        space.views().put(&input.name, input.view, &opts)
    }
}

/// `DELETE /views/{name}`, `quire_views_delete`.
pub struct ViewsDelete;

impl Operation for ViewsDelete {
    type Input = ViewDeleteInput;
    type Output = ViewDeleted;
    const META: Meta = Meta::write("views_delete", AREA, "Deletes a saved view (a commit)")
        .rest(Rest::delete("/views/{name}"))
        .tool(Tool::named("quire_views_delete"))
        .describe("Delete the saved view `name` (one commit). Pages are not touched.");

    fn run(space: &Space, input: ViewDeleteInput, caller: &Caller) -> Result<ViewDeleted> {
        let opts = caller.write_options(input.message, input.if_match);
        space.views().delete(&input.name, &opts)
    }
}

/// `GET /views/{name}/execute`, `quire_views_execute`.
pub struct ViewsExecute;

impl Operation for ViewsExecute {
    type Input = ViewExecuteInput;
    type Output = ViewResult;
    const META: Meta = Meta::read(
        "views_execute",
        AREA,
        "Runs a saved view's query with its `filters`, `sort` and `group_by`: a page of its rows \
with the total (and the groups)",
    )
    .rest(Rest::get("/views/{name}/execute"))
    .tool(Tool::named("quire_views_execute"))
    .describe(
        "Run a saved view: its query with its filters, sort and grouping, a page \
of rows (`limit` default 50, at most 1000; `offset`) with the total and the groups. In \
memory, bounded by the configured row and time limits like quire_query.",
    );

    fn run(space: &Space, input: ViewExecuteInput, _: &Caller) -> Result<ViewResult> {
        space
            .views()
            .execute(&input.name, input.limit, input.offset)
    }
}

/// `POST /view/refresh`, `quire_view_refresh`: takes no body.
pub struct ViewRefreshOp;

impl Operation for ViewRefreshOp {
    type Input = NoInput;
    type Output = ViewRefresh;
    const META: Meta = Meta::write(
        "view_refresh",
        AREA,
        "Recomputes every computed view page (`quire-view: true` with `quire-query`) now; they \
also refresh on their own after writes",
    )
    .rest(Rest::post("/view/refresh").query())
    .tool(Tool::named("quire_view_refresh"))
    .describe(
        "Recompute every computed view page (`quire-view: true` with \
`quire-query` in its frontmatter) now, rewriting those whose rows changed (author quire). \
They also refresh on their own shortly after writes: call it only when you \
need them current at once. Costs one query per view page.",
    );

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<ViewRefresh> {
        space.views().refresh()
    }
}
