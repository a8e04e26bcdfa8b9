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
        clients.push(std::thread::spawn(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout(Duration::from_secs(60))
                .build();
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let slot = c * per + n % per;
                let path = format!("load/c{c:03}/p{}.md", n % per);
                let content = format!("# client {c} write {n}\n");
                match agent
                    .put(&format!("{base}/file?path={path}"))
                    .set("X-Actor", &format!("client-{c:03}"))
                    .send_string(&content)
                {
                    Ok(r) if r.status() == 200 => {
                        acked.fetch_add(1, Ordering::Relaxed);
                        last.lock().unwrap()[slot] = Some(content);
                    }
                    _ => {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
                n += 1;
            }
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
