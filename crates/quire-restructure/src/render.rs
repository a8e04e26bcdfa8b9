//! A plan as people read it: the one-line-per-change summary of the CLI and golden tests.

use std::fmt::Write as _;

use crate::model::Plan;

/// The human summary: moves, merges, rewritten links, side files, then problems, the clock
/// (`now`) when the manifest pinned one, and the counts.
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
    for edit in &plan.content_edits {
        let at = match &edit.from {
            Some(from) => format!("{} (from {from})", edit.path),
            None => edit.path.to_string(),
        };
        for change in &edit.changes {
            let _ = writeln!(out, "edit {at}: {change}");
        }
    }
    for split in &plan.splits {
        for page in &split.pages {
            let _ = writeln!(out, "split {} -> {page}", split.from);
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
    for note in &plan.integrity.normalization {
        let _ = writeln!(out, "normalization: {note}");
    }
    if let Some(now) = &plan.now {
        let _ = writeln!(out, "now: {now}");
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
