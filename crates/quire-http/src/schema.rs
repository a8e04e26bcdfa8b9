//! OpenAPI schemas of response shapes owned by lower crates (which know nothing of OpenAPI).
//! They mirror the serialised shapes exactly; `openapi_shapes_match_serialised_values`
//! in the tests keeps them honest.

#![allow(dead_code)]

use utoipa::ToSchema;

/// A node of `GET /tree`.
#[derive(ToSchema)]
#[schema(as = TreeNode)]
pub struct TreeNodeSchema {
    pub path: String,
    pub name: String,
    #[schema(rename = "isDir")]
    pub is_dir: bool,
    pub size: u64,
    /// Present for directories.
    #[schema(no_recursion)]
    pub children: Option<Vec<TreeNodeSchema>>,
}

#[derive(ToSchema)]
#[schema(as = Heading)]
pub struct TocEntrySchema {
    pub level: u8,
    pub text: String,
    pub slug: String,
}

#[derive(ToSchema)]
#[schema(as = VersionEntry)]
pub struct VersionEntrySchema {
    pub hash: String,
    pub author: String,
    pub message: String,
    /// RFC 3339.
    pub timestamp: String,
}

#[derive(ToSchema)]
#[schema(as = BlameLine)]
pub struct BlameLineSchema {
    pub line: u32,
    pub content: String,
    pub hash: String,
    pub author: String,
    pub timestamp: String,
}

#[derive(ToSchema)]
#[schema(as = Change)]
pub struct ChangeSchema {
    /// The commit holding the change.
    pub seq: String,
    pub path: String,
    /// `write` or `delete`.
    pub action: String,
    pub actor: String,
    pub timestamp: String,
}

#[derive(ToSchema)]
#[schema(as = ChangesPage)]
pub struct ChangesPageSchema {
    pub changes: Vec<ChangeSchema>,
    /// Pass as `since` to continue.
    pub last_seq: Option<String>,
}

#[derive(ToSchema)]
#[schema(as = ResolvedLink)]
pub struct ResolvedLinkSchema {
    pub path: String,
    pub title: String,
}

#[derive(ToSchema)]
#[schema(as = ResolvedLinks)]
pub struct ResolvedLinksSchema {
    pub resolved: std::collections::BTreeMap<String, ResolvedLinkSchema>,
    pub unresolved: Vec<String>,
}
