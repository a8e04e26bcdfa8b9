//! Canvases (`**/*.canvas.json`, JSON Canvas 1.0): list, read, write, patch, delete, query,
//! auto-layout and generation from the link graph. Every write is one change through the
//! pipeline; a canvas is validated whole before anything is written, so bad input writes
//! nothing and a patch applies all its operations or none.

use std::collections::{BTreeMap, HashMap, HashSet};

use quire_api::{
    Canvas, CanvasDeleted, CanvasEdge, CanvasList, CanvasNode, CanvasOp, CanvasPatched,
    CanvasQueryResult, CanvasWritten, GenerateCanvasRequest,
};
use quire_layout::{Algorithm, Size};
use quire_store::etag;
use quire_vault::PagePath;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::change::WriteOptions;
use crate::change::{Announce, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// The suffix every canvas path ends in.
pub const CANVAS_SUFFIX: &str = ".canvas.json";
/// Where `POST /canvas/generate` writes when no path is given.
pub const DEFAULT_GENERATED: &str = "canvas.canvas.json";
/// The most nodes auto-layout and generate lay out.
pub const MAX_LAYOUT_NODES: usize = 2_000;
/// How often a patch without If-Match is tried when other writers keep changing the canvas.
const PATCH_ATTEMPTS: u32 = 8;
/// The size of a page's node in a generated canvas.
const PAGE_NODE: Size = Size {
    width: 400,
    height: 240,
};

/// What `GET /canvas/query` asks.
#[derive(Debug, Clone, Default)]
pub struct CanvasQuery {
    /// Text in a node's label, text, file, URL or other keys (an edge's label or other keys),
    /// case-insensitive.
    pub q: Option<String>,
    /// Node type: `text`, `file`, `link` or `group`.
    pub kind: Option<String>,
    /// Only what touches this node: its neighbours and its edges.
    pub connected: Option<String>,
    pub nodes_only: bool,
    pub edges_only: bool,
}

/// The canvases of one space.
#[derive(Clone, Copy)]
pub struct Canvases<'a>(pub(crate) &'a SpaceCore);

