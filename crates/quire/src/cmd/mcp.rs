//! `quire mcp`: the MCP server on stdin/stdout, for desktop clients that start it.
//!
//! One writer per root: when a server holds the root, every message is relayed to that
//! server's MCP endpoint (`/mcp` on its REST address, with `QUIRE_API_KEY` as the Bearer key
//! when auth is on); otherwise the root is opened here, holding its writer lock.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args as ClapArgs;
use quire_service::{Error, ErrorCode};

use super::venue::{open_root, Purpose};

#[derive(ClapArgs)]
pub struct Args {
    /// Knowledge root to serve.
    #[arg(long, default_value = "knowledge", env = "QUIRE_ROOT")]
    root: PathBuf,
    /// Author of writes (default: the MCP client's name).
    #[arg(long, env = "QUIRE_ACTOR")]
    actor: Option<String>,
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
    if !args.root.is_dir() {
        return Err(Error::bad_request(format!(
            "{} is not a folder; create it with `quire init`",
            args.root.display()
        ))
        .into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    match quire_service::root_holder(&args.root)? {
        Some(holder) => match holder.api.clone() {
            Some(api) => {
                let url = format!("{}{}", api.trim_end_matches('/'), quire_mcp::MCP_PATH);
                tracing::info!(
                    "{} is served by {holder}; relaying to {url}",
                    args.root.display()
                );
                let key = std::env::var("QUIRE_API_KEY").ok();
                Ok(runtime.block_on(quire_mcp::bridge_stdio(&url, key, &args.root))?)
            }
            None => Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "{} is being written by {holder}; try again when it is done",
                    args.root.display()
                ),
            )
            .into()),
        },
        None => {
            let service = Arc::new(open_root(&args.root, Purpose::Write("mcp"))?);
            let server = quire_mcp::McpServer::new(service.clone(), args.actor);
            let served = runtime.block_on(server.serve_stdio());
            service.flush();
            served.map_err(|e| anyhow::anyhow!("MCP over stdio failed: {e}"))
        }
    }
}
