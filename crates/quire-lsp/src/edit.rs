//! Edits the server proposes (the editor applies them; the server writes nothing): renaming
//! a heading with every `#fragment` link to it, and the link edits of file and folder renames,
//! planned by the restructuring planner.

use std::collections::BTreeMap;
use std::ops::Range;

use lsp_server::{Message, Notification};
use lsp_types::{RenameFilesParams, RenameParams, TextDocumentPositionParams};
use quire_api::workspace_edit::{workspace_edit, DocumentChange, WorkspaceEditRequest};
use quire_syntax::{print_target, slug, Heading, Link, LinkKind};
use quire_vault::PagePath;
use serde_json::{json, Value};

use crate::navigate::heading_on_line;
use crate::server::{is_internal, Answer, Failure, Server};
use crate::text::Lines;

/// Who plans file renames (named in the plan; never an agent).
const CLIENT: &str = "lsp";

impl Server {
    /// The heading text under the cursor, when it is on a heading's line.
    pub fn prepare_rename(&self, p: TextDocumentPositionParams) -> Answer {
        let (_, doc) = self.doc(p.text_document.uri.as_str())?;
        let Some((_, heading)) = heading_on_line(&doc.parsed, p.position.line) else {
            return Ok(Value::Null);
        };
        let Some(at) = heading_text(&doc.text, heading) else {
            return Ok(Value::Null);
        };
        Ok(json!({
            "range": Lines::new(&doc.text).range(&at),
            "placeholder": heading.text,
        }))
    }

    /// Renames the heading on the cursor's line: its text, and the fragment of every link
    /// reaching it (other pages' and the page's own `[[#…]]`), spelled as each link spelled
    /// it (text, or slug).
    pub fn rename(&self, p: RenameParams) -> Answer {
        let position = &p.text_document_position;
        let (path, doc) = self.doc(position.text_document.uri.as_str())?;
        let Some((_, heading)) = heading_on_line(&doc.parsed, position.position.line) else {
            return Err(Failure::invalid(
                "only a heading can be renamed here; rename a page by renaming its file",
            ));
        };
        let new_name = p.new_name.trim();
        if new_name.is_empty() || new_name.contains(['\n', '\r']) {
            return Err(Failure::invalid(
                "a heading needs a one-line, non-empty text",
            ));
        }
        if let Some(c) = new_name
            .chars()
            .find(|c| matches!(c, '[' | ']' | '|' | '#' | '^'))
        {
            return Err(Failure::invalid(format!(
                "a heading that links name cannot contain {c:?}"
            )));
        }
        let Some(at) = heading_text(&doc.text, heading) else {
            return Err(Failure::invalid("this heading has no text to rename"));
        };
        let mut edits: BTreeMap<PagePath, Vec<(Range<usize>, String)>> = BTreeMap::new();
        edits
            .entry(path.clone())
            .or_default()
            .push((at, new_name.to_owned()));
        for (source, links) in self.heading_links(&path, heading) {
            let Some(text) = self.text_of(&source) else {
                continue;
            };
            for link in links {
                if let Some((range, raw)) = fragment_range(&text, &link) {
                    let new = new_fragment(&link, raw, heading, new_name);
                    edits.entry(source.clone()).or_default().push((range, new));
                }
            }
        }
        let mut changes = Vec::new();
        for (page, page_edits) in edits {
            let Some(text) = self.text_of(&page) else {
                continue;
            };
            let lines = Lines::new(&text);
            let list: Vec<Value> = page_edits
                .iter()
                .map(|(range, new)| json!({"range": lines.range(range), "newText": new}))
                .collect();
            let uri = match self.docs.get(&page) {
                Some(doc) => doc.uri.clone(),
                None => self.roots.uri_of(page.as_str()),
            };
            changes.push(json!({
                "textDocument": {"uri": uri, "version": self.version_of(&page)},
                "edits": list,
            }));
        }
        Ok(json!({"documentChanges": changes}))
    }

