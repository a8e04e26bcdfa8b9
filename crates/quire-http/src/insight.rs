//! Analytics and health over HTTP: the dashboard, page health, stale pages, the janitor,
//! contradictions, velocity, memory, context, eligible tasks, search evaluation and search
//! analytics.

use axum::Json;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiResult, ErrorBody, JsonBody, QueryParams};
use quire_api::{
    ContentGaps, Context, Contradiction, DismissGap, Eligible, EvalRequest, FailedSearches,
    GapDismissed, HealthDashboard, HealthOverview, JanitorReport, MemoryReport, PageHealth,
    SearchAnalytics, SearchEvaluation, SearchTrends, Sources, StaleEntry, Velocity,
};
use quire_service::VelocityQuery;

#[derive(Deserialize, IntoParams)]
pub struct HealthParams {
    /// The page.
    pub path: String,
}

#[derive(Deserialize, IntoParams)]
pub struct VelocityParams {
    /// `Nd`, `Nw` or `Nm` (a month counts 30 days); default `30d`.
    pub period: Option<String>,
    /// At most this many entries per list (default 10).
    pub limit: Option<usize>,
    /// Only pages under this folder (`dir` is accepted too).
    #[serde(alias = "dir")]
    pub path: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct MemoryParams {
    /// The folder of episodic pages (default `[memory] episodes_path_prefix`).
    pub prefix: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct ListParams {
    /// At most this many entries (default 20, at most 500).
    pub limit: Option<usize>,
}

#[derive(Deserialize, IntoParams)]
pub struct TrendParams {
    /// Days to cover, ending today (default 30, 1 to 366).
    pub days: Option<u32>,
}

/// The health dashboard: stale, orphaned, empty and frontmatter-less pages, broken links,
/// the share of wiki links that resolve, and the ten pages changed last.
#[utoipa::path(get, path = "/analytics", tag = "analytics",
    responses((status = 200, body = HealthDashboard),
        (status = 503, body = ErrorBody, description = "the catalog is being built")))]
pub async fn dashboard(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<HealthDashboard>> {
    Ok(Json(blocking(move || space.insight().dashboard()).await?))
}

/// The dashboard's counts alone.
#[utoipa::path(get, path = "/analytics/overview", tag = "analytics",
    responses((status = 200, body = HealthOverview), (status = 503, body = ErrorBody)))]
pub async fn overview(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<HealthOverview>> {
    Ok(Json(blocking(move || space.insight().overview()).await?))
}

/// The health of one page: words, links, backlinks, age, and its issues (broken links, past
/// `review-by`, no frontmatter, empty, orphan).
#[utoipa::path(get, path = "/health-check", tag = "analytics", params(HealthParams),
    responses((status = 200, body = PageHealth),
        (status = 400, body = ErrorBody, description = "missing or invalid path"),
        (status = 404, body = ErrorBody, description = "no such page"),
        (status = 503, body = ErrorBody)))]
pub async fn page_health(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<HealthParams>,
) -> ApiResult<Json<PageHealth>> {
    Ok(Json(
        blocking(move || space.insight().page_health(&q.path)).await?,
    ))
}

/// Pages past their `review-by` date, most overdue first.
#[utoipa::path(get, path = "/stale", tag = "analytics",
    responses((status = 200, body = [StaleEntry]), (status = 503, body = ErrorBody)))]
pub async fn stale(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Vec<StaleEntry>>> {
    Ok(Json(blocking(move || space.insight().stale()).await?))
}

/// What the janitor would clean up, with recommendations. Stale also covers pages not
/// modified for `[janitor] stale_days` days.
#[utoipa::path(get, path = "/janitor", tag = "analytics",
    responses((status = 200, body = JanitorReport), (status = 503, body = ErrorBody)))]
pub async fn janitor(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<JanitorReport>> {
    Ok(Json(blocking(move || space.insight().janitor()).await?))
}

/// Pages sharing a frontmatter `title` or alias (up to case and spacing) whose `status`,
/// `date`, `due`, `owner` or `version` differ.
#[utoipa::path(get, path = "/contradictions", tag = "analytics",
    responses((status = 200, body = [Contradiction]), (status = 503, body = ErrorBody)))]
pub async fn contradictions(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Vec<Contradiction>>> {
    Ok(Json(
        blocking(move || space.insight().contradictions()).await?,
    ))
}

/// How fast pages change, from the history: hot and cold pages, bursts, single-author pages.
#[utoipa::path(get, path = "/velocity", tag = "analytics", params(VelocityParams),
    responses((status = 200, body = Velocity),
        (status = 400, body = ErrorBody, description = "a period not written Nd, Nw or Nm, or a bad folder"),
        (status = 501, body = ErrorBody, description = "versioning is off")))]
pub async fn velocity(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<VelocityParams>,
) -> ApiResult<Json<Velocity>> {
    let query = VelocityQuery {
        period: q.period,
        limit: q.limit,
        path: q.path,
    };
    Ok(Json(
        blocking(move || space.insight().velocity(&query)).await?,
    ))
}

