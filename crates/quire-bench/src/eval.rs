//! Search quality and vector search latency.
//!
//! Quality: quire's own documentation as a vault ([`crate::docs_vault`]), vector search on,
//! the labelled questions of `eval/questions.json` asked through `Insight::evaluate` (what
//! `POST /eval` runs): hit rate@10, MRR and precision@5 of BM25, vectors and hybrid, and the
//! questions where hybrid ranked the answer below BM25.
//!
//! Latency: a generated vault of `--pages` pages, embedded, then `GET /search/semantic`,
//! `GET /search` (hybrid, the default with vectors on) and `GET /search?mode=bm25` over
//! loopback HTTP, one request at a time.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;
use quire_api::{EvalQuery, EvalRequest, EvalScores, SearchEvaluation};
use quire_service::{HistoryOptions, Service, Space, Strategy};
use serde_json::json;

use crate::docs_vault;
use crate::search::{report, vocabulary};

#[derive(ClapArgs)]
pub struct Args {
    /// The labelled questions (default: `crates/quire-bench/eval/questions.json`).
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// The repository whose docs make the vault (default: this workspace).
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// Write the figures here as JSON too.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Pages of the generated vault the latency is measured on; 0 skips the latency.
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Requests timed per kind of search (after 20 untimed).
    #[arg(long, default_value_t = 300)]
    pub requests: usize,
    /// Vault generator seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// How long embedding a vault may take, in seconds.
    #[arg(long, default_value_t = 3_600)]
    pub settle_secs: u64,
}

/// The configuration both vaults are opened with: vector search on, the rest defaults.
const VECTORS_ON: &str = "[search.vector]\nenabled = true\n";

pub fn run(args: &Args) -> anyhow::Result<()> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest.join("../..");
    let repo = args
        .repo
        .clone()
        .unwrap_or_else(|| workspace.canonicalize().unwrap_or(workspace));
    let questions_path = args
        .questions
        .clone()
        .unwrap_or_else(|| manifest.join("eval/questions.json"));
    let (vault_name, queries) = read_questions(&questions_path)?;
    if vault_name != "docs" {
        bail!(
            "{}: vault {vault_name:?}, but only \"docs\" is built here",
            questions_path.display()
        );
    }

    let quality = quality(&repo, queries, Duration::from_secs(args.settle_secs))?;
    let latency = if args.pages > 0 {
        Some(latency(args)?)
    } else {
        None
    };
    if let Some(out) = &args.out {
        let value = json!({"quality": quality, "latency": latency});
        std::fs::write(out, serde_json::to_string_pretty(&value)? + "\n")
            .with_context(|| format!("writing {}", out.display()))?;
        println!("figures written to {}", out.display());
    }
    Ok(())
}

/// The vault name and the questions of a question file.
fn read_questions(path: &Path) -> anyhow::Result<(String, Vec<EvalQuery>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is no JSON", path.display()))?;
    let vault = value["vault"].as_str().unwrap_or_default().to_string();
    let queries: Vec<EvalQuery> = serde_json::from_value(value["queries"].take())
        .with_context(|| format!("{}: `queries`", path.display()))?;
    if queries.is_empty() {
        bail!("{}: no questions", path.display());
    }
    Ok((vault, queries))
}

/// A service over `root` with vector search on and one git commit per write.
fn open_with_vectors(root: &Path) -> anyhow::Result<Arc<Service>> {
    let config = quire_config::Config::from_toml_str(VECTORS_ON, &|_| None)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .config;
    let mut settings = quire_service::settings_from_config(root, &config);
    for space in &mut settings {
        space.history = HistoryOptions {
            strategy: Strategy::Git,
            async_commit: false,
            ..HistoryOptions::default()
        };
    }
    Ok(Arc::new(Service::open(settings)?))
}

/// What embedding a vault took.
struct Embedded {
    /// From opening the service to the last page embedded.
    total: Duration,
    /// From the first chunk embedded to the last page embedded.
    embedding: Duration,
    chunks: usize,
    embedded: u64,
}

impl Embedded {
    fn chunks_per_sec(&self) -> f64 {
        self.embedded as f64 / self.embedding.as_secs_f64()
    }

    fn print(&self) {
        println!(
            "  embedded: {} chunks ({} sent to the model) in {:.2} s, {:.0} chunks/s; \
             {:.2} s from opening the service to the last page embedded",
            self.chunks,
            self.embedded,
            self.embedding.as_secs_f64(),
            self.chunks_per_sec(),
            self.total.as_secs_f64()
        );
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "seconds_from_open": self.total.as_secs_f64(),
            "seconds_embedding": self.embedding.as_secs_f64(),
            "chunks": self.chunks,
            "chunks_embedded": self.embedded,
            "chunks_per_second": self.chunks_per_sec(),
        })
    }
}