    /// The link edits of renaming files and folders: the plan of the same moves, as a
    /// workspace edit without the renames themselves (the editor makes those).
    pub fn will_rename_files(&self, p: RenameFilesParams) -> Answer {
        let mut renames = Vec::new();
        for file in &p.files {
            let (Some(old), Some(new)) = (
                self.roots.path_of(&file.old_uri),
                self.roots.path_of(&file.new_uri),
            ) else {
                continue;
            };
            if is_internal(&old) || is_internal(&new) {
                continue;
            }
            renames.push(json!({
                "kind": "rename",
                "oldUri": self.canonical_uri(&old),
                "newUri": self.canonical_uri(&new),
            }));
        }
        if renames.is_empty() {
            return Ok(Value::Null);
        }
        let request: WorkspaceEditRequest =
            serde_json::from_value(json!({"documentChanges": renames}))
                .map_err(|e| Failure::invalid(e.to_string()))?;
        let planned = self
            .space
            .restructure()
            .plan_workspace_edit(&request, false, None, CLIENT)?;
        let plan = planned.plan;
        if !plan.errors.is_empty() {
            self.show_warning(&format!(
                "quire: links are not rewritten for this rename: {}",
                plan.errors.join("; ")
            ));
            return Ok(Value::Null);
        }
        let edit = workspace_edit(&plan, &self.roots.uri);
        let changes: Vec<DocumentChange> = edit
            .document_changes
            .into_iter()
            .filter(|c| matches!(c, DocumentChange::Edit(_)))
            .collect();
        if changes.is_empty() {
            return Ok(Value::Null);
        }
        Ok(json!({"documentChanges": changes}))
    }

    /// A path's URI in the root's canonical spelling (the one the planner maps back).
    fn canonical_uri(&self, path: &PagePath) -> String {
        let root = self.roots.dir.to_string_lossy();
        quire_api::workspace_edit::file_uri(&format!(
            "{}/{}",
            root.trim_end_matches('/'),
            path.as_str()
        ))
    }

    fn show_warning(&self, message: &str) {
        let _ = self.sender().send(Message::Notification(Notification::new(
            "window/showMessage".into(),
            json!({"type": 2, "message": message}),
        )));
    }
}

/// The bytes of a heading's text inside its line (after the `#` marks).
fn heading_text(text: &str, heading: &Heading) -> Option<Range<usize>> {
    if heading.text.is_empty() {
        return None;
    }
    let line = &text[heading.span.clone()];
    let skip = line.len() - line.trim_start_matches(['#', ' ', '\t']).len();
    let at = line[skip..].find(&heading.text)? + skip;
    Some(heading.span.start + at..heading.span.start + at + heading.text.len())
}

/// The bytes of a link's fragment as written (after `#`), and those bytes.
fn fragment_range<'t>(text: &'t str, link: &Link) -> Option<(Range<usize>, &'t str)> {
    let start = link.target_span.end;
    let rest = text.get(start..link.span.end)?;
    let rest = rest.strip_prefix('#')?;
    let end = rest
        .find(|c: char| match link.kind {
            LinkKind::Wiki => matches!(c, '|' | ']'),
            _ if link.angle => c == '>',
            _ => matches!(c, ')' | '"' | '\'') || c.is_whitespace(),
        })
        .unwrap_or(rest.len());
    Some((start + 1..start + 1 + end, &rest[..end]))
}

/// The fragment a link gets for the renamed heading: the slug when it was written as the
/// slug, else the text (percent-encoded in a markdown destination).
fn new_fragment(link: &Link, raw: &str, heading: &Heading, new_name: &str) -> String {
    if raw == heading.slug && raw != heading.text {
        return slug(new_name);
    }
    match link.kind {
        LinkKind::Wiki => new_name.to_owned(),
        _ => print_target(LinkKind::Markdown, link.angle, new_name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_are_found_as_written() {
        let text = "[[a#Next Steps|x]] [t](b.md#next-steps) [u](<c d.md#Next Steps>)";
        let parsed = quire_syntax::parse(text);
        let raw: Vec<&str> = parsed
            .links
            .iter()
            .map(|l| fragment_range(text, l).unwrap().1)
            .collect();
        assert_eq!(raw, ["Next Steps", "next-steps", "Next Steps"]);
        let heading = quire_syntax::parse("## Next Steps\n").headings.remove(0);
        let new: Vec<String> = parsed
            .links
            .iter()
            .zip(&raw)
            .map(|(l, r)| new_fragment(l, r, &heading, "Later On"))
            .collect();
        assert_eq!(new, ["Later On", "later-on", "Later On"]);
    }

    #[test]
    fn heading_text_skips_the_marks() {
        let text = "intro\n##  Big Idea ##\n";
        let heading = quire_syntax::parse(text).headings.remove(0);
        assert_eq!(&text[heading_text(text, &heading).unwrap()], "Big Idea");
    }
}
