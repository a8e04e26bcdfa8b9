//! `PUT /file` over loopback into a generated repository, then a check that every write is in
//! git and `git status` is clean.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args as ClapArgs, ValueEnum};
use quire_service::{AssetRules, Service, SpaceSettings};
use quire_store::HistoryOptions;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Mode {
    /// One git commit per write, before the response.
    Sync,
    /// Async batching (`batch_window_ms` 200, `batch_max_size` 50).
    Async,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Files in the repository before the benchmark.
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Writes to send; each goes to a different page, so each must show up in git.
    #[arg(long, default_value_t = 2_000)]
    pub writes: usize,
    /// Concurrent HTTP clients (keep-alive connections).
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    #[arg(long, value_enum, default_value_t = Mode::Sync)]
    pub mode: Mode,
    /// `[search] async_index = true`: a write is acknowledged before the search index has
    /// it (no read-your-writes in search).
    #[arg(long)]
    pub async_index: bool,
    /// `[search] index_batch_max`: pages indexed at most per index transaction (default: the
    /// server's default).
    #[arg(long)]
    pub index_batch_max: Option<usize>,
    /// `[history] batch_max_size`: files after which an async batch is committed (default:
    /// the server's default, 50).
    #[arg(long)]
    pub batch_max_size: Option<usize>,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            pages: 10_000,
            writes: 2_000,
            clients: 4,
            mode: Mode::Sync,
            async_index: false,
            index_batch_max: None,
            batch_max_size: None,
            seed: 42,
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let generated = quire_testkit::generate(&quire_testkit::VaultSpec::new(args.seed, args.pages));
    generated.write_to(dir.path())?;
    let targets: Vec<String> = generated
        .page_paths()
        .into_iter()
        .filter(|p| !p.starts_with(".quire/"))
        .map(str::to_string)
        .collect();
    if targets.len() < args.writes {
        bail!(
            "{} writes need at least as many pages (got {})",
            args.writes,
            targets.len()
        );
    }
    let open = Instant::now();
    let service = Arc::new(Service::open(vec![SpaceSettings {
        name: "default".into(),
        root: dir.path().to_path_buf(),
        history: HistoryOptions {
            async_commit: args.mode == Mode::Async,
            batch_max_size: args
                .batch_max_size
                .unwrap_or(HistoryOptions::default().batch_max_size),
            ..HistoryOptions::default()
        },
        assets: AssetRules::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: quire_service::FindSettings {
            index: quire_service::IndexSettings {
                async_index: args.async_index,
                batch_max: args
                    .index_batch_max
                    .unwrap_or(quire_service::IndexSettings::default().batch_max),
                ..Default::default()
            },
            ..Default::default()
        },
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    }])?);
    let files_in_repo = head_file_count(dir.path())?;
    // The index's first pass (every page read and indexed) is part of opening, not of the
    // writes measured: a write's wait for its index batch must not include it.
    if let Some(space) = service.space("default") {
        space.find().flush();
    }
    let open = open.elapsed();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let addr = listener.local_addr()?;
    let app = quire_http::router(service.clone(), quire_http::HttpSettings::open("default"));
    runtime.spawn(async move { axum::serve(listener, app).await });

    let commits_before = commit_count(dir.path())?;
    let per_client: Vec<Vec<(String, String)>> = (0..args.clients)
        .map(|c| {
            targets
                .iter()
                .take(args.writes)
                .enumerate()
                .filter(|(i, _)| i % args.clients == c)
                .map(|(i, p)| {
                    (
                        p.clone(),
                        format!("# Rewritten {i}\n\nBenchmark write {i}.\n"),
                    )
                })
                .collect()
        })
        .collect();
    // On stderr, so a profiler can attach for the writing phase only (docs/PERFORMANCE.md).
    eprintln!(
        "put: {} opened in {:.1} s; writing (pid {})",
        dir.path().display(),
        open.as_secs_f64(),
        std::process::id()
    );
    let start = Instant::now();
    let cpu_start = process_cpu();
    let handles: Vec<_> = per_client
        .into_iter()
        .map(|writes| {
            let base = format!("http://{addr}/api/quire/file?path=");
            std::thread::spawn(move || -> anyhow::Result<Vec<Duration>> {
                let agent = ureq::AgentBuilder::new().build();
                let mut latencies = Vec::with_capacity(writes.len());
                for (path, body) in writes {
                    let sent = Instant::now();
                    let response = agent
                        .put(&format!("{base}{}", encode(&path)))
                        .set("X-Actor", "bench")
                        .send_string(&body)
                        .with_context(|| format!("PUT {path}"))?;
                    if response.status() >= 300 {
                        bail!("PUT {path}: status {}", response.status());
                    }
                    latencies.push(sent.elapsed());
                }
                Ok(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(args.writes);
    for h in handles {
        latencies.extend(h.join().expect("client thread")?);
    }
    latencies.sort_unstable();
    let percentile = |p: f64| {
        let i = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        latencies[i].as_secs_f64() * 1e3
    };
    let took = start.elapsed();
    service.flush();
    let flushed = start.elapsed();
    // The search index has every write too (with `--async-index` it may lag the writes:
    // this says by how much).
    if let Some(space) = service.space("default") {
        space.find().flush();
    }
    let indexed = start.elapsed();
    // The whole process's CPU time (server threads and the clients) until every write was
    // committed and indexed: the work a write costs, which a busy neighbour on the VM does not
    // change the way it changes the wall-clock throughput.
    let cpu = process_cpu() - cpu_start;

    // Every write is in git, with its bytes; nothing is left uncommitted.
    let repo = git2::Repository::open(dir.path())?;
    let tree = repo.head()?.peel_to_tree()?;
    for (i, path) in targets.iter().take(args.writes).enumerate() {
        let entry = tree.get_path(std::path::Path::new(path))?;
        let want = git2::Oid::hash_object(
            git2::ObjectType::Blob,
            format!("# Rewritten {i}\n\nBenchmark write {i}.\n").as_bytes(),
        )?;
        if entry.id() != want {
            bail!("{path}: HEAD does not hold the last write");
        }
    }
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true);
    let dirty = repo.statuses(Some(&mut opts))?.len();
    if dirty != 0 {
        bail!("git status shows {dirty} entries after the benchmark");
    }
    let commits = commit_count(dir.path())? - commits_before;
    println!(
        "put ({:?}{}): {} writes by {} clients into a {}-file repository: {:.2} s = {:.0} writes/s; \
         latency p50 {:.1} ms, p99 {:.1} ms; {} commits; all committed after {:.2} s, all indexed \
         after {:.2} s; CPU {:.0} ms per 1,000 writes; every write in HEAD, git status clean \
         (open: {:.1} s)",
        args.mode,
        if args.async_index { ", async index" } else { "" },
        args.writes,
        args.clients,
        files_in_repo,
        took.as_secs_f64(),
        args.writes as f64 / took.as_secs_f64(),
        percentile(0.50),
        percentile(0.99),
        commits,
        flushed.as_secs_f64(),
        indexed.as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / args.writes as f64,
        open.as_secs_f64(),
    );
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// User and system CPU time of this process so far (every thread).
fn process_cpu() -> Duration {
    // SAFETY: `getrusage` only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn commit_count(root: &std::path::Path) -> anyhow::Result<usize> {
    let repo = git2::Repository::open(root)?;
    let mut walk = repo.revwalk()?;
    walk.push_head()?;
    Ok(walk.count())
}

fn head_file_count(root: &std::path::Path) -> anyhow::Result<usize> {
    let repo = git2::Repository::open(root)?;
    let tree = repo.head()?.peel_to_tree()?;
    let mut n = 0;
    tree.walk(git2::TreeWalkMode::PreOrder, |_, e| {
        if e.kind() == Some(git2::ObjectType::Blob) {
            n += 1;
        }
        git2::TreeWalkResult::Ok
    })?;
    Ok(n)
}

fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