/// Waits until every page of `space` is indexed and embedded; `opened` is when opening the
/// service began. The embedding starts after the index's first pass, so its own time runs
/// from the first chunk a watcher sees embedded (polled every 20 ms).
fn settle(space: &Space, opened: Instant, timeout: Duration) -> anyhow::Result<Embedded> {
    let done = AtomicBool::new(false);
    let (settled, first) = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if space.vector_status().is_some_and(|s| s.embedded > 0) {
                    return Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            None
        });
        let settled = space.find().settle_vectors(timeout);
        done.store(true, Ordering::Relaxed);
        (settled, watcher.join().ok().flatten())
    });
    if !settled {
        bail!(
            "the vault was not embedded within {} s (--settle-secs)",
            timeout.as_secs()
        );
    }
    let end = Instant::now();
    let status = space.vector_status().context("vector search is off")?;
    if let Some(error) = status.last_error {
        bail!("vector search failed: {error}");
    }
    Ok(Embedded {
        total: end - opened,
        embedding: end - first.unwrap_or(opened),
        chunks: status.chunks,
        embedded: status.embedded,
    })
}

/// The labelled questions over the documentation vault.
fn quality(
    repo: &Path,
    queries: Vec<EvalQuery>,
    settle_timeout: Duration,
) -> anyhow::Result<serde_json::Value> {
    let pages = docs_vault::pages(repo)
        .with_context(|| format!("reading the docs of {}", repo.display()))?;
    let known: std::collections::HashSet<&str> = pages.iter().map(|p| p.path.as_str()).collect();
    let missing: Vec<String> = queries
        .iter()
        .flat_map(|q| {
            q.expected_paths
                .iter()
                .filter(|p| !known.contains(p.as_str()))
                .map(move |p| format!("{p} (question {:?})", q.question))
        })
        .collect();
    if !missing.is_empty() {
        bail!(
            "expected pages not in the docs vault:\n  {}",
            missing.join("\n  ")
        );
    }

    let dir = tempfile::tempdir()?;
    docs_vault::write(&pages, dir.path())?;
    println!(
        "eval: {} questions over the docs vault ({} pages from {})",
        queries.len(),
        pages.len(),
        repo.display()
    );
    let opened = Instant::now();
    let service = open_with_vectors(dir.path())?;
    let space = service.space("default").context("no default space")?;
    let embedded = settle(&space, opened, settle_timeout)?;
    embedded.print();

    let evaluation = space.insight().evaluate(&EvalRequest {
        queries: queries.clone(),
    })?;
    print_scores(&evaluation);
    print_losses(&evaluation, &queries);
    Ok(json!({
        "pages": pages.len(),
        "questions": queries.len(),
        "embedding": embedded.json(),
        "evaluation": evaluation,
    }))
}

fn print_scores(evaluation: &SearchEvaluation) {
    println!();
    println!(
        "  {:<10} {:>12} {:>8} {:>14}",
        "search", "hit rate@10", "MRR", "precision@5"
    );
    let row = |name: &str, scores: Option<&EvalScores>| match scores {
        Some(s) => println!(
            "  {name:<10} {:>12.3} {:>8.3} {:>14.3}",
            s.hit_rate, s.mrr, s.precision_at_5
        ),
        None => println!("  {name:<10} {:>12}", "(off)"),
    };
    row("BM25", Some(&evaluation.fts));
    row("vectors", evaluation.semantic.as_ref());
    row("hybrid", evaluation.hybrid.as_ref());
    println!();
}

/// A rank as printed: `-` for a miss.
fn rank(r: Option<usize>) -> String {
    r.map_or_else(|| "-".to_string(), |r| r.to_string())
}

