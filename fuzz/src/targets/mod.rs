//! One module per parser; each declares its [`Target`](crate::Target)s. [`ALL`] lists them in
//! the order `.ci/run` and docs/RELIABILITY.md name them.

pub mod canvas;
pub mod frontmatter;
pub mod frontmatter_edit;
pub mod lsp;
pub mod manifest;
pub mod mcp;
pub mod paths;
pub mod query;
pub mod script;
pub mod syntax;
pub mod workspace_edit;

use crate::Target;

pub const ALL: &[&Target] = &[
    &syntax::TARGET,
    &frontmatter::TARGET,
    &frontmatter_edit::TARGET,
    &manifest::TARGET,
    &query::DQL,
    &query::EXPR,
    &canvas::TARGET,
    &paths::TARGET,
    &lsp::FRAMES,
    &lsp::POSITIONS,
    &mcp::TARGET,
    &workspace_edit::TARGET,
    &script::TARGET,
];
