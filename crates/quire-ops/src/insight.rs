//! Analytics and health: the space's context texts, the dashboard, one page's health, stale
//! pages, the janitor, contradictions, actionable pages, velocity, episodic memory, search
//! evaluation and the search analytics.

use quire_api::mcp::{LimitInput, MemoryInput, NoInput, PathInput, TrendsInput, VelocityInput};
use quire_api::{
    ContentGaps, Context, Contradiction, DismissGap, Eligible, EvalRequest, FailedSearches,
    GapDismissed, HealthDashboard, HealthOverview, JanitorReport, MemoryReport, PageHealth,
    SearchAnalytics, SearchEvaluation, SearchTrends, Sources, StaleEntry, Velocity,
};
use quire_service::{Result, Space, VelocityQuery};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "analytics";

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<ContextOp>();
    v.op::<Dashboard>();
    v.op::<Overview>();
    v.op::<HealthCheck>();
    v.op::<Stale>();
    v.op::<Janitor>();
    v.op::<Contradictions>();
    v.op::<EligibleOp>();
    v.op::<VelocityOp>();
    v.op::<Memory>();
    v.op::<Eval>();
    v.op::<Searches>();
    v.op::<Failed>();
    v.op::<Trends>();
    v.op::<Gaps>();
    v.op::<DismissGapOp>();
    v.op::<SourcesOp>();
}

/// `GET /context`, `quire_context`.
pub struct ContextOp;

impl Operation for ContextOp {
    type Input = NoInput;
    type Output = Context;
    const META: Meta = Meta::read(
        "context",
        AREA,
        "The texts of `.quire/playbook.md`, `.quire/SCHEMA.md` and `.quire/index.md` (empty when \
missing)",
    )
    .rest(Rest::get("/context"))
    .tool(Tool::named("quire_context"))
    .describe(
        "The knowledge base's own guidance: the texts of .quire/playbook.md (how \
to work here), .quire/SCHEMA.md (page types and fields) and .quire/index.md (where things \
are), empty when missing. Call it first in a session and follow it. Cheap (three files).",
    );

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Context> {
        space.insight().context()
    }
}

/// `GET /analytics`, `quire_analytics`.
pub struct Dashboard;

impl Operation for Dashboard {
    type Input = NoInput;
    type Output = HealthDashboard;
    const META: Meta = Meta::read(
        "analytics",
        AREA,
        "The health dashboard: stale, orphaned, empty and frontmatter-less pages, broken links, \
the share of wiki links that resolve, and the ten pages changed last",
    )
    .rest(Rest::get("/analytics"))
    .tool(Tool::named("quire_analytics"))
    .describe(
        "The health dashboard of the whole knowledge base: how many pages, and \
how many are stale (past `review-by`), orphaned, empty or without frontmatter, broken links, \
the share of wiki links that resolve, and the ten pages changed last. A good first look at \
what needs care. Cheap (the in-memory catalog); unavailable while the first index pass runs.",
    );

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<HealthDashboard> {
        space.insight().dashboard()
    }
}

/// `GET /analytics/overview`.
pub struct Overview;

