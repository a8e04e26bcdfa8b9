//! A plan as people and editors read it: the one-line-per-change summary of the CLI and
//! golden tests, and the LSP WorkspaceEdit of editor renames.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::model::Plan;

/// The human summary: moves, merges, rewritten links, side files, then problems.
pub fn render_text(plan: &Plan) -> String {
    let mut out = String::new();
    for change in &plan.moves {
        let _ = writeln!(out, "move {} -> {}", change.from, change.to);
    }
    for change in &plan.merges {
        let _ = writeln!(out, "merge {} -> {}", change.from, change.to);
    }
    for edit in &plan.edits {
        for link in &edit.links {
            let (old, new) = link
                .occurrence
                .clone()
                .unwrap_or_else(|| (link.old.clone(), link.new.clone()));
            let _ = writeln!(out, "{}:{} {} -> {}", edit.path, link.line, old, new);
        }
    }
    for change in &plan.comments {
        let _ = writeln!(out, "comments {} -> {}", change.from, change.to);
    }
    for state in &plan.state {
        for change in &state.changes {
            let _ = writeln!(out, "state {}: {}", state.file, change);
        }
        for conflict in &state.conflicts {
            let _ = writeln!(out, "state conflict {}: {}", state.file, conflict);
        }
    }
    for dir in &plan.removed_dirs {
        let _ = writeln!(out, "remove dir {dir}/");
    }
    for conflict in &plan.conflicts {
        let _ = writeln!(
            out,
            "conflict {} {}: {}",
            conflict.code.as_str(),
            conflict.path,
            conflict.detail
        );
    }
    for error in &plan.errors {
        let _ = writeln!(out, "error: {error}");
    }
    for rejected in &plan.rejected {
        let _ = writeln!(out, "rejected {}: {}", rejected.path, rejected.error);
    }
    for item in &plan.plan_only {
        let _ = writeln!(out, "plan only: {item}");
    }
    for warning in &plan.warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    for orphan in &plan.integrity.orphaned {
        let _ = writeln!(out, "orphaned {}", orphan.path);
    }
    for link in &plan.integrity.unresolved {
        let _ = writeln!(out, "unresolved {} -> {}", link.source, link.target);
    }
    let stats = &plan.stats;
    let _ = writeln!(
        out,
        "stats: {} pages, {} links, {} rewritten, {} unresolved{}",
        stats.pages,
        stats.links,
        stats.rewritten,
        stats.unresolved,
        if plan.integrity.complete {
            ""
        } else {
            " (incomplete)"
        }
    );
    out
}

/// The plan as an LSP `WorkspaceEdit`: text edits on the pages as they are now (UTF-16
/// positions), then file renames for moves and deletes for merged pages. Editors apply
/// `documentChanges` in order, so the edits land before the files move.
pub fn workspace_edit(plan: &Plan, root_uri: &str) -> Value {
    let root = root_uri.trim_end_matches('/');
    let uri = |path: &str| format!("{root}/{}", encode_uri_path(path));
    let mut changes: Vec<Value> = Vec::new();
    for edit in &plan.edits {
        let current = edit.from.as_ref().unwrap_or(&edit.path);
        let edits: Vec<Value> = edit
            .links
            .iter()
            .filter_map(|link| {
                let range = link.range?;
                Some(json!({
                    "range": {
                        "start": {"line": range.start.0, "character": range.start.1},
                        "end": {"line": range.end.0, "character": range.end.1},
                    },
                    "newText": link.new,
                }))
            })
            .collect();
        if !edits.is_empty() {
            changes.push(json!({
                "textDocument": {"uri": uri(current.as_str()), "version": null},
                "edits": edits,
            }));
        }
    }
    for change in &plan.moves {
        changes.push(json!({
            "kind": "rename",
            "oldUri": uri(change.from.as_str()),
            "newUri": uri(change.to.as_str()),
        }));
    }
    for change in &plan.merges {
        changes.push(json!({
            "kind": "delete",
            "uri": uri(change.from.as_str()),
        }));
    }
    json!({ "documentChanges": changes })
}

/// Percent-encodes a root-relative path for a `file:` URI, keeping `/` and unreserved bytes.
fn encode_uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_paths_encode_spaces_and_unicode() {
        assert_eq!(encode_uri_path("a b/ü.md"), "a%20b/%C3%BC.md");
        assert_eq!(encode_uri_path("x-y_z.md"), "x-y_z.md");
    }
}
