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

/// A saved view: a named DQL query with how to show it. `filters`, `sort` and `group_by`
/// apply to the query's rows when the view is executed (checked when the view is saved: an
/// unusable shape is a 400); every field they name is an expression, usually a bare name, and
/// a name equal to a column header (`File`, an `AS` name) reads that column. All settings are
/// stored as the client sent them, and so are keys this server does not know; `columns` is
/// kept for the client only.
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
    /// Conditions every row must meet: an expression (`"status = 'open'"`); an object
    /// `{"status": "open", "tags": ["a", "b"], "priority": {">=": 2}}` (a scalar means `=`, a
    /// list "one of", an object operators); or a list of expressions and `{"field", "op",
    /// "value"}` objects. Operators: `=`, `!=`, `<`, `<=`, `>`, `>=` (also `eq`, `ne`, `lt`,
    /// `le`, `gt`, `ge`), `in`, `not in`, `contains`, `not contains`, `empty`, `not empty`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub filters: Option<serde_json::Value>,
    /// The order of the rows, first key first: `"field"`, `"field desc"`, `"-field"`,
    /// `{"field": "f", "dir": "desc"}` (also `{"id": "f", "desc": true}`), or a list of these.
    /// Stable: the query's own order breaks ties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub sort: Option<serde_json::Value>,
    /// Groups the rows by one field: `"field"` or `{"field": "f"}`. Groups come in ascending
    /// key order, each group's rows together and in `sort` order; `groups` in the result says
    /// where each starts.
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
    /// With `group_by`: every group of the whole result, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<ViewGroup>>,
}

/// One group of a view's rows (`group_by`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ViewGroup {
    /// The value the group's rows share (null for rows without one).
    #[schema(value_type = Object)]
    pub key: serde_json::Value,
    /// Rows in the group.
    pub total: usize,
    /// Where the group starts among the rows of the whole result: its rows are `offset ..
    /// offset + total`, counted like the `offset` of the request.
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