impl Operation for Overview {
    type Input = NoInput;
    type Output = HealthOverview;
    const META: Meta = Meta::read("analytics_overview", AREA, "The dashboard's counts alone")
        .rest(Rest::get("/analytics/overview"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<HealthOverview> {
        space.insight().overview()
    }
}

/// `GET /health-check`, `quire_health_check`.
pub struct HealthCheck;

impl Operation for HealthCheck {
    type Input = PathInput;
    type Output = PageHealth;
    const META: Meta = Meta::read(
        "health_check",
        AREA,
        "The health of one page: words, links, backlinks, age, and its issues (broken links, \
past `review-by`, no frontmatter, empty, orphan)",
    )
    .rest(Rest::get("/health-check"))
    .tool(Tool::named("quire_health_check"))
    .describe(
        "The health of one page: words, links, backlinks, age, and its issues \
(broken links, past `review-by`, no frontmatter, empty, orphan). Check a page before and \
after you edit it. Cheap.",
    );

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<PageHealth> {
        space.insight().page_health(&input.path)
    }
}

/// `GET /stale`.
pub struct Stale;

impl Operation for Stale {
    type Input = NoInput;
    type Output = Vec<StaleEntry>;
    const META: Meta = Meta::read(
        "stale",
        AREA,
        "Pages past their `review-by` date, most overdue first",
    )
    .rest(Rest::get("/stale"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Vec<StaleEntry>> {
        space.insight().stale()
    }
}

/// `GET /janitor`.
pub struct Janitor;

impl Operation for Janitor {
    type Input = NoInput;
    type Output = JanitorReport;
    const META: Meta = Meta::read(
        "janitor",
        AREA,
        "What the janitor would clean up, with recommendations; stale also covers pages not \
modified for `[janitor] stale_days` days",
    )
    .rest(Rest::get("/janitor"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<JanitorReport> {
        space.insight().janitor()
    }
}

/// `GET /contradictions`.
pub struct Contradictions;

impl Operation for Contradictions {
    type Input = NoInput;
    type Output = Vec<Contradiction>;
    const META: Meta = Meta::read(
        "contradictions",
        AREA,
        "Pages sharing a frontmatter `title` or alias (up to case and spacing) whose `status`, \
`date`, `due`, `owner` or `version` differ",
    )
    .rest(Rest::get("/contradictions"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Vec<Contradiction>> {
        space.insight().contradictions()
    }
}

/// `GET /eligible`, `quire_eligible`.
pub struct EligibleOp;

impl Operation for EligibleOp {
    type Input = LimitInput;
    type Output = Eligible;
    const META: Meta = Meta::read(
        "eligible",
        AREA,
        "Actionable pages from their frontmatter: `status` not done, closed, archived, \
cancelled, completed or verified; most urgent `priority` first, then the soonest `due`",
    )
    .rest(Rest::get("/eligible"))
    .tool(Tool::named("quire_eligible"))
    .describe(
        "What to work on next: actionable pages from their frontmatter (`status` \
not done, closed, archived, cancelled, completed or verified), most urgent `priority` first, \
then the soonest `due`; `limit` (default 20, at most 500). Cheap (the in-memory catalog).",
    );

    fn run(space: &Space, input: LimitInput, _: &Caller) -> Result<Eligible> {
        space.insight().eligible(input.limit)
    }
}

/// `GET /velocity`, `quire_velocity`.
pub struct VelocityOp;

impl Operation for VelocityOp {
    type Input = VelocityInput;
    type Output = Velocity;
    const META: Meta = Meta::read(
        "velocity",
        AREA,
        "How fast pages change, from the history: hot and cold pages, bursts, single-author pages",
    )
    .rest(Rest::get("/velocity"))
    .tool(Tool::named("quire_velocity"))
    .describe(
        "How fast pages change over `period` (`Nd`, `Nw`, `Nm`; default 30d), \
from the git history: hot and cold pages, bursts of edits, pages only one author ever \
touched; `path` keeps one folder. Reads the history of the period: cost grows with its \
commits. Unavailable when versioning is off.",
    );

    fn run(space: &Space, input: VelocityInput, _: &Caller) -> Result<Velocity> {
        space.insight().velocity(&VelocityQuery {
            period: input.period,
            limit: input.limit,
            path: input.path.or(input.dir),
        })
    }
}

/// `GET /memory/report`, `quire_memory_report`.
pub struct Memory;

impl Operation for Memory {
    type Input = MemoryInput;
    type Output = MemoryReport;
    const META: Meta = Meta::read(
        "memory_report",
        AREA,
        "Episodic memory pages and which of them some page's `merged-from` or `derived-from` \
frontmatter names",
    )
    .rest(Rest::get("/memory/report"))
    .tool(Tool::named("quire_memory_report"))
    .describe(
        "How episodic memory pages (under `prefix`, default the configured \
episodes folder) have been consolidated: which some page's `merged-from`/`derived-from` \
frontmatter names, and which are still unmerged. Use it to pick episodes to consolidate. \
Cheap (the in-memory catalog).",
    );

    fn run(space: &Space, input: MemoryInput, _: &Caller) -> Result<MemoryReport> {
        space.insight().memory_report(input.prefix.as_deref())
    }
}

/// `POST /eval`, `quire_eval`: writes nothing, so a read scope may call it.
pub struct Eval;

impl Operation for Eval {
    type Input = EvalRequest;
    type Output = SearchEvaluation;
    const META: Meta = Meta::read(
        "eval",
        AREA,
        "Scores full-text search on questions with known answers: hit rate, MRR and precision \
at 5 over the first 10 results (`semantic` is null: vector search is not built)",
    )
    .rest(Rest::post("/eval"))
    .tool(Tool::named("quire_eval"))
    .describe(
        "Score full-text search on questions whose answers you know \
(`queries: [{question, expected_paths}]`): hit rate, MRR and precision at 5 over the first \
10 results, per question too. Use it to check that pages you wrote are findable. Runs one \
search per question; these searches stay out of the search analytics.",
    );

    fn run(space: &Space, input: EvalRequest, _: &Caller) -> Result<SearchEvaluation> {
        space.insight().evaluate(&input)
    }
}

/// `GET /analytics/searches`.
pub struct Searches;

impl Operation for Searches {
    type Input = LimitInput;
    type Output = SearchAnalytics;
    const META: Meta = Meta::read(
        "analytics_searches",
        AREA,
        "The newest searches and the most asked queries",
    )
    .rest(Rest::get("/analytics/searches"));

    fn run(space: &Space, input: LimitInput, _: &Caller) -> Result<SearchAnalytics> {
        space.insight().searches(input.limit)
    }
}

/// `GET /analytics/failed-searches`.
pub struct Failed;

impl Operation for Failed {
    type Input = LimitInput;
    type Output = FailedSearches;
    const META: Meta = Meta::read(
        "analytics_failed_searches",
        AREA,
        "Queries that found nothing, with how often",
    )
    .rest(Rest::get("/analytics/failed-searches"));

    fn run(space: &Space, input: LimitInput, _: &Caller) -> Result<FailedSearches> {
        space.insight().failed_searches(input.limit)
    }
}

/// `GET /analytics/trends`.
pub struct Trends;

impl Operation for Trends {
    type Input = TrendsInput;
    type Output = SearchTrends;
    const META: Meta = Meta::read(
        "analytics_trends",
        AREA,
        "Searches (and failed searches) per day",
    )
    .rest(Rest::get("/analytics/trends"));

    fn run(space: &Space, input: TrendsInput, _: &Caller) -> Result<SearchTrends> {
        space.insight().trends(input.days)
    }
}

/// `GET /analytics/content-gaps`.
pub struct Gaps;

impl Operation for Gaps {
    type Input = LimitInput;
    type Output = ContentGaps;
    const META: Meta = Meta::read(
        "content_gaps",
        AREA,
        "Failed queries nobody has dismissed (or that failed again since)",
    )
    .rest(Rest::get("/analytics/content-gaps"));

    fn run(space: &Space, input: LimitInput, _: &Caller) -> Result<ContentGaps> {
        space.insight().content_gaps(input.limit)
    }
}

/// `POST /analytics/content-gaps/dismiss`: changes the search analytics, so it needs write.
pub struct DismissGapOp;

impl Operation for DismissGapOp {
    type Input = DismissGap;
    type Output = GapDismissed;
    const META: Meta = Meta::write(
        "content_gaps_dismiss",
        AREA,
        "Dismisses a content gap until its query fails again",
    )
    .rest(Rest::post("/analytics/content-gaps/dismiss"));

    fn run(space: &Space, input: DismissGap, _: &Caller) -> Result<GapDismissed> {
        space.insight().dismiss_gap(&input.query)
    }
}

/// `GET /analytics/sources`.
pub struct SourcesOp;

impl Operation for SourcesOp {
    type Input = NoInput;
    type Output = Sources;
    const META: Meta = Meta::read(
        "sources",
        AREA,
        "Pages grouped by their `_source` frontmatter",
    )
    .rest(Rest::get("/analytics/sources"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Sources> {
        space.insight().sources()
    }
}
