//! `quire links broken|orphans`: link health from the command line, through the server
//! holding the root or on the root itself (see `venue`). `quire refactor fix-broken` repairs
//! what `broken` lists.

use clap::{Args as ClapArgs, Subcommand};
use quire_api::{BrokenLinks, Orphans};

use super::venue::{self, Place, Purpose, Venue};

#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every wiki link that resolves to no file: page, line, target, and the file it most
    /// likely meant (what `quire refactor fix-broken` would use). Exits 1 when there are any.
    Broken(Target),
    /// Pages that no link reaches.
    Orphans(Target),
}

#[derive(ClapArgs)]
struct Target {
    #[command(flatten)]
    place: Place,
    /// Print the answer as JSON (the API's wire type).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Broken(t) => broken(&t),
        Command::Orphans(t) => orphans(&t),
    }
}

fn broken(t: &Target) -> anyhow::Result<()> {
    let answer: BrokenLinks = match t.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, Purpose::Read)?;
            service.default_space().repair().broken()
        }
        Venue::Server(remote) => remote.get_json("/links/broken", &[])?,
    };
    if t.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        for link in &answer.broken {
            let hint = match (&link.best_match, link.candidates.as_slice()) {
                (Some(found), _) => format!("  → {found}"),
                (None, []) => String::new(),
                (None, many) => format!("  (ambiguous: {})", many.join(", ")),
            };
            println!("{}:{}  [[{}]]{hint}", link.source, link.line, link.target);
        }
        eprintln!("{} broken links", answer.count);
    }
    if answer.count > 0 {
        // A script can tell a healthy knowledge base from one that needs repair.
        anyhow::bail!(
            "{} broken links; `quire refactor fix-broken --dry-run` shows what it would fix",
            answer.count
        );
    }
    Ok(())
}

fn orphans(t: &Target) -> anyhow::Result<()> {
    let answer: Orphans = match t.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, Purpose::Read)?;
            service.default_space().repair().orphans()
        }
        Venue::Server(remote) => remote.get_json("/links/orphans", &[])?,
    };
    if t.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        for page in &answer.orphans {
            println!("{}", page.path);
        }
        eprintln!("{} pages no link reaches", answer.count);
    }
    Ok(())
}
