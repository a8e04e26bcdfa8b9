//! `canvas`: canvas JSON, in both shapes — JSON Canvas 1.0 (`file` on the node, `width` and
//! `height`) and the spec's (`id`, `type`, `x`, `y`, `data`) — read by the wire types of
//! `quire_api::canvas` and by the link scanner `quire_syntax::parse_canvas`.
//!
//! Properties: a canvas (or a patch) that decodes serialises and decodes to the same value,
//! unknown keys included; the scanner never fails, its spans lie in the text on character
//! boundaries in order, each target is its span's JSON string unescaped; and on valid JSON
//! written without duplicate keys, the scanner finds exactly the nodes' `file` and
//! `data.file` strings, in order, with the node's `subpath` as fragment.

use quire_api::canvas::{Canvas, CanvasPatch};
use quire_syntax::parse_canvas;
use serde_json::Value;

use crate::text::{check_range, lossy, tokens};
use crate::Target;

pub const TARGET: Target = Target {
    name: "canvas",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "{\"nodes\":[",
        "],\"edges\":[",
        "]}",
        "{\"id\":\"a\",",
        "\"type\":\"file\",",
        "\"type\":\"text\",",
        "\"type\":\"group\",",
        "\"type\":\"link\",",
        "\"x\":0,",
        "\"y\":-10,",
        "\"width\":400,",
        "\"height\":240,",
        "\"file\":\"notes/a.md\"",
        "\"data\":{\"file\":\"b.md\"}",
        "\"subpath\":\"#Heading\"",
        "\"text\":\"# hi\"",
        "\"url\":\"https://x\"",
        "\"label\":\"g\"",
        "\"color\":\"1\"",
        "\"fromNode\":\"a\",",
        "\"toNode\":\"b\"",
        "\"fromSide\":\"top\"",
        "\"toEnd\":\"arrow\"",
        "\"operations\":[",
        "{\"op\":\"add_node\",\"node\":",
        "{\"op\":\"update_node\",\"id\":\"a\",\"node\":{}}",
        "{\"op\":\"remove_edge\",\"id\":\"e\"}",
        "\\\"",
        "\\\\",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud800",
        "\\n",
        "\\/",
        "null",
        "true",
        "1e400",
        "-0",
        "9223372036854775808",
        ",",
        ":",
    ])
}

fn run(data: &[u8]) {
    if let Ok(canvas) = serde_json::from_slice::<Canvas>(data) {
        let json = serde_json::to_vec(&canvas).expect("a canvas serialises");
        let again: Canvas = serde_json::from_slice(&json).expect("a serialised canvas decodes");
        assert_eq!(again, canvas, "a canvas changed through its JSON");
    }
    if let Ok(patch) = serde_json::from_slice::<CanvasPatch>(data) {
        let json = serde_json::to_vec(&patch).expect("a patch serialises");
        let again: CanvasPatch = serde_json::from_slice(&json).expect("a serialised patch decodes");
        assert_eq!(again, patch, "a patch changed through its JSON");
    }

    let text = lossy(data);
    let text = text.as_ref();
    let links = parse_canvas(text);
    let mut previous = 0;
    for link in &links {
        check_range(text, &link.span, "canvas link");
        check_range(text, &link.target_span, "canvas target");
        assert!(
            link.span.start >= previous,
            "canvas links out of order or overlapping"
        );
        previous = link.span.end;
        if let Ok(decoded) =
            serde_json::from_str::<String>(&format!("\"{}\"", &text[link.target_span.clone()]))
        {
            assert_eq!(link.target, decoded, "a target is its JSON string");
        }
    }

    // On valid JSON, the scanner's file references are exactly the document's.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let canonical = value.to_string();
        let found: Vec<_> = parse_canvas(&canonical)
            .into_iter()
            .map(|l| (l.target, l.fragment))
            .collect();
        assert_eq!(found, file_references(&value), "in {canonical}");
    }
}

/// The `file` and `data.file` strings of each node of `nodes`, with the node's `subpath`
/// (without `#`, when not empty) as fragment.
fn file_references(canvas: &Value) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let Some(nodes) = canvas.get("nodes").and_then(Value::as_array) else {
        return out;
    };
    for node in nodes.iter().filter_map(Value::as_object) {
        let fragment = node
            .get("subpath")
            .and_then(Value::as_str)
            .map(|s| s.trim_start_matches('#'))
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        // In the order the keys are written (the scanner meets them so).
        let mut files = Vec::new();
        for (key, value) in node {
            match (key.as_str(), value) {
                ("file", Value::String(file)) => files.push(file.clone()),
                ("data", Value::Object(data)) => {
                    if let Some(Value::String(file)) = data.get("file") {
                        files.push(file.clone());
                    }
                }
                _ => {}
            }
        }
        out.extend(files.into_iter().map(|f| (f, fragment.clone())));
    }
    out
}
