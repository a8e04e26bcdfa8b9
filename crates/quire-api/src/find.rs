//! Finding things: full-text search, DQL queries and aggregates, backlinks and the link graph.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One page found by a full-text search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SearchHit {
    pub path: String,
    pub title: String,
    /// Relevance: larger is better (BM25 with title and headings weighted above the body;
    /// the grep tier counts matches).
    pub score: f64,
    /// The body text around the best match, matches wrapped in `<mark>…</mark>`, cuts marked
    /// `…`. HTML in the page text is escaped.
    pub snippet: String,
}

/// A page of search results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SearchResults {
    /// The query as received.
    pub query: String,
    /// Pages matching, before `limit`/`offset`.
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
    /// `sqlite` (BM25) or `grep`.
    pub engine: String,
    /// `all`: every word of the query is in each page found (the query's own meaning).
    /// `any`: no page has every word of a query of plain words, so these are the pages with
    /// any of them (common function words left out), ranked by BM25: the most and the rarest
    /// words first.
    #[serde(default = "all_words")]
    pub matching: String,
    /// `bm25`: ranked by BM25 alone. `hybrid`: vector search is on and the BM25 ranking and
    /// the vector ranking were fused (reciprocal rank fusion, k = 60); `score` is then the
    /// fused score. `grep`: the grep tier.
    #[serde(default = "bm25")]
    pub mode: String,
    pub results: Vec<SearchHit>,
}

fn bm25() -> String {
    "bm25".to_string()
}

/// The answer of `/search/semantic`: pages whose chunks are nearest the query, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SemanticResults {
    pub query: String,
    /// Each page once, with `score` the cosine similarity (−1…1) of its nearest chunk and
    /// `snippet` that chunk's text (heading marks off, cut near 300 characters, HTML escaped).
    pub results: Vec<SearchHit>,
}

/// A page similar to another that it does not link to yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Suggestion {
    /// The page suggested as a link target.
    pub target: String,
    pub title: String,
    /// The cosine similarity of the nearest pair of chunks of the two pages.
    pub similarity: f64,
    /// The target's chunk that matched, as plain text (heading marks off, cut near 300
    /// characters).
    pub snippet: String,
}

/// `GET /suggestions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Suggestions {
    pub path: String,
    pub suggestions: Vec<Suggestion>,
}

/// One chunk of a page with its vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct EmbeddedChunk {
    pub chunk_idx: usize,
    pub text: String,
    pub vector: Vec<f32>,
}

/// `GET /embeddings`: a page's chunks and vectors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Embeddings {
    pub path: String,
    pub model: String,
    pub dimensions: usize,
    /// `false` while the page waits to be embedded (its chunks are then those of an earlier
    /// version, or none).
    pub current: bool,
    pub chunks: Vec<EmbeddedChunk>,
}

fn all_words() -> String {
    "all".to_string()
}

/// The answer of a DQL query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct QueryResult {
    /// `TABLE`, `LIST`, `COUNT` or `DISTINCT`.
    pub mode: String,
    pub headers: Vec<String>,
    /// One array per row, in the order of `headers`.
    #[schema(value_type = Vec<Vec<Object>>)]
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// A page linking to the asked-for page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Backlink {
    /// The linking page.
    pub path: String,
    pub title: String,
    /// The line of the linking page that holds the link.
    pub context: String,
    /// 1-based line of the link.
    pub line: u32,
}

/// A node of the link graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GraphNode {
    /// The page path.
    pub id: String,
    pub title: String,
    /// The page's top-level folder (`""` at the root).
    pub group: String,
}

/// A resolved link between two pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GraphEdge {
    pub source: String,
    pub target: String,
}

/// The link graph of a space: pages and the resolved links between them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

/// A page ranked by the graph analytics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct TopPage {
    pub path: String,
    pub pagerank: f64,
    pub in_degree: usize,
    pub out_degree: usize,
}

/// Shape of the link graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GraphAnalytics {
    pub total_nodes: usize,
    pub total_edges: usize,
    /// Weakly connected components.
    pub components: usize,
    pub largest_component_size: usize,
    /// Pages no other page links to.
    pub orphans: usize,
    pub top_pages: Vec<TopPage>,
}

/// A page's betweenness (estimated from sampled sources) and PageRank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CentralPage {
    pub path: String,
    pub pagerank: f64,
    pub betweenness: f64,
}

/// Answer of `/graph/centrality`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Centrality {
    pub pages: Vec<CentralPage>,
}

/// Answer of `/graph/communities`: groups of pages more linked among themselves than to the
/// rest (Louvain), largest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Communities {
    pub communities: Vec<Vec<String>>,
    /// Modularity of the partition (−0.5 … 1).
    pub modularity: f64,
}

/// Answer of `/graph/path`: the pages from `from` to `to`, both included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GraphPath {
    pub path: Vec<String>,
}

/// Answer of `/graph/walk`: a page's neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct GraphWalk {
    pub path: String,
    /// Pages this page links to.
    pub outbound: Vec<String>,
    /// Pages linking to this page.
    pub backlinks: Vec<String>,
    /// Other pages in the same folder (with `neighbors=true`).
    pub neighbors: Vec<String>,
}

/// Answer of `POST /reindex`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Reindexed {
    pub pages: usize,
    pub duration_ms: u64,
}

/// One group of `/query/aggregate`: the group field with the group's value, `count`, and a
/// `<function>_<field>` key per calculation (`avg_priority`, `sum_hours`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(transparent)]
#[schema(value_type = Object)]
pub struct AggregateRow(pub serde_json::Map<String, serde_json::Value>);

/// A page's frontmatter, as `/meta` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PageMeta {
    pub path: String,
    pub title: String,
    /// The page's frontmatter (`null` when it has none).
    #[schema(value_type = Object)]
    pub frontmatter: serde_json::Value,
}

/// Answer of `/meta`: pages whose frontmatter matches, sorted and paged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct MetaResults {
    /// Matching pages before `limit`/`offset`.
    pub total: usize,
    pub pages: Vec<PageMeta>,
}
