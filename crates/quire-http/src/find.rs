//! Finding things: full-text search, DQL queries and aggregates, backlinks, the link graph,
//! and rebuilding the index.

use axum::Json;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiResult, ErrorBody, QueryParams};
use crate::files::PathQuery;
use quire_api::{
    AggregateRow, Backlink, Centrality, Communities, Graph, GraphAnalytics, GraphPath, GraphWalk,
    MetaResults, QueryResult, Reindexed, SearchResults,
};
use quire_service::{MetaQuery, SearchQuery};

#[derive(Deserialize, IntoParams)]
pub struct SearchParams {
    /// The query: words (all must match), `AND`, `OR`, `NOT` or `-word`, `"phrases"`,
    /// `prefix*`, parentheses, and the operators `tag:name` (the tag or one nested below
    /// it), `path:folder/sub` (the path holds those folder or file names in order) and
    /// `file:name` (the file name holds the words), each combinable with the rest. Words
    /// are found in titles, headings, text, tags, aliases, property values (frontmatter)
    /// and folder and file names.
    pub q: String,
    /// At most this many results (default 20, at most 200).
    pub limit: Option<usize>,
    /// Skip this many results first (default 0).
    pub offset: Option<usize>,
    /// Only pages under this folder.
    pub path: Option<String>,
    /// Only pages with this tag or one nested below it.
    pub tag: Option<String>,
}

impl SearchParams {
    fn into_query(self) -> SearchQuery {
        SearchQuery {
            q: self.q,
            limit: self.limit,
            offset: self.offset,
            path: self.path,
            tag: self.tag,
        }
    }
}

#[derive(Deserialize, IntoParams)]
pub struct DqlParams {
    /// A DQL query: `TABLE|LIST|COUNT|DISTINCT … FROM … WHERE … SORT … GROUP BY … FLATTEN …
    /// LIMIT …`.
    pub q: String,
}

#[derive(Deserialize, IntoParams)]
pub struct MetaParams {
    /// An expression over frontmatter, as in a DQL `WHERE`: `status = "open" and priority > 2`.
    #[serde(rename = "where")]
    pub filter: Option<String>,
    /// A field to sort by; `-field` sorts descending. Ties (and no sort) go by path.
    pub sort: Option<String>,
    /// At most this many pages (default 50, at most 1,000).
    pub limit: Option<usize>,
    /// Skip this many pages first.
    pub offset: Option<usize>,
}

#[derive(Deserialize, IntoParams)]
pub struct AggregateParams {
    /// The frontmatter field to group by.
    pub group: String,
    /// Comma-separated `function` or `function:field`; functions `count`, `avg`, `sum`,
    /// `min`, `max` (default `count`).
    pub calc: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct LimitParams {
    /// At most this many pages (default 20).
    pub limit: Option<usize>,
}

#[derive(Deserialize, IntoParams)]
pub struct CentralityParams {
    /// At most this many pages (default 20).
    pub limit: Option<usize>,
    /// Source pages sampled for betweenness (default 50; exact when at least the page count).
    pub sample: Option<usize>,
}

#[derive(Deserialize, IntoParams)]
pub struct PathParams {
    pub from: String,
    pub to: String,
    /// Follow links in both directions (default: only forward).
    #[serde(default)]
    pub undirected: bool,
}

#[derive(Deserialize, IntoParams)]
pub struct WalkParams {
    pub path: String,
    /// Also list the other pages of the same folder.
    #[serde(default)]
    pub neighbors: bool,
}

/// Full-text search ranked by BM25 (title and headings weigh more than the body).
#[utoipa::path(get, path = "/search", tag = "search", params(SearchParams),
    responses((status = 200, body = SearchResults),
        (status = 400, body = ErrorBody, description = "malformed query; the message names the position"),
        (status = 503, body = ErrorBody, description = "the index is being built")))]
pub async fn search(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<SearchParams>,
) -> ApiResult<Json<SearchResults>> {
    let query = q.into_query();
    Ok(Json(blocking(move || space.find().search(&query)).await?))
}

/// Full-text search with trusted pages (`status: verified`, `source-of-truth: true`) first.
#[utoipa::path(get, path = "/search/verified", tag = "search", params(SearchParams),
    responses((status = 200, body = SearchResults), (status = 400, body = ErrorBody),
        (status = 503, body = ErrorBody)))]
pub async fn search_verified(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<SearchParams>,
) -> ApiResult<Json<SearchResults>> {
    let query = q.into_query();
    Ok(Json(
        blocking(move || space.find().search_verified(&query)).await?,
    ))
}

/// Runs a DQL query.
#[utoipa::path(get, path = "/query", tag = "search", params(DqlParams),
    responses((status = 200, body = QueryResult),
        (status = 400, body = ErrorBody, description = "malformed query; the message names the position"),
        (status = 422, body = ErrorBody, description = "more rows than `[dataview] max_scan_rows`"),
        (status = 503, body = ErrorBody, description = "past `[dataview] query_timeout`, or the catalog is being built")))]
