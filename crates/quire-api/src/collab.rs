//! Working with others: comments on pages, share links, published pages, the rules file for
//! coding agents and the web UI's theme.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A comment on a page, anchored to a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Comment {
    /// Unique in the space (`c_` and 16 hex digits).
    pub id: String,
    /// The page commented on.
    pub path: String,
    /// 1-based line the comment points at now (0: the page as a whole). When listing, the line
    /// is found again by the comment's `anchor`, so it follows its text when lines above it
    /// change.
    pub line: u32,
    pub author: String,
    pub body: String,
    pub resolved: bool,
    /// RFC 3339.
    pub created: String,
    /// The text of the line when the comment was made (trimmed); absent for page comments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// `true` when the anchor text is no longer in the page: `line` is then the line stored
    /// when the page's comments were last written.
    #[serde(default, skip_serializing_if = "is_false")]
    pub detached: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Body of `POST /comments?path=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewComment {
    /// 1-based line of the page (0 or absent: the page as a whole).
    #[serde(default)]
    pub line: u32,
    /// The comment's text (not empty, at most 64 KiB).
    pub body: String,
    /// Who comments when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

/// Body of `PATCH /comments/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentPatch {
    pub resolved: bool,
}

/// Answer of `DELETE /comments/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CommentDeleted {
    /// The id of the deleted comment.
    pub deleted: String,
    /// The page it was on.
    pub path: String,
}

/// Body of `POST /share`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewShare {
    /// The page to share.
    pub path: String,
    /// Go duration (`72h`, `30m`) after which the link stops working; absent: never.
    #[serde(default, rename = "expiresIn", skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<String>,
    /// A password readers must give (`?password=` or `X-Share-Password`); kept only as an
    /// Argon2id hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// Who shares when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// A share link. The token is returned once, when the link is made; only its SHA-256 is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShareLink {
    /// Names the link for `DELETE /share/{id}` (not the token).
    pub id: String,
    pub path: String,
    /// The secret of `GET /public/{token}`; only in the answer of `POST /share`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Where readers open it, relative to the host (only with the token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// RFC 3339; `null`: never expires.
    pub expires_at: Option<String>,
    pub created_by: String,
    /// RFC 3339.
    pub created_at: String,
    /// Successful views so far.
    pub view_count: u64,
    /// Whether readers need a password.
    pub has_password: bool,
}

/// Answer of `DELETE /share/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ShareRevoked {
    pub revoked: String,
}

/// Body of `POST /publish` and `POST /unpublish`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishRequest {
    pub path: String,
    /// Who publishes when no `X-Actor` header is sent (the header wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// Body of `POST /publish/bulk`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishBulkRequest {
    /// Pages to publish together (one commit; all or none).
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// A page's publication.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Publication {
    pub path: String,
    pub published: bool,
    /// RFC 3339, from the page's `published_at` frontmatter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// Where readers find it (`/p/…`), when published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page's title (in `/publish/list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The page's ETag after the change (publish, unpublish).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
}

/// Answer of `POST /publish/bulk` and `GET /publish/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Publications {
    pub pages: Vec<Publication>,
    pub count: usize,
    /// The commit of a bulk publish, when made synchronously.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// The web UI's theme (`GET`/`PUT /theme`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Theme {
    /// The accent colour: `#rgb` or `#rrggbb`.
    pub primary: String,
    /// `light`, `dark` or `system` (follow the reader's device).
    pub mode: String,
}

/// Answer of `PUT /rules`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct RulesWritten {
    pub path: String,
    pub etag: String,
    pub bytes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// Operations on one comment or one share link by its id (`/comments/{id}`, `/share/{id}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdInput {
    pub id: String,
}

/// `POST /comments?path=`: the page (a query parameter on REST) and the comment (the body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentCreate {
    /// The page, root-relative.
    pub path: String,
    pub comment: NewComment,
}

/// `PATCH /comments/{id}`: resolves a comment (or opens it again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentResolve {
    /// The comment's id.
    pub id: String,
    pub resolved: bool,
}

/// `GET /rules`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesInput {
    /// `cursor`, `claude`, `agents` or `openclaw`; omitted: the file as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// `PUT /rules`: REST sends `text` as the body (raw markdown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesWrite {
    /// The whole rules file (markdown, at most 256 KiB).
    pub text: String,
    /// The ETag last read: refused (conflict) when the file changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_match: Option<String>,
    /// Commit message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
