//! The `quire` command line: a thin layer over the service and its adapters.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// quire — a knowledge base of markdown pages under git, with safe, revertible restructuring.
#[derive(Parser)]
#[command(name = "quire", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a knowledge root: the folder, .quire/config.toml with commented defaults, and a
    /// git repository whose first commit holds what the folder already contains.
    Init(cmd::init::Args),
    /// Serve a knowledge root over HTTP (REST API under /api/quire, events, health).
    ///
    /// SIGHUP reloads [auth], [server.rate_limit] and each space's [space] visibility; other
    /// settings apply at the next start (the log names those that changed).
    Serve(cmd::serve::Args),
    /// Restructure the knowledge base: plan and apply manifests (moves, merges, relinks, bulk
    /// edits, tag renames, splits) as one commit that keeps every link working; revert.
    Refactor(cmd::refactor::Args),
    /// Full-text search: words, AND, OR, NOT, "phrases", prefix*, tag:, path:, file:.
    Search(cmd::find::SearchArgs),
    /// Run a DQL query (TABLE, LIST, COUNT, DISTINCT … FROM … WHERE … SORT … LIMIT) and
    /// print a table.
    Query(cmd::find::QueryArgs),
    /// Serve MCP (the agent protocol) on stdin/stdout; through the server holding the root
    /// when one runs, else on the root itself.
    Mcp(cmd::mcp::Args),
    /// Link health: broken wiki links (with the file each most likely meant) and orphan
    /// pages. `quire refactor fix-broken` repairs the broken ones.
    Links(cmd::links::Args),
    /// The janitor report: stale pages (90 days without a change unless --stale-days says
    /// otherwise, or past their review-by date), orphans, broken links, empty pages and
    /// pages without frontmatter, with what to do about each.
    Janitor(cmd::janitor::Args),
    /// Serve the markdown language server (LSP) on stdin/stdout for an editor: links,
    /// backlinks, diagnostics, completion, heading renames and file renames that keep links.
    /// Reads the root without writing it; the editor applies the edits.
    Lsp(cmd::lsp::Args),
    /// Mount a knowledge root as a folder (FUSE) until SIGTERM or Ctrl-C: files written there
    /// are committed as they are closed, renames keep links, editors' temp files stay in
    /// memory. A root a server holds is mounted through that server (its one writer).
    Mount(cmd::mount::Args),
    /// Scoped API tokens: create (shown once, stored as a hash), list, revoke.
    Token(cmd::token::Args),
    /// Call any operation of the service (the same ones REST and MCP serve) by its name;
    /// without a name, list them.
    Api(cmd::api::Args),
    /// Rebuild the search index (.quire/state/index.db) from the files.
    Reindex(cmd::find::ReindexArgs),
    /// The process a restructuring script runs in (started by the service, never by hand).
    #[command(name = cmd::script_child::SUBCOMMAND, hide = true)]
    Script(cmd::script_child::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Init(args) => cmd::init::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Refactor(args) => cmd::refactor::run(args),
        Command::Search(args) => cmd::find::search(args),
        Command::Query(args) => cmd::find::query(args),
        Command::Reindex(args) => cmd::find::reindex(args),
        Command::Api(args) => cmd::api::run(args),
        Command::Script(args) => cmd::script_child::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::Links(args) => cmd::links::run(args),
        Command::Janitor(args) => cmd::janitor::run(args),
        Command::Lsp(args) => cmd::lsp::run(args),
        Command::Mount(args) => cmd::mount::run(args),
        Command::Token(args) => cmd::token::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quire: {e:#}");
            // The command line is the operator's own terminal: an internal error says what
            // failed inside.
            if let Some(detail) = e
                .downcast_ref::<quire_service::Error>()
                .and_then(|e| e.detail.as_deref())
            {
                eprintln!("quire: detail: {detail}");
            }
            ExitCode::from(cmd::exit_code(&e))
        }
    }
}