impl Canvases<'_> {
    /// Every canvas, by path (`.quire/` excluded).
    pub fn list(&self) -> Result<CanvasList> {
        let vault = self.0.links.vault();
        let mut canvases: Vec<String> = vault
            .files()
            .filter(|p| p.is_canvas() && !p.as_str().starts_with(".quire/"))
            .map(|p| p.to_string())
            .collect();
        canvases.sort();
        Ok(CanvasList { canvases })
    }

    /// A canvas's bytes as stored, and its ETag.
    pub fn read_raw(&self, path: &str) -> Result<(Vec<u8>, String)> {
        let path = canvas_path(path)?;
        let bytes = self.0.root.read(&path)?;
        let tag = etag(&bytes);
        Ok((bytes, tag))
    }

    /// Replaces (or creates) a canvas with `body`, which must be a valid canvas; the bytes
    /// are stored as sent.
    pub fn write(&self, path: &str, body: &[u8], opts: &WriteOptions) -> Result<CanvasWritten> {
        let path = canvas_path(path)?;
        let canvas = parse(body)?;
        validate(&canvas)?;
        self.store(
            &path,
            body.to_vec(),
            &canvas,
            opts.expect.clone(),
            opts,
            None,
        )
    }

    /// Deletes a canvas.
    pub fn delete(&self, path: &str, opts: &WriteOptions) -> Result<CanvasDeleted> {
        let path = canvas_path(path)?;
        // 404 for a canvas that is not there, before anything is written.
        self.0.root.read(&path)?;
        self.0.apply(Change::one(
            FileOp {
                path: path.clone(),
                content: None,
                expect: opts.expect.clone(),
            },
            opts,
            || format!("Delete {path}"),
        ))?;
        Ok(CanvasDeleted {
            path: path.to_string(),
            deleted: true,
        })
    }

    /// Applies every operation in order to the canvas, or none: any failing operation, or a
    /// canvas that would be invalid afterwards, refuses the whole batch.
    pub fn patch(
        &self,
        path: &str,
        operations: &[CanvasOp],
        opts: &WriteOptions,
    ) -> Result<CanvasPatched> {
        let path = canvas_path(path)?;
        if operations.is_empty() {
            return Err(Error::bad_request(
                "operations must hold at least one operation",
            ));
        }
        // Without If-Match, a patch that lost a race with another writer of the canvas is
        // applied again to what that writer left (a few times): concurrent patches touching
        // different nodes both land, none is lost.
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.patch_once(&path, operations, opts) {
                Err(e)
                    if e.code == quire_api::ErrorCode::Conflict
                        && matches!(opts.expect, Expect::Anything)
                        && attempts < PATCH_ATTEMPTS => {}
                done => return done,
            }
        }
    }

    fn patch_once(
        &self,
        path: &PagePath,
        operations: &[CanvasOp],
        opts: &WriteOptions,
    ) -> Result<CanvasPatched> {
        let (mut canvas, tag) = self.load(path)?;
        let mut out = CanvasPatched {
            path: path.to_string(),
            ..CanvasPatched::default()
        };
        for (i, op) in operations.iter().enumerate() {
            apply_op(&mut canvas, op, &mut out)
                .map_err(|e| Error::new(e.code, format!("operation {i}: {}", e.message)))?;
        }
        validate(&canvas)?;
        let expect = match &opts.expect {
            Expect::Anything => Expect::Etag(tag),
            other => other.clone(),
        };
        let written = self.store(
            path,
            to_bytes(&canvas)?,
            &canvas,
            expect,
            opts,
            Some(format!("Patch {path}")),
        )?;
        out.etag = written.etag;
        Ok(out)
    }

    /// The nodes and edges matching a query.
    pub fn query(&self, path: &str, query: &CanvasQuery) -> Result<CanvasQueryResult> {
        let path = canvas_path(path)?;
        if query.nodes_only && query.edges_only {
            return Err(Error::bad_request(
                "nodes_only and edges_only cannot both be true",
            ));
        }
        if query.kind.as_deref().is_some_and(|k| k.trim().is_empty()) {
            return Err(Error::bad_request("type, when given, names a node type"));
        }
        let (canvas, _) = self.load(&path)?;
        let needle = query
            .q
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .map(str::to_lowercase);
        let neighbours: Option<HashSet<&str>> = match query.connected.as_deref() {
            None => None,
            Some(id) => {
                if !canvas.nodes.iter().any(|n| n.id == id) {
                    return Err(Error::not_found(format!("no node {id:?} in {path}")));
                }
                Some(
                    canvas
                        .edges
                        .iter()
                        .filter_map(|e| {
                            if e.from_node == id {
                                Some(e.to_node.as_str())
                            } else if e.to_node == id {
                                Some(e.from_node.as_str())
                            } else {
                                None
                            }
                        })
                        .filter(|&other| other != id)
                        .collect(),
                )
            }
        };
        let kind_of: HashMap<&str, &str> = canvas
            .nodes
            .iter()
            .map(|n| (n.id.as_str(), n.kind.as_str()))
            .collect();
        let nodes = if query.edges_only {
            Vec::new()
        } else {
            canvas
                .nodes
                .iter()
                .filter(|n| query.kind.as_deref().is_none_or(|k| n.kind == k))
                .filter(|n| {
                    neighbours
                        .as_ref()
                        .is_none_or(|s| s.contains(n.id.as_str()))
                })
                .filter(|n| needle.as_deref().is_none_or(|q| node_matches(n, q)))
                .cloned()
                .collect()
        };
        let edges = if query.nodes_only {
            Vec::new()
        } else {
            canvas
                .edges
                .iter()
                .filter(|e| {
                    query.kind.as_deref().is_none_or(|k| {
                        kind_of.get(e.from_node.as_str()) == Some(&k)
                            && kind_of.get(e.to_node.as_str()) == Some(&k)
                    })
                })
                .filter(|e| {
                    query
                        .connected
                        .as_deref()
                        .is_none_or(|id| e.from_node == id || e.to_node == id)
                })
                .filter(|e| needle.as_deref().is_none_or(|q| edge_matches(e, q)))
                .cloned()
                .collect()
        };
        Ok(CanvasQueryResult {
            path: path.to_string(),
            nodes,
            edges,
        })
    }

    /// Moves the canvas's nodes to where a layout puts them (`dot` when none is named); adds
    /// and removes nothing.
    pub fn auto_layout(
        &self,
        path: &str,
        layout: Option<&str>,
        opts: &WriteOptions,
    ) -> Result<CanvasWritten> {
        let path = canvas_path(path)?;
        let name = layout.unwrap_or("dot");
        let algorithm = match name.trim().to_ascii_lowercase().as_str() {
            "dot" | "neato" | "fdp" | "circo" => Algorithm::from_name(name),
            _ => None,
        }
        .ok_or_else(|| {
            Error::bad_request(format!("layout {name:?} is not dot, neato, fdp or circo"))
        })?;
        let (mut canvas, tag) = self.load(&path)?;
        arrange(&mut canvas, algorithm)?;
        let expect = match &opts.expect {
            Expect::Anything => Expect::Etag(tag),
            other => other.clone(),
        };
        self.store(
            &path,
            to_bytes(&canvas)?,
            &canvas,
            expect,
            opts,
            Some(format!("Lay out {path} ({name})")),
        )
    }

    /// A canvas of the pages (`file` nodes) and the resolved wiki links between them,
    /// optionally only under a folder, laid out and coloured by top-level folder.
    pub fn generate(
        &self,
        request: &GenerateCanvasRequest,
        graph: &quire_api::Graph,
        opts: &WriteOptions,
    ) -> Result<CanvasWritten> {
        let mut target = request
            .path
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .unwrap_or(DEFAULT_GENERATED)
            .to_string();
        if !target.ends_with(CANVAS_SUFFIX) {
            target.push_str(CANVAS_SUFFIX);
        }
        let path = canvas_path(&target)?;
        let name = request.layout.as_deref().unwrap_or("hierarchical");
        let algorithm = match name.trim().to_ascii_lowercase().as_str() {
            "hierarchical" | "radial" | "force" | "circular" => Algorithm::from_name(name),
            _ => None,
        }
        .ok_or_else(|| {
            Error::bad_request(format!(
                "layout {name:?} is not hierarchical, radial, force or circular"
            ))
        })?;
        let prefix = match request
            .folder
            .as_deref()
            .map(|f| f.trim().trim_matches('/'))
        {
            None | Some("") => None,
            Some(folder) => Some(format!("{}/", PagePath::new(folder)?)),
        };
        let under = |p: &str| prefix.as_deref().is_none_or(|f| p.starts_with(f));
        let mut pages: Vec<&quire_api::GraphNode> =
            graph.nodes.iter().filter(|n| under(&n.id)).collect();
        pages.sort_by(|a, b| a.id.cmp(&b.id));
        let index: HashMap<&str, usize> = pages
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let mut links: Vec<(usize, usize)> = graph
            .edges
            .iter()
            .filter_map(|e| {
                Some((
                    *index.get(e.source.as_str())?,
                    *index.get(e.target.as_str())?,
                ))
            })
            .filter(|(a, b)| a != b)
            .collect();
        links.sort_unstable();
        links.dedup();
        let colorize = request.colorize.unwrap_or(true);
        let folders: BTreeMap<&str, usize> = {
            let mut names: Vec<&str> = pages.iter().map(|n| n.group.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            names.into_iter().enumerate().map(|(i, g)| (g, i)).collect()
        };
        let mut canvas = Canvas {
            nodes: pages
                .iter()
                .map(|n| CanvasNode {
                    id: short_id(&n.id),
                    kind: "file".into(),
                    x: 0.0,
                    y: 0.0,
                    width: Some(PAGE_NODE.width as f64),
                    height: Some(PAGE_NODE.height as f64),
                    color: colorize.then(|| (folders[n.group.as_str()] % 6 + 1).to_string()),
                    text: None,
                    file: Some(n.id.clone()),
                    subpath: None,
                    url: None,
                    label: None,
                    extra: Map::new(),
                })
                .collect(),
            edges: links
                .iter()
                .map(|&(a, b)| CanvasEdge {
                    id: short_id(&format!("{}\u{0}{}", pages[a].id, pages[b].id)),
                    from_node: short_id(&pages[a].id),
                    from_side: None,
                    from_end: None,
                    to_node: short_id(&pages[b].id),
                    to_side: None,
                    to_end: Some("arrow".into()),
                    color: None,
                    label: None,
                    extra: Map::new(),
                })
                .collect(),
            extra: Map::new(),
        };
        arrange(&mut canvas, algorithm)?;
        validate(&canvas)?;
        self.store(
            &path,
            to_bytes(&canvas)?,
            &canvas,
            opts.expect.clone(),
            opts,
            Some(format!("Generate {path} from the link graph ({name})")),
        )
    }

    fn load(&self, path: &PagePath) -> Result<(Canvas, String)> {
        let bytes = self.0.root.read(path)?;
        let tag = etag(&bytes);
        let canvas = parse(&bytes).map_err(|e| {
            Error::unprocessable(format!("{path} is not a valid canvas: {}", e.message))
        })?;
        Ok((canvas, tag))
    }

    fn store(
        &self,
        path: &PagePath,
        bytes: Vec<u8>,
        canvas: &Canvas,
        expect: Expect,
        opts: &WriteOptions,
        message: Option<String>,
    ) -> Result<CanvasWritten> {
        let applied = self.0.apply(Change {
            ops: vec![FileOp {
                path: path.clone(),
                content: Some(bytes),
                expect,
            }],
            actor: opts.actor(),
            message: match message {
                Some(m) => opts.message_or(|| m),
                None => opts.message.clone().unwrap_or_default(),
            },
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        })?;
        Ok(CanvasWritten {
            path: path.to_string(),
            etag: applied.files.first().and_then(|f| f.etag.clone()),
            nodes: canvas.nodes.len(),
            edges: canvas.edges.len(),
        })
    }
}

