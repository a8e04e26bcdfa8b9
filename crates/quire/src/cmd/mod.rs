//! One module per subcommand.

pub mod api;
pub mod find;
pub mod init;
pub mod janitor;
pub mod links;
pub mod lsp;
pub mod mcp;
pub mod mount;
mod preflight;
mod protocols;
pub mod refactor;
mod remote;
pub mod script_child;
pub mod serve;
pub mod token;
mod venue;

/// DECISIONS §6: 2 for bad usage or input, 1 for a refused operation.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<quire_service::Error>() {
        Some(err) => err.code.exit_code(),
        None => 1,
    }
}
