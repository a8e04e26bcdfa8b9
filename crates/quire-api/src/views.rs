//! Saved views (`.quire/views/<name>.json`), their execution, and the refresh of computed
//! view pages (`quire-view: true` with `quire-query`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How a client shows a view's rows. The server stores it; execution does not depend on it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ViewLayout {
    #[default]
    Table,
    List,
    Board,
    Calendar,
}

/// A saved view: a named DQL query with how to show it. `columns`, `filters`, `sort` and
/// `group_by` are kept as the client sent them (any JSON); so are keys this server does not
/// know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct View {
    /// `[A-Za-z0-9_-]{1,64}`; on `PUT /views/{name}` the server sets it to the URL's name.
    #[serde(default)]
    pub name: String,
    /// The DQL query the view runs.
    pub query: String,
    #[serde(default)]
    pub layout: ViewLayout,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub columns: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub filters: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub sort: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub group_by: Option<serde_json::Value>,
    /// Any other keys, kept as given.
    #[serde(flatten)]
    #[schema(ignore)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Every saved view of a space, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ViewList {
    pub views: Vec<View>,
}

/// The answer of `DELETE /views/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ViewDeleted {
    /// Always `deleted`.
    pub status: String,
    pub name: String,
}

/// A page of the rows of a view's query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ViewResult {
    pub view: View,
    /// `TABLE`, `LIST`, `COUNT` or `DISTINCT`.
    pub mode: String,
    pub headers: Vec<String>,
    /// Rows `offset .. offset + limit` of the result, each in the order of `headers`.
    #[schema(value_type = Vec<Vec<Object>>)]
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Rows of the whole result.
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
}

/// What `POST /view/refresh` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ViewRefresh {
    /// Computed view pages recomputed.
    pub refreshed: usize,
    /// Of those, pages whose text changed and were written.
    pub written: usize,
    pub duration_ms: u64,
}