/// A canvas path: valid, ending in `.canvas.json`, outside `.quire/`.
pub fn canvas_path(path: &str) -> Result<PagePath> {
    let path = PagePath::new(path)?;
    if !path.is_canvas() {
        return Err(Error::bad_request(format!(
            "{path} is not a canvas: the path must end in {CANVAS_SUFFIX}"
        )));
    }
    if path.as_str().starts_with(".quire/") {
        return Err(Error::bad_request(format!(
            "{path} is under .quire/, where no canvas lives"
        )));
    }
    Ok(path)
}

fn parse(bytes: &[u8]) -> Result<Canvas> {
    serde_json::from_slice(bytes)
        .map_err(|e| Error::bad_request(format!("invalid canvas JSON: {e}")))
}

fn to_bytes(canvas: &Canvas) -> Result<Vec<u8>> {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"\t");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    canvas.serialize(&mut ser).map_err(Error::internal)?;
    out.push(b'\n');
    Ok(out)
}

/// The rules of JSON Canvas 1.0 that a reader relies on: unique ids, a type, the content of
/// JSON Canvas's own types (`text` needs `text`, `file` a `file`, `link` a `url`) unless the
/// node carries the spec's `data` instead, positive sizes where given, edges between existing
/// nodes, known sides and ends; file references are root-relative paths that stay inside the
/// root. Other types are the client's own and are kept as they are.
fn validate(canvas: &Canvas) -> Result<()> {
    let mut ids = HashSet::new();
    for node in &canvas.nodes {
        if node.id.trim().is_empty() {
            return Err(Error::bad_request("a node has an empty id"));
        }
        if !ids.insert(node.id.as_str()) {
            return Err(Error::bad_request(format!(
                "node id {:?} is used twice",
                node.id
            )));
        }
        if node.kind.trim().is_empty() {
            return Err(Error::bad_request(format!(
                "node {:?} has no type",
                node.id
            )));
        }
        let has_data = node.extra.contains_key("data");
        let missing = match node.kind.as_str() {
            _ if has_data => None,
            "text" if node.text.is_none() => Some("text"),
            "file" if node.file.is_none() => Some("file"),
            "link" if node.url.is_none() => Some("url"),
            _ => None,
        };
        if let Some(field) = missing {
            return Err(Error::bad_request(format!(
                "{} node {:?} has no {field}",
                node.kind, node.id
            )));
        }
        if node.width.is_some_and(|w| w <= 0.0) || node.height.is_some_and(|h| h <= 0.0) {
            return Err(Error::bad_request(format!(
                "node {:?} must have a positive width and height",
                node.id
            )));
        }
        if let Some(file) = &node.file {
            PagePath::new(file).map_err(|e| {
                Error::bad_request(format!("node {:?}: file {file:?}: {e}", node.id))
            })?;
        }
    }
    let mut edge_ids = HashSet::new();
    for edge in &canvas.edges {
        if edge.id.trim().is_empty() {
            return Err(Error::bad_request("an edge has an empty id"));
        }
        if !edge_ids.insert(edge.id.as_str()) {
            return Err(Error::bad_request(format!(
                "edge id {:?} is used twice",
                edge.id
            )));
        }
        for end in [&edge.from_node, &edge.to_node] {
            if !ids.contains(end.as_str()) {
                return Err(Error::bad_request(format!(
                    "edge {:?} names node {end:?}, which the canvas does not have",
                    edge.id
                )));
            }
        }
        for side in [&edge.from_side, &edge.to_side].into_iter().flatten() {
            if !matches!(side.as_str(), "top" | "right" | "bottom" | "left") {
                return Err(Error::bad_request(format!(
                    "edge {:?}: side {side:?} is not top, right, bottom or left",
                    edge.id
                )));
            }
        }
        for end in [&edge.from_end, &edge.to_end].into_iter().flatten() {
            if !matches!(end.as_str(), "none" | "arrow") {
                return Err(Error::bad_request(format!(
                    "edge {:?}: end {end:?} is not none or arrow",
                    edge.id
                )));
            }
        }
    }
    Ok(())
}

