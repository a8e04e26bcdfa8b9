//! Drafts (changes on a branch of their own until merged), workflow definitions and boards,
//! and frontmatter schemas.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A draft: a git branch `drafts/<id>` holding changes kept apart from the knowledge base
/// until they are merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DraftSummary {
    pub id: String,
    /// `drafts/<id>`.
    pub branch: String,
    /// Who opened the draft.
    pub actor: String,
    /// RFC 3339.
    pub created_at: String,
    /// When the draft was last written (RFC 3339); a draft untouched for `[drafts]
    /// auto_discard` is discarded.
    pub updated_at: String,
    /// The main commit the draft started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The branch's newest commit.
    pub head: String,
}

/// One draft with the files it changed since its base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Draft {
    #[serde(flatten)]
    pub summary: DraftSummary,
    pub files: Vec<DraftFile>,
}

/// A file a draft changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DraftFile {
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub action: String,
}

/// `POST /drafts`: who opens the draft (else `X-Actor`, else `api`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftCreate {
    #[serde(default)]
    pub actor: Option<String>,
}

/// The draft's changes since its base as one unified diff (files by path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DraftDiff {
    pub diff: String,
    pub files: Vec<DraftFile>,
}

/// A merged draft: its changes are one commit on main (absent when main already held
/// them), and the branch is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DraftMerged {
    /// `merged`.
    pub status: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The files written on main.
    pub files: Vec<String>,
}

/// A file written into a draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DraftWritten {
    pub path: String,
    /// The git blob id of the new content.
    pub etag: String,
}

/// One state of a workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowState {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// A terminal state (done, rejected); stored for clients.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub terminal: bool,
}

/// An allowed move between two states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowTransition {
    pub from: String,
    pub to: String,
    /// Stored and shown; quire has no roles for actors, so it is not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_role: Option<String>,
}

/// A workflow definition, stored as `.quire/workflows/<name>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Workflow {
    /// `[A-Za-z0-9_-]{1,64}`; on `PUT /workflows/{name}` the server sets it to the URL's name.
    #[serde(default)]
    pub name: String,
    /// At least one; names unique.
    pub states: Vec<WorkflowState>,
    /// Each `from` and `to` names a state.
    #[serde(default)]
    pub transitions: Vec<WorkflowTransition>,
    /// The state of a newly assigned page when the assignment names none (default: the
    /// first state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
}

/// Every workflow definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowList {
    pub workflows: Vec<Workflow>,
}

/// `DELETE /workflows/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowDeleted {
    /// `deleted`.
    pub status: String,
    pub name: String,
}

/// `POST /workflow/assign`: puts a page into a workflow (frontmatter `workflow` and `state`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowAssign {
    pub path: String,
    pub workflow: String,
    /// A state of the workflow; omitted: its `initial` state.
    #[serde(default)]
    pub state: Option<String>,
    /// The commit author (`X-Actor` wins).
    #[serde(default)]
    pub actor: Option<String>,
}

/// `POST /workflow/advance`: moves a page to another state of its workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowAdvance {
    pub path: String,
    pub target_state: String,
    #[serde(default)]
    pub actor: Option<String>,
}

/// A page's place in a workflow after assign or advance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowPage {
    pub path: String,
    pub workflow: String,
    pub state: String,
    /// The state before (advance only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The page's new ETag.
    pub etag: String,
}

/// `POST /workflow/reorder`: the top-to-bottom order of a board column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowReorder {
    pub workflow: String,
    pub state: String,
    pub paths: Vec<String>,
}

/// The stored order of a column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowReordered {
    pub workflow: String,
    pub state: String,
    pub paths: Vec<String>,
}

/// A page on a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BoardCard {
    pub path: String,
    pub title: String,
    /// Frontmatter `priority`, `assignee`, `due` when the page has them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schema(value_type = Object)]
    pub fields: BTreeMap<String, serde_json::Value>,
}

/// The pages of a workflow by state, each column in its stored order (pages not ordered
/// yet follow, by path). Every state of the definition has a column; a page whose state is
/// not in the definition (edited by hand) gets a column of its own after them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WorkflowBoard {
    pub workflow: String,
    #[schema(value_type = Object)]
    pub board: BTreeMap<String, Vec<BoardCard>>,
    /// The column names in the definition's order.
    pub states: Vec<String>,
}

/// A JSON Schema document (`.quire/schemas/<type>.json`), applied to the frontmatter of pages
/// whose `type` is the file's name; stored and returned as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[schema(value_type = Object)]
pub struct SchemaDocument(pub serde_json::Value);

/// `GET /drafts/{id}/file`, `DELETE /drafts/{id}/file`: a file of a draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftPathInput {
    /// The draft's id.
    pub id: String,
    /// The file, root-relative.
    pub path: String,
}

/// `GET /drafts/{id}/tree`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftTreeInput {
    /// The draft's id.
    pub id: String,
    /// A folder; the whole tree when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `PUT /drafts/{id}/file`: a file written into a draft (REST sends `content` as the body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftFileWrite {
    pub id: String,
    pub path: String,
    /// The whole new content of the file.
    pub content: String,
    /// The ETag of the draft's version last read: refused (conflict) when it changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
}

/// `DELETE /drafts/{id}/file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftFileDelete {
    pub id: String,
    pub path: String,
    /// The ETag of the draft's version last read: refused (conflict) when it changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
}

/// A file removed from a draft (REST answers `204` without it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DraftFileDeleted {
    pub path: String,
    /// Always `true`.
    pub deleted: bool,
}

/// A discarded draft (REST answers `204` without it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DraftDiscarded {
    /// The draft's id.
    pub discarded: String,
}

/// What `quire_draft_read` answers: a file as the draft holds it (with `path`), else the
/// draft with the files it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(extend("type" = "object"))]
pub enum DraftRead {
    File(crate::mcp::DraftFileContent),
    Draft(Draft),
}

/// What `quire_draft_write` answers: the file written, or removed (with `delete`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(extend("type" = "object"))]
pub enum DraftWrite {
    Written(DraftWritten),
    Deleted(DraftFileDeleted),
}

/// `GET /schemas/{name}`, `PUT /schemas/{name}`: a page type's schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchemaNameInput {
    /// The page type, `[A-Za-z0-9_-]{1,64}`.
    pub name: String,
}

/// A page type's JSON Schema as stored, with its ETag (REST answers the schema itself, the
/// ETag in its header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SchemaRead {
    pub name: String,
    /// The git blob id of the schema file.
    pub etag: String,
    pub schema: SchemaDocument,
}

/// `PUT /schemas/{name}`: REST sends `schema` as the body (stored as sent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchemaSave {
    /// The page type, `[A-Za-z0-9_-]{1,64}`.
    pub name: String,
    /// A JSON Schema (checked against its meta-schema; references are never fetched).
    pub schema: SchemaDocument,
    /// The ETag of the schema last read: refused (conflict) when it changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Commit message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