/// The questions hybrid ranked worse than BM25 (a miss is worse than any rank), and how
/// many it ranked better.
fn print_losses(evaluation: &SearchEvaluation, queries: &[EvalQuery]) {
    let worse = |a: Option<usize>, b: Option<usize>| match (a, b) {
        (None, Some(_)) => true,
        (Some(a), Some(b)) => a > b,
        _ => false,
    };
    let mut lost = Vec::new();
    let mut won = 0;
    for (result, query) in evaluation.per_query.iter().zip(queries) {
        if worse(result.hybrid_rank, result.fts_rank) {
            lost.push((result, query));
        } else if worse(result.fts_rank, result.hybrid_rank) {
            won += 1;
        }
    }
    println!(
        "  hybrid ranked the answer higher than BM25 for {won} questions, lower for {}:",
        lost.len()
    );
    for (result, query) in lost {
        println!(
            "    bm25 {:>2}  vectors {:>2}  hybrid {:>2}  {:?} -> {}",
            rank(result.fts_rank),
            rank(result.semantic_rank),
            rank(result.hybrid_rank),
            query.question,
            query.expected_paths.join(", ")
        );
    }
    let missed: Vec<&str> = evaluation
        .per_query
        .iter()
        .filter(|r| r.fts_rank.is_none() && r.semantic_rank.is_none() && r.hybrid_rank.is_none())
        .map(|r| r.question.as_str())
        .collect();
    println!("  missed by all three: {}", missed.len());
    for q in missed {
        println!("    {q:?}");
    }
}

/// Embedding time, store size and search latency on a generated vault.
fn latency(args: &Args) -> anyhow::Result<serde_json::Value> {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    quire_testkit::generate(&quire_testkit::VaultSpec::new(args.seed, args.pages))
        .write_to(root)?;
    println!();
    println!(
        "latency: a generated vault of {} pages (seed {}), vector search on",
        args.pages, args.seed
    );
    let opened = Instant::now();
    let service = open_with_vectors(root)?;
    let space = service.space("default").context("no default space")?;
    let embedded = settle(&space, opened, Duration::from_secs(args.settle_secs))?;
    let store = store_bytes(root);
    let per_thousand = store as f64 / (args.pages as f64 / 1_000.0);
    embedded.print();
    println!(
        "  .quire/state/vectors.db (with its WAL): {:.1} MB, {:.2} MB per 1,000 pages",
        store as f64 / 1e6,
        per_thousand / 1e6
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let base = format!("http://{}/api/quire", listener.local_addr()?);
    let app = quire_http::router(service.clone(), quire_http::HttpSettings::open("default"));
    runtime.spawn(async move { axum::serve(listener, app).await });

    let words = vocabulary(root, 300)?;
    if words.len() < 10 {
        bail!("too few words in the generated vault");
    }
    let queries: Vec<String> = (0..args.requests + 20)
        .map(|i| {
            let a = &words[(i * 7) % words.len()];
            let b = &words[(i * 13 + 5) % words.len()];
            let c = &words[(i * 29 + 11) % words.len()];
            if i % 2 == 0 {
                format!("{a} {b}")
            } else {
                format!("{a} {b} {c}")
            }
        })
        .collect();
    println!(
        "  {} plain-word queries of 2–3 words each kind over loopback HTTP, one at a time",
        args.requests
    );
    let agent = ureq::AgentBuilder::new().build();
    let mut figures = serde_json::Map::new();
    for (name, route, mode) in [
        ("semantic (GET /search/semantic)", "/search/semantic", None),
        ("hybrid (GET /search)", "/search", None),
        ("bm25 (GET /search?mode=bm25)", "/search", Some("bm25")),
    ] {
        let mut times = Vec::with_capacity(args.requests);
        for (i, q) in queries.iter().enumerate() {
            let mut request = agent.get(&format!("{base}{route}")).query("q", q);
            if let Some(mode) = mode {
                request = request.query("mode", mode);
            }
            let t = Instant::now();
            let answer: serde_json::Value = request
                .call()
                .with_context(|| format!("{route}?q={q}"))?
                .into_json()?;
            let took = t.elapsed();
            if i == 0 && route == "/search" {
                let said = answer["mode"].as_str().unwrap_or_default();
                let wanted = mode.unwrap_or("hybrid");
                if said != wanted {
                    bail!("{route} answered mode {said:?}, not {wanted:?}");
                }
            }
            if i >= 20 {
                times.push(took);
            }
        }
        report(name, &mut times);
        let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
        figures.insert(
            name.to_string(),
            json!({"p50_ms": at(0.5).as_secs_f64() * 1e3, "p99_ms": at(0.99).as_secs_f64() * 1e3}),
        );
    }
    runtime.shutdown_background();
    Ok(json!({
        "pages": args.pages,
        "embedding": embedded.json(),
        "vectors_db_bytes": store,
        "vectors_db_bytes_per_1000_pages": per_thousand,
        "requests": args.requests,
        "searches": figures,
    }))
}

/// Bytes of the vector store: `vectors.db` and its write-ahead log, if any.
fn store_bytes(root: &Path) -> u64 {
    ["vectors.db", "vectors.db-wal"]
        .iter()
        .filter_map(|name| std::fs::metadata(root.join(".quire/state").join(name)).ok())
        .map(|m| m.len())
        .sum()
}
