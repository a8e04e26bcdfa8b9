//! `quire lsp`: the markdown language server on stdin/stdout, for editors that start it.
//!
//! It never writes the root: it opens it read-only (whether or not a server holds it; see
//! docs/decisions.md, "The language server reads the root itself") and returns edits that
//! the editor applies. The editor writes the files; a running server's watcher records them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args as ClapArgs;

use super::venue::{open_root, Purpose};

#[derive(ClapArgs)]
pub struct Args {
    /// Knowledge root (default: the editor's workspace root, else the working folder).
    #[arg(long, env = "QUIRE_ROOT")]
    root: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // stdout carries the protocol: logs go to stderr, quietly unless asked.
    let filter = tracing_subscriber::EnvFilter::try_from_env("QUIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
    let open = |root: &Path| -> Result<Arc<quire_service::Space>, String> {
        if !root.is_dir() {
            return Err(format!("{} is not a folder", root.display()));
        }
        if let Ok(Some(holder)) = quire_service::root_holder(root) {
            tracing::info!(
                "{} is held by {holder}; reading it without writing",
                root.display()
            );
        }
        let service = open_root(root, Purpose::Read).map_err(|e| format!("{e:#}"))?;
        Ok(service.default_space().clone())
    };
    // quire's own framing: a bad frame is answered rather than ending the session.
    let (connection, io_threads) = quire_lsp::stdio();
    let served = quire_lsp::serve(
        &connection,
        quire_lsp::Launch {
            root: args.root,
            open: &open,
        },
    );
    drop(connection);
    // Every answer is written before the process ends, a failure's too.
    let written = io_threads.join();
    served.map_err(|e| anyhow::anyhow!("quire lsp: {e}"))?;
    written?;
    Ok(())
}