fn apply_op(canvas: &mut Canvas, op: &CanvasOp, out: &mut CanvasPatched) -> Result<()> {
    match op {
        CanvasOp::AddNode { node } => match canvas.nodes.iter_mut().find(|n| n.id == node.id) {
            Some(existing) => {
                *existing = node.clone();
                out.nodes_merged += 1;
            }
            None => {
                canvas.nodes.push(node.clone());
                out.nodes_inserted += 1;
            }
        },
        CanvasOp::UpdateNode { id, node } => {
            let existing = canvas
                .nodes
                .iter_mut()
                .find(|n| &n.id == id)
                .ok_or_else(|| Error::not_found(format!("no node {id:?}")))?;
            *existing = merged(&*existing, node, id)?;
            out.nodes_merged += 1;
        }
        CanvasOp::RemoveNode { id } => {
            let before = canvas.nodes.len();
            canvas.nodes.retain(|n| &n.id != id);
            if canvas.nodes.len() == before {
                return Err(Error::not_found(format!("no node {id:?}")));
            }
            out.nodes_deleted += 1;
            let edges = canvas.edges.len();
            canvas
                .edges
                .retain(|e| &e.from_node != id && &e.to_node != id);
            out.edges_deleted += edges - canvas.edges.len();
        }
        CanvasOp::AddEdge { edge } => match canvas.edges.iter_mut().find(|e| e.id == edge.id) {
            Some(existing) => {
                *existing = edge.clone();
                out.edges_merged += 1;
            }
            None => {
                canvas.edges.push(edge.clone());
                out.edges_inserted += 1;
            }
        },
        CanvasOp::UpdateEdge { id, edge } => {
            let existing = canvas
                .edges
                .iter_mut()
                .find(|e| &e.id == id)
                .ok_or_else(|| Error::not_found(format!("no edge {id:?}")))?;
            *existing = merged(&*existing, edge, id)?;
            out.edges_merged += 1;
        }
        CanvasOp::RemoveEdge { id } => {
            let before = canvas.edges.len();
            canvas.edges.retain(|e| &e.id != id);
            if canvas.edges.len() == before {
                return Err(Error::not_found(format!("no edge {id:?}")));
            }
            out.edges_deleted += 1;
        }
    }
    Ok(())
}

