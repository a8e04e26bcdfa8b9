//! Analytics and health: the dashboard, one page's health, episodic memory, velocity, search
//! evaluation, the space's context texts and the actionable pages.

use quire_api::mcp::{LimitInput, MemoryInput, PathInput, VelocityInput};
use quire_api::EvalRequest;
use quire_service::{Space, VelocityQuery};

use super::{empty, input, no_args, no_handler, ok, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_context",
            description: "The knowledge base's own guidance: the texts of .quire/playbook.md (how \
to work here), .quire/SCHEMA.md (page types and fields) and .quire/index.md (where things \
are), empty when missing. Call it first in a session and follow it. Cheap (three files).",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_analytics",
            description: "The health dashboard of the whole knowledge base: how many pages, and \
how many are stale (past `review-by`), orphaned, empty or without frontmatter, broken links, \
the share of wiki links that resolve, and the ten pages changed last. A good first look at \
what needs care. Cheap (the in-memory catalog); unavailable while the first index pass runs.",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_health_check",
            description: "The health of one page: words, links, backlinks, age, and its issues \
(broken links, past `review-by`, no frontmatter, empty, orphan). Check a page before and \
after you edit it. Cheap.",
            schema: input::<PathInput>,
            read_only: true,
        },
        Def {
            name: "quire_eligible",
            description: "What to work on next: actionable pages from their frontmatter (`status` \
not done, closed, archived, cancelled, completed or verified), most urgent `priority` first, \
then the soonest `due`; `limit` (default 20, at most 500). Cheap (the in-memory catalog).",
            schema: input::<LimitInput>,
            read_only: true,
        },
        Def {
            name: "quire_velocity",
            description: "How fast pages change over `period` (`Nd`, `Nw`, `Nm`; default 30d), \
from the git history: hot and cold pages, bursts of edits, pages only one author ever \
touched; `path` keeps one folder. Reads the history of the period: cost grows with its \
commits. Unavailable when versioning is off.",
            schema: input::<VelocityInput>,
            read_only: true,
        },
        Def {
            name: "quire_memory_report",
            description: "How episodic memory pages (under `prefix`, default the configured \
episodes folder) have been consolidated: which some page's `merged-from`/`derived-from` \
frontmatter names, and which are still unmerged. Use it to pick episodes to consolidate. \
Cheap (the in-memory catalog).",
            schema: input::<MemoryInput>,
            read_only: true,
        },
        Def {
            name: "quire_eval",
            description: "Score full-text search on questions whose answers you know \
(`queries: [{question, expected_paths}]`): hit rate, MRR and precision at 5 over the first \
10 results, per question too. Use it to check that pages you wrote are findable. Runs one \
search per question; these searches stay out of the search analytics.",
            schema: input::<EvalRequest>,
            read_only: true,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, _caller: &Caller) -> Answer {
    match name {
        "quire_context" => {
            no_args(name, args)?;
            let context = space.insight().context()?;
            Ok(ok(&context, "the playbook, schema and index texts".into()))
        }
        "quire_analytics" => {
            no_args(name, args)?;
            let d = space.insight().dashboard()?;
            let text = format!(
                "{} pages: {} stale, {} orphaned, {} empty, {} without frontmatter; {} broken \
                 links; {:.1}% of wiki links resolve",
                d.total_pages,
                d.stale_pages,
                d.orphan_pages,
                d.empty_pages,
                d.pages_without_frontmatter,
                d.broken_links,
                d.link_coverage_pct
            );
            Ok(ok(&d, text))
        }
        "quire_health_check" => {
            let input: PathInput = parse(name, args)?;
            let health = space.insight().page_health(&input.path)?;
            let text = format!("{}: {} issues", input.path, health.issues.len());
            Ok(ok(&health, text))
        }
        "quire_eligible" => {
            let input: LimitInput = parse(name, args)?;
            let eligible = space.insight().eligible(input.limit)?;
            let text = format!("{} actionable pages", eligible.tasks.len());
            Ok(ok(&eligible, text))
        }
        "quire_velocity" => {
            let input: VelocityInput = parse(name, args)?;
            let velocity = space.insight().velocity(&VelocityQuery {
                period: input.period,
                limit: input.limit,
                path: input.path,
            })?;
            let text = format!(
                "{} changes in {}; {} hot spots",
                velocity.total_changes,
                velocity.period,
                velocity.hot_spots.len()
            );
            Ok(ok(&velocity, text))
        }
        "quire_memory_report" => {
            let input: MemoryInput = parse(name, args)?;
            let report = space.insight().memory_report(input.prefix.as_deref())?;
            let text = format!(
                "{} episodic pages, {} unmerged",
                report.episodic_count,
                report.unmerged.len()
            );
            Ok(ok(&report, text))
        }
        "quire_eval" => {
            let input: EvalRequest = parse(name, args)?;
            let scores = space.insight().evaluate(&input)?;
            let text = format!(
                "hit rate {:.2}, MRR {:.2}, precision@5 {:.2} over {} questions",
                scores.fts.hit_rate,
                scores.fts.mrr,
                scores.fts.precision_at_5,
                scores.per_query.len()
            );
            Ok(ok(&scores, text))
        }
        other => Err(no_handler(other)),
    }
}
