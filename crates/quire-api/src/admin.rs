//! Running quire for a team: what a credential may do, the audit log, scoped tokens.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What an authenticated caller may do. `read`: every read, search and plan, nothing that
/// changes a file or the service's state; `write`: everything a person editing pages does;
/// `admin`: also approving an agent's restructuring and reading the audit log.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Read,
    Write,
    Admin,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
            Scope::Admin => "admin",
        }
    }

    /// Whether this scope includes `needed`.
    pub fn allows(self, needed: Scope) -> bool {
        self >= needed
    }
}

/// The credential a request was admitted with, as adapters see it (a request extension set
/// by the authentication layer; absent when authentication is off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub scope: Scope,
    /// Who the credential names (a key's `actor`, an OIDC subject).
    pub actor: Option<String>,
    /// The only space the credential opens (`None`: every space).
    pub space: Option<String>,
}

/// Records a change made inside a request the gate already admitted (an MCP tool call that
/// writes): the adapter calls it with the tool's name and whether it succeeded. A request
/// extension set by the gate when the audit log is on.
#[derive(Clone)]
pub struct AuditHook(pub std::sync::Arc<AuditFn>);

/// The function of an [`AuditHook`]: tool name, success.
pub type AuditFn = dyn Fn(&str, bool) + Send + Sync;

impl std::fmt::Debug for AuditHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuditHook")
    }
}

/// One audited request: a change made with credentials, or a request refused. The fields are
/// the spec's audit entry; `route` adds the route template (or `/mcp#<tool>`) that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AuditEntry {
    /// When the answer was sent (RFC 3339, UTC).
    #[serde(alias = "time")]
    pub ts: String,
    pub method: String,
    /// The request's path with its query string.
    #[serde(default)]
    pub path: String,
    /// The space addressed.
    #[serde(default)]
    pub space: Option<String>,
    /// The credential's actor, else the request's `X-Actor`.
    #[serde(default)]
    pub actor: Option<String>,
    /// First 16 hex digits of the SHA-256 of the Bearer token (never the token).
    #[serde(default)]
    pub token_hash: Option<String>,
    /// The client's address.
    #[serde(default, alias = "client")]
    pub ip: Option<String>,
    pub status: u16,
    /// From the request's arrival to its answer.
    #[serde(default)]
    pub duration_ms: u64,
    /// The route template that matched (`/api/quire/file`), or `/mcp#<tool>` for a tool an
    /// agent called.
    #[serde(default)]
    pub route: String,
}

/// One scoped token of `quire token list` (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct TokenInfo {
    pub id: String,
    pub scope: Scope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

/// `PUT /space/visibility` (request and answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SpaceVisibility {
    /// `private` (every access needs credentials), `unlisted` (pages declaring
    /// `visibility: public` are served by `/public/file` to whoever knows their path; the
    /// space is not listed to callers without credentials and `/public/tree` answers 404) or
    /// `public` (such pages are served by `/public/file` and listed by `/public/tree`, and
    /// the space is listed by `GET /api/spaces` to everyone).
    pub visibility: String,
}

/// One space: an entry of `GET /api/spaces`, the answer of `GET /api/spaces/{name}` and of
/// `POST /api/spaces`. A caller without credentials sees `name`, `kind` and `visibility`
/// only; `root` is shown to admins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SpaceSummary {
    pub name: String,
    /// `default` (the main root), `config` (a `[[spaces]]` entry of the configuration) or
    /// `dynamic` (added through `POST /api/spaces`; the only kind `DELETE` removes).
    pub kind: String,
    /// `private`, `unlisted` or `public`.
    pub visibility: String,
    /// The URL prefix of the space's API (`/api/quire/<name>`).
    pub api: String,
    /// The root folder on the server (admins only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Files in the space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
    /// Whether the root folder is reachable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    /// A dynamic space: when it was added (RFC 3339) and by whom.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_by: Option<String>,
    /// In the answer of `POST /api/spaces`: whether quire created the knowledge root (the
    /// folder did not exist or was empty) rather than serving an existing folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_root: Option<bool>,
}

/// `GET /api/spaces`: the spaces the caller may see, the default first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SpaceList {
    pub spaces: Vec<SpaceSummary>,
}

/// `POST /api/spaces`: a space to add while the server runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSpace {
    /// 1 to 64 of `a-z`, `0-9`, `-`, `_`, starting with a letter or digit; not the name of
    /// another space nor the first segment of a route under `/api/quire`.
    pub name: String,
    /// Absolute path of the root folder on the server. Created and initialised (git, a
    /// commented `.quire/config.toml`) when missing; an existing folder is served as it is.
    /// It may neither lie inside another space's root nor contain one.
    pub root: String,
}

/// `DELETE /api/spaces/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SpaceRemoved {
    pub name: String,
    /// The root folder, left on disk as it was.
    pub root: String,
    /// Always `false`: removing a space never deletes its files, its git history or its
    /// `.quire/` state. `POST /api/spaces` with the same root serves it again.
    pub files_deleted: bool,
    /// Whether the root's writer lock was released before this answer (`false` when requests
    /// still used the space after a few seconds: it is released when the last one ends).
    pub released: bool,
}