/// `item` with the keys of `changes` set (`null` removes a key); the id cannot change.
fn merged<T>(item: &T, changes: &Map<String, Value>, id: &str) -> Result<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    if changes.get("id").is_some_and(|v| v.as_str() != Some(id)) {
        return Err(Error::bad_request(format!(
            "the id of {id:?} cannot change"
        )));
    }
    let Value::Object(mut fields) = serde_json::to_value(item).map_err(Error::internal)? else {
        return Err(Error::internal("a canvas item is not a JSON object"));
    };
    for (key, value) in changes {
        if value.is_null() {
            fields.remove(key);
        } else {
            fields.insert(key.clone(), value.clone());
        }
    }
    serde_json::from_value(Value::Object(fields))
        .map_err(|e| Error::bad_request(format!("{id:?} would be invalid: {e}")))
}

fn node_matches(node: &CanvasNode, needle: &str) -> bool {
    [
        &node.label,
        &node.text,
        &node.file,
        &node.url,
        &node.subpath,
    ]
    .into_iter()
    .flatten()
    .any(|s| s.to_lowercase().contains(needle))
        || extra_matches(&node.extra, needle)
}

fn edge_matches(edge: &CanvasEdge, needle: &str) -> bool {
    edge.label
        .as_deref()
        .is_some_and(|s| s.to_lowercase().contains(needle))
        || extra_matches(&edge.extra, needle)
}

