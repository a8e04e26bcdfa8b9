//! Search and DQL over loopback HTTP against the real server: `quire serve` (the release
//! binary) on a generated root, the index built at start, then two-word searches and a DQL
//! `TABLE … WHERE … SORT … LIMIT 50` timed one request at a time. Then the same searches with
//! `[search] engine = "grep"`, and `rg` over the same files for the ratio.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;

use crate::load::server_address;

#[derive(ClapArgs)]
pub struct Args {
    /// Pages in the generated root.
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Searches timed (after 20 untimed).
    #[arg(long, default_value_t = 500)]
    pub searches: usize,
    /// Grep-tier searches timed (each reads every page).
    #[arg(long, default_value_t = 20)]
    pub grep_searches: usize,
    /// The `quire` binary to serve with.
    #[arg(long, default_value = "target/release/quire")]
    pub binary: PathBuf,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Generate the root here (kept afterwards, for profiling) instead of in a temporary
    /// folder; an existing root is used as it is.
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Only generate the root (with `--root`) and stop.
    #[arg(long, requires = "root")]
    pub generate_only: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    if !args.binary.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p quire`",
            args.binary.display()
        );
    }
    let dir = tempfile::tempdir()?;
    let root = args.root.clone().unwrap_or_else(|| dir.path().join("kb"));
    // A kept root from an earlier run: back to the default engine.
    let _ = std::fs::remove_file(root.join(".quire/config.toml"));
    let generated = std::fs::read_dir(&root).is_ok_and(|mut d| d.next().is_some());
    if !generated {
        let spec = quire_testkit::VaultSpec::new(args.seed, args.pages);
        quire_testkit::generate(&spec).write_to(&root)?;
    }
    if args.generate_only {
        println!("generated {} pages in {}", args.pages, root.display());
        return Ok(());
    }
    let words = vocabulary(&root, 200)?;
    println!(
        "search: {} pages, {} two-word queries over loopback HTTP",
        args.pages, args.searches
    );

    let (mut server, base) = serve(&args.binary, &root)?;
    let started = Instant::now();
    wait_ready(&base)?;
    println!(
        "  index ready {:.2} s after the server answered (build at start)",
        started.elapsed().as_secs_f64()
    );
    let agent = ureq::AgentBuilder::new().build();
    let queries: Vec<String> = (0..args.searches + 20)
        .map(|i| {
            let a = &words[(i * 7) % words.len()];
            let b = &words[(i * 13 + 5) % words.len()];
            format!("{a} {b}")
        })
        .collect();
    let mut times = Vec::with_capacity(args.searches);
    let mut hits = 0usize;
    for (i, q) in queries.iter().enumerate() {
        let t = Instant::now();
        let r: serde_json::Value = agent
            .get(&format!("{base}/search"))
            .query("q", q)
            .call()?
            .into_json()?;
        if i >= 20 {
            times.push(t.elapsed());
            hits += r["total"].as_u64().unwrap_or(0) as usize;
        }
    }
    report("two-word search (sqlite)", &mut times);
    println!(
        "    {:.1} matching pages per query on average",
        hits as f64 / args.searches as f64
    );
    // Where the time goes: a round trip that does no work, and (below, once the server has
    // stopped) the same searches against the index in this process.
    let origin = base.split("/api/").next().unwrap_or(&base).to_string();
    let mut times = Vec::new();
    for i in 0..args.searches + 20 {
        let t = Instant::now();
        agent
            .get(&format!("{origin}/health"))
            .call()?
            .into_string()?;
        if i >= 20 {
            times.push(t.elapsed());
        }
    }
    report("  of which an HTTP round trip (/health)", &mut times);

    let dql =
        "TABLE title, file.mtime FROM \"\" WHERE file.size > 200 SORT file.mtime DESC LIMIT 50";
    let mut times = Vec::new();
    for i in 0..60 {
        let t = Instant::now();
        let r = agent.get(&format!("{base}/query")).query("q", dql).call();
        let r = r.context("DQL query")?;
        if i >= 10 {
            times.push(t.elapsed());
        }
        drop(r);
    }
    report("DQL TABLE … WHERE … SORT … LIMIT 50", &mut times);
    stop(&mut server);

    let index = quire_index::Index::open(&root)?;
    let mut times = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        let t = Instant::now();
        index.search(&quire_index::SearchRequest::new(q.as_str()))?;
        if i >= 20 {
            times.push(t.elapsed());
        }
    }
    report(
        "two-word search in-process (Index::search, same index)",
        &mut times,
    );
    drop(index);

    // The grep tier on the same root.
    std::fs::write(
        root.join(".quire/config.toml"),
        "[search]\nengine = \"grep\"\n",
    )?;
    let (mut server, base) = serve(&args.binary, &root)?;
    wait_ready(&base)?;
    let mut times = Vec::new();
    for q in queries.iter().take(args.grep_searches) {
        let t = Instant::now();
        agent
            .get(&format!("{base}/search"))
            .query("q", q)
            .call()?
            .into_string()?;
        times.push(t.elapsed());
    }
    report("two-word search (grep tier)", &mut times);
    let grep_p50 = times[times.len() / 2];
    stop(&mut server);

    // rg over the same files: the first word, case-insensitive, files with a match.
    let mut times = Vec::new();
    for q in queries.iter().take(args.grep_searches) {
        let word = q.split(' ').next().unwrap_or_default();
        let t = Instant::now();
        let out = Command::new("rg")
            .args(["-i", "-l", "--type", "md", "-e", word])
            .arg(&root)
            .stdout(Stdio::null())
            .status();
        match out {
            Ok(_) => times.push(t.elapsed()),
            Err(e) => {
                println!("  rg: not available ({e}); no ratio");
                return Ok(());
            }
        }
    }
    report("rg -i -l WORD (one word, files only)", &mut times);
    let rg_p50 = times[times.len() / 2];
    println!(
        "  grep tier / rg (p50): {:.1}×",
        grep_p50.as_secs_f64() / rg_p50.as_secs_f64()
    );
    Ok(())
}

fn serve(binary: &Path, root: &Path) -> anyhow::Result<(std::process::Child, String)> {
    let mut server = Command::new(binary)
        .args(["serve", "--port", "0", "--mcp-port", "0", "--root"])
        .arg(root)
        .env("QUIRE_LOG", "warn,quire=info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting quire serve")?;
    let base = server_address(&mut server)?;
    Ok((server, base))
}

fn stop(server: &mut std::process::Child) {
    // SAFETY: a plain signal to our own child process.
    unsafe {
        libc::kill(server.id() as i32, libc::SIGTERM);
    }
    let _ = server.wait();
}

/// Waits until search answers (the index's first pass is done).
fn wait_ready(base: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(600);
    while Instant::now() < deadline {
        match ureq::get(&format!("{base}/search"))
            .query("q", "the")
            .call()
        {
            Ok(_) => return Ok(()),
            Err(ureq::Error::Status(503, _)) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => bail!("search failed: {e}"),
        }
    }
    bail!("the index was not ready within 10 minutes")
}

/// Words of four letters or more that occur in the pages, most frequent first.
pub(crate) fn vocabulary(root: &Path, n: usize) -> anyhow::Result<Vec<String>> {
    let mut counts = std::collections::HashMap::<String, usize>::new();
    for entry in walk(root).into_iter().take(2_000) {
        let text = std::fs::read_to_string(entry).unwrap_or_default();
        for w in text.split(|c: char| !c.is_alphabetic()) {
            if w.len() >= 4 {
                *counts.entry(w.to_lowercase()).or_default() += 1;
            }
        }
    }
    let mut words: Vec<(String, usize)> = counts.into_iter().collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // Skip the 20 most frequent (they match nearly everything) and take a spread after.
    Ok(words.into_iter().skip(20).take(n).map(|(w, _)| w).collect())
}

pub(crate) fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub(crate) fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "  {what}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} runs)",
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        times.len()
    );
}
