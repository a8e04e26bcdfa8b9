//! Link health and repair (restructuring spec "Raw moves", "Link health"): broken links,
//! orphans, `fix-broken`, and the raw moves whose old paths are still referenced.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::restructure::Manifest;

/// A wiki link that resolves to no file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BrokenWikiLink {
    /// The page holding the link.
    pub source: String,
    /// The link's line in the page (1-based).
    pub line: u32,
    /// The target as written.
    pub target: String,
    /// The closest existing file (the match `fix-broken` would use), if exactly one.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub best_match: Option<String>,
    /// Files that match equally well (an ambiguous match, which `fix-broken` leaves alone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
}

/// `GET /links/broken`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BrokenLinks {
    pub broken: Vec<BrokenWikiLink>,
    pub count: usize,
}

/// A page no other page links to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct OrphanPage {
    pub path: String,
}

/// `GET /links/orphans`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Orphans {
    pub orphans: Vec<OrphanPage>,
    pub count: usize,
}

/// `POST /refactor/fix-broken` body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixBrokenRequest {
    /// Only report what would be fixed; nothing is written.
    #[serde(default)]
    pub dry_run: bool,
}

/// One rewritten link target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct LinkFix {
    pub source: String,
    pub old_target: String,
    pub new_target: String,
}

/// `POST /refactor/fix-broken` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct FixBrokenResult {
    pub fixes: Vec<LinkFix>,
    pub count: usize,
    pub dry_run: bool,
    /// Broken links whose match is ambiguous (several files match equally well): left alone.
    #[serde(default)]
    pub ambiguous: Vec<BrokenWikiLink>,
}

/// A move made without relinking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct RawMoveEntry {
    pub from: String,
    pub to: String,
    pub actor: String,
    /// RFC 3339.
    pub at: String,
    /// `rename` (a protocol rename), `links-kept` (a move that asked not to relink) or
    /// `watcher` (seen on disk).
    pub via: String,
}

/// `GET /refactor/raw-moves`: the raw moves whose old paths are still referenced, and a
/// manifest of `relinks` that repairs them (plan and apply it like any manifest).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct RawMoves {
    pub moves: Vec<RawMoveEntry>,
    /// Absent when there is nothing to repair (a manifest needs at least one entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<Manifest>,
}