fn extra_matches(extra: &Map<String, Value>, needle: &str) -> bool {
    fn any_text(value: &Value, needle: &str) -> bool {
        match value {
            Value::String(s) => s.to_lowercase().contains(needle),
            Value::Array(items) => items.iter().any(|v| any_text(v, needle)),
            Value::Object(map) => map
                .iter()
                .any(|(k, v)| k.to_lowercase().contains(needle) || any_text(v, needle)),
            Value::Number(n) => n.to_string().contains(needle),
            Value::Bool(_) | Value::Null => false,
        }
    }
    extra
        .iter()
        .any(|(k, v)| k.to_lowercase().contains(needle) || any_text(v, needle))
}

/// Lays the canvas's nodes out by their own sizes and its edges.
/// Lays `canvas` out in place; a canvas of more than [`MAX_LAYOUT_NODES`] nodes is refused
/// (the layouts compare every pair of nodes).
fn arrange(canvas: &mut Canvas, algorithm: Algorithm) -> Result<()> {
    if canvas.nodes.len() > MAX_LAYOUT_NODES {
        return Err(Error::bad_request(format!(
            "{} nodes are more than a layout handles ({MAX_LAYOUT_NODES}); lay out a smaller \
             canvas (generate: narrow it with `folder`)",
            canvas.nodes.len()
        )));
    }
    let index: HashMap<&str, usize> = canvas
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let sizes: Vec<Size> = canvas
        .nodes
        .iter()
        .map(|n| Size {
            width: n.width().round().max(1.0) as i64,
            height: n.height().round().max(1.0) as i64,
        })
        .collect();
    let edges: Vec<(usize, usize)> = canvas
        .edges
        .iter()
        .filter_map(|e| {
            Some((
                *index.get(e.from_node.as_str())?,
                *index.get(e.to_node.as_str())?,
            ))
        })
        .collect();
    let points = quire_layout::layout(algorithm, &sizes, &edges);
    for (node, p) in canvas.nodes.iter_mut().zip(points) {
        node.x = p.x as f64;
        node.y = p.y as f64;
    }
    Ok(())
}

/// A stable 16-hex-digit id for a generated node or edge.
fn short_id(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canvas(json: &str) -> Canvas {
        parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn validation_refuses_dangling_edges_and_missing_content() {
        let ok = canvas(
            r#"{"nodes":[{"id":"a","type":"text","text":"hi","x":0,"y":0,"width":10,"height":10}],"edges":[]}"#,
        );
        assert!(validate(&ok).is_ok());
        let dangling = canvas(
            r#"{"nodes":[{"id":"a","type":"text","text":"hi","x":0,"y":0,"width":10,"height":10}],
                "edges":[{"id":"e","fromNode":"a","toNode":"b"}]}"#,
        );
        assert!(validate(&dangling).is_err());
        let no_text = canvas(
            r#"{"nodes":[{"id":"a","type":"text","x":0,"y":0,"width":10,"height":10}],"edges":[]}"#,
        );
        assert!(validate(&no_text).is_err());
        let escape = canvas(
            r#"{"nodes":[{"id":"a","type":"file","file":"../x.md","x":0,"y":0,"width":10,"height":10}],"edges":[]}"#,
        );
        assert!(validate(&escape).is_err());
    }

    #[test]
    fn unknown_keys_survive_a_round_trip() {
        let c = canvas(
            r#"{"nodes":[{"id":"a","type":"group","x":0,"y":0,"width":10,"height":10,"background":"b.png"}],"edges":[],"meta":{"v":1}}"#,
        );
        let back: Value = serde_json::from_slice(&to_bytes(&c).unwrap()).unwrap();
        assert_eq!(back["nodes"][0]["background"], "b.png");
        assert_eq!(back["meta"]["v"], 1);
    }

    #[test]
    fn canvas_paths_need_the_suffix() {
        assert!(canvas_path("a/b.canvas.json").is_ok());
        assert!(canvas_path("a/b.json").is_err());
        assert!(canvas_path("../b.canvas.json").is_err());
        assert!(canvas_path(".quire/x.canvas.json").is_err());
    }
}
