//! `quire janitor`: the janitor report (stale, orphaned, broken, empty pages and pages without
//! frontmatter, with what to do about them) from the command line, through the server holding
//! the root or on the root itself (see `venue`). Its stale threshold is 90 days unless told
//! otherwise (the spec's default for the command; the server's scheduled scan uses
//! `[janitor] stale_days`).

use clap::Args as ClapArgs;
use quire_api::JanitorReport;

use super::venue::{self, Place, Purpose, Venue};

/// The command's stale threshold when none is given.
pub const DEFAULT_STALE_DAYS: u32 = 90;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    place: Place,
    /// Call a page stale when it was not modified for this many days (0: only pages whose
    /// `review-by` date has passed).
    #[arg(long, default_value_t = DEFAULT_STALE_DAYS, value_parser = clap::value_parser!(u32).range(0..=36500))]
    stale_days: u32,
    /// Print the report as JSON (the API's wire type).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let report: JanitorReport = match args.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            // The report reads the page catalog the index keeps, which only the process
            // holding the root keeps: with no server, this command holds the root for
            // the length of the scan (as `quire reindex` does).
            let service = venue::open_root(&root, Purpose::Write("janitor"))?;
            let space = service.default_space();
            // Every page indexed before the report reads them.
            space.find().flush();
            space.insight().janitor_with(args.stale_days)?
        }
        Venue::Server(remote) => {
            remote.get_json("/janitor", &[("stale_days", args.stale_days.to_string())])?
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let stale = format!(
        "stale (not modified for {} days, or past review-by)",
        args.stale_days
    );
    let sections: [(&str, Vec<String>); 5] = [
        (stale.as_str(), report.stale.clone()),
        (
            "broken links",
            report
                .broken_links
                .iter()
                .map(|b| format!("{} → {}", b.path, b.target))
                .collect(),
        ),
        ("orphans (no page links to them)", report.orphans.clone()),
        ("empty", report.empty.clone()),
        ("without frontmatter", report.missing_frontmatter.clone()),
    ];
    for (title, items) in &sections {
        println!("{} {title}", items.len());
        for item in items {
            println!("  {item}");
        }
    }
    if !report.recommendations.is_empty() {
        println!();
        for line in &report.recommendations {
            println!("- {line}");
        }
    }
    Ok(())
}
