//! Canvases (`*.canvas.json`, JSON Canvas 1.0): list, read, write.

use quire_api::mcp::{CanvasReadInput, CanvasWriteInput};
use quire_service::Space;

use super::{empty, if_match, input, no_args, no_handler, ok, opts, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_canvas_list",
            description: "Every canvas (`*.canvas.json`) by path. Cheap.",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_canvas_read",
            description: "Canvas `path` as JSON Canvas: `nodes` (id, type text|file|link|group, \
x, y, width, height, text/file/url/label) and `edges` (id, fromNode, toNode, label), with its \
`etag`. `file` nodes name pages by root-relative path.",
            schema: input::<CanvasReadInput>,
            read_only: true,
        },
        Def {
            name: "quire_canvas_write",
            description: "Replace (or create) canvas `path` with `canvas` (`nodes` and `edges`; \
empty arrays allowed), one commit. Node ids must be unique and every edge must join two \
existing nodes. Pass `if_match` (the etag quire_canvas_read gave) to not overwrite a \
concurrent change.",
            schema: input::<CanvasWriteInput>,
            read_only: false,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, caller: &Caller) -> Answer {
    let canvases = space.canvases();
    match name {
        "quire_canvas_list" => {
            no_args(name, args)?;
            let list = canvases.list()?;
            let text = format!("{} canvases", list.canvases.len());
            Ok(ok(&list, text))
        }
        "quire_canvas_read" => {
            let input: CanvasReadInput = parse(name, args)?;
            let (bytes, etag) = canvases.read_raw(&input.path)?;
            let canvas: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
                quire_service::Error::bad_request(format!("{} is not valid JSON: {e}", input.path))
            })?;
            let text = format!("{} ({} bytes)", input.path, bytes.len());
            let answer = serde_json::json!({"path": input.path, "canvas": canvas, "etag": etag});
            Ok(ok(&answer, text))
        }
        "quire_canvas_write" => {
            let input: CanvasWriteInput = parse(name, args)?;
            let o = opts(caller, input.message, if_match(input.if_match));
            let body =
                serde_json::to_vec_pretty(&input.canvas).map_err(quire_service::Error::internal)?;
            let written = canvases.write(&input.path, &body, &o)?;
            let text = format!("wrote {}", written.path);
            Ok(ok(&written, text))
        }
        _ => Err(no_handler(name)),
    }
}
