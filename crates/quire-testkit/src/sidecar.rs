//! Files beside the pages: canvases, `.quire/comments/<page path>.json` and
//! `.quire/personal/<actor>.json` (DECISIONS §2).

use std::fmt::Write;

use crate::calendar;
use crate::json::push_str;
use crate::layout::{join, title_case, Layout};
use crate::rng::Rng;
use crate::words::{ACTORS, REMARKS, WORDS};
use crate::{LinkCounts, LinkStyle};

/// A canvas path in a random folder, and its JSON. File nodes name pages by root-relative
/// path, as `"file"` or (in the node's `data`) as `"data": {"file": …}`; the hub is never one.
pub(crate) fn canvas(layout: &Layout, rng: &mut Rng, counts: &mut LinkCounts) -> (String, String) {
    let folder = &layout.folders[rng.below(layout.folders.len())];
    let stem = match rng.below(3) {
        0 => format!("{} Map", title_case(rng.word(WORDS))),
        1 => format!("{}-board", rng.word(WORDS)),
        _ => format!("{} overview", title_case(rng.word(WORDS))),
    };
    let path = join(folder, &format!("{stem}.canvas.json"));

    let targets = &layout.pools.targets;
    let file_nodes = if targets.is_empty() {
        0
    } else {
        rng.between(3, 8)
    };
    // (id, JSON object) of every node.
    let mut nodes: Vec<(u64, String)> = Vec::with_capacity(file_nodes + 3);
    let mut node = |rng: &mut Rng, body: &str| {
        let slot = nodes.len() as i64;
        let id = rng.next_u64();
        let text = format!(
            "    {{\"id\": \"{id:016x}\", {body}, \"x\": {}, \"y\": {}, \"width\": 400, \"height\": 240}}",
            (slot % 3) * 480 - 480,
            (slot / 3) * 320 - 160,
        );
        nodes.push((id, text));
    };
    for _ in 0..file_nodes {
        let page = &layout.pages[*rng.pick(targets)];
        let mut file = String::with_capacity(page.path.len() + 2);
        push_str(&mut file, &page.path);
        counts.add(LinkStyle::Canvas);
        if rng.percent(70) {
            node(rng, &format!("\"type\": \"file\", \"file\": {file}"));
        } else {
            node(
                rng,
                &format!("\"type\": \"file\", \"data\": {{\"file\": {file}}}"),
            );
        }
    }
    let mut label = String::new();
    push_str(&mut label, &format!("Plan for {}", rng.word(WORDS)));
    node(rng, &format!("\"type\": \"text\", \"text\": {label}"));
    if rng.percent(50) {
        let url = format!("https://example.com/{}", rng.word(WORDS));
        node(rng, &format!("\"type\": \"link\", \"url\": \"{url}\""));
    }

    let mut edges = Vec::with_capacity(nodes.len());
    for pair in nodes.windows(2) {
        let mut edge = format!(
            "    {{\"id\": \"{:016x}\", \"fromNode\": \"{:016x}\", \"toNode\": \"{:016x}\"",
            rng.next_u64(),
            pair[0].0,
            pair[1].0
        );
        if rng.percent(40) {
            let _ = write!(
                edge,
                ", \"label\": \"{}\"",
                rng.pick(&["depends on", "next", "see also"])
            );
        }
        edge.push('}');
        edges.push(edge);
    }
    let json = format!(
        "{{\n  \"nodes\": [\n{}\n  ],\n  \"edges\": [\n{}\n  ]\n}}\n",
        nodes
            .iter()
            .map(|(_, text)| text.as_str())
            .collect::<Vec<_>>()
            .join(",\n"),
        edges.join(",\n")
    );
    (path, json)
}

/// The comments file of one page: a JSON array of 1–3 Comment objects whose lines fall
/// within the page's `lines`.
pub(crate) fn comments(page_path: &str, lines: usize, rng: &mut Rng) -> (String, String) {
    let count = rng.between(1, 3);
    let mut json = String::from("[\n");
    for i in 0..count {
        if i > 0 {
            json.push_str(",\n");
        }
        json.push_str("  {\n    \"id\": ");
        push_str(&mut json, &format!("{:016x}", rng.next_u64()));
        json.push_str(",\n    \"path\": ");
        push_str(&mut json, page_path);
        let _ = write!(
            json,
            ",\n    \"line\": {},\n    \"author\": ",
            rng.between(1, lines.max(1))
        );
        push_str(&mut json, rng.word(ACTORS));
        json.push_str(",\n    \"body\": ");
        push_str(&mut json, rng.word(REMARKS));
        let resolved = if rng.percent(30) { "true" } else { "false" };
        let _ = write!(json, ",\n    \"resolved\": {resolved},\n    \"created\": ");
        push_str(
            &mut json,
            &calendar::timestamp(rng.below(730), rng.below(24 * 60)),
        );
        json.push_str("\n  }");
    }
    json.push_str("\n]\n");
    (format!(".quire/comments/{page_path}.json"), json)
}

/// The personal state of `actor`: a few starred (some also pinned) pages and a `recent` list.
pub(crate) fn personal(layout: &Layout, actor: &str, rng: &mut Rng) -> (String, String) {
    let pages = &layout.pages;
    let count = rng.between(3, 8);
    let mut starred: Vec<(&str, bool)> = rng
        .sample(pages.len(), count)
        .into_iter()
        .map(|i| (pages[i].path.as_str(), rng.percent(25)))
        .collect();
    starred.sort_unstable();
    let count = rng.between(5, 10);
    let recent = rng.sample(pages.len(), count);

    let mut json = String::from("{\n  \"pages\": {");
    for (i, (path, pinned)) in starred.iter().enumerate() {
        json.push_str(if i == 0 { "\n    " } else { ",\n    " });
        push_str(&mut json, path);
        json.push_str(if *pinned {
            ": {\"starred\": true, \"pinned\": true}"
        } else {
            ": {\"starred\": true}"
        });
    }
    json.push_str(if starred.is_empty() {
        "},\n"
    } else {
        "\n  },\n"
    });
    json.push_str("  \"lists\": {\n    \"recent\": [");
    for (i, page) in recent.iter().enumerate() {
        json.push_str(if i == 0 { "\n      " } else { ",\n      " });
        push_str(&mut json, &pages[*page].path);
    }
    json.push_str(if recent.is_empty() {
        "]\n"
    } else {
        "\n    ]\n"
    });
    json.push_str("  }\n}\n");
    (format!(".quire/personal/{actor}.json"), json)
}
