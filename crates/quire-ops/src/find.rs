//! Finding things: full-text search, DQL queries, frontmatter queries and aggregates,
//! backlinks, the link graph and its analytics, and rebuilding the index.

use quire_api::mcp::{
    AggregateInput, AnalyticsInput, CentralityInput, GraphPathInput, MetaInput, NoInput, PathInput,
    QueryInput, SearchInput, SemanticInput, SuggestionsInput, WalkInput,
};
use quire_api::{
    AggregateRow, Backlink, Centrality, Communities, Embeddings, Graph, GraphAnalytics, GraphPath,
    GraphWalk, MetaResults, QueryResult, Reindexed, SearchResults, SemanticResults, Suggestions,
};
use quire_service::{MetaQuery, Result, SearchQuery, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "search";
const GRAPH: &str = "graph";

/// Top pages the graph analytics list when the caller names no limit.
const TOP_PAGES: usize = 20;
/// Source pages sampled for betweenness when the caller names no sample.
const SAMPLE: usize = 50;

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Search>();
    v.op::<SearchVerified>();
    v.op::<SearchSemantic>();
    v.op::<SearchSemanticPost>();
    v.op::<SuggestionsOp>();
    v.op::<EmbeddingsOp>();
    v.op::<Query>();
    v.op::<QueryMeta>();
    v.op::<Aggregate>();
    v.op::<Backlinks>();
    v.op::<Reindex>();
    v.op::<GraphOp>();
    v.op::<GraphAnalyticsOp>();
    v.op::<GraphCentrality>();
    v.op::<GraphCommunities>();
    v.op::<GraphPathOp>();
    v.op::<GraphWalkOp>();
}

fn search_query(input: SearchInput) -> SearchQuery {
    SearchQuery {
        q: input.q,
        limit: input.limit,
        offset: input.offset,
        path: input.path,
        tag: input.tag,
        mode: input.mode,
    }
}

/// `GET /search`, `quire_search`.
pub struct Search;

impl Operation for Search {
    type Input = SearchInput;
    type Output = SearchResults;
    const META: Meta = Meta::read(
        "search",
        AREA,
        "Full-text search over titles, text, tags, aliases, properties and paths, ranked by BM25",
    )
    .rest(Rest::get("/search"))
    .tool(Tool::named("quire_search"))
    .describe(
        "Full-text search ranked by BM25 (title and tags count most) over \
titles, text, tags, aliases, property values and folder and file names: words, AND, OR, \
NOT/-word, \"phrases\", prefix*, parentheses, tag:name (nested tags too), path:folder/sub, \
file:name; with `path` (folder) and `tag` filters. Plain words must all match; when no page \
has them all, the pages with any of them come back, best first, marked `matching: any`, so a \
question in plain words finds something. Answers paths, titles and snippets, not whole pages: \
read the hits you need with quire_read. Cheap (SQLite index).",
    );

    fn run(space: &Space, input: SearchInput, _: &Caller) -> Result<SearchResults> {
        space.find().search(&search_query(input))
    }
}

/// `GET /search/semantic`, `quire_search_semantic`.
pub struct SearchSemantic;

impl Operation for SearchSemantic {
    type Input = SemanticInput;
    type Output = SemanticResults;
    const META: Meta = Meta::read(
        "search_semantic",
        AREA,
        "Vector similarity search: pages nearest in meaning to the query",
    )
    .rest(Rest::get("/search/semantic"))
    .tool(Tool::named("quire_search_semantic"))
    .needs_vectors()
    .describe(
        "Search by meaning, not words: the query is embedded and compared with every \
chunk of every page; each page comes once, scored by cosine similarity of its nearest chunk, \
with that chunk as snippet. Use for questions in plain words whose answer may use other words \
(\"how far away are other suns\" finds a page on stellar distances); quire_search already \
fuses this with BM25 when vector search is on. Cheap (one embedding, a k-NN scan).",
    );

    fn run(space: &Space, input: SemanticInput, _: &Caller) -> Result<SemanticResults> {
        space.find().semantic(&input.q, input.limit)
    }
}

/// `POST /search/semantic` (`{query, limit}`).
pub struct SearchSemanticPost;

impl Operation for SearchSemanticPost {
    type Input = SemanticInput;
    type Output = SemanticResults;
    const META: Meta = Meta::read(
        "search_semantic_post",
        AREA,
        "Vector similarity search with the query in a JSON body (`{query, limit}`)",
    )
    .rest(Rest::post("/search/semantic").empty_body())
    .needs_vectors();

    fn run(space: &Space, input: SemanticInput, _: &Caller) -> Result<SemanticResults> {
        space.find().semantic(&input.q, input.limit)
    }
}

/// `GET /suggestions`, `quire_suggestions`.
pub struct SuggestionsOp;

