//! Analytics and health: the dashboard, page health, stale pages, the janitor report,
//! contradictions, velocity, the memory report, context texts, eligible tasks, search
//! evaluation and search analytics.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A page and when it last changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct RecentPage {
    pub path: String,
    /// Last modification of the file, RFC 3339.
    pub updated: String,
}

/// The health dashboard of a space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct HealthDashboard {
    /// Pages (markdown files).
    pub total_pages: usize,
    /// Pages whose `review-by` frontmatter date has passed.
    pub stale_pages: usize,
    /// Pages no other page or canvas links to.
    pub orphan_pages: usize,
    /// Wiki and markdown links (external URLs aside) that resolve to no file.
    pub broken_links: usize,
    /// Pages without a word in their body.
    pub empty_pages: usize,
    /// Pages with no frontmatter, or an empty one.
    pub pages_without_frontmatter: usize,
    /// Percentage of wiki links that resolve (100 when there are none).
    pub link_coverage_pct: f64,
    /// The ten pages changed last, newest first.
    pub recently_updated: Vec<RecentPage>,
}

/// The health dashboard without the page list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct HealthOverview {
    pub total_pages: usize,
    pub stale_pages: usize,
    pub orphan_pages: usize,
    pub broken_links: usize,
    pub empty_pages: usize,
    pub pages_without_frontmatter: usize,
    pub link_coverage_pct: f64,
}

/// What is wrong with a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IssueType {
    /// A link resolves to no file.
    BrokenLink,
    /// The `review-by` date has passed.
    Stale,
    /// The page has no frontmatter (or an empty one).
    NoFrontmatter,
    /// The body has no words.
    Empty,
    /// No other page links here.
    Orphan,
}

/// One problem of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageIssue {
    #[serde(rename = "type")]
    pub kind: IssueType,
    pub message: String,
}

/// The health of one page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageHealth {
    pub path: String,
    /// Words of the body (frontmatter aside).
    pub word_count: u32,
    /// Links written in the page (every kind, same-page links included).
    pub link_count: usize,
    /// Links from other pages that resolve here (as many as `/backlinks` lists).
    pub backlink_count: usize,
    /// Whole days since the file last changed; null when unknown.
    pub days_since_update: Option<i64>,
    pub issues: Vec<PageIssue>,
}

/// A page past its `review-by` date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct StaleEntry {
    pub path: String,
    pub title: String,
    /// The `review-by` date as written (`YYYY-MM-DD`).
    pub review_by: String,
    /// Whole days since that date (at least 1).
    pub days_overdue: i64,
}

/// Pages that say different things about the same subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Contradiction {
    /// The pages disagreeing, by path.
    pub pages: Vec<String>,
    /// What they disagree on: `<key> of "<title>"`.
    pub claim: String,
    /// Each page's value: `a.md: status = open; b.md: status = done`.
    pub details: String,
}

/// A link that resolves to no file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct BrokenLink {
    /// The linking page.
    pub path: String,
    /// The target as written.
    pub target: String,
    /// 1-based line of the link.
    pub line: u32,
}

/// What the janitor would clean up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct JanitorReport {
    /// Pages past their `review-by` date, or not modified for `[janitor] stale_days` days.
    pub stale: Vec<String>,
    /// Pages nothing links to.
    pub orphans: Vec<String>,
    pub broken_links: Vec<BrokenLink>,
    /// Pages without a word in their body.
    pub empty: Vec<String>,
    /// Pages with no frontmatter, or an empty one.
    pub missing_frontmatter: Vec<String>,
    /// What to do about the above, one sentence each.
    pub recommendations: Vec<String>,
}

/// A page and how often it changed in the period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct HotSpot {
    pub path: String,
    pub changes: usize,
}

/// A page that changed little or not at all in the period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ColdSpot {
    pub path: String,
    pub changes: usize,
    /// Whole days since its last change in the history (else the file's modification time);
    /// null when unknown.
    pub days_since_update: Option<i64>,
}

/// A day on which one actor changed many files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Burst {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub changes: usize,
    pub actor: String,
}

/// How fast the space changes, from its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Velocity {
    /// The period as asked (`30d`, `4w`, `6m`).
    pub period: String,
    /// File changes (writes and deletes) in the period.
    pub total_changes: usize,
    /// Pages changed most in the period, most first.
    pub hot_spots: Vec<HotSpot>,
    /// Existing pages changed least in the period, least first (longest unchanged first).
    pub cold_spots: Vec<ColdSpot>,
    /// Days on which one actor made at least 5 changes, most first.
    pub bursts: Vec<Burst>,
    /// Existing pages that only one actor ever changed (in the history read), by path.
    pub single_author_pages: Vec<String>,
}

/// How episodic memory pages have been consolidated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct MemoryReport {
    /// Pages under the episodes prefix.
    pub episodic_count: usize,
    /// `merged-from` and `derived-from` entries (of any page) that name an episodic page.
    pub merged_from_refs: usize,
    /// The episodic pages, by path.
    pub episodic_files: Vec<String>,
    /// Episodic pages no `merged-from`/`derived-from` entry names yet.
    pub unmerged: Vec<String>,
    pub warnings: Vec<String>,
}

/// The context texts of a space (empty when the file is missing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Context {
    /// `.quire/playbook.md`.
    pub playbook: String,
    /// `.quire/SCHEMA.md`.
    pub schema: String,
    /// `.quire/index.md`.
    pub index: String,
}

