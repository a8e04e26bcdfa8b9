//! A Notion page's body: its blocks, read by `GET /v1/blocks/{id}/children` (paged by
//! `start_cursor` while `has_more`, nested blocks by their own id), and their markdown.
//!
//! Followed: the children of paragraphs, headings, list items, to-dos, quotes, callouts,
//! toggles, tables (their rows), column lists and columns, and original synced blocks, down
//! to [`DEPTH`] levels below the page. Not followed: child pages and child databases (a line
//! naming them), duplicate synced blocks (their content lives on another page), and every
//! type not converted (skipped with its children: breadcrumb, table_of_contents,
//! link_to_page, template, audio, unsupported, …).

use serde_json::Value;

use super::{authorized, PAGE_MOST};
use crate::kind::SourceKind;
use crate::web::{encode, malformed, Client, Service};
use crate::ImportError;

/// Levels of nesting read below a page's own blocks; deeper children are left out.
pub(super) const DEPTH: usize = 8;

/// One block as read: its `type`, the object under that type, its children.
pub(super) struct Block {
    kind: String,
    data: Value,
    children: Vec<Block>,
}

/// The blocks under `id` (a page or a block), `depth` levels below the page.
pub(super) fn read(
    client: &Client,
    service: &Service,
    id: &str,
    depth: usize,
) -> Result<Vec<Block>, ImportError> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!(
            "{}/v1/blocks/{}/children?page_size={PAGE_MOST}",
            service.base,
            encode(id)
        );
        if let Some(cursor) = &cursor {
            url.push_str("&start_cursor=");
            url.push_str(&encode(cursor));
        }
        let answer = client.send_explained(
            authorized(client.get(&url), service),
            "is the page shared with the integration?",
        )?;
        let results = answer
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Notion, "a list of blocks"))?;
        for block in results {
            let kind = block
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let data = block.get(&kind).cloned().unwrap_or(Value::Null);
            let mut children = Vec::new();
            if block.get("has_children") == Some(&Value::Bool(true))
                && depth < DEPTH
                && followed(&kind, &data)
            {
                if let Some(child) = block.get("id").and_then(Value::as_str) {
                    children = read(client, service, child, depth + 1)?;
                }
            }
            out.push(Block {
                kind,
                data,
                children,
            });
        }
        let more = answer.get("has_more").and_then(Value::as_bool) == Some(true);
        match answer.get("next_cursor").and_then(Value::as_str) {
            Some(next) if more && !results.is_empty() => cursor = Some(next.to_string()),
            _ => return Ok(out),
        }
    }
}

/// Whether the children of a block of `kind` are read.
fn followed(kind: &str, data: &Value) -> bool {
    match kind {
        "paragraph" | "heading_1" | "heading_2" | "heading_3" | "bulleted_list_item"
        | "numbered_list_item" | "to_do" | "quote" | "callout" | "toggle" | "table"
        | "column_list" | "column" => true,
        "synced_block" => data.get("synced_from").is_none_or(Value::is_null),
        _ => false,
    }
}

/// Blocks as markdown: a blank line between blocks, the items of one list together.
pub(super) fn markdown(blocks: &[Block]) -> String {
    joined(blocks).0
}

/// The blocks' markdown and the kind of the first block that gave any.
fn joined(blocks: &[Block]) -> (String, Option<&str>) {
    let mut out = String::new();
    let mut first: Option<&str> = None;
    let mut previous: Option<&str> = None;
    for block in blocks {
        let Some(text) = render(block).filter(|t| !t.is_empty()) else {
            continue;
        };
        if let Some(previous) = previous {
            out.push_str(if is_list(previous) && previous == block.kind {
                "\n"
            } else {
                "\n\n"
            });
        }
        out.push_str(&text);
        previous = Some(&block.kind);
        first = first.or(Some(&block.kind));
    }
    (out, first)
}

fn is_list(kind: &str) -> bool {
    matches!(kind, "bulleted_list_item" | "numbered_list_item" | "to_do")
}

/// One block's markdown (without a final newline); `None` for a type not converted.
fn render(block: &Block) -> Option<String> {
    let data = &block.data;
    let text = || rich(data.get("rich_text"));
    let out = match block.kind.as_str() {
        "paragraph" => nested(text(), &block.children, indent),
        "heading_1" | "heading_2" | "heading_3" => {
            let level = block.kind.as_bytes()[8] - b'0';
            let heading = format!("{} {}", "#".repeat(level as usize), text());
            // A toggleable heading's children follow it as they are.
            nested(heading, &block.children, same)
        }
        "bulleted_list_item" => nested(format!("- {}", text()), &block.children, indent),
        "numbered_list_item" => nested(format!("1. {}", text()), &block.children, indent),
        "to_do" => {
            let mark = if data.get("checked") == Some(&Value::Bool(true)) {
                "x"
            } else {
                " "
            };
            nested(format!("- [{mark}] {}", text()), &block.children, indent)
        }
        "toggle" => nested(text(), &block.children, indent),
        "quote" => quoted(&nested(text(), &block.children, same)),
        "callout" => {
            let icon = data
                .get("icon")
                .filter(|i| i.get("type").and_then(Value::as_str) == Some("emoji"))
                .and_then(|i| i.get("emoji"))
                .and_then(Value::as_str);
            let line = match icon {
                Some(icon) => format!("{icon} {}", text()),
                None => text(),
            };
            quoted(&nested(line, &block.children, same))
        }
        "code" => {
            let language = data
                .get("language")
                .and_then(Value::as_str)
                .filter(|l| *l != "plain text")
                .unwrap_or("");
            let code = plain(data.get("rich_text"));
            let fence = if code.contains("```") { "````" } else { "```" };
            format!("{fence}{language}\n{code}\n{fence}")
        }
        "divider" => "---".to_string(),
        "equation" => format!(
            "$${}$$",
            data.get("expression").and_then(Value::as_str).unwrap_or("")
        ),
        "image" | "file" | "pdf" | "video" | "bookmark" | "embed" | "link_preview" => {
            link(&block.kind, data)?
        }
        "table" => table(data, &block.children),
        "child_page" | "child_database" => {
            let title = data.get("title").and_then(Value::as_str).unwrap_or("");
            let what = if block.kind == "child_page" {
                "Page"
            } else {
                "Database"
            };
            format!("{what}: {title}")
        }
        "column_list" | "column" => markdown(&block.children),
        "synced_block" if followed("synced_block", data) => markdown(&block.children),
        _ => return None,
    };
    Some(out)
}