/// Episodic memory pages and which of them some page's `merged-from` or `derived-from`
/// frontmatter names.
#[utoipa::path(get, path = "/memory/report", tag = "analytics", params(MemoryParams),
    responses((status = 200, body = MemoryReport),
        (status = 400, body = ErrorBody, description = "a prefix that is no valid folder"),
        (status = 503, body = ErrorBody)))]
pub async fn memory_report(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<MemoryParams>,
) -> ApiResult<Json<MemoryReport>> {
    Ok(Json(
        blocking(move || space.insight().memory_report(q.prefix.as_deref())).await?,
    ))
}

/// The texts of `.quire/playbook.md`, `.quire/SCHEMA.md` and `.quire/index.md` (empty when
/// missing).
#[utoipa::path(get, path = "/context", tag = "analytics",
    responses((status = 200, body = Context)))]
pub async fn context(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Context>> {
    Ok(Json(blocking(move || space.insight().context()).await?))
}

/// Actionable pages from their frontmatter: `status` not done, closed, archived, cancelled,
/// completed or verified; most urgent `priority` first, then the soonest `due`.
#[utoipa::path(get, path = "/eligible", tag = "analytics", params(ListParams),
    responses((status = 200, body = Eligible), (status = 503, body = ErrorBody)))]
pub async fn eligible(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<ListParams>,
) -> ApiResult<Json<Eligible>> {
    Ok(Json(
        blocking(move || space.insight().eligible(q.limit)).await?,
    ))
}

/// Scores full-text search on questions with known answers: hit rate, MRR and precision at
/// 5 over the first 10 results. `semantic` is null: vector search is not built.
#[utoipa::path(post, path = "/eval", tag = "analytics", request_body = EvalRequest,
    responses((status = 200, body = SearchEvaluation),
        (status = 400, body = ErrorBody, description = "no queries, an empty question, or invalid JSON"),
        (status = 503, body = ErrorBody)))]
pub async fn eval(
    SpaceCtx(space): SpaceCtx,
    JsonBody(request): JsonBody<EvalRequest>,
) -> ApiResult<Json<SearchEvaluation>> {
    Ok(Json(
        blocking(move || space.insight().evaluate(&request)).await?,
    ))
}

/// The newest searches and the most asked queries.
#[utoipa::path(get, path = "/analytics/searches", tag = "analytics", params(ListParams),
    responses((status = 200, body = SearchAnalytics), (status = 503, body = ErrorBody)))]
pub async fn searches(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<ListParams>,
) -> ApiResult<Json<SearchAnalytics>> {
    Ok(Json(
        blocking(move || space.insight().searches(q.limit)).await?,
    ))
}

/// Queries that found nothing, with how often.
#[utoipa::path(get, path = "/analytics/failed-searches", tag = "analytics", params(ListParams),
    responses((status = 200, body = FailedSearches), (status = 503, body = ErrorBody)))]
pub async fn failed_searches(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<ListParams>,
) -> ApiResult<Json<FailedSearches>> {
    Ok(Json(
        blocking(move || space.insight().failed_searches(q.limit)).await?,
    ))
}

/// Searches (and failed searches) per day.
#[utoipa::path(get, path = "/analytics/trends", tag = "analytics", params(TrendParams),
    responses((status = 200, body = SearchTrends),
        (status = 400, body = ErrorBody, description = "`days` out of range"),
        (status = 503, body = ErrorBody)))]
pub async fn trends(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<TrendParams>,
) -> ApiResult<Json<SearchTrends>> {
    Ok(Json(
        blocking(move || space.insight().trends(q.days)).await?,
    ))
}

/// Failed queries nobody has dismissed (or that failed again since).
#[utoipa::path(get, path = "/analytics/content-gaps", tag = "analytics", params(ListParams),
    responses((status = 200, body = ContentGaps), (status = 503, body = ErrorBody)))]
pub async fn content_gaps(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<ListParams>,
) -> ApiResult<Json<ContentGaps>> {
    Ok(Json(
        blocking(move || space.insight().content_gaps(q.limit)).await?,
    ))
}

/// Dismisses a content gap until its query fails again.
#[utoipa::path(post, path = "/analytics/content-gaps/dismiss", tag = "analytics",
    request_body = DismissGap,
    responses((status = 200, body = GapDismissed),
        (status = 400, body = ErrorBody, description = "missing query or invalid JSON"),
        (status = 404, body = ErrorBody, description = "the query never failed"),
        (status = 503, body = ErrorBody)))]
pub async fn dismiss_gap(
    SpaceCtx(space): SpaceCtx,
    JsonBody(body): JsonBody<DismissGap>,
) -> ApiResult<Json<GapDismissed>> {
    Ok(Json(
        blocking(move || space.insight().dismiss_gap(&body.query)).await?,
    ))
}

/// Pages grouped by their `_source` frontmatter.
#[utoipa::path(get, path = "/analytics/sources", tag = "analytics",
    responses((status = 200, body = Sources), (status = 503, body = ErrorBody)))]
pub async fn sources(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Sources>> {
    Ok(Json(blocking(move || space.insight().sources()).await?))
}
