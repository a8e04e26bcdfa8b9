//! Finding things: full-text search, DQL, frontmatter queries, aggregates, backlinks and the
//! link graph.

use quire_api::mcp::{
    AggregateInput, AnalyticsInput, CentralityInput, GraphPathInput, MetaInput, PathInput,
    QueryInput, SearchInput, WalkInput,
};
use quire_service::{Error, MetaQuery, SearchQuery, Space};

use super::{empty, input, no_args, no_handler, ok, parse, Answer, Area, Def};
use crate::Caller;

pub(super) const AREA: Area = Area {
    tools: &[
        Def {
            name: "quire_search",
            description: "Full-text search ranked by BM25 (title and tags count most) over \
titles, text, tags, aliases, property values and folder and file names: words, AND, OR, \
NOT/-word, \"phrases\", prefix*, parentheses, tag:name (nested tags too), path:folder/sub, \
file:name; with `path` (folder) and `tag` filters. Answers paths, titles and snippets, not \
whole pages: read the hits you need with quire_read. Cheap (SQLite index).",
            schema: input::<SearchInput>,
            read_only: true,
        },
        Def {
            name: "quire_query",
            description: "Run a DQL query over frontmatter, tags, links and file data: TABLE, \
LIST, COUNT, DISTINCT … FROM … WHERE … SORT … GROUP BY … FLATTEN … LIMIT. In memory; bounded \
by the configured row and time limits.",
            schema: input::<QueryInput>,
            read_only: true,
        },
        Def {
            name: "quire_query_meta",
            description:
                "Pages whose frontmatter matches a `where` expression (`status = \"open\" \
and priority > 2`), sorted and paged, with their frontmatter. Simpler than quire_query when \
you only filter.",
            schema: input::<MetaInput>,
            read_only: true,
        },
        Def {
            name: "quire_aggregate",
            description: "Group pages by a frontmatter field and compute `count`, `sum(f)`, \
`avg(f)`, `min(f)`, `max(f)` per group.",
            schema: input::<AggregateInput>,
            read_only: true,
        },
        Def {
            name: "quire_backlinks",
            description: "The pages linking to `path`, with the line of each link. Check it \
before deleting or merging a page.",
            schema: input::<PathInput>,
            read_only: true,
        },
        Def {
            name: "quire_graph_analytics",
            description: "The link graph at a glance: counts, orphans, top pages by PageRank and \
by links in and out. Costs one pass over the graph (cached until the next change).",
            schema: input::<AnalyticsInput>,
            read_only: true,
        },
        Def {
            name: "quire_graph_centrality",
            description: "The most central pages: PageRank and betweenness (how many shortest \
chains of links pass through a page). Finds the hubs a restructuring must keep working. \
Betweenness is sampled from `sample` source pages (default 50; exact when it covers every \
page): each sampled page costs a pass over the graph, so keep it small on large roots.",
            schema: input::<CentralityInput>,
            read_only: true,
        },
        Def {
            name: "quire_graph_communities",
            description: "Clusters of closely linked pages (Louvain). Useful to propose folders \
or hub pages. Costs a pass over the whole graph.",
            schema: empty,
            read_only: true,
        },
        Def {
            name: "quire_graph_path",
            description: "The shortest chain of links from one page to another (`undirected` \
follows links both ways).",
            schema: input::<GraphPathInput>,
            read_only: true,
        },
        Def {
            name: "quire_graph_walk",
            description: "One step around a page: the pages it links to, the pages linking to it \
and, with `neighbors`, the other pages of its folder. Use it to explore around a page before \
reading further. Cheap (the in-memory link graph).",
            schema: input::<WalkInput>,
            read_only: true,
        },
    ],
    call,
};

fn call(space: &Space, name: &str, args: serde_json::Value, _caller: &Caller) -> Answer {
    match name {
        "quire_search" => {
            let input: SearchInput = parse(name, args)?;
            let results = space.find().search(&SearchQuery {
                q: input.q,
                limit: input.limit,
                offset: input.offset,
                path: input.path,
                tag: input.tag,
            })?;
            let value = serde_json::to_value(&results).map_err(Error::internal)?;
            let count = value
                .get("results")
                .and_then(|r| r.as_array())
                .map_or(0, Vec::len);
            Ok(ok(&value, format!("{count} results")))
        }
        "quire_query" => {
            let input: QueryInput = parse(name, args)?;
            let result = space.find().query(&input.q)?;
            Ok(ok(&result, "query answered".into()))
        }
        "quire_query_meta" => {
            let input: MetaInput = parse(name, args)?;
            let result = space.find().meta(&MetaQuery {
                filter: input.filter,
                sort: input.sort,
                limit: input.limit,
                offset: input.offset,
            })?;
            Ok(ok(&result, "pages matching the filter".into()))
        }
        "quire_aggregate" => {
            let input: AggregateInput = parse(name, args)?;
            let rows = space
                .find()
                .aggregate(&input.group, input.calc.as_deref().unwrap_or(""))?;
            let text = format!("{} groups", rows.len());
            Ok(ok(&serde_json::json!({ "rows": rows }), text))
        }
        "quire_backlinks" => {
            let input: PathInput = parse(name, args)?;
            let links = space.find().backlinks(&input.path)?;
            let text = format!("{} backlinks to {}", links.len(), input.path);
            Ok(ok(&serde_json::json!({ "backlinks": links }), text))
        }
        "quire_graph_analytics" => {
            let input: AnalyticsInput = parse(name, args)?;
            let analytics = space.find().analytics(input.limit.unwrap_or(20));
            Ok(ok(&analytics, "graph analytics".into()))
        }
        "quire_graph_centrality" => {
            let input: CentralityInput = parse(name, args)?;
            let (sample, limit) = (input.sample.unwrap_or(50), input.limit.unwrap_or(20));
            let centrality = space.find().centrality(sample, limit);
            let text = format!("{} most central pages", centrality.pages.len());
            Ok(ok(&centrality, text))
        }
        "quire_graph_communities" => {
            no_args(name, args)?;
            Ok(ok(&space.find().communities(), "communities".into()))
        }
        "quire_graph_path" => {
            let input: GraphPathInput = parse(name, args)?;
            let path = space
                .find()
                .path(&input.from, &input.to, input.undirected)?;
            Ok(ok(
                &path,
                format!("path from {} to {}", input.from, input.to),
            ))
        }
        "quire_graph_walk" => {
            let input: WalkInput = parse(name, args)?;
            let walk = space.find().walk(&input.path, input.neighbors)?;
            let text = format!(
                "{}: {} links out, {} backlinks, {} neighbors",
                walk.path,
                walk.outbound.len(),
                walk.backlinks.len(),
                walk.neighbors.len()
            );
            Ok(ok(&walk, text))
        }
        other => Err(no_handler(other)),
    }
}
