//! Canvases (`*.canvas.json`, JSON Canvas 1.0): list, read, write, patch, delete, query,
//! auto-layout, and generation from the link graph.

use quire_api::mcp::{CanvasReadInput, CanvasWriteInput, NoInput};
use quire_api::{
    CanvasDeleted, CanvasLayoutInput, CanvasList, CanvasPatchInput, CanvasPatched,
    CanvasQueryInput, CanvasQueryResult, CanvasRead, CanvasWritten, GenerateCanvasRequest,
};
use quire_service::{CanvasQuery, Error, Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "canvas";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<List>();
    v.op::<Read>();
    v.op::<Write>();
    v.op::<Patch>();
    v.op::<Delete>();
    v.op::<Query>();
    v.op::<AutoLayout>();
    v.op::<Generate>();
}

/// `GET /canvases`, `quire_canvas_list`.
pub struct List;

impl Operation for List {
    type Input = NoInput;
    type Output = CanvasList;
    const META: Meta = Meta::read("canvases", AREA, "Every canvas of the space, by path")
        .rest(Rest::get("/canvases"))
        .tool(Tool::named("quire_canvas_list"))
        .describe("Every canvas (`*.canvas.json`) by path. Cheap.");

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<CanvasList> {
        space.canvases().list()
    }
}

/// `GET /canvas` (REST answers the stored bytes, with their ETag), `quire_canvas_read`.
pub struct Read;

impl Read {
    /// The canvas as stored, and its ETag.
    pub fn bytes(space: &Space, path: &str) -> Result<(Vec<u8>, String)> {
        space.canvases().read_raw(path)
    }
}

impl Operation for Read {
    type Input = CanvasReadInput;
    type Output = CanvasRead;
    const META: Meta = Meta::read(
        "canvas",
        AREA,
        "A canvas as stored (JSON Canvas 1.0), with its ETag",
    )
    .rest(Rest::get("/canvas").raw_answer("application/json"))
    .tool(Tool::named("quire_canvas_read"))
    .describe(
        "Canvas `path` as JSON Canvas: `nodes` (id, type text|file|link|group, \
x, y, width, height, text/file/url/label) and `edges` (id, fromNode, toNode, label), with its \
`etag`. `file` nodes name pages by root-relative path.",
    );

    fn run(space: &Space, input: CanvasReadInput, _: &Caller) -> Result<CanvasRead> {
        let (bytes, etag) = Read::bytes(space, &input.path)?;
        let canvas = serde_json::from_slice(&bytes)
            .map_err(|e| Error::bad_request(format!("{} is not valid JSON: {e}", input.path)))?;
        Ok(CanvasRead {
            path: input.path,
            canvas,
            etag,
        })
    }
}

/// `PUT /canvas` (REST stores the body as sent), `quire_canvas_write`.
pub struct Write;

impl Write {
    /// The write of `body` as canvas `path`.
    pub fn bytes(
        space: &Space,
        path: &str,
        body: &[u8],
        message: Option<String>,
        if_match: Option<String>,
        caller: &Caller,
    ) -> Result<CanvasWritten> {
        space
            .canvases()
            .write(path, body, &caller.write_options(message, if_match))
    }
}

impl Operation for Write {
    type Input = CanvasWriteInput;
    type Output = CanvasWritten;
    const META: Meta = Meta::write(
        "canvas_write",
        AREA,
        "Creates or replaces a canvas (one commit); the body must be a valid canvas with \
`nodes` and `edges` arrays (empty allowed) and is stored as sent",
    )
    .rest(Rest::put("/canvas").raw_body("canvas", "application/json"))
    .tool(Tool::named("quire_canvas_write"))
    .describe(
        "Replace (or create) canvas `path` with `canvas` (`nodes` and `edges`; \
empty arrays allowed), one commit. Node ids must be unique and every edge must join two \
existing nodes. Pass `if_match` (the etag quire_canvas_read gave) to not overwrite a \
concurrent change.",
    );

