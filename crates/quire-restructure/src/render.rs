//! A plan as people read it: the one-line-per-change summary of the CLI and golden tests.

use std::fmt::Write as _;

use crate::model::Plan;

/// The human summary: moves, merges, rewritten links, side files, then problems, the clock
/// (`now`) when the manifest pinned one, and the counts.
pub fn render_text(plan: &Plan) -> String {
    render_text_limited(plan, usize::MAX)
}

/// [`render_text`] with at most `limit` lines of changes (moves, merges, rewritten links,
/// edits, splits, side files): the rest is counted in one line. Problems, the clock and the
/// counts are always shown. For a confirmation prompt, where ten thousand lines would hide
/// what matters.
pub fn render_text_limited(plan: &Plan, limit: usize) -> String {
    let mut changes = Changes {
        out: String::new(),
        shown: 0,
        hidden: 0,
        limit,
    };
    for change in &plan.moves {
        changes.line(format_args!("move {} -> {}", change.from, change.to));
    }
    for change in &plan.merges {
        changes.line(format_args!("merge {} -> {}", change.from, change.to));
    }
    for edit in &plan.edits {
        for link in &edit.links {
            let (old, new) = link
                .occurrence
                .clone()
                .unwrap_or_else(|| (link.old.clone(), link.new.clone()));
            changes.line(format_args!(
                "{}:{} {} -> {}",
                edit.path, link.line, old, new
            ));
        }
    }
    for edit in &plan.content_edits {
        let at = match &edit.from {
            Some(from) => format!("{} (from {from})", edit.path),
            None => edit.path.to_string(),
        };
        for change in &edit.changes {
            changes.line(format_args!("edit {at}: {change}"));
        }
    }
    for split in &plan.splits {
        for page in &split.pages {
            changes.line(format_args!("split {} -> {page}", split.from));
        }
    }
    for change in &plan.comments {
        changes.line(format_args!("comments {} -> {}", change.from, change.to));
    }
    for state in &plan.state {
        for change in &state.changes {
            changes.line(format_args!("state {}: {}", state.file, change));
        }
        for conflict in &state.conflicts {
            changes.line(format_args!("state conflict {}: {}", state.file, conflict));
        }
    }
    let mut out = changes.out;
    if changes.hidden > 0 {
        let _ = writeln!(
            out,
            "… and {} more change{} (`quire refactor plan` lists them all)",
            changes.hidden,
            if changes.hidden == 1 { "" } else { "s" }
        );
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

/// The change lines of a summary, up to a limit; the others are only counted.
struct Changes {
    out: String,
    shown: usize,
    hidden: usize,
    limit: usize,
}

impl Changes {
    fn line(&mut self, line: std::fmt::Arguments<'_>) {
        if self.shown < self.limit {
            let _ = writeln!(self.out, "{line}");
            self.shown += 1;
        } else {
            self.hidden += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PathChange;
    use quire_vault::PagePath;

    fn plan_of(moves: usize) -> Plan {
        let mut plan = Plan::default();
        for i in 0..moves {
            plan.moves.push(PathChange {
                from: PagePath::new(&format!("a/{i}.md")).unwrap(),
                to: PagePath::new(&format!("b/{i}.md")).unwrap(),
            });
        }
        plan.errors.push("one problem".into());
        plan
    }

    #[test]
    fn a_limited_summary_counts_the_changes_it_leaves_out_and_keeps_the_rest() {
        let text = render_text_limited(&plan_of(5), 2);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "move a/0.md -> b/0.md");
        assert_eq!(lines[1], "move a/1.md -> b/1.md");
        assert_eq!(
            lines[2],
            "… and 3 more changes (`quire refactor plan` lists them all)"
        );
        assert_eq!(lines[3], "error: one problem");
        assert!(lines[4].starts_with("stats: "));
        assert_eq!(
            render_text_limited(&plan_of(2), 2),
            render_text(&plan_of(2))
        );
        assert!(render_text_limited(&plan_of(3), 2).contains("… and 1 more change ("));
    }
}