impl Operation for SuggestionsOp {
    type Input = SuggestionsInput;
    type Output = Suggestions;
    const META: Meta = Meta::read(
        "suggestions",
        AREA,
        "Pages similar in meaning to a page that it does not link to yet",
    )
    .rest(Rest::get("/suggestions"))
    .tool(Tool::named("quire_suggestions"))
    .needs_vectors()
    .describe(
        "Link suggestions for a page: other pages whose text is nearest in meaning to \
its chunks, leaving out the page itself and the pages it already links to; each with the \
similarity and the passage of the target that matched. Use before adding [[links]].",
    );

    fn run(space: &Space, input: SuggestionsInput, _: &Caller) -> Result<Suggestions> {
        space.find().suggestions(&input.path, input.limit)
    }
}

/// `GET /embeddings`, `quire_embeddings`.
pub struct EmbeddingsOp;

impl Operation for EmbeddingsOp {
    type Input = PathInput;
    type Output = Embeddings;
    const META: Meta = Meta::read(
        "embeddings",
        AREA,
        "A page's chunks and their embedding vectors",
    )
    .rest(Rest::get("/embeddings"))
    .tool(Tool::named("quire_embeddings"))
    .needs_vectors()
    .describe(
        "The chunks a page was cut into for vector search, each with its vector \
(`dimensions` numbers), and whether they are of the page's current text. Large: ask only \
when you need the vectors themselves.",
    );

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Embeddings> {
        space.find().embeddings(&input.path)
    }
}

/// `GET /search/verified`.
pub struct SearchVerified;

impl Operation for SearchVerified {
    type Input = SearchInput;
    type Output = SearchResults;
    const META: Meta = Meta::read(
        "search_verified",
        AREA,
        "Full-text search with trusted pages (`status: verified`, `source-of-truth: true`) first",
    )
    .rest(Rest::get("/search/verified"));

    fn run(space: &Space, input: SearchInput, _: &Caller) -> Result<SearchResults> {
        space.find().search_verified(&search_query(input))
    }
}

/// `GET /query`, `quire_query`.
pub struct Query;

impl Operation for Query {
    type Input = QueryInput;
    type Output = QueryResult;
    const META: Meta = Meta::read("query", AREA, "Runs a DQL query")
        .rest(Rest::get("/query"))
        .tool(Tool::named("quire_query"))
        .describe(
            "Run a DQL query over frontmatter, tags, links and file data: TABLE, \
LIST, COUNT, DISTINCT … FROM … WHERE … SORT … GROUP BY … FLATTEN … LIMIT. In memory; bounded \
by the configured row and time limits.",
        );

    fn run(space: &Space, input: QueryInput, _: &Caller) -> Result<QueryResult> {
        space.find().query(&input.q)
    }
}

/// `GET /meta`, `quire_query_meta`.
pub struct QueryMeta;

impl Operation for QueryMeta {
    type Input = MetaInput;
    type Output = MetaResults;
    const META: Meta = Meta::read(
        "query_meta",
        AREA,
        "Pages whose frontmatter matches an expression, with their frontmatter, sorted and paged",
    )
    .rest(Rest::get("/meta"))
    .tool(Tool::named("quire_query_meta"))
    .describe(
        "Pages whose frontmatter matches a `where` expression (`status = \"open\" \
and priority > 2`), sorted and paged, with their frontmatter. Simpler than quire_query when \
you only filter.",
    );

    fn run(space: &Space, input: MetaInput, _: &Caller) -> Result<MetaResults> {
        space.find().meta(&MetaQuery {
            filter: input.filter,
            sort: input.sort,
            order: input.order,
            limit: input.limit,
            offset: input.offset,
        })
    }
}

/// `GET /query/aggregate`, `quire_aggregate`.
pub struct Aggregate;

impl Operation for Aggregate {
    type Input = AggregateInput;
    type Output = Vec<AggregateRow>;
    const META: Meta = Meta::read(
        "aggregate",
        AREA,
        "Groups pages by a frontmatter field and computes counts, sums, averages, minima and maxima",
    )
    .rest(Rest::get("/query/aggregate"))
    .tool(Tool::listing("quire_aggregate", "rows"))
    .describe(
        "Group pages by a frontmatter field and compute `count`, `sum:f`, \
`avg:f`, `min:f`, `max:f` per group (comma-separated).",
    );

    fn run(space: &Space, input: AggregateInput, _: &Caller) -> Result<Vec<AggregateRow>> {
        let rows = space
            .find()
            .aggregate(&input.group, input.calc.as_deref().unwrap_or(""))?;
        Ok(rows.into_iter().map(AggregateRow).collect())
    }
}

/// `GET /backlinks`, `quire_backlinks`.
pub struct Backlinks;

impl Operation for Backlinks {
    type Input = PathInput;
    type Output = Vec<Backlink>;
    const META: Meta = Meta::read(
        "backlinks",
        AREA,
        "Pages linking to a page, with the line that holds each link",
    )
    .rest(Rest::get("/backlinks"))
    .tool(Tool::listing("quire_backlinks", "backlinks"))
    .describe(
        "The pages linking to `path`, with the line of each link. Check it \
before deleting or merging a page.",
    );

