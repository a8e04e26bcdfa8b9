//! Inputs and results of the MCP tools that have no REST body of their own (REST takes these
//! as path and query parameters). Tools whose REST route has a JSON body (bulk, rename,
//! claim, release, lint, revert) take that body type; the JSON Schema of every tool input is
//! the `schemars` derive of its type here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::restructure::{Manifest, Plan};

/// `quire_read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// A root-relative path (`notes/a.md`), or a page name or wiki link (`Meeting notes`,
    /// `[[Meeting notes]]`) resolved as a link written at the root would be.
    pub path: String,
    /// Answer the frontmatter, ETag, size, headings and links only, without the body.
    #[serde(default)]
    pub metadata_only: bool,
    /// The ETag of the copy the caller holds: when it is still current the answer is
    /// `unchanged: true` without the body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_not_etag: Option<String>,
}

/// What `quire_read` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadResult {
    /// The file's root-relative path (the resolved page when a name or link was given).
    pub path: String,
    /// Pass it back as `if_match` to write, or as `if_not_etag` to read again cheaply.
    pub etag: String,
    pub size: usize,
    /// The ETag given in `if_not_etag` is still current: no body is sent.
    #[serde(default)]
    pub unchanged: bool,
    /// The text (absent with `metadata_only` or `unchanged`; binary files are not sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Frontmatter, title, headings and links of a page (with `metadata_only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<crate::Peek>,
}

/// `quire_write`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    pub path: String,
    /// The whole new content of the file.
    pub content: String,
    /// The ETag last read: the write is refused (conflict) when the file changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Commit message; default `Update <path>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `quire_delete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteInput {
    pub path: String,
    /// The ETag last read: refused (conflict) when the file changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `quire_append`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppendInput {
    /// The page; created when missing.
    pub path: String,
    pub content: String,
    /// Put between the old content and the new text (default a newline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Tools that take one file (`quire_versions`, `quire_backlinks`, `quire_peek`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathInput {
    pub path: String,
}

/// `quire_tree`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TreeInput {
    /// A folder; the whole root when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `quire_changes`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangesInput {
    /// A commit id (the `cursor` of the previous page) or an RFC 3339 time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `quire_search`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// Words (all must match), `AND`, `OR`, `NOT` or `-word`, `"phrases"`, `prefix*`,
    /// parentheses, `tag:name` (nested tags too), `path:folder/sub`, `file:name`. Words are
    /// found in titles, headings, text, tags, aliases, property values and folder and file
    /// names.
    pub q: String,
    /// At most this many results (default 20, at most 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Skip this many results first (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// Only pages under this folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Only pages with this tag or one nested below it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// `hybrid` (the default when vector search is on: BM25 and vectors fused) or `bm25`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// `quire_search_semantic`, `GET /search/semantic?q=` and `POST /search/semantic {query}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SemanticInput {
    /// What you are looking for, in plain words (required; without vector search the route
    /// answers 503 before it looks at the input).
    #[serde(alias = "query", default)]
    pub q: String,
    /// At most this many pages (default 10, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `quire_suggestions`: pages similar to `path` that it does not link to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuggestionsInput {
    pub path: String,
    /// At most this many suggestions (default 10, at most 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `quire_query`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryInput {
    /// DQL: `TABLE|LIST|COUNT|DISTINCT … FROM … WHERE … SORT … GROUP BY … FLATTEN … LIMIT …`.
    pub q: String,
}

/// `quire_query_meta`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetaInput {
    /// An expression over frontmatter, as in a DQL `WHERE`: `status = "open" and priority > 2`;
    /// or KiwiFS's form `$.field=value` (also `!=`, `>`, `>=`, `<`, `<=`).
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// A field to sort by (`field` or `$.field`); `-field` sorts descending. Ties (and no
    /// sort) go by path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    /// `asc` (default) or `desc`: the order of `sort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// At most this many pages (default 50, at most 1,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Skip this many pages first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

/// `quire_aggregate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AggregateInput {
    /// The frontmatter field to group by.
    pub group: String,
    /// What to compute per group: `count` (default), `sum:field`, `avg:field`, `min:field`,
    /// `max:field`, comma-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calc: Option<String>,
}

/// `quire_graph_analytics` (`GET /graph/analytics`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyticsInput {
    /// How many top pages to list (default 20, as `GET /graph/analytics`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `quire_graph_path`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphPathInput {
    pub from: String,
    pub to: String,
    /// Follow links in either direction.
    #[serde(default)]
    pub undirected: bool,
}

/// `quire_graph_centrality`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CentralityInput {
    /// At most this many pages (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Source pages sampled for betweenness (default 50; exact when at least the page count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<usize>,
}

/// `quire_graph_walk`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WalkInput {
    /// The page to start from.
    pub path: String,
    /// Also list the other pages of the same folder.
    #[serde(default)]
    pub neighbors: bool,
}

/// `quire_velocity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VelocityInput {
    /// `Nd`, `Nw` or `Nm` (a month counts 30 days); default `30d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
    /// At most this many entries per list (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Only pages under this folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The same as `path` (its older name, as clients written for KiwiFS send it); `path`
    /// wins when both are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
}

/// `quire_memory_report`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryInput {
    /// The folder of episodic pages (default `[memory] episodes_path_prefix`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
}

/// Operations that take only a `limit` (`quire_eligible`, `quire_feed`, the search
/// analytics).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitInput {
    /// At most this many entries (default 20; `quire_feed`: default 50; at most 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `GET /analytics/trends`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrendsInput {
    /// Days to cover, ending today (default 30, 1 to 366).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
}

