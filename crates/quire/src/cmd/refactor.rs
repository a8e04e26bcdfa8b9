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
    /// Plan a manifest, show the plan, and apply it as one git commit after you confirm.
    Apply(ApplyArgs),
    /// Undo a commit (a restructuring or any other) as a new commit, after you confirm.
    Revert(RevertArgs),
}

#[derive(ClapArgs)]
struct Target {
    /// Work directly on this knowledge root (no server may be running on it).
    #[arg(long, conflicts_with = "server")]
    root: Option<PathBuf>,
    /// Address of a running server (default http://127.0.0.1:<configured port>); its index
    /// and live readers stay consistent.
    #[arg(long)]
    server: Option<String>,
    /// Who applies (the commit author).
    #[arg(long, env = "USER", default_value = "cli")]
    actor: String,
    /// Do not ask for confirmation.
    #[arg(long, short = 'y')]
    yes: bool,
}

impl Target {
    /// The actor, never empty (an empty `$USER` falls back to `cli`).
    fn actor(&self) -> &str {
        match self.actor.trim() {
            "" => "cli",
            actor => actor,
        }
    }
}

#[derive(ClapArgs)]
struct ApplyArgs {
    /// Manifest file (YAML or JSON), or `-` for standard input.
    manifest: String,
    /// Digest of the plan you reviewed; nothing is written when the workspace no longer
    /// produces it.
    #[arg(long)]
    digest: Option<String>,
    /// The clock (RFC 3339) expressions see, as in the manifest's `now`.
    #[arg(long)]
    now: Option<String>,
    #[command(flatten)]
    target: Target,
}

#[derive(ClapArgs)]
struct RevertArgs {
    /// The commit to undo (full or abbreviated id).
    commit: String,
    #[command(flatten)]
    target: Target,
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
        Command::Apply(a) => apply(a),
        Command::Revert(a) => revert(a),
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
    let service = open_root(root)?;
    let space = service.default_space();
    let manifest = space.parse_manifest(body, format)?;
    Ok(space.plan(&manifest, diffs, None)?)
}

fn server_base(server: Option<&str>) -> String {
    match server {
        Some(s) => s.trim_end_matches('/').to_string(),
        None => {
            let config = quire_config::Config::load(std::path::Path::new("knowledge"))
                .map(|l| l.config)
                .unwrap_or_default();
            format!("http://127.0.0.1:{}", config.server.port)
        }
    }
}

enum Body<'a> {
    Bytes(&'a [u8]),
    Json(serde_json::Value),
}

/// Sends a request to the server; a refusal becomes an error with the server's message.
fn call(base: &str, request: ureq::Request, body: Body) -> anyhow::Result<serde_json::Value> {
    let sent = match body {
        Body::Bytes(bytes) => request.send_bytes(bytes),
        Body::Json(value) => request.send_json(value),
    };
    match sent {
        Ok(r) => r.into_json().context("the server's answer is not JSON"),
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
            Err(Error::new(code, format!("the server refused ({status}): {message}")).into())
        }
        Err(e) => bail!(
            "cannot reach a quire server at {base} ({e}); start one with `quire serve`, or work \
             directly with --root DIR"
        ),
    }
}

fn plan_remotely(server: Option<&str>, body: &[u8], diffs: bool) -> anyhow::Result<Plan> {
    let base = server_base(server);
    let url = format!("{base}/api/quire/refactor/plan?diffs={diffs}");
    let value = call(&base, ureq::post(&url), Body::Bytes(body))?;
    serde_json::from_value(value).context("the server's answer is not a plan")
}

fn open_root(root: &std::path::Path) -> anyhow::Result<Service> {
    if !root.is_dir() {
        return Err(Error::bad_request(format!("{} is not a folder", root.display())).into());
    }
    let loaded = quire_config::Config::load(root)?;
    for warning in &loaded.warnings {
        eprintln!("quire: warning: {warning}");
    }
    let settings = quire_service::settings_from_config(root, &loaded.config);
    Ok(Service::open(settings.into_iter().take(1).collect())?)
}

/// Asks on the terminal; without a terminal only `--yes` may proceed.
fn confirm(question: &str, yes: bool) -> anyhow::Result<bool> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(Error::bad_request(
            "not asking for confirmation without a terminal; pass --yes to proceed",
        )
        .into());
    }
    eprint!("{question} [y/N] ");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