    fn run(space: &Space, input: CanvasWriteInput, caller: &Caller) -> Result<CanvasWritten> {
        let body = serde_json::to_vec_pretty(&input.canvas).map_err(Error::internal)?;
        Write::bytes(
            space,
            &input.path,
            &body,
            input.message,
            input.if_match,
            caller,
        )
    }
}

/// `PATCH /canvas`.
pub struct Patch;

impl Operation for Patch {
    type Input = CanvasPatchInput;
    type Output = CanvasPatched;
    const META: Meta = Meta::write(
        "canvas_patch",
        AREA,
        "Applies node and edge operations atomically: one failing operation rejects the batch \
and nothing is written",
    )
    .rest(Rest::patch("/canvas").query_fields(&["path"]))
    .describe(
        "Applies node and edge operations atomically: one failing operation rejects the \
batch and nothing is written. Removing a node removes its edges.",
    );

    fn run(space: &Space, input: CanvasPatchInput, caller: &Caller) -> Result<CanvasPatched> {
        space.canvases().patch(
            &input.path,
            &input.operations,
            &caller.write_options(None, None),
        )
    }
}

/// `DELETE /canvas`.
pub struct Delete;

impl Operation for Delete {
    type Input = CanvasReadInput;
    type Output = CanvasDeleted;
    const META: Meta = Meta::write("canvas_delete", AREA, "Deletes a canvas (one commit)")
        .rest(Rest::delete("/canvas"));

    fn run(space: &Space, input: CanvasReadInput, caller: &Caller) -> Result<CanvasDeleted> {
        space
            .canvases()
            .delete(&input.path, &caller.write_options(None, None))
    }
}

/// `GET /canvas/query`.
pub struct Query;

impl Operation for Query {
    type Input = CanvasQueryInput;
    type Output = CanvasQueryResult;
    const META: Meta = Meta::read(
        "canvas_query",
        AREA,
        "The nodes and edges of a canvas matching text, a node type or a node's neighbourhood",
    )
    .rest(Rest::get("/canvas/query"));

    fn run(space: &Space, input: CanvasQueryInput, _: &Caller) -> Result<CanvasQueryResult> {
        let query = CanvasQuery {
            q: input.q,
            kind: input.kind,
            connected: input.connected,
            nodes_only: input.nodes_only,
            edges_only: input.edges_only,
        };
        space.canvases().query(&input.path, &query)
    }
}

/// `POST /canvas/auto-layout`.
pub struct AutoLayout;

impl Operation for AutoLayout {
    type Input = CanvasLayoutInput;
    type Output = CanvasWritten;
    const META: Meta = Meta::write(
        "canvas_auto_layout",
        AREA,
        "Repositions a canvas's nodes by a layout (`dot` layered, `neato` stress, `fdp` \
force-directed, `circo` circle); adds no node. The body may be empty (`dot`).",
    )
    .rest(
        Rest::post("/canvas/auto-layout")
            .query_fields(&["path"])
            .empty_body(),
    );

    fn run(space: &Space, input: CanvasLayoutInput, caller: &Caller) -> Result<CanvasWritten> {
        space.canvases().auto_layout(
            &input.path,
            input.layout.as_deref(),
            &caller.write_options(None, None),
        )
    }
}

/// `POST /canvas/generate`.
pub struct Generate;

impl Operation for Generate {
    type Input = GenerateCanvasRequest;
    type Output = CanvasWritten;
    const META: Meta = Meta::write(
        "canvas_generate",
        AREA,
        "Builds a canvas of the pages and the resolved wiki links between them, laid out and \
(by default) coloured by top-level folder; replaces a canvas already at the path",
    )
    .rest(Rest::post("/canvas/generate"));

    fn run(space: &Space, input: GenerateCanvasRequest, caller: &Caller) -> Result<CanvasWritten> {
        let graph = space.find().graph();
        space
            .canvases()
            .generate(&input, &graph, &caller.write_options(None, None))
    }
}
