//! MCP round trips: `quire_read` and `quire_search` timed one call at a time with rmcp's
//! client against the real binary on a generated root, over stdio (`quire mcp --root`, the
//! root opened by that process), over streamable HTTP (`quire serve`, endpoint `/mcp`), and
//! over stdio relayed to that server (`quire mcp` on a served root). REST's `GET /file` and
//! `GET /search` with the same arguments give the baseline.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use crate::load::server_address;
use crate::search::{report, vocabulary, walk};

#[derive(ClapArgs)]
pub struct Args {
    /// Pages in the generated root.
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Calls timed per tool and transport (after 20 untimed).
    #[arg(long, default_value_t = 500)]
    pub calls: usize,
    /// The `quire` binary.
    #[arg(long, default_value = "target/release/quire")]
    pub binary: PathBuf,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

type Client = RunningService<RoleClient, ClientConfig>;

/// Untimed calls before the timed ones.
const WARMUP: usize = 20;

pub fn run(args: &Args) -> anyhow::Result<()> {
    if !args.binary.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p quire`",
            args.binary.display()
        );
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("kb");
    let spec = quire_testkit::VaultSpec::new(args.seed, args.pages);
    quire_testkit::generate(&spec).write_to(&root)?;
    let init = Command::new(&args.binary).arg("init").arg(&root).output()?;
    if !init.status.success() {
        bail!("quire init: {}", String::from_utf8_lossy(&init.stderr));
    }
    let n = args.calls + WARMUP;
    let pages: Vec<String> = walk(&root)
        .iter()
        .filter_map(|p| p.strip_prefix(&root).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    let step = (pages.len() / n).max(1);
    let reads: Vec<String> = (0..n)
        .map(|i| pages[(i * step) % pages.len()].clone())
        .collect();
    let words = vocabulary(&root, 200)?;
    let queries: Vec<String> = (0..n)
        .map(|i| {
            let a = &words[(i * 7) % words.len()];
            let b = &words[(i * 13 + 5) % words.len()];
            format!("{a} {b}")
        })
        .collect();
    println!(
        "mcp: {} pages, {} calls per tool and transport (after {WARMUP} untimed), one at a time",
        args.pages, args.calls
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    // stdio, the root opened by `quire mcp` itself.
    runtime.block_on(async {
        let client = stdio(&args.binary, &root).await?;
        wait_ready(&client).await?;
        time_tools("stdio", &client, &reads, &queries).await?;
        client.cancel().await?;
        anyhow::Ok(())
    })?;
    // The stdio process holds the root's writer lock until it has exited.
    let deadline = Instant::now() + Duration::from_secs(60);
    while quire_service::root_holder(&root)?.is_some() {
        if Instant::now() > deadline {
            bail!("quire mcp did not release the root");
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    // Streamable HTTP on `quire serve`, then stdio relayed to it.
    let mut server = Command::new(&args.binary)
        .args(["serve", "--port", "0", "--mcp-port", "0", "--root"])
        .arg(&root)
        .env("QUIRE_LOG", "warn,quire=info")
        .env_remove("QUIRE_API_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting quire serve")?;
    let base = server_address(&mut server)?;
    let origin = base.split("/api/").next().unwrap_or(&base).to_string();
    let outcome = runtime.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(format!("{origin}/mcp"));
        let client = info("bench-http").serve(transport).await?;
        wait_ready(&client).await?;
        time_tools("streamable HTTP", &client, &reads, &queries).await?;
        client.cancel().await?;
        let relayed = stdio(&args.binary, &root).await?;
        time_tools("stdio relayed to the server", &relayed, &reads, &queries).await?;
        relayed.cancel().await?;
        anyhow::Ok(())
    });
    let baseline = outcome.and_then(|()| rest_baseline(&base, &reads, &queries));
    stop(&mut server);
    baseline
}

fn info(name: &str) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        rmcp::model::Implementation::new(name, "1.0"),
    )
}

async fn stdio(binary: &Path, root: &Path) -> anyhow::Result<Client> {
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(binary).configure(|cmd| {
            cmd.arg("mcp")
                .arg("--root")
                .arg(root)
                .env("QUIRE_LOG", "warn")
                .env_remove("QUIRE_API_KEY");
        }))?;
    Ok(info("bench-stdio").serve(transport).await?)
}

async fn call(client: &Client, tool: &str, args: Value) -> anyhow::Result<CallToolResult> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = args.as_object().cloned();
    Ok(client.peer().call_tool(params).await?)
}

/// Waits until search answers (the index's first pass is done).
async fn wait_ready(client: &Client) -> anyhow::Result<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(600) {
        let answer = call(client, "quire_search", json!({"q": "the"})).await?;
        if answer.is_error != Some(true) {
            println!(
                "  index ready {:.2} s after initialize",
                started.elapsed().as_secs_f64()
            );
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bail!("the index was not ready within 10 minutes")
}

async fn time_tools(
    transport: &str,
    client: &Client,
    reads: &[String],
    queries: &[String],
) -> anyhow::Result<()> {
    let mut times = Vec::with_capacity(reads.len());
    for (i, path) in reads.iter().enumerate() {
        let t = Instant::now();
        let answer = call(client, "quire_read", json!({"path": path})).await?;
        let took = t.elapsed();
        if answer.is_error == Some(true) {
            bail!("quire_read {path}: {:?}", answer.content);
        }
        if i >= WARMUP {
            times.push(took);
        }
    }
    report(&format!("{transport}: quire_read"), &mut times);
    let mut times = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        let t = Instant::now();
        let answer = call(client, "quire_search", json!({"q": q})).await?;
        let took = t.elapsed();
        if answer.is_error == Some(true) {
            bail!("quire_search {q}: {:?}", answer.content);
        }
        if i >= WARMUP {
            times.push(took);
        }
    }
    report(&format!("{transport}: quire_search"), &mut times);
    Ok(())
}

/// The same reads and searches as REST calls (`GET /file`, `GET /search`).
fn rest_baseline(base: &str, reads: &[String], queries: &[String]) -> anyhow::Result<()> {
    let agent = ureq::AgentBuilder::new().build();
    let mut times = Vec::new();
    for (i, path) in reads.iter().enumerate() {
        let t = Instant::now();
        agent
            .get(&format!("{base}/file"))
            .query("path", path)
            .call()?
            .into_string()?;
        if i >= WARMUP {
            times.push(t.elapsed());
        }
    }
    report("REST baseline: GET /file", &mut times);
    let mut times = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        let t = Instant::now();
        agent
            .get(&format!("{base}/search"))
            .query("q", q)
            .call()?
            .into_string()?;
        if i >= WARMUP {
            times.push(t.elapsed());
        }
    }
    report("REST baseline: GET /search", &mut times);
    Ok(())
}

fn stop(server: &mut std::process::Child) {
    // SAFETY: a plain signal to our own child process.
    unsafe {
        libc::kill(server.id() as i32, libc::SIGTERM);
    }
    let _ = server.wait();
}
