//! Comments on pages, kept in `.quire/comments/<page path>.json` (a JSON array of comments,
//! DECISIONS §2) so they are versioned with the page and follow it through restructurings.
//!
//! A comment on a line stores the line's text as its `anchor`. Listing finds the anchor again
//! (the matching line nearest to where it was), so a comment keeps pointing at its text when
//! lines above it change; when the text is gone the comment is `detached` at its stored line.
//! Every write of a comments file relocates its comments and stores their current lines.
//!
//! Ids are `c_` plus 16 random hex digits, unique in the space. `PATCH`/`DELETE` by id scan
//! the comment files (one small JSON file per commented page): always right, also after
//! restructurings and edits made outside quire, at a cost proportional to the commented pages.
//! Every change is one pass of the pipeline (commit, index, events).

use quire_api::{Comment, CommentDeleted, NewComment};
use quire_store::{etag, StoreError};
use quire_vault::PagePath;
use serde_json::Value;

use crate::change::WriteOptions;
use crate::change::{Change, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::restructure::COMMENTS_DIR;

/// Longest comment text accepted.
pub const MAX_COMMENT_BYTES: usize = 64 * 1024;

/// Attempts of a read-modify-write that lost a race with another writer of the same file.
const ATTEMPTS: usize = 5;

/// The comments of one space.
#[derive(Clone, Copy)]
pub struct Comments<'a>(pub(crate) &'a SpaceCore);

/// A comments file as read: its items and the ETag the write must find again.
struct Thread {
    file: PagePath,
    items: Vec<Value>,
    etag: Option<String>,
}

