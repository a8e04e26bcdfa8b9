//! Files and structure: the tree, single and bulk writes, assets, headings, templates and
//! link resolution.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A node of the folder tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct TreeNode {
    /// Root-relative path with `/`.
    pub path: String,
    /// Last path component.
    pub name: String,
    #[serde(rename = "isDir")]
    #[schema(rename = "isDir")]
    pub is_dir: bool,
    /// Bytes; 0 for folders.
    pub size: u64,
    /// Folder contents; absent for files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub children: Option<Vec<TreeNode>>,
}

/// A written file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct WriteResult {
    pub path: String,
    /// Git blob id of the new content.
    pub etag: String,
    /// `true` when the file did not exist before.
    pub created: bool,
    /// The commit, when versioning is git and the write was committed before the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// A deleted file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DeleteResult {
    pub path: String,
    pub deleted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// Body of `POST /bulk`: every file in one atomic commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkRequest {
    pub files: Vec<BulkFile>,
    /// Commit author when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Commit message; default `Bulk write of N files`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One file of a bulk write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkFile {
    pub path: String,
    pub content: String,
}

/// What a bulk write wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BulkResult {
    pub files: Vec<BulkWritten>,
    pub count: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BulkWritten {
    pub path: String,
    pub etag: String,
}

/// A stored upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AssetResult {
    pub path: String,
}

/// A page after text was appended to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AppendResult {
    pub path: String,
    pub etag: String,
}

/// One heading of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// The `#fragment` that links to it.
    pub slug: String,
}

/// A template of `.quire/templates/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Template {
    pub name: String,
    pub content: String,
}

/// `GET /templates`: every template name, or one template when a name is asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(untagged)]
pub enum Templates {
    Names(Vec<String>),
    One(Template),
}

/// Body of `POST /resolve-links`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveLinksRequest {
    /// Wiki-link targets, with or without `[[ ]]`, or links written out in full as in a page
    /// (`[[Note|alias]]`, `[text](../a.md)`: each resolved by the rules of its kind).
    pub links: Vec<String>,
    /// The page the links are written in (relative markdown links and the same-folder
    /// preference of wiki links start from it); omitted = a page at the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// Where each link leads, as a page at the root would resolve it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ResolvedLinks {
    /// By link as given.
    pub resolved: BTreeMap<String, ResolvedLink>,
    pub unresolved: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ResolvedLink {
    pub path: String,
    pub title: String,
}
