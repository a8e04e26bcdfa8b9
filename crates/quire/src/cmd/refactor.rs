//! `quire refactor plan`: plan a manifest against a root or a running server.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args as ClapArgs, Subcommand};
use quire_restructure::Plan;
use quire_service::{Error, ErrorCode, ManifestFormat, Service};

#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show everything a manifest would change — moves, link rewrites per page, conflicts —
    /// without writing anything. Exits 1 when the plan has errors.
    Plan(PlanArgs),
}

#[derive(ClapArgs)]
struct PlanArgs {
    /// Manifest file (YAML or JSON), or `-` for standard input.
    manifest: String,
    /// Plan directly against this knowledge root instead of asking a running server.
    #[arg(long, conflicts_with = "server")]
    root: Option<PathBuf>,
    /// Address of a running server (default http://127.0.0.1:<configured port>).
    #[arg(long)]
    server: Option<String>,
    /// Print a unified diff of every page the plan writes.
    #[arg(long)]
    diff: bool,
    /// Print the plan as JSON (the shape of POST /refactor/plan).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Plan(a) => plan(a),
    }
}

fn plan(args: PlanArgs) -> anyhow::Result<()> {
    let body = read_manifest(&args.manifest)?;
    let format = if args.manifest.ends_with(".json") {
        ManifestFormat::Json
    } else if args.manifest.ends_with(".yaml") || args.manifest.ends_with(".yml") {
        ManifestFormat::Yaml
    } else {
        ManifestFormat::Auto
    };
    let plan = match &args.root {
        Some(root) => plan_locally(root, &body, format, args.diff)?,
        None => plan_remotely(args.server.as_deref(), &body, args.diff)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&plan)?);
    } else {
        print!("{}", quire_restructure::render_text(&plan));
        if args.diff {
            print_diffs(&plan);
        }
    }
    if !plan.errors.is_empty() {
        return Err(Error::new(
            ErrorCode::Unprocessable,
            format!(
                "the plan has {} error(s); nothing can be applied",
                plan.errors.len()
            ),
        )
        .into());
    }
    Ok(())
}

fn read_manifest(source: &str) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    if source == "-" {
        std::io::stdin()
            .read_to_end(&mut body)
            .context("reading the manifest from standard input")?;
    } else {
        body = std::fs::read(source)
            .map_err(|e| Error::bad_request(format!("cannot read the manifest {source}: {e}")))?;
    }
    Ok(body)
}

fn plan_locally(
    root: &std::path::Path,
    body: &[u8],
    format: ManifestFormat,
    diffs: bool,
) -> anyhow::Result<Plan> {
    if !root.is_dir() {
        return Err(Error::bad_request(format!("{} is not a folder", root.display())).into());
    }
    let loaded = quire_config::Config::load(root)?;
    for warning in &loaded.warnings {
        eprintln!("quire: warning: {warning}");
    }
    let settings = quire_service::settings_from_config(root, &loaded.config);
    let service = Service::open(settings.into_iter().take(1).collect())?;
    let space = service.default_space();
    let manifest = space.parse_manifest(body, format)?;
    Ok(space.plan(&manifest, diffs)?)
}

fn plan_remotely(server: Option<&str>, body: &[u8], diffs: bool) -> anyhow::Result<Plan> {
    let base = match server {
        Some(s) => s.trim_end_matches('/').to_string(),
        None => {
            let config = quire_config::Config::load(std::path::Path::new("knowledge"))
                .map(|l| l.config)
                .unwrap_or_default();
            format!("http://127.0.0.1:{}", config.server.port)
        }
    };
    let url = format!("{base}/api/quire/refactor/plan?diffs={diffs}");
    let response = match ureq::post(&url).send_bytes(body) {
        Ok(r) => r,
        Err(ureq::Error::Status(status, r)) => {
            let text = r.into_string().unwrap_or_default();
            let message = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_string))
                .unwrap_or(text);
            let code = if status == 400 {
                ErrorCode::BadRequest
            } else {
                ErrorCode::Unprocessable
            };
            return Err(Error::new(
                code,
                format!("the server refused the manifest ({status}): {message}"),
            )
            .into());
        }
        Err(e) => bail!(
            "cannot reach a quire server at {base} ({e}); start one with `quire serve`, or plan \
             directly with --root DIR"
        ),
    };
    let plan: Plan = response
        .into_json()
        .context("the server's answer is not a plan")?;
    Ok(plan)
}

fn print_diffs(plan: &Plan) {
    let colour = std::io::stdout().is_terminal();
    for d in plan.diffs.iter().flatten() {
        for line in d.diff.lines() {
            let (start, end) = match line.as_bytes().first() {
                _ if !colour => ("", ""),
                Some(b'+') if !line.starts_with("+++") => ("\x1b[32m", "\x1b[0m"),
                Some(b'-') if !line.starts_with("---") => ("\x1b[31m", "\x1b[0m"),
                Some(b'@') => ("\x1b[36m", "\x1b[0m"),
                _ => ("", ""),
            };
            println!("{start}{line}{end}");
        }
    }
}
