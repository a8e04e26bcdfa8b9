//! Pure query engine of quire: one expression language and the Dataview-style DQL.
//!
//! No I/O, no index: the caller hands in data ([`dql::Catalog`], [`Scope`]) and gets plain
//! values back. [`expr`] is the expression language shared by manifests (`when`, `compute`,
//! `select.query`), `move_to` templates ([`render_template`]) and DQL; [`dql`] parses and runs
//! queries for `/query` and computes `/query/aggregate`; [`value`] holds the value model with
//! its ordering, equality and truthiness rules.
//!
//! *API Boundary*: results are `serde_json` values or plain structs; mapping errors to HTTP
//! statuses is the service's job ([`dql::QueryError`] keeps the cases apart).

pub mod dql;
pub mod expr;
mod slug;
mod template;
pub mod value;

pub use expr::{
    eval_str, go_layout_to_strftime, parse, EmptyScope, Error, EvalContext, Expr, Scope,
};
pub use slug::slug;
pub use template::{render_template, Template};
pub use value::Value;
