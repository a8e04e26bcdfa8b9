//! Bulk edits: a manifest that sets a frontmatter key on every page, and a regex `replace`
//! over every page, planned warm (a server's link model) and the first one applied.

use std::time::Instant;

use anyhow::bail;
use clap::Args as ClapArgs;
use quire_service::{ApplyRequest, ManifestFormat, Service, SpaceSettings};
use quire_store::{HistoryOptions, Strategy};

#[derive(ClapArgs)]
pub struct Args {
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            pages: 10_000,
            seed: 42,
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let generated = quire_testkit::generate(&quire_testkit::VaultSpec::new(args.seed, args.pages));
    generated.write_to(dir.path())?;
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
    let space = service.default_space();
    let scenarios = [
        (
            "set a key on every page",
            r#"{"now": "2025-01-01T00:00:00Z", "edits": [{"select": {"glob": "**"}, "set": {"reviewed": "2025-01-01"}}]}"#,
        ),
        (
            "regex replace on every page",
            r#"{"edits": [{"select": {"glob": "**"}, "replace": [{"find": "\\b(note|page)s?\\b", "with": "${1}-x", "regex": true}]}]}"#,
        ),
    ];
    println!("edits: {} pages", args.pages);
    for (name, json) in scenarios {
        let manifest = quire_service::parse_manifest(json.as_bytes(), ManifestFormat::Json)?;
        // The first plan reads every page from disk (page cache warm after it). Each run plans
        // as another actor, so none is the service's cached last plan.
        let mut run = 0;
        let (took, plan) = crate::best_of(5, || {
            run += 1;
            let actor = format!("reviewer-{run}");
            space.restructure().plan(&manifest, false, Some(&actor))
        });
        let plan = plan?;
        if !plan.errors.is_empty() {
            bail!("{name}: the plan has errors: {:?}", plan.errors);
        }
        println!(
            "  plan {name}: {:.0} ms (best of 5); {} pages edited",
            took.as_secs_f64() * 1e3,
            plan.content_edits.len()
        );
    }
    // As a person does it: plan, review, apply the reviewed plan (the service reuses the plan
    // it just made while nothing changed).
    let manifest = quire_service::parse_manifest(scenarios[0].1.as_bytes(), ManifestFormat::Json)?;
    let start = Instant::now();
    let reviewed = space.restructure().plan(&manifest, false, Some("bench"))?;
    let planned = start.elapsed();
    let start = Instant::now();
    let outcome = space.restructure().apply(&ApplyRequest {
        manifest,
        digest: Some(reviewed.digest),
        approved: false,
        actor: "bench".into(),
        client: "bench".into(),
        message: None,
    });
    let took = start.elapsed();
    match outcome {
        Ok((applied, _)) => println!(
            "  apply set a key on every page: {:.0} ms after its plan ({:.0} ms) was reviewed \
             ({} pages written, one commit)",
            took.as_secs_f64() * 1e3,
            planned.as_secs_f64() * 1e3,
            applied.written
        ),
        Err(refused) => bail!("apply refused: {}", refused.message),
    }
    // And without a plan first: apply plans it itself.
    let again = r#"{"now": "2025-01-02T00:00:00Z", "edits": [{"select": {"glob": "**"}, "set": {"reviewed": "2025-01-02"}}]}"#;
    let manifest = quire_service::parse_manifest(again.as_bytes(), ManifestFormat::Json)?;
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
    match outcome {
        Ok((applied, _)) => println!(
            "  apply set a key on every page, unplanned: {:.0} ms ({} pages written)",
            took.as_secs_f64() * 1e3,
            applied.written
        ),
        Err(refused) => bail!("apply refused: {}", refused.message),
    }
    Ok(())
}