fn print_applied(applied: &serde_json::Value) {
    let n = |k: &str| applied[k].as_u64().unwrap_or(0);
    print!(
        "Applied: {} written, {} deleted, {} comment/state files, {} folders removed",
        n("written"),
        n("deleted"),
        n("side_files"),
        n("removed_dirs")
    );
    match applied["commit"].as_str() {
        Some(commit) => println!(
            "; commit {commit} (undo with `quire refactor revert {}`)",
            &commit[..commit.len().min(12)]
        ),
        None => println!(),
    }
}

fn refused(r: quire_service::Refused) -> anyhow::Error {
    if let Some(plan) = &r.plan {
        print!("{}", quire_restructure::render_text(plan));
    }
    Error::new(r.code, r.error).into()
}

fn blocked(plan: &Plan) -> anyhow::Result<()> {
    if plan.errors.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Unprocessable,
        "the plan has errors; nothing was written",
    )
    .into())
}

fn apply(args: ApplyArgs) -> anyhow::Result<()> {
    let body = read_manifest(&args.manifest)?;
    let t = &args.target;
    let mut manifest = quire_restructure::parse_manifest(&body, ManifestFormat::Auto)
        .map_err(|e| Error::bad_request(e.to_string()))?;
    if args.now.is_some() {
        manifest.now = args.now.clone();
    }
    if let Some(root) = &t.root {
        let service = open_root(root)?;
        let space = service.default_space();
        let plan = space.plan(&manifest, false, Some(t.actor()))?;
        print!("{}", quire_restructure::render_text(&plan));
        blocked(&plan)?;
        if !confirm("Apply this plan?", t.yes)? {
            println!("Nothing was written.");
            return Ok(());
        }
        let req = quire_service::ApplyRequest {
            manifest_json: serde_json::to_value(&manifest)?,
            manifest,
            digest: Some(args.digest.clone().unwrap_or(plan.digest)),
            approved: false,
            actor: t.actor().to_string(),
            client: "cli".into(),
        };
        let (applied, _) = space.apply_manifest(&req).map_err(refused)?;
        print_applied(&serde_json::to_value(applied)?);
        return Ok(());
    }
    let base = server_base(t.server.as_deref());
    let manifest_json = serde_json::to_value(&manifest)?;
    let plan = plan_remotely(
        t.server.as_deref(),
        manifest_json.to_string().as_bytes(),
        false,
    )?;
    print!("{}", quire_restructure::render_text(&plan));
    blocked(&plan)?;
    if !confirm("Apply this plan?", t.yes)? {
        println!("Nothing was written.");
        return Ok(());
    }
    let request = serde_json::json!({
        "manifest": manifest_json,
        "digest": args.digest.clone().unwrap_or(plan.digest),
    });
    let url = format!("{base}/api/quire/refactor/apply");
    let answer = call(
        &base,
        ureq::post(&url)
            .set("X-Actor", t.actor())
            .set("X-Quire-Client", "cli"),
        Body::Json(request),
    )?;
    print_applied(&answer["applied"]);
    Ok(())
}

fn revert(args: RevertArgs) -> anyhow::Result<()> {
    let t = &args.target;
    if let Some(root) = &t.root {
        let service = open_root(root)?;
        let space = service.default_space();
        let plan = space.revert_plan(&args.commit).map_err(refused)?;
        print!("{}", quire_restructure::render_text(&plan));
        if !confirm("Revert this commit?", t.yes)? {
            println!("Nothing was written.");
            return Ok(());
        }
        let (applied, _) = space
            .revert(&args.commit, Some(&plan.digest), t.actor())
            .map_err(refused)?;
        print_applied(&serde_json::to_value(applied)?);
        return Ok(());
    }
    let base = server_base(t.server.as_deref());
    let url = format!("{base}/api/quire/refactor/revert");
    let value = call(
        &base,
        ureq::post(&url).set("X-Actor", t.actor()),
        Body::Json(serde_json::json!({"commit": args.commit, "dry_run": true})),
    )?;
    let plan: Plan =
        serde_json::from_value(value).context("the server's answer is not a revert plan")?;
    print!("{}", quire_restructure::render_text(&plan));
    if !confirm("Revert this commit?", t.yes)? {
        println!("Nothing was written.");
        return Ok(());
    }
    let answer = call(
        &base,
        ureq::post(&url).set("X-Actor", t.actor()),
        Body::Json(serde_json::json!({"commit": args.commit, "digest": plan.digest})),
    )?;
    print_applied(&answer["applied"]);
    Ok(())
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
