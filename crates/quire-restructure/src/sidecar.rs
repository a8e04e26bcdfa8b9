//! Files that follow pages: `.quire/comments/<page>.json` (moved, or appended to the
//! canonical page's on merge) and `.quire/personal/<actor>.json` (keys and list entries
//! follow moves and merges). Rewritten JSON is pretty-printed with sorted keys.

use std::collections::BTreeMap;

use quire_vault::PagePath;
use serde_json::Value;

use crate::model::{PathChange, StateChange};

/// The comments file of a page.
pub(crate) fn comments_path(page: &PagePath) -> Option<PagePath> {
    PagePath::new(&format!(".quire/comments/{page}.json")).ok()
}

/// A comments file that changes: where its comments end up and what they become.
pub(crate) struct CommentPlan {
    /// Comment files that move unchanged, with their ETags.
    pub(crate) moves: Vec<(PagePath, PagePath, String)>,
    /// Comment files written with new content; `expect` is the ETag of the file being
    /// replaced (`None` when it does not exist).
    pub(crate) writes: Vec<(PagePath, String, Option<String>)>,
    /// Comment files whose comments went elsewhere, with their ETags.
    pub(crate) deletes: Vec<(PagePath, String)>,
    /// The migrations to list in the plan.
    pub(crate) listed: Vec<PathChange>,
    pub(crate) errors: Vec<String>,
}

/// One input to a destination comments file.
struct Part {
    file: PagePath,
    text: String,
    etag: String,
}

/// Plans the comment files of `moves` (page → new page) and `merges` (page → canonical
/// page, already at its final path). `read` returns text and ETag.
pub(crate) fn plan_comments(
    moves: &BTreeMap<PagePath, PagePath>,
    merges: &BTreeMap<PagePath, PagePath>,
    read: &dyn Fn(&PagePath) -> Option<(String, String)>,
) -> CommentPlan {
    let mut out = CommentPlan {
        moves: Vec::new(),
        writes: Vec::new(),
        deletes: Vec::new(),
        listed: Vec::new(),
        errors: Vec::new(),
    };
    // Destination comments file → (final page path, parts in order).
    let mut targets: BTreeMap<PagePath, (PagePath, Vec<Part>)> = BTreeMap::new();
    let mut add = |page: &PagePath, dest_page: &PagePath, out: &mut CommentPlan| {
        let (Some(file), Some(dest)) = (comments_path(page), comments_path(dest_page)) else {
            return;
        };
        if let Some((text, etag)) = read(&file) {
            out.listed.push(PathChange {
                from: file.clone(),
                to: dest.clone(),
            });
            targets
                .entry(dest)
                .or_insert_with(|| (dest_page.clone(), Vec::new()))
                .1
                .push(Part { file, text, etag });
        }
    };
    for (from, to) in moves {
        add(from, to, &mut out);
    }
    for (from, into) in merges {
        add(from, into, &mut out);
    }
    let leaving: std::collections::BTreeSet<PagePath> = targets
        .values()
        .flat_map(|(_, parts)| parts.iter().map(|part| part.file.clone()))
        .collect();
    for (dest, (page, parts)) in targets {
        // The destination's own comments stay first unless that file moves away itself.
        let existing = if leaving.contains(&dest) {
            None
        } else {
            read(&dest)
        };
        let single_move = existing.is_none() && parts.len() == 1;
        let mut merged: Vec<Value> = Vec::new();
        let mut rewritten = false;
        let sources = existing
            .iter()
            .map(|(text, _)| (&dest, text))
            .chain(parts.iter().map(|part| (&part.file, &part.text)));
        let mut failed = false;
        for (file, text) in sources {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Array(items)) => {
                    for mut item in items {
                        if let Some(Value::String(path)) = item.get_mut("path") {
                            if path != page.as_str() {
                                *path = page.to_string();
                                rewritten = true;
                            }
                        }
                        merged.push(item);
                    }
                }
                _ => {
                    out.errors.push(format!(
                        "comments file `{file}` is not a JSON array; fix it before restructuring"
                    ));
                    failed = true;
                }
            }
        }
        if failed {
            continue;
        }
        if single_move && !rewritten {
            let part = &parts[0];
            out.moves
                .push((part.file.clone(), dest.clone(), part.etag.clone()));
            continue;
        }
        for part in &parts {
            if part.file != dest {
                out.deletes.push((part.file.clone(), part.etag.clone()));
            }
        }
        let expect = existing.map(|(_, etag)| etag).or_else(|| {
            parts
                .iter()
                .find(|part| part.file == dest)
                .map(|part| part.etag.clone())
        });
        out.writes
            .push((dest, pretty(&Value::Array(merged)), expect));
    }
    out.listed.sort();
    out
}

/// A personal-state file after the restructuring; `None` when nothing changes.
pub(crate) fn plan_personal(
    file: &PagePath,
    text: &str,
    image: &dyn Fn(&str) -> Option<PagePath>,
) -> Result<Option<(String, StateChange)>, String> {
    let mut value: Value = serde_json::from_str(text)
        .map_err(|err| format!("personal state file `{file}` is not valid JSON: {err}"))?;
    let mut change = StateChange {
        file: file.clone(),
        changes: Vec::new(),
        conflicts: Vec::new(),
    };
    let Value::Object(root) = &mut value else {
        return Err(format!("personal state file `{file}` is not a JSON object"));
    };
    if let Some(Value::Object(pages)) = root.get_mut("pages") {
        let moving: Vec<(String, PagePath)> = pages
            .keys()
            .filter_map(|key| image(key).map(|to| (key.clone(), to)))
            .collect();
        let mut carried: Vec<(String, PagePath, Value)> = Vec::new();
        for (key, to) in moving {
            if let Some(value) = pages.remove(&key) {
                carried.push((key, to, value));
            }
        }
        for (key, to, value) in carried {
            if pages.contains_key(to.as_str()) {
                change.conflicts.push(format!(
                    "pages: `{key}` -> `{to}`: `{to}` already has an entry; it is kept"
                ));
            } else {
                change.changes.push(format!("pages: {key} -> {to}"));
                pages.insert(to.to_string(), value);
            }
        }
    }
    if let Some(Value::Object(lists)) = root.get_mut("lists") {
        for (name, list) in lists.iter_mut() {
            let Value::Array(items) = list else { continue };
            let mut seen = std::collections::BTreeSet::new();
            let mut kept = Vec::with_capacity(items.len());
            for item in items.drain(..) {
                let item = match &item {
                    Value::String(path) => match image(path) {
                        Some(to) => {
                            change.changes.push(format!("lists.{name}: {path} -> {to}"));
                            Value::String(to.to_string())
                        }
                        None => item,
                    },
                    _ => item,
                };
                // A merge can bring an entry onto one already listed: keep the first.
                let key = item.to_string();
                if seen.insert(key) {
                    kept.push(item);
                }
            }
            *items = kept;
        }
    }
    if change.changes.is_empty() && change.conflicts.is_empty() {
        return Ok(None);
    }
    Ok(Some((pretty(&value), change)))
}

/// serde_json's pretty form with a final newline. Without serde_json's `preserve_order`
/// feature objects are BTreeMaps, so keys come out sorted: deterministic, not original order.
fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
    text.push('\n');
    text
}