/// An actionable page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct EligibleTask {
    pub path: String,
    pub title: String,
    /// Frontmatter `status`, as text.
    pub status: Option<String>,
    /// Frontmatter `priority`, as text (`high`, `2`, `P1` …).
    pub priority: Option<String>,
    /// Frontmatter `due`, as text.
    pub due: Option<String>,
}

/// Actionable pages, most urgent first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Eligible {
    pub tasks: Vec<EligibleTask>,
}

/// A question and the pages that answer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct EvalQuery {
    /// Run as a full-text query.
    pub question: String,
    /// Paths of the pages a good search returns.
    pub expected_paths: Vec<String>,
}

/// The body of `POST /eval`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct EvalRequest {
    pub queries: Vec<EvalQuery>,
}

/// Scores of one search tier over the questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct EvalScores {
    /// Share of questions with an expected page among the first 10 results.
    pub hit_rate: f64,
    /// Mean of 1/rank of the first expected page (0 for a miss).
    pub mrr: f64,
    /// Mean share of the first 5 results that are expected pages.
    pub precision_at_5: f64,
}

/// How one question fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct EvalQueryResult {
    pub question: String,
    /// 1-based rank of the first expected page in the full-text (BM25) results; null for a
    /// miss.
    pub fts_rank: Option<usize>,
    /// The same in the vector search results; null for a miss or without vector search.
    pub semantic_rank: Option<usize>,
    /// The same in the hybrid results (BM25 and vectors fused); null for a miss or without
    /// vector search.
    #[serde(default)]
    pub hybrid_rank: Option<usize>,
}

/// Search quality measured on questions with known answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SearchEvaluation {
    /// Full-text search ranked by BM25 alone.
    pub fts: EvalScores,
    /// Vector search (`/search/semantic`); null when vector search is off.
    pub semantic: Option<EvalScores>,
    /// Hybrid search (`/search`'s default with vector search on); null when it is off.
    #[serde(default)]
    pub hybrid: Option<EvalScores>,
    pub per_query: Vec<EvalQueryResult>,
}

/// One search answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SearchLogEntry {
    pub query: String,
    /// Pages found.
    pub results: u64,
    /// RFC 3339.
    pub timestamp: String,
}

/// A query and how often it was asked (queries equal up to case and spacing count as one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct QueryCount {
    /// The query as last asked.
    pub query: String,
    pub count: u64,
    /// RFC 3339.
    pub last_seen: String,
}

/// Recent and frequent searches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SearchAnalytics {
    /// Searches recorded (the newest 10,000 are kept).
    pub total: u64,
    /// Newest first.
    pub recent: Vec<SearchLogEntry>,
    /// Most asked first.
    pub top: Vec<QueryCount>,
}

/// Queries that found nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct FailedSearches {
    /// Most failed first.
    pub queries: Vec<QueryCount>,
}

/// Searches of one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct TrendDay {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub searches: u64,
    /// Searches that found nothing.
    pub failed: u64,
}

/// Searches per day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SearchTrends {
    /// Days asked for.
    pub days: u32,
    /// Oldest first; days without searches are left out.
    pub trend: Vec<TrendDay>,
}

/// Questions the knowledge base does not answer yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ContentGaps {
    /// Failed queries not dismissed (or failed again since), most failed first.
    pub gaps: Vec<QueryCount>,
}

/// The body of `POST /analytics/content-gaps/dismiss`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DismissGap {
    pub query: String,
}

/// A content gap dismissed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GapDismissed {
    pub dismissed: String,
}

/// Pages of one `_source`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SourceCount {
    /// The `_source` frontmatter value.
    pub source: String,
    pub pages: usize,
}

/// Pages grouped by their `_source` frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Sources {
    /// Most pages first, then by name.
    pub sources: Vec<SourceCount>,
    /// Pages without `_source`.
    pub unsourced: usize,
}

/// `GET /analytics/views`: how often pages were read over the last `days` days.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageViews {
    /// `[analytics] track_views`: whether reads are counted (when false, nothing is and the
    /// lists are empty).
    pub tracking: bool,
    /// The first day counted (`YYYY-MM-DD`, UTC).
    pub since: String,
    pub days: u32,
    /// Views of every page in the period (or of `path`).
    pub total: u64,
    /// The most viewed pages, most first.
    pub pages: Vec<PageViewCount>,
}

/// A page and its views.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageViewCount {
    pub path: String,
    pub views: u64,
}

/// `GET /analytics/views/v2`: per-page engagement over the last `days` days.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageEngagement {
    pub tracking: bool,
    pub since: String,
    pub days: u32,
    pub pages: Vec<PageEngagementEntry>,
}

/// One page's engagement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageEngagementEntry {
    pub path: String,
    pub views: u64,
    /// Distinct viewers (the actor or credential named by each read; `anonymous` counts once).
    pub viewers: u64,
    /// RFC 3339.
    pub first_viewed: String,
    pub last_viewed: String,
    /// Views per day, oldest first.
    pub by_day: Vec<DayViews>,
    /// Views per client (`ui`, `mcp`, `public`, the `X-Quire-Client` a program sends, …).
    pub by_client: std::collections::BTreeMap<String, u64>,
}

/// Views on one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct DayViews {
    /// `YYYY-MM-DD`.
    pub day: String,
    pub views: u64,
}
