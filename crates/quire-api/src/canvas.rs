//! Canvases (`**/*.canvas.json`, the JSON Canvas 1.0 format): the document, the operations of
//! `PATCH /canvas`, queries, auto-layout and generation from the link graph.
//!
//! Unknown keys of a canvas, a node or an edge are kept as they were (`extra`), so a canvas
//! written by another tool survives a patch or a layout unchanged apart from what was asked.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// A whole canvas: nodes and edges (both may be empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Canvas {
    pub nodes: Vec<CanvasNode>,
    pub edges: Vec<CanvasEdge>,
    /// Other top-level keys, kept as they are.
    #[serde(flatten)]
    #[schema(ignore)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// A node: `text`, `file`, `link` or `group`, with its rectangle in canvas pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasNode {
    pub id: String,
    /// `text`, `file`, `link` or `group`.
    #[serde(rename = "type")]
    pub kind: String,
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
    /// A preset `"1"`–`"6"` or `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Markdown of a `text` node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Root-relative file of a `file` node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `#heading` or `#^block` inside the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
    /// URL of a `link` node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Label of a `group` node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Other keys (`background`, `backgroundStyle`, metadata of other tools), kept as they are.
    #[serde(flatten)]
    #[schema(ignore)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// An edge between two nodes of the same canvas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasEdge {
    pub id: String,
    #[serde(rename = "fromNode")]
    pub from_node: String,
    /// `top`, `right`, `bottom` or `left`.
    #[serde(rename = "fromSide", default, skip_serializing_if = "Option::is_none")]
    pub from_side: Option<String>,
    /// `none` or `arrow`.
    #[serde(rename = "fromEnd", default, skip_serializing_if = "Option::is_none")]
    pub from_end: Option<String>,
    #[serde(rename = "toNode")]
    pub to_node: String,
    #[serde(rename = "toSide", default, skip_serializing_if = "Option::is_none")]
    pub to_side: Option<String>,
    #[serde(rename = "toEnd", default, skip_serializing_if = "Option::is_none")]
    pub to_end: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Other keys, kept as they are.
    #[serde(flatten)]
    #[schema(ignore)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// `GET /canvases`: every canvas of the space, by path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasList {
    pub canvases: Vec<String>,
}

/// A canvas written (`PUT`, `PATCH`, auto-layout, generate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasWritten {
    pub path: String,
    /// ETag of the canvas now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    pub nodes: usize,
    pub edges: usize,
}

/// A canvas deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasDeleted {
    pub path: String,
    pub deleted: bool,
}

/// One operation of `PATCH /canvas`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum CanvasOp {
    /// Adds a node; a node with the same id is replaced (counted as merged).
    AddNode { node: CanvasNode },
    /// Changes the keys given in `node` of the node `id` (a `null` removes an optional key;
    /// `id` itself cannot change).
    UpdateNode {
        id: String,
        #[schema(value_type = Object)]
        node: Map<String, Value>,
    },
    /// Removes a node and every edge touching it.
    RemoveNode { id: String },
    /// Adds an edge; an edge with the same id is replaced (counted as merged).
    AddEdge { edge: CanvasEdge },
    /// Changes the keys given in `edge` of the edge `id`.
    UpdateEdge {
        id: String,
        #[schema(value_type = Object)]
        edge: Map<String, Value>,
    },
    /// Removes an edge.
    RemoveEdge { id: String },
}

/// The body of `PATCH /canvas`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasPatch {
    pub operations: Vec<CanvasOp>,
}

/// What a patch did (DECISIONS §7): "merged" is an add of an existing id or an update; the
/// edges a removed node takes with it count as deleted edges.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasPatched {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    pub nodes_inserted: usize,
    pub nodes_merged: usize,
    pub nodes_deleted: usize,
    pub edges_inserted: usize,
    pub edges_merged: usize,
    pub edges_deleted: usize,
}

/// The answer of `GET /canvas/query`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CanvasQueryResult {
    pub path: String,
    pub nodes: Vec<CanvasNode>,
    pub edges: Vec<CanvasEdge>,
}

/// The body of `POST /canvas/auto-layout`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AutoLayoutRequest {
    /// `dot` (default, layered), `neato` (stress), `fdp` (force-directed) or `circo` (circle).
    #[serde(default)]
    pub layout: Option<String>,
}

/// The body of `POST /canvas/generate`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GenerateCanvasRequest {
    /// Where to write it (default `canvas.canvas.json`; `.canvas.json` added when missing).
    #[serde(default)]
    pub path: Option<String>,
    /// `hierarchical` (default), `radial`, `force` or `circular`.
    #[serde(default)]
    pub layout: Option<String>,
    /// Only pages under this folder, and links with both ends under it.
    #[serde(default)]
    pub folder: Option<String>,
    /// Colour nodes by top-level folder (default `true`).
    #[serde(default)]
    pub colorize: Option<bool>,
}

/// A canvas as stored, with its ETag (`quire_canvas_read`; REST answers the canvas itself,
/// the ETag in its header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CanvasRead {
    pub path: String,
    /// The canvas exactly as stored (unknown keys included).
    #[schemars(with = "Canvas")]
    pub canvas: Value,
    /// The git blob id: pass it as `if_match` to write.
    pub etag: String,
}

/// `PATCH /canvas`: the canvas (a query parameter on REST) and the body's operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CanvasPatchInput {
    /// The canvas, root-relative, ending in `.canvas.json`.
    pub path: String,
    pub operations: Vec<CanvasOp>,
}

/// `GET /canvas/query`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasQueryInput {
    /// The canvas, root-relative, ending in `.canvas.json`.
    pub path: String,
    /// Text in a node's label, text, file, URL or other keys (an edge's label), any case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<String>,
    /// Node type: `text`, `file`, `link` or `group` (edges: both ends of that type).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// A node id: only its neighbours and the edges touching it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connected: Option<String>,
    /// Answer nodes only.
    #[serde(default)]
    pub nodes_only: bool,
    /// Answer edges only.
    #[serde(default)]
    pub edges_only: bool,
}

/// `POST /canvas/auto-layout`: the canvas (a query parameter on REST) and the body's layout.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CanvasLayoutInput {
    /// The canvas, root-relative, ending in `.canvas.json`.
    pub path: String,
    /// `dot` (default, layered), `neato` (stress), `fdp` (force-directed) or `circo` (circle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}