pub async fn query(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<DqlParams>,
) -> ApiResult<Json<QueryResult>> {
    Ok(Json(blocking(move || space.find().query(&q.q)).await?))
}

/// Pages whose frontmatter matches an expression, with their frontmatter, sorted and paged.
#[utoipa::path(get, path = "/meta", tag = "search", params(MetaParams),
    responses((status = 200, body = MetaResults),
        (status = 400, body = ErrorBody, description = "malformed `where` or `sort`; the message names the position"),
        (status = 503, body = ErrorBody)))]
pub async fn meta(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<MetaParams>,
) -> ApiResult<Json<MetaResults>> {
    let query = MetaQuery {
        filter: q.filter,
        sort: q.sort,
        limit: q.limit,
        offset: q.offset,
    };
    Ok(Json(blocking(move || space.find().meta(&query)).await?))
}

/// Groups pages by a frontmatter field and computes counts, sums, averages, minima and maxima.
#[utoipa::path(get, path = "/query/aggregate", tag = "search", params(AggregateParams),
    responses((status = 200, body = [AggregateRow]),
        (status = 400, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn aggregate(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<AggregateParams>,
) -> ApiResult<Json<Vec<AggregateRow>>> {
    let calc = q.calc.unwrap_or_default();
    let rows = blocking(move || space.find().aggregate(&q.group, &calc)).await?;
    Ok(Json(rows.into_iter().map(AggregateRow).collect()))
}

/// Pages linking to a page, with the line that holds each link.
#[utoipa::path(get, path = "/backlinks", tag = "search", params(PathQuery),
    responses((status = 200, body = [Backlink]), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn backlinks(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathQuery>,
) -> ApiResult<Json<Vec<Backlink>>> {
    Ok(Json(
        blocking(move || space.find().backlinks(&q.path)).await?,
    ))
}

/// Pages and the resolved links between them.
#[utoipa::path(get, path = "/graph", tag = "graph", responses((status = 200, body = Graph)))]
pub async fn graph(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Graph>> {
    Ok(Json(blocking(move || Ok(space.find().graph())).await?))
}

/// Counts, components, orphans and the pages of highest PageRank.
#[utoipa::path(get, path = "/graph/analytics", tag = "graph", params(LimitParams),
    responses((status = 200, body = GraphAnalytics), (status = 400, body = ErrorBody)))]
pub async fn analytics(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<LimitParams>,
) -> ApiResult<Json<GraphAnalytics>> {
    let limit = q.limit.unwrap_or(20);
    Ok(Json(
        blocking(move || Ok(space.find().analytics(limit))).await?,
    ))
}

/// Betweenness (sampled) and PageRank of the most central pages.
#[utoipa::path(get, path = "/graph/centrality", tag = "graph", params(CentralityParams),
    responses((status = 200, body = Centrality), (status = 400, body = ErrorBody)))]
pub async fn centrality(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<CentralityParams>,
) -> ApiResult<Json<Centrality>> {
    let (sample, limit) = (q.sample.unwrap_or(50), q.limit.unwrap_or(20));
    Ok(Json(
        blocking(move || Ok(space.find().centrality(sample, limit))).await?,
    ))
}

/// Groups of pages linked more among themselves than to the rest (Louvain).
#[utoipa::path(get, path = "/graph/communities", tag = "graph",
    responses((status = 200, body = Communities)))]
pub async fn communities(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Communities>> {
    Ok(Json(
        blocking(move || Ok(space.find().communities())).await?,
    ))
}

/// The shortest chain of links between two pages.
#[utoipa::path(get, path = "/graph/path", tag = "graph", params(PathParams),
    responses((status = 200, body = GraphPath), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "no such page, or no chain of links")))]
pub async fn path(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PathParams>,
) -> ApiResult<Json<GraphPath>> {
    Ok(Json(
        blocking(move || space.find().path(&q.from, &q.to, q.undirected)).await?,
    ))
}

/// A page's outbound links, backlinks and, optionally, the other pages of its folder.
#[utoipa::path(get, path = "/graph/walk", tag = "graph", params(WalkParams),
    responses((status = 200, body = GraphWalk), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn walk(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<WalkParams>,
) -> ApiResult<Json<GraphWalk>> {
    Ok(Json(
        blocking(move || space.find().walk(&q.path, q.neighbors)).await?,
    ))
}

/// Rebuilds the search index and the query catalog from the files.
#[utoipa::path(post, path = "/reindex", tag = "search",
    responses((status = 200, body = Reindexed), (status = 503, body = ErrorBody)))]
pub async fn reindex(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Reindexed>> {
    Ok(Json(blocking(move || space.find().reindex()).await?))
}