/// `quire_views_get`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewNameInput {
    /// `[A-Za-z0-9_-]{1,64}`.
    pub name: String,
}

/// `quire_views_save`: what `PUT /views/{name}` takes (the URL's name, the body, `If-Match`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewSaveInput {
    /// `[A-Za-z0-9_-]{1,64}`; replaces the view's own `name`.
    pub name: String,
    pub view: crate::View,
    /// The ETag of the view file last read: refused (conflict) when it changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Commit message; default `Save view <name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `quire_views_delete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewDeleteInput {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Commit message; default `Delete view <name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `quire_views_execute`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewExecuteInput {
    pub name: String,
    /// At most this many rows (default 50, at most 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Skip this many rows first (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

/// `quire_section`: exactly one of `heading` and `index`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SectionInput {
    /// The page.
    pub path: String,
    /// The heading's text (or its slug); the first match wins. `^id` names the block that
    /// id marks (`![[page#^id]]`) instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// The heading's position among the page's headings, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

/// `quire_timeline`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineInput {
    /// Only `write` or only `delete` changes.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::ChangeAction>,
    /// At most this many events (default 50, at most 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `quire_refactor_plan`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefactorPlanInput {
    pub manifest: Manifest,
    /// Include a unified diff of every rewritten page (larger answer).
    #[serde(default)]
    pub diffs: bool,
    /// `workspace-edit` answers the plan as an LSP WorkspaceEdit (refused while the plan has
    /// errors); absent or `plan`: the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// `quire_refactor_apply`. There is no `approved` field: over MCP only the user (through
/// the client's confirmation) or a person (the approve endpoint) approves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefactorApplyInput {
    pub manifest: Manifest,
    /// The digest of the plan reviewed with `quire_refactor_plan`: nothing is written when the
    /// workspace no longer produces it. Strongly recommended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The clock (RFC 3339) expressions see, when the manifest does not pin it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// Summary line of the commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What `quire_refactor_apply` answers when it wrote nothing because approval is missing or
/// was declined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotApplied {
    /// `declined` (the user said no) or `pending` (waits for a person's approval).
    pub status: String,
    pub message: String,
    pub plan: Plan,
}

/// `quire_draft_diff`, `quire_draft_discard`, and a draft's summary (`quire_draft_read`
/// without `path`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftIdInput {
    /// The draft's id (from quire_draft_create or quire_draft_list).
    pub id: String,
}

/// `quire_draft_read`: a file of a draft, or (without `path`) the draft with the files it
/// changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftReadInput {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A file as a draft holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DraftFileContent {
    pub id: String,
    pub path: String,
    pub content: String,
    pub etag: String,
}

/// `quire_draft_write`: writes (or with `delete: true` removes) a file of a draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftWriteInput {
    pub id: String,
    pub path: String,
    /// The new content (ignored with `delete`).
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub delete: bool,
    /// The ETag of the draft's version last read: refused (conflict) when it changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
}

/// `quire_draft_merge`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftMergeInput {
    pub id: String,
    /// Commit message; default `Merge draft <id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `quire_workflow_get`, `quire_workflow_board`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowNameInput {
    /// `[A-Za-z0-9_-]{1,64}`.
    pub name: String,
}

/// `quire_workflow_save`: what `PUT /workflows/{name}` takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowSaveInput {
    pub name: String,
    pub workflow: crate::Workflow,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `quire_canvas_read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasReadInput {
    /// The canvas, a path ending in `.canvas.json`.
    pub path: String,
}

/// `quire_canvas_write`: replaces (or creates) a canvas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasWriteInput {
    /// The canvas, a path ending in `.canvas.json`.
    pub path: String,
    /// The whole canvas (JSON Canvas 1.0): `nodes` and `edges` arrays (empty allowed).
    pub canvas: crate::Canvas,
    /// The ETag last read: refused (conflict) when the canvas changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Commit message; default `Write <path>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `GET /janitor`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JanitorInput {
    /// Call a page stale when it was not modified for this many days (default: `[janitor]
    /// stale_days`; 0: only a passed `review-by` date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 36500))]
    pub stale_days: Option<u32>,
}

/// `GET /analytics/views` and `/analytics/views/v2`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageViewsInput {
    /// Only this page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The period: the last this many days, today included (default 30, 1–3650).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 3650))]
    pub days: Option<u32>,
    /// At most this many pages (default 50, 1–1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<usize>,
}

/// An operation that takes no input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoInput {}

/// `GET /templates`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplatesInput {
    /// Omitted: list template names; given: that template as `{name, content}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `GET /template`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateInput {
    pub name: String,
    /// Fills `{{title}}` in the template body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A file as the operation `read_file` answers it off REST (REST sends the raw bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileBytes {
    pub path: String,
    /// Git blob id of the content.
    pub etag: String,
    pub size: usize,
    /// The content, when it is UTF-8 text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The content in base64 (RFC 4648), when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_base64: Option<String>,
}

/// A text answer (a template ready for insertion, a symlink's target).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TextAnswer {
    pub text: String,
}

/// `GET /version`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VersionInput {
    pub path: String,
    /// Commit hash, full or abbreviated.
    pub version: String,
}

/// A file's content at a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VersionContent {
    pub path: String,
    pub version: String,
    /// The content, when it is UTF-8 text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The content in base64 (RFC 4648), when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_base64: Option<String>,
}

/// `GET /diff`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffInput {
    pub path: String,
    /// The older commit (full or abbreviated hash).
    pub from: String,
    /// The newer commit.
    pub to: String,
}
