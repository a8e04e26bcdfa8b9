//! The operation table: every operation of the service, declared once.
//!
//! An operation is a type implementing [`Operation`]: its [`Meta`] (name, summary, the scope
//! a caller needs, and the bindings each adapter derives from: a REST method and path, an MCP
//! tool name), its input and output types (`quire-api` wire types, whose `schemars` derive is
//! both the MCP schema and the OpenAPI schema), and `run`, the one call onto the space's
//! services. REST routes, MCP tools and the command line's `quire api` are generated from this
//! table; an adapter maps operations, it does not restate them.
//!
//! Areas declare their operations in a module each and list them in `visit`; [`visit`] walks
//! every area in the order clients list them. [`table`] is the same list with types erased
//! (JSON in, JSON out), for adapters that dispatch by name.

mod caller;
mod entry;
mod meta;

pub mod canvas;
pub mod collab;
pub mod drafts;
pub mod files;
pub mod find;
pub mod history;
pub mod import;
pub mod ingest;
pub mod insight;
pub mod mount;
pub mod pages;
pub mod refactor;
pub mod repair;
pub mod views;
pub mod workflows;

pub use caller::Caller;
pub use entry::{decode, find, find_tool, table, Entry, Output};
pub use meta::{Carrier, Meta, Method, Raw, Rest, Tool};
pub use quire_api::Scope;

use quire_service::{Result, Space};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// One operation of the service.
pub trait Operation: Send + Sync + 'static {
    /// What the caller sends: a query string, a JSON body or tool arguments, by binding.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;
    /// What the caller gets back.
    type Output: Serialize + JsonSchema + Send + 'static;
    /// The declaration every adapter reads.
    const META: Meta;

    /// Carries the operation out on `space` for `caller`.
    fn run(space: &Space, input: Self::Input, caller: &Caller) -> Result<Self::Output>;

    /// The text an agent reads (an MCP result's text content). Default: the output as JSON,
    /// so a host that shows only text still gives the model the whole result.
    fn text(output: &Self::Output) -> String {
        serde_json::to_string_pretty(output).unwrap_or_default()
    }
}

/// Something that walks the operation table with each operation's type (an adapter building
/// its routes, a test listing the table).
pub trait Visit {
    fn op<O: Operation>(&mut self);
}

/// Every operation of every area, in the order clients list them.
pub fn visit(v: &mut impl Visit) {
    files::visit(v);
    history::visit(v);
    find::visit(v);
    pages::visit(v);
    insight::visit(v);
    views::visit(v);
    drafts::visit(v);
    workflows::visit(v);
    canvas::visit(v);
    collab::visit(v);
    refactor::visit(v);
    repair::visit(v);
    import::visit(v);
    ingest::visit(v);
    mount::visit(v);
}
