//! Many writers against the real server: `quire serve` (the release binary) on a generated
//! root, N clients writing as N actors for a while over loopback, the commit lag sampled from
//! `/metrics`, then SIGTERM. Afterwards the root is opened read-only and every page a client
//! wrote must hold that client's last acknowledged content, with every version of it authored
//! by that client.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;
use quire_service::{Access, Service};

#[derive(ClapArgs)]
pub struct Args {
    /// Pages in the root before the run.
    #[arg(long, default_value_t = 2_000)]
    pub pages: usize,
    /// Concurrent clients, each writing as its own actor to its own pages.
    #[arg(long, default_value_t = 200)]
    pub clients: usize,
    /// Pages each client cycles through.
    #[arg(long, default_value_t = 5)]
    pub pages_per_client: usize,
    /// How long the clients write.
    #[arg(long, default_value_t = 60)]
    pub secs: u64,
    /// The `quire` binary to serve with.
    #[arg(long, default_value = "target/release/quire")]
    pub binary: PathBuf,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Run as a team would: a key per client (`perspace`-style entries under `apikey`), the
    /// rate limit and the audit log on, and clients mixing reads, searches and writes
    /// (write, read, search, read); 429s are waited out as `Retry-After` says.
    #[arg(long)]
    pub team: bool,
    /// With --team: `[server.rate_limit] requests_per_minute` per client key.
    #[arg(long, default_value_t = 6_000)]
    pub rpm: u32,
    /// With --team: `[server.rate_limit] burst_size`.
    #[arg(long, default_value_t = 20)]
    pub burst: u32,
    /// With --team: the same mix without keys, rate limit or audit (to see what they cost).
    #[arg(long)]
    pub no_auth: bool,
}

/// What a client's requests got (with --team).
#[derive(Default)]
struct Tally {
    /// Latency in microseconds per kind: write, read, search.
    latency: [Vec<u32>; 3],
    limited: u64,
    errors: Vec<String>,
}

