//! `quire refactor plan|script|apply|revert`: restructuring from the command line, through the
//! server that holds the root or on the root itself (see `venue`).

use std::io::{IsTerminal, Read};

use anyhow::Context;
use clap::{Args as ClapArgs, Subcommand};
use quire_api::{
    Applied, AppliedResult, ApplyRequest, FixBrokenRequest, FixBrokenResult, Plan, RevertRequest,
    ScriptRequest, ScriptResponse,
};
use quire_service::{Error, ErrorCode, ManifestFormat};

use super::remote::Remote;
use super::venue::{self, Actor, Place, Purpose, Venue};

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
    /// Run a Starlark script that computes a manifest, and show what it printed and the plan
    /// of its manifest, without writing anything. Exits 1 when the plan has errors.
    Script(ScriptArgs),
    /// Plan a manifest, show the plan, and apply it as one git commit after you confirm.
    Apply(ApplyArgs),
    /// Undo a commit (a restructuring or any other) as a new commit, after you confirm.
    Revert(RevertArgs),
    /// Rewrite broken wiki links to the file each most likely meant (exact path, then a
    /// path suffix ignoring numeric folder prefixes such as `06-`, then the file name), one
    /// commit per page. Ambiguous matches are listed and left alone.
    FixBroken(FixBrokenArgs),
}

#[derive(ClapArgs)]
struct FixBrokenArgs {
    /// Only list what would be fixed; nothing is written.
    #[arg(long)]
    dry_run: bool,
    /// Print the answer as JSON (the shape of POST /refactor/fix-broken).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: Target,
}

#[derive(ClapArgs)]
struct Target {
    #[command(flatten)]
    place: Place,
    #[command(flatten)]
    actor: Actor,
    /// Do not ask for confirmation.
    #[arg(long, short = 'y')]
    yes: bool,
}

impl Target {
    /// The actor, never empty (an empty `$USER` falls back to `cli`).
    fn actor(&self) -> &str {
        self.actor.name()
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
    /// Show every change before asking (by default the first 100 and a count of the rest;
    /// `quire refactor plan` lists them all too).
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    target: Target,
}

#[derive(ClapArgs)]
struct RevertArgs {
    /// The commit to undo (full or abbreviated id).
    commit: String,
    /// Show every change before asking (by default the first 100 and a count of the rest).
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    target: Target,
}

#[derive(ClapArgs)]
struct PlanArgs {
    /// Manifest file (YAML or JSON), or `-` for standard input.
    manifest: String,
    #[command(flatten)]
    place: Place,
    /// Print a unified diff of every page the plan writes.
    #[arg(long)]
    diff: bool,
    /// Print the plan as JSON (the shape of POST /refactor/plan).
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
struct ScriptArgs {
    /// Script file (Starlark), or `-` for standard input. It returns the manifest from
    /// `main()` or sets a global `manifest`.
    script: String,
    #[command(flatten)]
    place: Place,
    /// Print a unified diff of every page the plan writes.
    #[arg(long)]
    diff: bool,
    /// Print the manifest, output and plan as JSON (the shape of POST /refactor/script).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Plan(a) => plan(a),
        Command::Script(a) => script(a),
        Command::Apply(a) => apply(a),
        Command::Revert(a) => revert(a),
        Command::FixBroken(a) => fix_broken(a),
    }
}

fn fix_broken(args: FixBrokenArgs) -> anyhow::Result<()> {
    let t = &args.target;
    let purpose = if args.dry_run {
        Purpose::Read
    } else {
        Purpose::Write("refactor fix-broken")
    };
    let venue = t.place.choose(purpose)?;
    let service = match &venue {
        Venue::Root(root) => Some(venue::open_root(root, purpose)?),
        Venue::Server(_) => None,
    };
    let opts = quire_service::WriteOptions::by(t.actor());
    let fix = |dry_run: bool| -> anyhow::Result<FixBrokenResult> {
        Ok(match (&venue, &service) {
            (Venue::Server(remote), _) => remote.post_json(
                "/refactor/fix-broken",
                &[("X-Actor", t.actor())],
                &FixBrokenRequest { dry_run },
            )?,
            (Venue::Root(_), Some(service)) => service
                .default_space()
                .repair()
                .fix_broken(dry_run, &opts)?,
            (Venue::Root(_), None) => unreachable!("a root venue opens the root"),
        })
    };
    let preview = fix(true)?;
    if args.json && args.dry_run {
        println!("{}", serde_json::to_string_pretty(&preview)?);
        return Ok(());
    }
    if !args.json {
        print_fixes(&preview);
    }
    if args.dry_run {
        println!("Dry run: nothing was written.");
        return Ok(());
    }
    if preview.fixes.is_empty() {
        println!("Nothing to fix.");
        return Ok(());
    }
    if !confirm(
        &format!("Fix {} links (one commit per page)?", preview.count),
        t.yes,
    )? {
        println!("Nothing was written.");
        return Ok(());
    }
    let done = fix(false)?;
    if let Some(service) = service {
        service.close_for_exit();
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&done)?);
    } else {
        println!("Fixed {} links.", done.count);
    }
    Ok(())
}