/// `first` then the children's markdown, each line shaped by `shape`: on the next line when
/// they start with a list item, else after a blank line.
fn nested(first: String, children: &[Block], shape: fn(&str) -> String) -> String {
    let (inner, first_kind) = joined(children);
    if inner.is_empty() {
        return first;
    }
    let starts_list = first_kind.is_some_and(is_list);
    let gap = if starts_list && !first.is_empty() {
        "\n"
    } else if first.is_empty() {
        ""
    } else {
        "\n\n"
    };
    format!("{first}{gap}{}", shape(&inner))
}

fn same(text: &str) -> String {
    text.to_string()
}

/// Each non-empty line indented by two spaces.
fn indent(text: &str) -> String {
    prefixed(text, "  ", "")
}

/// Each line as a quote.
fn quoted(text: &str) -> String {
    prefixed(text, "> ", ">")
}

fn prefixed(text: &str, prefix: &str, empty: &str) -> String {
    text.split('\n')
        .map(|line| {
            if line.is_empty() {
                empty.to_string()
            } else {
                format!("{prefix}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file, image, bookmark or embed as a link to its URL (`external.url` or `file.url`; a
/// bookmark's or embed's `url`), named by its caption, else its name, else the URL; an image
/// is a markdown image. `None` without a URL.
fn link(kind: &str, data: &Value) -> Option<String> {
    let url = data
        .get("url")
        .or_else(|| data.get("external").and_then(|e| e.get("url")))
        .or_else(|| data.get("file").and_then(|f| f.get("url")))
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())?;
    let caption = rich(data.get("caption"));
    let name = data.get("name").and_then(Value::as_str).unwrap_or("");
    let label = [caption.as_str(), name, url]
        .into_iter()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(url);
    let bang = if kind == "image" { "!" } else { "" };
    Some(format!("{bang}[{label}]({url})"))
}

/// A table and its rows (`table_row` children) as a markdown table; without a column header
/// the header row is empty.
fn table(data: &Value, rows: &[Block]) -> String {
    let mut cells: Vec<Vec<String>> = rows
        .iter()
        .filter(|r| r.kind == "table_row")
        .map(|r| {
            r.data
                .get("cells")
                .and_then(Value::as_array)
                .map(|cells| {
                    cells
                        .iter()
                        .map(|c| rich(Some(c)).replace('|', "\\|").replace('\n', " "))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    let width = data
        .get("table_width")
        .and_then(Value::as_u64)
        .map_or(0, |w| w as usize)
        .max(cells.iter().map(Vec::len).max().unwrap_or(0))
        .max(1);
    for row in &mut cells {
        row.resize(width, String::new());
    }
    let header_in_rows = data.get("has_column_header") == Some(&Value::Bool(true));
    let header = if header_in_rows && !cells.is_empty() {
        cells.remove(0)
    } else {
        vec![String::new(); width]
    };
    let line = |row: &[String]| format!("| {} |", row.join(" | "));
    let mut out = vec![line(&header), line(&vec!["---".to_string(); width])];
    out.extend(cells.iter().map(|r| line(r)));
    out.join("\n")
}

/// Rich text as plain text (a code block's).
fn plain(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("plain_text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default()
}

/// Rich text as markdown: `code`, bold, italic and strikethrough annotations, `href` as a
/// link, an inline equation as `$…$`; a mention is its `plain_text`.
fn rich(value: Option<&Value>) -> String {
    let Some(parts) = value.and_then(Value::as_array) else {
        return String::new();
    };
    let mut out = String::new();
    for part in parts {
        let text = part.get("plain_text").and_then(Value::as_str).unwrap_or("");
        // Markers must touch the text: spaces around it stay outside them.
        let core = text.trim();
        if core.is_empty() {
            out.push_str(text);
            continue;
        }
        let lead = &text[..text.len() - text.trim_start().len()];
        let trail = &text[text.trim_end().len()..];
        let on = |name: &str| {
            part.get("annotations")
                .and_then(|a| a.get(name))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let mut piece = core.to_string();
        if part.get("type").and_then(Value::as_str) == Some("equation") {
            piece = format!("${piece}$");
        } else if on("code") {
            piece = format!("`{piece}`");
        }
        if on("strikethrough") {
            piece = format!("~~{piece}~~");
        }
        if on("italic") {
            piece = format!("*{piece}*");
        }
        if on("bold") {
            piece = format!("**{piece}**");
        }
        if let Some(href) = part.get("href").and_then(Value::as_str) {
            piece = format!("[{piece}]({href})");
        }
        out.push_str(lead);
        out.push_str(&piece);
        out.push_str(trail);
    }
    out
}
