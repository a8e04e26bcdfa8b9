//! Planner: renaming a hub page and moving a folder of ~10 % of the pages, warm (a server's
//! in-memory link model) and cold (the `quire refactor plan --root` command, load included).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;
use quire_service::{ManifestFormat, Service, SpaceSettings};
use quire_store::{HistoryOptions, Strategy};

#[derive(ClapArgs)]
pub struct Args {
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Backlinks of the hub page.
    #[arg(long, default_value_t = 500)]
    pub hub: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Skip the cold runs of the `quire` binary.
    #[arg(long)]
    pub warm_only: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            pages: 10_000,
            hub: 500,
            seed: 42,
            warm_only: false,
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let generated = quire_testkit::generate(
        &quire_testkit::VaultSpec::new(args.seed, args.pages).with_hub(args.hub),
    );
    generated.write_to(dir.path())?;
    let hub = generated.hub().context("the vault has a hub")?.to_string();
    let folder = tenth_folder(&generated.page_paths(), args.pages);
    let hub_name = Path::new(&hub)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let scenarios = [
        (
            "rename hub",
            format!(
                r#"{{"moves": [{{"from": {:?}, "to": "hubs/Central {}"}}]}}"#,
                hub, hub_name
            ),
        ),
        (
            "move folder",
            format!(r#"{{"moves": [{{"from": "{folder}/", "to": "archive/{folder}/"}}]}}"#),
        ),
    ];

    let open = Instant::now();
    let service = Service::open(vec![SpaceSettings {
        name: "default".into(),
        root: dir.path().to_path_buf(),
        history: HistoryOptions {
            strategy: Strategy::Git,
            async_commit: false,
            ..HistoryOptions::default()
        },
        assets: Default::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: Default::default(),
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    }])?;
    println!(
        "plan: {} pages, hub {hub} ({} backlinks), folder {folder}/ (first open with git import: {:.1} s)",
        args.pages,
        args.hub,
        open.elapsed().as_secs_f64()
    );
    let space = service.default_space();
    for (name, manifest) in &scenarios {
        let manifest = quire_service::parse_manifest(manifest.as_bytes(), ManifestFormat::Json)?;
        // Each run names another actor, so none is answered by the plan cache (which keeps
        // the last plan for the same manifest and actor): every figure is the planner's work
        // on a warm link model.
        let mut run = 0;
        let (took, plan) = crate::best_of(5, || {
            run += 1;
            let actor = format!("bench-{run}");
            space.restructure().plan(&manifest, false, Some(&actor))
        });
        let plan = plan?;
        if !plan.errors.is_empty() {
            bail!("{name}: the plan has errors: {:?}", plan.errors);
        }
        println!(
            "  warm {name}: {:.1} ms (best of 5, each planned anew); {} moves, {} pages with {} links rewritten",
            took.as_secs_f64() * 1e3,
            plan.moves.len(),
            plan.edits.len(),
            plan.edits.iter().map(|e| e.links.len()).sum::<usize>()
        );
    }
    drop(service);

    if args.warm_only {
        return Ok(());
    }
    let quire = quire_binary()?;
    for (name, manifest) in &scenarios {
        let file = dir.path().join(".quire/state/bench-manifest.json");
        std::fs::write(&file, manifest)?;
        let mut best = Duration::MAX;
        let mut peak_kb = 0;
        for _ in 0..3 {
            let (took, max_rss_kb) = run_cold(&quire, dir.path(), &file)?;
            best = best.min(took);
            peak_kb = peak_kb.max(max_rss_kb);
        }
        println!(
            "  cold {name}: {:.0} ms (best of 3, `quire refactor plan --root`, load included), peak RSS {:.0} MB",
            best.as_secs_f64() * 1e3,
            peak_kb as f64 / 1024.0
        );
    }
    Ok(())
}

/// The top-level folder whose page count is closest to a tenth of the vault.
fn tenth_folder(pages: &[&str], total: usize) -> String {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for p in pages {
        if let Some((top, _)) = p.split_once('/') {
            *counts.entry(top).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .min_by_key(|(_, n)| n.abs_diff(total / 10))
        .map(|(f, _)| f.to_string())
        .unwrap_or_default()
}

fn quire_binary() -> anyhow::Result<PathBuf> {
    if let Ok(p) = std::env::var("QUIRE_BIN") {
        return Ok(PathBuf::from(p));
    }
    let beside = std::env::current_exe()?.with_file_name("quire");
    if beside.exists() {
        return Ok(beside);
    }
    bail!("build the quire binary first (cargo build --release -p quire) or set QUIRE_BIN")
}

/// Runs the command once; returns its wall time and peak resident memory (KiB).
fn run_cold(quire: &Path, root: &Path, manifest: &Path) -> anyhow::Result<(Duration, i64)> {
    let start = Instant::now();
    let child = std::process::Command::new(quire)
        .args(["refactor", "plan", "--json", "--root"])
        .arg(root)
        .arg(manifest)
        .stdout(std::process::Stdio::null())
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 on our own child with valid out-pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let took = start.elapsed();
    if waited != pid {
        bail!("waiting for quire failed");
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!("quire refactor plan failed (status {status})");
    }
    Ok((took, usage.ru_maxrss))
}