fn print_fixes(answer: &FixBrokenResult) {
    for fix in &answer.fixes {
        println!(
            "{}: [[{}]] → [[{}]]",
            fix.source, fix.old_target, fix.new_target
        );
    }
    for link in &answer.ambiguous {
        println!(
            "{}:{}: [[{}]] left alone, ambiguous: {}",
            link.source,
            link.line,
            link.target,
            link.candidates.join(", ")
        );
    }
}

fn plan(args: PlanArgs) -> anyhow::Result<()> {
    let body = read_input(&args.manifest, "manifest")?;
    let format = if args.manifest.ends_with(".json") {
        ManifestFormat::Json
    } else if args.manifest.ends_with(".yaml") || args.manifest.ends_with(".yml") {
        ManifestFormat::Yaml
    } else {
        ManifestFormat::Auto
    };
    let plan = match args.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, Purpose::Read)?;
            let manifest = quire_service::parse_manifest(&body, format)?;
            let plan = service
                .default_space()
                .restructure()
                .plan(&manifest, args.diff, None)?;
            service.close_for_exit();
            plan
        }
        Venue::Server(remote) => plan_remotely(&remote, &body, args.diff, None)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&plan)?);
    } else {
        print_plan(&plan, args.diff);
    }
    refuse_errors(&plan)
}

/// The plan as text, with a unified diff per page when asked.
fn print_plan(plan: &Plan, diff: bool) {
    print!("{}", quire_restructure::render_text(plan));
    if diff {
        print_diffs(plan);
    }
}

/// Exit code 1 for a plan with errors.
fn refuse_errors(plan: &Plan) -> anyhow::Result<()> {
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

fn script(args: ScriptArgs) -> anyhow::Result<()> {
    let source = read_input(&args.script, "script")?;
    let source = String::from_utf8(source)
        .map_err(|_| Error::bad_request(format!("the script {} is not UTF-8 text", args.script)))?;
    let answer = match args.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, Purpose::Read)?;
            service
                .default_space()
                .restructure()
                .script(&source, args.diff, None, "cli")?
        }
        Venue::Server(remote) => {
            let request = ScriptRequest {
                script: source,
                diffs: args.diff,
            };
            let answer: ScriptResponse = remote.post_json("/refactor/script", &[], &request)?;
            answer
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        if !answer.output.is_empty() {
            print!("{}", answer.output);
            if !answer.output.ends_with('\n') {
                println!();
            }
            println!();
        }
        print_plan(&answer.plan, args.diff);
    }
    refuse_errors(&answer.plan)
}

/// The bytes of the file `source` (`-`: standard input), `what` naming it in errors.
fn read_input(source: &str, what: &str) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    if source == "-" {
        std::io::stdin()
            .read_to_end(&mut body)
            .with_context(|| format!("reading the {what} from standard input"))?;
    } else {
        body = std::fs::read(source)
            .map_err(|e| Error::bad_request(format!("cannot read the {what} {source}: {e}")))?;
    }
    Ok(body)
}

