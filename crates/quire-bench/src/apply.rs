//! Apply and revert: renaming a hub page with 1,000 backlinks in a 10,000-page vault writes
//! about 1,000 pages as one commit; reverting restores them as another.

use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args as ClapArgs;
use quire_service::{ApplyRequest, ManifestFormat, Service, SpaceSettings};
use quire_store::{HistoryOptions, Strategy};

#[derive(ClapArgs)]
pub struct Args {
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Backlinks of the renamed hub = pages the apply rewrites.
    #[arg(long, default_value_t = 1_000)]
    pub hub: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            pages: 10_000,
            hub: 1_000,
            seed: 42,
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
    let service = Service::open(vec![SpaceSettings {
        name: "default".into(),
        root: dir.path().to_path_buf(),
        history: HistoryOptions {
            strategy: Strategy::Git,
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
    let space = service.default_space();
    let manifest_json = serde_json::json!({"moves": [{"from": hub, "to": "hubs/Renamed Hub.md"}]});
    let manifest =
        quire_service::parse_manifest(manifest_json.to_string().as_bytes(), ManifestFormat::Json)?;

    let start = Instant::now();
    let outcome = space.restructure().apply(&ApplyRequest {
        manifest,
        digest: None,
        approved: false,
        actor: "bench".into(),
        client: "bench".into(),
        message: None,
    });
    let took = start.elapsed();
    let (applied, plan) = match outcome {
        Ok(done) => done,
        Err(r) => bail!("apply refused: {}", r.message),
    };
    let commit = applied
        .commit
        .clone()
        .context("git apply names its commit")?;
    println!(
        "apply: rename a hub with {} backlinks in a {}-page vault: {} pages written, {} deleted, \
         {} links rewritten, one commit, in {:.0} ms (plan + write + commit)",
        args.hub,
        args.pages,
        applied.written,
        applied.deleted,
        plan.edits.iter().map(|e| e.links.len()).sum::<usize>(),
        took.as_secs_f64() * 1e3
    );

    let start = Instant::now();
    let reverted = space.restructure().revert(&commit, None, "bench", "bench");
    let took = start.elapsed();
    match reverted {
        Ok((applied, _)) => println!(
            "revert: {} pages written, {} deleted, one commit, in {:.0} ms (revert plan + write + commit)",
            applied.written,
            applied.deleted,
            took.as_secs_f64() * 1e3
        ),
        Err(r) => bail!("revert refused: {}", r.message),
    }
    Ok(())
}