impl Comments<'_> {
    /// The comments of a page, oldest first, each at its current line.
    pub fn list(&self, path: &str) -> Result<Vec<Comment>> {
        let page = self.page(path)?;
        let lines = self.page_lines(&page)?;
        let thread = self.read_thread(&page)?;
        Ok(thread
            .items
            .iter()
            .filter_map(|item| comment_of(item, &page))
            .map(|mut c| {
                relocate(&lines, &mut c);
                c
            })
            .collect())
    }

    /// Adds a comment by the writer of `opts` on `line` (0: the page as a whole).
    pub fn create(&self, path: &str, new: &NewComment, opts: &WriteOptions) -> Result<Comment> {
        let page = self.page(path)?;
        let body = new.body.trim_end();
        if body.trim().is_empty() {
            return Err(Error::bad_request("a comment needs a body"));
        }
        if body.len() > MAX_COMMENT_BYTES {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!("a comment is at most {MAX_COMMENT_BYTES} bytes"),
            ));
        }
        let mut opts = opts.clone();
        if opts.actor.is_none() {
            opts.actor = new.author.clone();
        }
        let author = opts.actor();
        let id = new_id()?;
        let mut made = None;
        self.rewrite(
            &page,
            &opts,
            &format!("Comment on {page}"),
            |lines, items| {
                let anchor = match new.line {
                    0 => None,
                    n => {
                        let text = lines.get(n as usize - 1).ok_or_else(|| {
                            Error::bad_request(format!(
                                "line {n} is beyond the end of {page} ({} lines)",
                                lines.len()
                            ))
                        })?;
                        Some(text.trim().to_string())
                    }
                };
                let comment = Comment {
                    id: id.clone(),
                    path: page.to_string(),
                    line: new.line,
                    author: author.clone(),
                    body: body.to_string(),
                    resolved: false,
                    created: crate::events::now_rfc3339(),
                    anchor,
                    detached: false,
                };
                items.push(serde_json::to_value(&comment).map_err(Error::internal)?);
                made = Some(comment);
                Ok(())
            },
        )?;
        made.ok_or_else(|| Error::internal("the comment was not made"))
    }

    /// Marks a comment resolved (or open again).
    pub fn set_resolved(&self, id: &str, resolved: bool, opts: &WriteOptions) -> Result<Comment> {
        let page = self.page_of(id)?;
        let verb = if resolved { "Resolve" } else { "Reopen" };
        let mut changed = None;
        self.rewrite(
            &page,
            opts,
            &format!("{verb} comment {id} on {page}"),
            |lines, items| {
                let item = items
                    .iter_mut()
                    .find(|item| item.get("id").and_then(Value::as_str) == Some(id))
                    .ok_or_else(|| no_such_comment(id))?;
                item["resolved"] = Value::Bool(resolved);
                let mut comment = comment_of(item, &page).ok_or_else(|| no_such_comment(id))?;
                relocate(lines, &mut comment);
                changed = Some(comment);
                Ok(())
            },
        )?;
        changed.ok_or_else(|| no_such_comment(id))
    }

    /// Deletes a comment; the comments file goes with its last comment.
    pub fn delete(&self, id: &str, opts: &WriteOptions) -> Result<CommentDeleted> {
        let page = self.page_of(id)?;
        self.rewrite(
            &page,
            opts,
            &format!("Delete comment {id} on {page}"),
            |_, items| {
                let before = items.len();
                items.retain(|item| item.get("id").and_then(Value::as_str) != Some(id));
                if items.len() == before {
                    return Err(no_such_comment(id));
                }
                Ok(())
            },
        )?;
        Ok(CommentDeleted {
            deleted: id.to_string(),
            path: page.to_string(),
        })
    }

    /// A page path that comments can be made on: valid, not quire's or git's own file, and
    /// existing.
    fn page(&self, path: &str) -> Result<PagePath> {
        let page = PagePath::new(path)?;
        let s = page.as_str();
        if s.starts_with(".quire/") || s.starts_with(".git/") {
            return Err(Error::bad_request(format!(
                "{s} is not a page: comments are made on pages"
            )));
        }
        match self.0.root.kind(&page)? {
            Some(quire_store::EntryKind::File | quire_store::EntryKind::Symlink) => Ok(page),
            Some(_) => Err(Error::bad_request(format!("{page} is not a file"))),
            None => Err(Error::not_found(format!("{page} does not exist"))),
        }
    }

    fn page_lines(&self, page: &PagePath) -> Result<Vec<String>> {
        let bytes = self.0.root.read(page)?;
        Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect())
    }

    fn read_thread(&self, page: &PagePath) -> Result<Thread> {
        let file = comments_file(page)?;
        let (items, etag) = match self.0.root.read(&file) {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Array(items)) => (items, Some(etag(&bytes))),
                _ => {
                    return Err(Error::unprocessable(format!(
                        "{file} is not a JSON array of comments; fix it first"
                    )))
                }
            },
            Err(StoreError::NotFound { .. }) => (Vec::new(), None),
            Err(e) => return Err(e.into()),
        };
        Ok(Thread { file, items, etag })
    }

    /// Reads the page's comments, lets `edit` change them, relocates every comment to its
    /// current line and writes the file through the pipeline (removed when empty). A
    /// concurrent writer of the same file makes it start again.
    fn rewrite(
        &self,
        page: &PagePath,
        opts: &WriteOptions,
        message: &str,
        mut edit: impl FnMut(&[String], &mut Vec<Value>) -> Result<()>,
    ) -> Result<()> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let lines = self.page_lines(page)?;
            let Thread {
                file,
                mut items,
                etag,
            } = self.read_thread(page)?;
            edit(&lines, &mut items)?;
            for item in &mut items {
                if let Some(mut c) = comment_of(item, page) {
                    relocate(&lines, &mut c);
                    item["line"] = Value::from(c.line);
                }
            }
            let content = if items.is_empty() {
                None
            } else {
                let mut text =
                    serde_json::to_string_pretty(&Value::Array(items)).map_err(Error::internal)?;
                text.push('\n');
                Some(text.into_bytes())
            };
            if content.is_none() && etag.is_none() {
                return Ok(());
            }
            let change = Change::one(
                FileOp {
                    path: file,
                    content,
                    expect: etag.map_or(Expect::Absent, Expect::Etag),
                },
                opts,
                || message.to_string(),
            );
            match self.0.apply(change) {
                Err(e) if e.code == ErrorCode::Conflict && attempt < ATTEMPTS => continue,
                other => return other.map(|_| ()),
            }
        }
    }

    /// The page holding comment `id`: the comments file that lists it.
    fn page_of(&self, id: &str) -> Result<PagePath> {
        let id = id.trim();
        if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(no_such_comment(id));
        }
        let dir = PagePath::new(COMMENTS_DIR).expect("constant path is valid");
        let nodes = match self.0.root.tree(Some(&dir)) {
            Ok(nodes) => nodes,
            Err(StoreError::NotFound { .. }) => return Err(no_such_comment(id)),
            Err(e) => return Err(e.into()),
        };
        let needle = format!("\"{id}\"");
        let mut stack: Vec<quire_store::TreeNode> = nodes;
        while let Some(node) = stack.pop() {
            if node.is_dir {
                stack.extend(node.children.unwrap_or_default());
                continue;
            }
            let Some(page) = node
                .path
                .strip_prefix(COMMENTS_DIR)
                .and_then(|rest| rest.strip_prefix('/'))
                .and_then(|rest| rest.strip_suffix(".json"))
            else {
                continue;
            };
            let Ok(file) = PagePath::new(&node.path) else {
                continue;
            };
            let Ok(bytes) = self.0.root.read(&file) else {
                continue;
            };
            // Most files do not mention the id at all: no need to parse them.
            if !String::from_utf8_lossy(&bytes).contains(&needle) {
                continue;
            }
            let listed = matches!(
                serde_json::from_slice::<Value>(&bytes),
                Ok(Value::Array(items)) if items
                    .iter()
                    .any(|item| item.get("id").and_then(Value::as_str) == Some(id))
            );
            if listed {
                return PagePath::new(page).map_err(|_| no_such_comment(id));
            }
        }
        Err(no_such_comment(id))
    }
}