    fn run(space: &Space, input: PathInput, _: &Caller) -> Result<Vec<Backlink>> {
        space.find().backlinks(&input.path)
    }
}

/// `GET /graph`.
pub struct GraphOp;

impl Operation for GraphOp {
    type Input = NoInput;
    type Output = Graph;
    const META: Meta = Meta::read("graph", GRAPH, "Pages and the resolved links between them")
        .rest(Rest::get("/graph"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Graph> {
        Ok(space.find().graph())
    }
}

/// `GET /graph/analytics`, `quire_graph_analytics`.
pub struct GraphAnalyticsOp;

impl Operation for GraphAnalyticsOp {
    type Input = AnalyticsInput;
    type Output = GraphAnalytics;
    const META: Meta = Meta::read(
        "graph_analytics",
        GRAPH,
        "Counts, components, orphans and the pages of highest PageRank",
    )
    .rest(Rest::get("/graph/analytics"))
    .tool(Tool::named("quire_graph_analytics"))
    .describe(
        "The link graph at a glance: counts, orphans, top pages by PageRank and \
by links in and out. Costs one pass over the graph (cached until the next change).",
    );

    fn run(space: &Space, input: AnalyticsInput, _: &Caller) -> Result<GraphAnalytics> {
        Ok(space.find().analytics(input.limit.unwrap_or(TOP_PAGES)))
    }
}

/// `GET /graph/centrality`, `quire_graph_centrality`.
pub struct GraphCentrality;

impl Operation for GraphCentrality {
    type Input = CentralityInput;
    type Output = Centrality;
    const META: Meta = Meta::read(
        "graph_centrality",
        GRAPH,
        "Betweenness (sampled) and PageRank of the most central pages",
    )
    .rest(Rest::get("/graph/centrality"))
    .tool(Tool::named("quire_graph_centrality"))
    .describe(
        "The most central pages: PageRank and betweenness (how many shortest \
chains of links pass through a page). Finds the hubs a restructuring must keep working. \
Betweenness is sampled from `sample` source pages (default 50; exact when it covers every \
page): each sampled page costs a pass over the graph, so keep it small on large roots.",
    );

    fn run(space: &Space, input: CentralityInput, _: &Caller) -> Result<Centrality> {
        let sample = input.sample.unwrap_or(SAMPLE);
        let limit = input.limit.unwrap_or(TOP_PAGES);
        Ok(space.find().centrality(sample, limit))
    }
}

/// `GET /graph/communities`, `quire_graph_communities`.
pub struct GraphCommunities;

impl Operation for GraphCommunities {
    type Input = NoInput;
    type Output = Communities;
    const META: Meta = Meta::read(
        "graph_communities",
        GRAPH,
        "Groups of pages linked more among themselves than to the rest (Louvain)",
    )
    .rest(Rest::get("/graph/communities"))
    .tool(Tool::named("quire_graph_communities"))
    .describe(
        "Clusters of closely linked pages (Louvain). Useful to propose folders \
or hub pages. Costs a pass over the whole graph.",
    );

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Communities> {
        Ok(space.find().communities())
    }
}

/// `GET /graph/path`, `quire_graph_path`.
pub struct GraphPathOp;

impl Operation for GraphPathOp {
    type Input = GraphPathInput;
    type Output = GraphPath;
    const META: Meta = Meta::read(
        "graph_path",
        GRAPH,
        "The shortest chain of links between two pages",
    )
    .rest(Rest::get("/graph/path"))
    .tool(Tool::named("quire_graph_path"))
    .describe(
        "The shortest chain of links from one page to another (`undirected` \
follows links both ways).",
    );

    fn run(space: &Space, input: GraphPathInput, _: &Caller) -> Result<GraphPath> {
        space.find().path(&input.from, &input.to, input.undirected)
    }
}

/// `GET /graph/walk`, `quire_graph_walk`.
pub struct GraphWalkOp;

impl Operation for GraphWalkOp {
    type Input = WalkInput;
    type Output = GraphWalk;
    const META: Meta = Meta::read(
        "graph_walk",
        GRAPH,
        "A page's outbound links, backlinks and, optionally, the other pages of its folder",
    )
    .rest(Rest::get("/graph/walk"))
    .tool(Tool::named("quire_graph_walk"))
    .describe(
        "One step around a page: the pages it links to, the pages linking to it \
and, with `neighbors`, the other pages of its folder. Use it to explore around a page before \
reading further. Cheap (the in-memory link graph).",
    );

    fn run(space: &Space, input: WalkInput, _: &Caller) -> Result<GraphWalk> {
        space.find().walk(&input.path, input.neighbors)
    }
}

/// `POST /reindex`.
pub struct Reindex;

impl Operation for Reindex {
    type Input = NoInput;
    type Output = Reindexed;
    const META: Meta = Meta::write(
        "reindex",
        AREA,
        "Rebuilds the search index and the query catalog from the files",
    )
    .rest(Rest::post("/reindex").query());

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<Reindexed> {
        space.find().reindex()
    }
}