fn plan_remotely(
    remote: &Remote,
    body: &[u8],
    diffs: bool,
    actor: Option<&str>,
) -> anyhow::Result<Plan> {
    let mut headers = Vec::new();
    if let Some(actor) = actor {
        headers.push(("X-Actor", actor));
    }
    remote.post_bytes(&format!("/refactor/plan?diffs={diffs}"), &headers, body)
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

fn print_applied(applied: &AppliedResult) {
    print!(
        "Applied: {} written, {} deleted, {} comment/state files, {} folders removed",
        applied.written, applied.deleted, applied.side_files, applied.removed_dirs
    );
    match &applied.commit {
        Some(commit) => println!(
            "; commit {commit} (undo with `quire refactor revert {}`)",
            &commit[..commit.len().min(12)]
        ),
        None => println!(),
    }
}

/// Changes shown before a confirmation unless `--all` asks for every one.
const PREVIEW_CHANGES: usize = 100;

/// The plan shown before asking to apply it: the first [`PREVIEW_CHANGES`] changes (or all),
/// then every problem and the counts.
fn preview(plan: &Plan, all: bool) -> String {
    quire_restructure::render_text_limited(plan, if all { usize::MAX } else { PREVIEW_CHANGES })
}

/// A refused operation: the plan it carries is shown before the error.
fn refused(e: anyhow::Error) -> anyhow::Error {
    if let Some(plan) = e.downcast_ref::<Error>().and_then(Error::plan) {
        print!("{}", quire_restructure::render_text(plan));
    }
    e
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
    let body = read_input(&args.manifest, "manifest")?;
    let t = &args.target;
    let mut manifest = quire_restructure::parse_manifest(&body, ManifestFormat::Auto)
        .map_err(|e| Error::bad_request(e.to_string()))?;
    if args.now.is_some() {
        manifest.now = args.now.clone();
    }
    let purpose = Purpose::Write("refactor apply");
    match t.place.choose(purpose)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, purpose)?;
            let r = service.default_space().restructure();
            let plan = r.plan(&manifest, false, Some(t.actor()))?;
            print!("{}", preview(&plan, args.all));
            blocked(&plan)?;
            if !confirm("Apply this plan?", t.yes)? {
                println!("Nothing was written.");
                return Ok(());
            }
            // Apply the plan that was shown: the clock its expressions used, too.
            if manifest.now.is_none() {
                manifest.now = plan.now.clone();
            }
            let req = quire_service::ApplyRequest {
                manifest,
                digest: Some(args.digest.clone().unwrap_or(plan.digest)),
                approved: false,
                actor: t.actor().to_string(),
                client: "cli".into(),
                message: None,
            };
            let (applied, _) = r.apply(&req).map_err(|e| refused(e.into()))?;
            service.close_for_exit();
            print_applied(&applied);
        }
        Venue::Server(remote) => {
            let json = serde_json::to_vec(&manifest)?;
            let plan = plan_remotely(&remote, &json, false, Some(t.actor()))?;
            print!("{}", preview(&plan, args.all));
            blocked(&plan)?;
            if !confirm("Apply this plan?", t.yes)? {
                println!("Nothing was written.");
                return Ok(());
            }
            // Apply the plan that was shown: the clock its expressions used, too.
            if manifest.now.is_none() {
                manifest.now = plan.now.clone();
            }
            let request = ApplyRequest {
                manifest,
                digest: Some(args.digest.clone().unwrap_or(plan.digest)),
                approved: false,
                now: None,
                actor: None,
                message: None,
            };
            let answer: Applied = remote
                .post_json("/refactor/apply", &[("X-Actor", t.actor())], &request)
                .map_err(refused)?;
            print_applied(&answer.applied);
        }
    }
    Ok(())
}

fn revert(args: RevertArgs) -> anyhow::Result<()> {
    let t = &args.target;
    let purpose = Purpose::Write("refactor revert");
    match t.place.choose(purpose)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, purpose)?;
            let r = service.default_space().restructure();
            let plan = r.revert_plan(&args.commit).map_err(|e| refused(e.into()))?;
            print!("{}", preview(&plan, args.all));
            if !confirm("Revert this commit?", t.yes)? {
                println!("Nothing was written.");
                return Ok(());
            }
            let (applied, _) = r
                .revert(&args.commit, Some(&plan.digest), t.actor(), "cli")
                .map_err(|e| refused(e.into()))?;
            service.close_for_exit();
            print_applied(&applied);
        }
        Venue::Server(remote) => {
            let actor = [("X-Actor", t.actor())];
            let dry_run = RevertRequest {
                commit: Some(args.commit.clone()),
                dry_run: true,
                digest: None,
                actor: None,
            };
            let plan: Plan = remote
                .post_json("/refactor/revert", &actor, &dry_run)
                .map_err(refused)?;
            print!("{}", preview(&plan, args.all));
            if !confirm("Revert this commit?", t.yes)? {
                println!("Nothing was written.");
                return Ok(());
            }
            let request = RevertRequest {
                commit: Some(args.commit.clone()),
                dry_run: false,
                digest: Some(plan.digest),
                actor: None,
            };
            let answer: Applied = remote
                .post_json("/refactor/revert", &actor, &request)
                .map_err(refused)?;
            print_applied(&answer.applied);
        }
    }
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
