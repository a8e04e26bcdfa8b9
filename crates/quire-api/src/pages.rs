//! Helper operations on pages and on the change feed: lint, peek, section, timeline and the
//! JSON Feed of recent changes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::files::Heading;
use crate::history::Change;

/// What to lint: an existing page (`path`), or text (`content`). With both, `content` is
/// linted as if it were stored at `path` (links resolve from there).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintRequest {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub content: Option<String>,
}

/// One problem lint found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct LintIssue {
    /// 1-based line.
    pub line: u32,
    /// `broken-link`, `broken-anchor`, `empty-link`, `duplicate-heading`, `heading-jump`,
    /// `frontmatter` or `trailing-whitespace`.
    pub rule: String,
    pub message: String,
}

/// Lint's answer: `issues` is always an array, ordered by line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct LintReport {
    pub issues: Vec<LintIssue>,
}

/// A link of a page as peek shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PeekLink {
    /// The target as written.
    pub target: String,
    /// The file it resolves to; `null` when it does not resolve.
    pub path: Option<String>,
}

/// A short look at a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Peek {
    pub path: String,
    pub title: String,
    /// The first ~200 characters of the body text (markup and line breaks folded).
    pub snippet: String,
    /// The frontmatter mapping (`{}` when there is none).
    #[schema(value_type = Object)]
    pub frontmatter: serde_json::Value,
    pub links_out: Vec<PeekLink>,
    /// Pages linking here.
    pub links_in: Vec<String>,
    pub headings: Vec<Heading>,
    pub word_count: usize,
}

/// One section of a page: a heading and everything up to the next heading of the same or a
/// higher level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Section {
    pub path: String,
    pub heading: String,
    pub level: u8,
    /// The section's text, its heading line included.
    pub content: String,
    /// 1-based line of the heading.
    pub line_start: u32,
    /// 1-based last line of the section (inclusive).
    pub line_end: u32,
}

/// Recent changes of the change feed, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Timeline {
    pub events: Vec<Change>,
    /// Changes matching the filter among the newest 500.
    pub total: usize,
}

/// JSON Feed 1.1 (<https://jsonfeed.org/version/1.1>) of recent changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct JsonFeed {
    /// `https://jsonfeed.org/version/1.1`.
    pub version: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home_page_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed_url: Option<String>,
    pub description: String,
    pub items: Vec<JsonFeedItem>,
}

/// One change as a JSON Feed item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct JsonFeedItem {
    /// `<seq>:<path>`: unique per change.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub title: String,
    pub content_text: String,
    /// RFC 3339.
    pub date_modified: String,
    pub authors: Vec<JsonFeedAuthor>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct JsonFeedAuthor {
    pub name: String,
}

/// How a feed's entries are named and linked, shared by the Atom feed (REST), the JSON Feed
/// (REST) and `quire_feed` (MCP) so that they describe a change alike.
impl Change {
    /// `write` or `delete`.
    pub fn verb(&self) -> &'static str {
        match self.action {
            crate::ChangeAction::Write => "write",
            crate::ChangeAction::Delete => "delete",
        }
    }

    /// A stable id per change: its space, its commit (or cow sequence) and its path.
    pub fn feed_id(&self, space: &str) -> String {
        format!(
            "urn:quire:{}:{}:{}",
            crate::workspace_edit::encode_uri_path(space),
            crate::workspace_edit::encode_uri_path(&self.seq),
            crate::workspace_edit::encode_uri_path(&self.path)
        )
    }

    /// `write notes/a.md`.
    pub fn feed_title(&self) -> String {
        format!("{} {}", self.verb(), self.path)
    }

    /// `alice wrote notes/a.md (<commit>)`.
    pub fn feed_summary(&self) -> String {
        let did = match self.action {
            crate::ChangeAction::Write => "wrote",
            crate::ChangeAction::Delete => "deleted",
        };
        format!("{} {did} {} ({})", self.actor, self.path, self.seq)
    }
}

impl JsonFeed {
    /// The JSON Feed of `changes` (newest first) of the space `space`. `home` is the space's
    /// address, if it has one (the feed is then `{home}/feed.json`); `file_url` gives where a
    /// written file can be read (deletions have no link).
    pub fn of_changes(
        space: &str,
        changes: &[Change],
        home: Option<&str>,
        file_url: impl Fn(&str) -> String,
    ) -> JsonFeed {
        JsonFeed {
            version: "https://jsonfeed.org/version/1.1".into(),
            title: format!("quire: changes in {space}"),
            home_page_url: home.map(str::to_string),
            feed_url: home.map(|h| format!("{h}/feed.json")),
            description: format!("The newest changes of the space {space}"),
            items: changes
                .iter()
                .map(|change| JsonFeedItem {
                    id: change.feed_id(space),
                    url: (change.action == crate::ChangeAction::Write)
                        .then(|| file_url(&change.path)),
                    title: change.feed_title(),
                    content_text: change.feed_summary(),
                    date_modified: change.timestamp.clone(),
                    authors: vec![JsonFeedAuthor {
                        name: change.actor.clone(),
                    }],
                })
                .collect(),
        }
    }
}