fn no_such_comment(id: &str) -> Error {
    Error::not_found(format!("no comment with id {id:?}"))
}

/// `.quire/comments/<page>.json`.
pub(crate) fn comments_file(page: &PagePath) -> Result<PagePath> {
    Ok(PagePath::new(&format!("{COMMENTS_DIR}/{page}.json"))?)
}

fn new_id() -> Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::internal(format!("no randomness from the system: {e}")))?;
    Ok(format!(
        "c_{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

/// A stored item as a comment; items that are not comments (written by hand) are skipped.
fn comment_of(item: &Value, page: &PagePath) -> Option<Comment> {
    let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_string);
    Some(Comment {
        id: text("id")?,
        path: page.to_string(),
        line: item
            .get("line")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
        author: text("author").unwrap_or_default(),
        body: text("body").unwrap_or_default(),
        resolved: item
            .get("resolved")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        created: text("created").unwrap_or_default(),
        anchor: text("anchor").filter(|a| !a.is_empty()),
        detached: false,
    })
}

/// Points the comment at the line holding its anchor text now: the stored line when it still
/// does, else the matching line nearest to it; `detached` when no line matches.
fn relocate(lines: &[String], comment: &mut Comment) {
    let Some(anchor) = comment.anchor.as_deref() else {
        return;
    };
    let at = comment.line as usize;
    if at >= 1 && lines.get(at - 1).is_some_and(|l| l.trim() == anchor) {
        return;
    }
    let nearest = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == anchor)
        .map(|(i, _)| i + 1)
        .min_by_key(|n| (n.abs_diff(at), *n));
    match nearest {
        Some(n) => comment.line = n as u32,
        None => comment.detached = true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(line: u32, anchor: &str) -> Comment {
        Comment {
            id: "c_1".into(),
            path: "a.md".into(),
            line,
            author: "ann".into(),
            body: "b".into(),
            resolved: false,
            created: String::new(),
            anchor: Some(anchor.into()),
            detached: false,
        }
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_comment_follows_its_line_when_lines_are_inserted_above() {
        let mut c = comment(2, "second");
        relocate(&lines("new\nnewer\nfirst\nsecond\nthird"), &mut c);
        assert_eq!((c.line, c.detached), (4, false));
    }

    #[test]
    fn of_several_equal_lines_the_nearest_wins() {
        let mut c = comment(5, "- item");
        relocate(&lines("- item\nx\nx\nx\nx\nx\n- item"), &mut c);
        assert_eq!(c.line, 7);
    }

    #[test]
    fn a_comment_whose_text_is_gone_is_detached_at_its_last_line() {
        let mut c = comment(2, "gone");
        relocate(&lines("a\nb\nc"), &mut c);
        assert_eq!((c.line, c.detached), (2, true));
    }
}
