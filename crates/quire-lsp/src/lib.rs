//! `quire lsp`: the markdown language server, over a space of `quire-service`.
//!
//! It answers from the real link model: pages are parsed by `quire-syntax` (exact byte spans),
//! links resolved by the space's `Vault` exactly as everywhere else, and file renames planned
//! by the restructuring planner (`Restructure::plan_workspace_edit`) and turned into edits by
//! `quire_api::workspace_edit`. Open buffers are the truth for open files: their texts are
//! laid over the files in the (read-only) space with `Space::set_unsaved`. The server never
//! writes the root; every change it proposes is an edit the editor applies.
//!
//! Synchronous (`lsp-server`): one thread reads requests and answers them in order.

mod check;
mod complete;
mod edit;
mod navigate;
mod server;
pub mod text;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_server::{Connection, Message, Response};
use quire_service::Space;

pub use server::capabilities;

/// How the server finds and opens its space.
pub struct Launch<'a> {
    /// The root given on the command line; else the editor's root (`rootUri`, the first
    /// workspace folder, `rootPath`), else the working folder.
    pub root: Option<PathBuf>,
    /// Opens the space of a root (read-only: the language server never writes).
    pub open: &'a dyn Fn(&Path) -> Result<Arc<Space>, String>,
}

/// Serves one editor over `connection` until it shuts down (or closes the connection).
pub fn serve(connection: &Connection, launch: Launch<'_>) -> Result<(), String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("initialize: {e}"))?;
    let client_root = server::client_root(&params);
    let root = match launch
        .root
        .clone()
        .or_else(|| client_root.as_deref().and_then(text::local_path))
    {
        Some(root) => root,
        None => std::env::current_dir().map_err(|e| format!("the working folder: {e}"))?,
    };
    let space = match (launch.open)(&root) {
        Ok(space) => space,
        Err(e) => {
            let message = format!("quire lsp cannot open {}: {e}", root.display());
            let _ = connection.sender.send(Message::Response(Response::new_err(
                id,
                lsp_server::ErrorCode::RequestFailed as i32,
                message.clone(),
            )));
            return Err(message);
        }
    };
    let watch = server::wants_watching(&params);
    connection
        .initialize_finish(
            id,
            serde_json::json!({
                "capabilities": capabilities(),
                "serverInfo": {"name": "quire", "version": env!("CARGO_PKG_VERSION")},
            }),
        )
        .map_err(|e| format!("initialize: {e}"))?;
    let mut server = server::Server::new(space, client_root.as_deref(), connection.sender.clone());
    if watch {
        server.register_watching();
    }
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| format!("shutdown: {e}"))?
                {
                    return Ok(());
                }
                let response = server.request(request);
                if connection.sender.send(Message::Response(response)).is_err() {
                    return Ok(());
                }
            }
            Message::Notification(notification) => {
                if notification.method == "exit" {
                    return Ok(());
                }
                server.notification(notification);
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}
