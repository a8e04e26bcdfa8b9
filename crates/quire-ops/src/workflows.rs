//! Workflows (definitions, a page's state, boards) and the frontmatter schemas of page types.

use quire_api::mcp::{NoInput, WorkflowNameInput, WorkflowSaveInput};
use quire_api::{
    SchemaDocument, SchemaNameInput, SchemaRead, SchemaSave, Workflow, WorkflowAdvance,
    WorkflowAssign, WorkflowBoard, WorkflowDeleted, WorkflowList, WorkflowPage, WorkflowReorder,
    WorkflowReordered, WriteResult,
};
use quire_service::{Error, FileContent, Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "workflows";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<List>();
    v.op::<Get>();
    v.op::<Save>();
    v.op::<Advance>();
    v.op::<Board>();
    v.op::<Delete>();
    v.op::<Assign>();
    v.op::<Reorder>();
    v.op::<Schemas>();
    v.op::<SchemaGet>();
    v.op::<SchemaPut>();
}

/// `GET /workflows`, `quire_workflow_list`.
pub struct List;

impl Operation for List {
    type Input = NoInput;
    type Output = WorkflowList;
    const META: Meta = Meta::read("workflows", AREA, "Every workflow definition")
        .rest(Rest::get("/workflows"))
        .tool(Tool::named("quire_workflow_list"))
        .describe("Every workflow definition: states, transitions, initial state. Cheap.");

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<WorkflowList> {
        space.workflows().list()
    }
}

/// `GET /workflows/{name}`, `quire_workflow_get`.
pub struct Get;

impl Operation for Get {
    type Input = WorkflowNameInput;
    type Output = Workflow;
    const META: Meta = Meta::read("workflow", AREA, "One workflow definition")
        .rest(Rest::get("/workflows/{name}"))
        .tool(Tool::named("quire_workflow_get"))
        .describe(
            "One workflow definition by `name`: its states, the transitions between \
them and its initial state. Cheap (one small file).",
        );

    fn run(space: &Space, input: WorkflowNameInput, _: &Caller) -> Result<Workflow> {
        space.workflows().get(&input.name)
    }
}

/// `PUT /workflows/{name}` (the body is the definition), `quire_workflow_save`.
pub struct Save;

impl Operation for Save {
    type Input = WorkflowSaveInput;
    type Output = Workflow;
    const META: Meta = Meta::write(
        "workflow_save",
        AREA,
        "Creates or replaces a workflow definition, stored as `.quire/workflows/{name}.json` \
and committed",
    )
    .rest(
        Rest::put("/workflows/{name}")
            .body_field("workflow")
            .query_fields(&["if_match", "message"]),
    )
    .tool(Tool::named("quire_workflow_save"))
    .describe(
        "Create or replace workflow `name` (.quire/workflows/<name>.json, one \
commit): `states` (unique names), `transitions` between them, optional `initial`.",
    );

    fn run(space: &Space, input: WorkflowSaveInput, caller: &Caller) -> Result<Workflow> {
        let opts = caller.write_options(input.message, input.if_match);
        space.workflows().put(&input.name, input.workflow, &opts)
    }
}

/// `POST /workflow/advance`, `quire_workflow_advance`.
pub struct Advance;

impl Operation for Advance {
    type Input = WorkflowAdvance;
    type Output = WorkflowPage;
    const META: Meta = Meta::write(
        "workflow_advance",
        AREA,
        "Moves a page to another state of its workflow (one commit of its frontmatter `state`)",
    )
    .rest(Rest::post("/workflow/advance"))
    .tool(Tool::named("quire_workflow_advance"))
    .describe(
        "Move page `path` to `target_state` of its workflow (frontmatter \
`state`, one commit). Refused when the page is in no workflow, the state does not exist, or \
enforced transitions do not list the move.",
    );

    fn run(space: &Space, input: WorkflowAdvance, caller: &Caller) -> Result<WorkflowPage> {
        let opts = caller.write_options_by(input.actor.clone(), None, None);
        space.workflows().advance(&input, &opts)
    }

    fn text(output: &WorkflowPage) -> String {
        format!(
            "{} is now {} in {} (etag {})",
            output.path, output.state, output.workflow, output.etag
        )
    }
}

/// `GET /workflow/board/{name}`, `quire_workflow_board`.
pub struct Board;

impl Operation for Board {
    type Input = WorkflowNameInput;
    type Output = WorkflowBoard;
    const META: Meta = Meta::read(
        "workflow_board",
        AREA,
        "The pages of a workflow by state, each column in its stored order",
    )
    .rest(Rest::get("/workflow/board/{name}"))
    .tool(Tool::named("quire_workflow_board"))
    .describe(
        "The pages of workflow `name` by state, each column in its stored \
order, with title and priority, assignee, due, status.",
    );

    fn run(space: &Space, input: WorkflowNameInput, _: &Caller) -> Result<WorkflowBoard> {
        space.workflows().board(&input.name)
    }
}