fn team_config(clients: usize, rpm: u32, burst: u32) -> String {
    let mut toml = format!(
        "[auth]\ntype = \"apikey\"\napi_key = \"bench-admin-key\"\n\
         [server.rate_limit]\nrequests_per_minute = {rpm}\nburst_size = {burst}\n\
         [audit]\nenabled = true\n"
    );
    for c in 0..clients {
        toml.push_str(&format!(
            "[[auth.api_keys]]\nkey = \"bench-key-{c:03}\"\nscope = \"write\"\n"
        ));
    }
    toml
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    if !args.binary.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p quire`",
            args.binary.display()
        );
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("kb");
    let generated = quire_testkit::generate(&quire_testkit::VaultSpec::new(args.seed, args.pages));
    generated.write_to(&root)?;
    if args.team && !args.no_auth {
        std::fs::create_dir_all(root.join(".quire"))?;
        std::fs::write(
            root.join(".quire/config.toml"),
            team_config(args.clients, args.rpm, args.burst),
        )?;
    }
    let mut server = Command::new(&args.binary)
        .args(["serve", "--port", "0", "--mcp-port", "0", "--root"])
        .arg(&root)
        .env("QUIRE_LOG", "warn,quire=info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting quire serve")?;
    let base = server_address(&mut server)?;
    println!(
        "load: {} clients as {} actors, {} s, {} pages, async batching (defaults)",
        args.clients, args.clients, args.secs, args.pages
    );

    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let last: Arc<Mutex<Vec<Option<String>>>> =
        Arc::new(Mutex::new(vec![None; args.clients * args.pages_per_client]));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let team = args.team;
    let keyed = args.team && !args.no_auth;
    let started = Instant::now();
    let mut clients = Vec::with_capacity(args.clients);
    for c in 0..args.clients {
        let (base, stop, acked, failed, last) = (
            base.clone(),
            stop.clone(),
            acked.clone(),
            failed.clone(),
            last.clone(),
        );
        let per = args.pages_per_client;
        let tally = tally.clone();
        clients.push(std::thread::spawn(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout(Duration::from_secs(60))
                .build();
            let key = format!("Bearer bench-key-{c:03}");
            let mut mine = Tally::default();
            let mut n = 0usize;
            let mut step = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let slot = c * per + n % per;
                let path = format!("load/c{c:03}/p{}.md", n % per);
                // Without --team every request is a write.
                let kind = if team { [0, 1, 2, 1][step % 4] } else { 0 };
                let content = format!("# client {c} write {n}\n");
                let request = match kind {
                    0 => agent.put(&format!("{base}/file?path={path}")),
                    1 => agent.get(&format!("{base}/file?path=load/c{c:03}/p0.md")),
                    _ => agent.get(&format!("{base}/search?q=client&limit=5")),
                }
                .set("X-Actor", &format!("client-{c:03}"));
                let request = if keyed {
                    request.set("Authorization", &key)
                } else {
                    request
                };
                let sent = Instant::now();
                let result = if kind == 0 {
                    request.send_string(&content)
                } else {
                    request.call()
                };
                let took = sent.elapsed().as_micros().min(u32::MAX as u128) as u32;
                match result {
                    Ok(r) if r.status() == 200 => {
                        mine.latency[kind].push(took);
                        if kind == 0 {
                            acked.fetch_add(1, Ordering::Relaxed);
                            last.lock().unwrap()[slot] = Some(content);
                            n += 1;
                        }
                        step += 1;
                    }
                    Err(ureq::Error::Status(429, r)) => {
                        mine.limited += 1;
                        let wait: u64 = r
                            .header("retry-after")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(1);
                        std::thread::sleep(Duration::from_secs(wait));
                    }
                    // Before the first write of this client's page 0 a read is a 404.
                    Err(ureq::Error::Status(404, _)) if kind == 1 => step += 1,
                    // Search answers 503 until the first index pass ends.
                    Err(ureq::Error::Status(503, _)) if kind == 2 => {
                        step += 1;
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    other => {
                        failed.fetch_add(1, Ordering::Relaxed);
                        let what = match other {
                            Ok(r) => format!("status {}", r.status()),
                            Err(e) => e.to_string(),
                        };
                        if mine.errors.len() < 5 {
                            mine.errors.push(what);
                        }
                        if kind == 0 {
                            n += 1;
                        }
                        step += 1;
                    }
                }
            }
            let mut all = tally.lock().unwrap();
            for k in 0..3 {
                all.latency[k].append(&mut mine.latency[k]);
            }
            all.limited += mine.limited;
            all.errors.append(&mut mine.errors);
        }));
    }
    // The commit lag as the server reports it.
    let sampler = {
        let (base, stop) = (base.clone(), stop.clone());
        std::thread::spawn(move || {
            let host = base.trim_end_matches(quire_http::BASE_PATH).to_string();
            let (mut max_lag, mut max_files) = (0f64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                let text = ureq::get(&format!("{host}/metrics"))
                    .call()
                    .ok()
                    .and_then(|r| r.into_string().ok());
                if let Some(text) = text {
                    max_lag = max_lag.max(gauge(&text, "quire_commit_lag_seconds"));
                    max_files = max_files.max(gauge(&text, "quire_commit_backlog_files") as u64);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            (max_lag, max_files)
        })
    };
    std::thread::sleep(Duration::from_secs(args.secs));
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        let _ = c.join();
    }
    let wrote = started.elapsed();
    let (max_lag, max_files) = sampler.join().expect("sampler");
    let acked = acked.load(Ordering::Relaxed);
    println!(
        "  {acked} writes acknowledged in {:.1} s = {:.0}/s ({} failed)",
        wrote.as_secs_f64(),
        acked as f64 / wrote.as_secs_f64(),
        failed.load(Ordering::Relaxed)
    );
    println!(
        "  commit lag: max {max_lag:.3} s; backlog: max {max_files} files (sampled every 100 ms)"
    );
    let mut tally = tally.lock().unwrap();
    if team {
        for (k, name) in ["write", "read", "search"].iter().enumerate() {
            let lat = &mut tally.latency[k];
            lat.sort_unstable();
            println!(
                "  {name:<6} {:>7} ok  p50 {:>7.2} ms  p99 {:>7.2} ms",
                lat.len(),
                percentile(lat, 0.50),
                percentile(lat, 0.99)
            );
        }
        let mut all: Vec<u32> = tally.latency.iter().flatten().copied().collect();
        all.sort_unstable();
        println!(
            "  all    {:>7} ok  p50 {:>7.2} ms  p99 {:>7.2} ms; {} answered 429 (waited out)",
            all.len(),
            percentile(&all, 0.50),
            percentile(&all, 0.99),
            tally.limited
        );
    }
    for e in &tally.errors {
        println!("  error: {e}");
    }
    let failures = failed.load(Ordering::Relaxed);

    let term = Instant::now();
    // SAFETY: a plain signal to our own child process.
    unsafe {
        libc::kill(server.id() as i32, libc::SIGTERM);
    }
    let status = server.wait()?;
    let stopping = term.elapsed();
    println!(
        "  SIGTERM: stopped in {:.2} s ({status})",
        stopping.as_secs_f64()
    );

    let (pages, versions) = verify(&root, &last.lock().unwrap(), args.pages_per_client)?;
    println!(
        "  check: {pages} pages hold their last acknowledged write; {versions} versions, each \
         by its page's own client"
    );
    if stopping > Duration::from_secs(5) {
        bail!("the server took {stopping:?} to stop");
    }
    if failures > 0 {
        bail!("{failures} requests failed other than with 429");
    }
    Ok(())
}

/// Reads the server's address from its log.
pub(crate) fn server_address(server: &mut std::process::Child) -> anyhow::Result<String> {
    let stderr = server.stderr.take().context("server stderr")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !sent && line.contains("serving ") {
                if let Some(i) = line.find("http://") {
                    let url = line[i..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_string();
                    let _ = tx.send(url);
                    sent = true;
                }
            }
            if line.contains("ERROR") {
                eprintln!("server: {line}");
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(120))
        .context("the server did not print its address")
}

/// The largest value of a gauge over every space.
fn gauge(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with('{'))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .fold(0.0, f64::max)
}

/// Every page holds its client's last acknowledged write and every version of it is by that
/// client; returns (pages, versions).
fn verify(root: &Path, last: &[Option<String>], per: usize) -> anyhow::Result<(usize, usize)> {
    let settings = quire_service::settings_from_config(root, &quire_config::Config::default());
    let service = Service::open_as(settings, &Access::ReadOnly)?;
    let space = service.default_space();
    let (mut pages, mut versions) = (0, 0);
    for (slot, content) in last.iter().enumerate() {
        let Some(content) = content else { continue };
        let (c, k) = (slot / per, slot % per);
        let path = format!("load/c{c:03}/p{k}.md");
        let on_disk = std::fs::read_to_string(root.join(&path))?;
        if &on_disk != content {
            bail!("{path} holds {on_disk:?}, not the last acknowledged {content:?}");
        }
        let actor = format!("client-{c:03}");
        for v in space.versions().of(&path)? {
            if v.author != actor {
                bail!("{path}: version {} is by {}, not {actor}", v.hash, v.author);
            }
            versions += 1;
        }
        let committed = space
            .versions()
            .content(&path, &space.versions().head().unwrap())?;
        if committed != content.as_bytes() {
            bail!("{path}: HEAD holds other bytes than the last acknowledged write");
        }
        pages += 1;
    }
    Ok((pages, versions))
}
