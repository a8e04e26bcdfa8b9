//! `quire-bench`: the measurements behind `docs/PERFORMANCE.md`.
//!
//! Run with `cargo run --release -p quire-bench -- all` (or one of the subcommands). Every
//! figure is measured on a vault made by `quire-testkit` from a fixed seed, so runs are
//! comparable across machines.

mod apply;
mod docs_vault;
mod edits;
mod eval;
mod extract;
mod import_export;
mod load;
mod lsp;
mod mcp;
mod plan;
mod protocols;
mod put;
mod resolve;
mod search;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "quire-bench", about = "Benchmarks of quire's hot paths")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Link extraction throughput (parse every page of a generated vault, one thread).
    Extract(extract::Args),
    /// Resolving every link of a generated vault (warm, best of several runs).
    Resolve(resolve::Args),
    /// `PUT /file` over loopback into a generated repository, one commit per write or batched.
    Put(put::Args),
    /// Apply and revert of a restructuring that writes ~1,000 pages.
    Apply(apply::Args),
    /// Bulk edits: set a key on every page, regex replace on every page (plan and apply).
    Edits(edits::Args),
    /// Planner: hub rename and folder move, warm and cold.
    Plan(plan::Args),
    /// Many clients as many actors against the real server: commit lag, authors, SIGTERM.
    Load(load::Args),
    /// MCP round trips of quire_read and quire_search over stdio and streamable HTTP.
    Mcp(mcp::Args),
    /// Search and DQL over loopback HTTP (index built at start), the grep tier, and `rg`.
    Search(search::Args),
    /// The language server: willRenameFiles of a hub, diagnostics of a long page.
    Lsp(lsp::Args),
    /// A folder of pages copied in and read back through WebDAV, S3 and FUSE, against REST.
    Protocols(protocols::Args),
    /// Search quality (BM25, vectors, hybrid) on quire's own docs with labelled questions,
    /// then semantic and hybrid search latency on a generated vault.
    Eval(eval::Args),
    /// Everything above with the sizes.
    All,
    /// Issue 27 (not in `all`): `POST /import` of N csv (and PostgreSQL) rows, `GET /export` of the result
    /// as jsonl, csv and parquet; seconds, pages/s, peak memory.
    ImportExport(import_export::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Extract(args) => extract::run(&args),
        Command::Resolve(args) => resolve::run(&args),
        Command::Put(args) => put::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::Apply(args) => apply::run(&args),
        Command::Edits(args) => edits::run(&args),
        Command::Load(args) => load::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Lsp(args) => lsp::run(&args),
        Command::Mcp(args) => mcp::run(&args),
        Command::Protocols(args) => protocols::run(&args),
        Command::Eval(args) => eval::run(&args),
        Command::ImportExport(args) => import_export::run(&args),
        Command::All => {
            extract::run(&extract::Args::default())?;
            resolve::run(&resolve::Args::default())?;
            plan::run(&plan::Args::default())?;
            apply::run(&apply::Args::default())?;
            put::run(&put::Args {
                mode: put::Mode::Sync,
                ..put::Args::default()
            })?;
            put::run(&put::Args {
                mode: put::Mode::Async,
                writes: 6000,
                ..put::Args::default()
            })
        }
    }
}

/// The vault a benchmark generates.
#[derive(clap::Args)]
pub struct VaultArgs {
    /// Pages in the generated vault (about 10 links each).
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Vault generator seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl Default for VaultArgs {
    fn default() -> Self {
        VaultArgs {
            pages: 10_000,
            seed: 42,
        }
    }
}

/// Best (smallest) duration of `runs` calls of `f`.
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (std::time::Duration, T) {
    let mut best = None;
    let mut last = None;
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let out = f();
        let took = start.elapsed();
        best = Some(best.map_or(took, |b: std::time::Duration| b.min(took)));
        last = Some(out);
    }
    (best.expect("runs > 0"), last.expect("runs > 0"))
}