/// `DELETE /workflows/{name}`.
pub struct Delete;

impl Operation for Delete {
    type Input = WorkflowNameInput;
    type Output = WorkflowDeleted;
    const META: Meta = Meta::write(
        "workflow_delete",
        AREA,
        "Deletes a workflow definition and its column order (one commit)",
    )
    .rest(Rest::delete("/workflows/{name}"))
    .describe(
        "Deletes a workflow definition and its column order (one commit). Pages keep their \
`workflow` and `state` but can no longer be advanced.",
    );

    fn run(space: &Space, input: WorkflowNameInput, caller: &Caller) -> Result<WorkflowDeleted> {
        space
            .workflows()
            .delete(&input.name, &caller.write_options(None, None))
    }
}

/// `POST /workflow/assign`.
pub struct Assign;

impl Operation for Assign {
    type Input = WorkflowAssign;
    type Output = WorkflowPage;
    const META: Meta = Meta::write(
        "workflow_assign",
        AREA,
        "Puts a page into a workflow: sets its frontmatter `workflow` and `state` (one commit)",
    )
    .rest(Rest::post("/workflow/assign"));

    fn run(space: &Space, input: WorkflowAssign, caller: &Caller) -> Result<WorkflowPage> {
        let opts = caller.write_options_by(input.actor.clone(), None, None);
        space.workflows().assign(&input, &opts)
    }
}

/// `POST /workflow/reorder`.
pub struct Reorder;

impl Operation for Reorder {
    type Input = WorkflowReorder;
    type Output = WorkflowReordered;
    const META: Meta = Meta::write(
        "workflow_reorder",
        AREA,
        "Stores the top-to-bottom order of one board column \
(`.quire/workflows/{workflow}.order.json`)",
    )
    .rest(Rest::post("/workflow/reorder"));

    fn run(space: &Space, input: WorkflowReorder, caller: &Caller) -> Result<WorkflowReordered> {
        space
            .workflows()
            .reorder(&input, &caller.write_options(None, None))
    }
}

/// `GET /schemas`.
pub struct Schemas;

impl Operation for Schemas {
    type Input = NoInput;
    type Output = Vec<String>;
    const META: Meta = Meta::read(
        "schemas",
        AREA,
        "The page types that have a schema (`.quire/schemas/<type>.json`)",
    )
    .rest(Rest::get("/schemas"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Vec<String>> {
        space.schemas().list()
    }
}

/// `GET /schemas/{name}`: REST answers the stored bytes, with their ETag.
pub struct SchemaGet;

impl SchemaGet {
    /// The schema file as stored.
    pub fn bytes(space: &Space, name: &str) -> Result<FileContent> {
        space.schemas().get(name)
    }
}

impl Operation for SchemaGet {
    type Input = SchemaNameInput;
    type Output = SchemaRead;
    const META: Meta = Meta::read("schema", AREA, "The JSON Schema of a page type, as stored")
        .rest(Rest::get("/schemas/{name}").raw_answer("application/json"));

    fn run(space: &Space, input: SchemaNameInput, _: &Caller) -> Result<SchemaRead> {
        let content = SchemaGet::bytes(space, &input.name)?;
        let schema = serde_json::from_slice(&content.bytes).map_err(|e| {
            Error::internal(format!("the schema of {} is not JSON: {e}", input.name))
        })?;
        Ok(SchemaRead {
            name: input.name,
            etag: content.etag,
            schema: SchemaDocument(schema),
        })
    }
}

/// `PUT /schemas/{name}`: REST stores the body as sent.
pub struct SchemaPut;

impl SchemaPut {
    /// The write of `bytes` as the schema of page type `name`.
    pub fn bytes(
        space: &Space,
        name: &str,
        bytes: Vec<u8>,
        message: Option<String>,
        if_match: Option<String>,
        caller: &Caller,
    ) -> Result<WriteResult> {
        space
            .schemas()
            .put(name, bytes, &caller.write_options(message, if_match))
    }
}

impl Operation for SchemaPut {
    type Input = SchemaSave;
    type Output = WriteResult;
    const META: Meta = Meta::write(
        "schema_save",
        AREA,
        "Stores the JSON Schema of a page type as `.quire/schemas/{name}.json` (committed)",
    )
    .rest(Rest::put("/schemas/{name}").raw_body("schema", "application/json"))
    .describe(
        "Stores the JSON Schema of a page type as `.quire/schemas/{name}.json` (committed). \
The body must be a valid JSON Schema (checked against its meta-schema; references are never \
fetched). With `[schema] enforce = true`, pages whose frontmatter `type` is `{name}` must then \
satisfy it.",
    );

    fn run(space: &Space, input: SchemaSave, caller: &Caller) -> Result<WriteResult> {
        let bytes = serde_json::to_vec_pretty(&input.schema).map_err(Error::internal)?;
        SchemaPut::bytes(
            space,
            &input.name,
            bytes,
            input.message,
            input.if_match,
            caller,
        )
    }
}
