//! Finding things in a space: full-text search (the SQLite index, or the grep tier), DQL
//! queries and aggregates over the catalog, backlinks, and the link graph.

use std::sync::Arc;
use std::time::Instant;

use quire_api::{
    Backlink, CentralPage, Centrality, Communities, Graph, GraphAnalytics, GraphEdge, GraphNode,
    GraphPath, GraphWalk, MetaResults, PageMeta, QueryResult, Reindexed, SearchHit, SearchResults,
    TopPage,
};
use quire_graph::{LinkDirection, LinkGraph, Neighbors};
use quire_index::search::grep::GrepPage;
use quire_index::search::Query;
use quire_index::{SearchError, SearchRequest};
use quire_query::dql::{self, Calc, ExecLimits, GroupSpan, PageData, QueryError, ViewShape};
use quire_query::EvalContext;
use quire_vault::{PagePath, Resolution, Step, Vault};

use crate::core::SpaceCore;
use crate::error::{Error, Result};
use crate::settings::Engine;

use crate::indexing::{read_catalog, Indexer, QueryCatalog};

/// A full-text search as callers ask it.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub q: String,
    /// At most this many results (default 20, at most 200).
    pub limit: Option<usize>,
    pub offset: Option<usize>,
    /// Only pages under this folder.
    pub path: Option<String>,
    /// Only pages with this tag (or one nested below it).
    pub tag: Option<String>,
    /// `hybrid` (the default with vector search on), `bm25`; `None` for the default.
    pub mode: Option<String>,
}

/// A frontmatter query as `/meta` takes it.
#[derive(Debug, Clone, Default)]
pub struct MetaQuery {
    /// An expression over frontmatter (as in a DQL `WHERE`): `status = "open" and priority > 2`.
    pub filter: Option<String>,
    /// A field to sort by; `-field` sorts descending. Ties (and no sort) go by path.
    pub sort: Option<String>,
    /// `asc` or `desc` (KiwiFS's clients send the order apart from the field).
    pub order: Option<String>,
    /// At most this many pages (default 50, at most 1,000).
    pub limit: Option<usize>,
    pub offset: Option<usize>,
}

/// KiwiFS's forms of `/meta`: `where=$.field=value` and `sort=$.field`, turned into the
/// expression language's `fm["field"] = value` and `fm["field"]`.
mod kiwi {
    /// `$.a.b` → `fm["a"]["b"]`; anything else as it is.
    pub(super) fn field(text: &str) -> String {
        let text = text.trim();
        match text.strip_prefix("$.") {
            Some(path) => path
                .split('.')
                .map(|key| format!("[{}]", quote(key)))
                .fold(String::from("fm"), |acc, k| acc + &k),
            None => text.to_string(),
        }
    }

    /// `$.field<op>value` (op `=`, `!=`, `>=`, `<=`, `>`, `<`) as an expression; anything that
    /// does not start with `$.` is already one.
    pub(super) fn filter(text: &str) -> Result<String, String> {
        let text = text.trim();
        let Some(rest) = text.strip_prefix("$.") else {
            return Ok(text.to_string());
        };
        let at = rest.find(['=', '!', '<', '>']).ok_or_else(|| {
            format!("`where` {text:?} names a field but no comparison (`$.field=value`)")
        })?;
        let (path, tail) = rest.split_at(at);
        let op = ["!=", ">=", "<=", "=", ">", "<"]
            .into_iter()
            .find(|op| tail.starts_with(op))
            .ok_or_else(|| format!("`where` {text:?}: unknown comparison"))?;
        let value = tail[op.len()..].trim();
        if path.trim().is_empty() {
            return Err(format!("`where` {text:?} names no field"));
        }
        Ok(format!(
            "{} {op} {}",
            field(&format!("$.{path}")),
            literal(value)
        ))
    }

    /// A value as the expression language reads it: numbers and booleans as they are, the
    /// rest (quotes taken off) as a string.
    fn literal(value: &str) -> String {
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')));
        if let Some(text) = unquoted {
            return quote(text);
        }
        if value == "true" || value == "false" || value.parse::<f64>().is_ok() {
            return value.to_string();
        }
        quote(value)
    }

    fn quote(text: &str) -> String {
        serde_json::to_string(text).unwrap_or_default()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn kiwi_forms_become_expressions() {
            assert_eq!(filter("$.status=open").unwrap(), r#"fm["status"] = "open""#);
            assert_eq!(filter("$.priority>=2").unwrap(), r#"fm["priority"] >= 2"#);
            assert_eq!(
                filter("$.a.b!=\"x y\"").unwrap(),
                r#"fm["a"]["b"] != "x y""#
            );
            assert_eq!(filter("$.done=true").unwrap(), r#"fm["done"] = true"#);
            assert_eq!(filter("status = \"open\"").unwrap(), "status = \"open\"");
            assert!(filter("$.status").is_err());
            assert_eq!(field("$.priority"), r#"fm["priority"]"#);
            assert_eq!(field("priority"), "priority");
        }
    }
}

/// Finding things: search, queries, backlinks and the graph.
pub struct Find<'a>(pub(crate) &'a SpaceCore);

impl Find<'_> {
    pub(crate) fn indexer(&self) -> Result<&Indexer> {
        let indexer = self.0.indexer.as_ref().ok_or_else(|| {
            Error::unavailable("the search index is not kept by this process (read-only)")
        })?;
        if !indexer.is_ready() {
            let done = indexer
                .progress
                .done
                .load(std::sync::atomic::Ordering::Relaxed);
            let total = indexer
                .progress
                .total
                .load(std::sync::atomic::Ordering::Relaxed);
            return Err(Error::unavailable(format!(
                "the index is being built ({done} of {total} pages read); try again shortly"
            )));
        }
        // Read-your-writes: what was written before this read is in the index.
        indexer.catch_up();
        Ok(indexer)
    }

    /// Full-text search: words must all match (when no page has every word of a query of
    /// plain words, the pages with any of them: `matching: any`); `AND`, `OR`, `NOT`, `"phrases"`, `prefix*`,
    /// parentheses, and `tag:`, `path:`, `file:`. Words are found in titles, headings, text,
    /// tags, aliases, property values and folder and file names. A malformed query is a bad
    /// request naming the position of the fault.
    pub fn search(&self, query: &SearchQuery) -> Result<SearchResults> {
        self.run_search(query, false, true)
    }

    /// [`Find::search`] left out of the search log: for searches no person asked, such as
    /// the questions of `/eval`, which would otherwise show up as top or failed queries.
    pub(crate) fn search_unlogged(&self, query: &SearchQuery) -> Result<SearchResults> {
        self.run_search(query, false, false)
    }

    /// Like [`Find::search`], with pages marked `status: verified` or `source-of-truth: true`
    /// ranked first.
    pub fn search_verified(&self, query: &SearchQuery) -> Result<SearchResults> {
        self.run_search(query, true, true)
    }

    fn run_search(
        &self,
        query: &SearchQuery,
        trust_boost: bool,
        logged: bool,
    ) -> Result<SearchResults> {
        let request = SearchRequest {
            query: query.q.clone(),
            limit: query.limit.unwrap_or(20).clamp(1, 200),
            offset: query.offset.unwrap_or(0),
            path_prefix: query.path.clone().filter(|p| !p.trim().is_empty()),
            tag: query.tag.clone().filter(|t| !t.trim().is_empty()),
            trust_boost,
        };
        if request.query.trim().is_empty() {
            return Err(Error::bad_request("missing query `q`"));
        }
        let engine = self.engine();
        let query_parsed = Query::parse(&request.query)
            .map_err(|e| Error::bad_request(format!("invalid search query: {e}")))?;
        // The trust tier ranks on BM25 alone.
        let hybrid = match trust_boost {
            true => None,
            false => self.hybrid_for(query, &request)?,
        };
        // Hybrid ranking fuses the first `window` pages of each ranking, then pages.
        let mut bm25_request = request.clone();
        if hybrid.is_some() {
            bm25_request.offset = 0;
            bm25_request.limit = hybrid_window(&request);
        }
        let searched = |query: &Query| {
            let found = match engine {
                Engine::Sqlite => self.indexer()?.index.search_parsed(query, &bm25_request),
                Engine::Grep => Ok(self.grep(query, &bm25_request)),
            };
            found.map_err(|e| match e {
                SearchError::Syntax(e) => Error::bad_request(format!("invalid search query: {e}")),
                SearchError::Index(e) => Error::internal(e),
            })
        };
        let bm25 = || -> Result<(quire_index::SearchResults, &'static str)> {
            let found = searched(&query_parsed)?;
            // Words typed as a question: no page has them all, the pages with any of them.
            if found.total == 0 {
                if let Some(any) = Query::any_word(&request.query) {
                    return Ok((searched(&any)?, "any"));
                }
            }
            Ok((found, "all"))
        };
        // A hybrid search asks the vectors on a thread of its own while BM25 runs (the two
        // read different databases): its time is the slower of the two, not their sum.
        let window = bm25_request.limit;
        let folder = request.path_prefix.as_deref();
        let text = request.query.as_str();
        let (bm25_found, near) = std::thread::scope(|scope| {
            let near = hybrid.map(|vectors| {
                scope.spawn(move || self.nearest_pages(vectors, text, window, folder))
            });
            let found = bm25();
            let near = near.map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|_| Err(Error::internal("the vector search thread failed")))
            });
            (found, near)
        });
        let (found, matching) = bm25_found?;
        // Logged for search analytics (first pages only: paging is one search); failing to
        // log never fails the search.
        if let (Some(indexer), 0, true) = (&self.0.indexer, request.offset, logged) {
            indexer.log_search(&request.query, found.total as u64);
        }
        let mut mode = match engine {
            Engine::Sqlite => "bm25",
            Engine::Grep => "grep",
        };
        let hits: Vec<SearchHit> = found
            .hits
            .into_iter()
            .map(|h| SearchHit {
                path: h.path,
                title: h.title,
                score: h.score,
                snippet: h.snippet,
            })
            .collect();
        let (total, results) = match near {
            Some(near) => {
                match near {
                    Ok(near) => {
                        mode = "hybrid";
                        let fused = fuse(hits, near, &self.0.links.vault());
                        let extra = fused.iter().filter(|(_, only)| *only).count();
                        let page = fused
                            .into_iter()
                            .map(|(hit, _)| hit)
                            .skip(request.offset)
                            .take(request.limit)
                            .collect();
                        (found.total + extra, page)
                    }
                    // An embedder that fails never fails a search: BM25 alone, and `mode`
                    // says so.
                    Err(e) => {
                        tracing::debug!("hybrid search fell back to BM25: {e}");
                        let page = hits
                            .into_iter()
                            .skip(request.offset)
                            .take(request.limit)
                            .collect();
                        (found.total, page)
                    }
                }
            }
            None => (found.total, hits),
        };
        Ok(SearchResults {
            query: request.query,
            total,
            limit: request.limit,
            offset: request.offset,
            engine: match engine {
                Engine::Sqlite => "sqlite",
                Engine::Grep => "grep",
            }
            .into(),
            matching: matching.into(),
            mode: mode.into(),
            results,
        })
    }

    /// The vector search a search fuses with BM25: asked for (`mode=hybrid`) or the default
    /// with vector search on, for queries of plain words (operators, fields and the tag
    /// filter mean what they say, which vectors cannot honour: BM25 alone answers them).
    fn hybrid_for(
        &self,
        query: &SearchQuery,
        request: &SearchRequest,
    ) -> Result<Option<&crate::vectors::Vectors>> {
        let asked = match query.mode.as_deref().map(str::trim) {
            None | Some("") => false,
            Some(m) if m.eq_ignore_ascii_case("hybrid") => true,
            Some(m) if m.eq_ignore_ascii_case("bm25") => return Ok(None),
            Some(m) => {
                return Err(Error::bad_request(format!(
                    "`mode` is `hybrid` or `bm25`, not {m:?}"
                )))
            }
        };
        let vectors = match (&self.0.vectors, asked) {
            (Some(vectors), _) => vectors,
            (None, false) => return Ok(None),
            (None, true) => return self.vectors().map(|_| None),
        };
        if request.tag.is_some() || !plain_words(&request.query) {
            return Ok(None);
        }
        Ok(Some(vectors))
    }

    /// The configured engine; a process that keeps no index (a command reading a root while
    /// no server runs) answers with the grep tier, and says so in `engine`.
    fn engine(&self) -> Engine {
        match (self.0.find.engine, &self.0.indexer) {
            (Engine::Sqlite, None) => Engine::Grep,
            (engine, _) => engine,
        }
    }

    /// The grep tier: every page read and matched now.
    fn grep(&self, query: &Query, request: &SearchRequest) -> quire_index::SearchResults {
        let pages: Vec<(PagePath, String)> = {
            let vault = self.0.links.vault();
            vault
                .pages()
                .filter(|(p, _)| p.is_page())
                .map(|(p, s)| (p.clone(), s.title.clone()))
                .collect()
        };
        let tag = request
            .tag
            .as_deref()
            .map(|t| t.trim().trim_start_matches('#').to_lowercase());
        // Tags need a parse of the page: only for a tag filter or a `tag:` term.
        let tagged = tag.is_some() || query.uses(quire_index::search::Field::Tag);
        let texts = pages.into_iter().filter_map(|(path, title)| {
            let bytes = self.0.root.read(&path).ok()?;
            let text = String::from_utf8(bytes).ok()?;
            let mut page = GrepPage {
                path: path.to_string(),
                title,
                body_start: quire_syntax::body_start(&text),
                text,
                tags: Vec::new(),
            };
            if tagged {
                page.tags = quire_syntax::parse(&page.text)
                    .tags
                    .into_iter()
                    .map(|t| t.name)
                    .collect();
            }
            if let Some(tag) = &tag {
                let nested = format!("{tag}/");
                let has = page.tags.iter().any(|t| {
                    let t = t.to_lowercase();
                    t == *tag || t.starts_with(&nested)
                });
                if !has {
                    return None;
                }
            }
            Some(page)
        });
        quire_index::search::grep::search(query, texts, request)
    }

    /// Every page as DQL sees it: the index thread's catalog, or, in a process that keeps no
    /// index, the pages read now.
    pub(crate) fn pages(&self) -> Result<Arc<Vec<PageData>>> {
        let catalog = match &self.0.indexer {
            Some(_) => None,
            None => Some(read_catalog(&self.0.root, &self.0.links)),
        };
        let catalog = match &catalog {
            Some(catalog) => catalog,
            None => &self.indexer()?.catalog,
        };
        let vault = self.0.links.vault();
        catalog
            .snapshot(&vault)
            .ok_or_else(|| Error::unavailable("the catalog is being built; try again shortly"))
    }

    /// Runs a DQL query (`TABLE`, `LIST`, `COUNT`, `DISTINCT` with `FROM`, `WHERE`, `SORT`,
    /// `GROUP BY`, `FLATTEN`, `LIMIT`) within the configured limits.
    pub fn query(&self, dql: &str) -> Result<QueryResult> {
        if dql.trim().is_empty() {
            return Err(Error::bad_request("missing query `q`"));
        }
        let parsed = dql::parse_query(dql).map_err(query_error)?;
        Ok(self.query_shaped(&parsed, &ViewShape::default())?.0)
    }

    /// Runs a parsed query with a saved view's filters, sort and grouping; also the groups.
    pub(crate) fn query_shaped(
        &self,
        parsed: &dql::Query,
        shape: &ViewShape,
    ) -> Result<(QueryResult, Vec<GroupSpan>)> {
        let pages = self.pages()?;
        let vault = self.0.links.vault();
        let catalog = QueryCatalog {
            pages: &pages,
            vault: &vault,
            computed: &self.0.computed,
        };
        let limits = ExecLimits {
            max_scan_rows: self.0.find.limits.max_scan_rows,
            timeout: self.0.find.limits.timeout,
        };
        let now = chrono::Utc::now().fixed_offset();
        let out = dql::execute_view(parsed, shape, &catalog, &limits, &EvalContext::at(now))
            .map_err(query_error)?;
        let value = serde_json::to_value(&out.result).map_err(Error::internal)?;
        let result = serde_json::from_value(value).map_err(Error::internal)?;
        Ok((result, out.groups))
    }

    /// Groups pages by a frontmatter field and computes `calc` (`count`, `avg:field`,
    /// `sum:field`, `min:field`, `max:field`, comma-separated) per group.
    pub fn aggregate(
        &self,
        group: &str,
        calc: &str,
    ) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
        if group.trim().is_empty() {
            return Err(Error::bad_request("missing `group` (a frontmatter field)"));
        }
        let calc = if calc.trim().is_empty() {
            "count"
        } else {
            calc
        };
        let calcs = Calc::parse_list(calc).map_err(|e| Error::bad_request(e.to_string()))?;
        let pages = self.pages()?;
        let vault = self.0.links.vault();
        let catalog = QueryCatalog {
            pages: &pages,
            vault: &vault,
            computed: &self.0.computed,
        };
        dql::aggregate(&catalog, group, &calcs).map_err(|e| Error::bad_request(e.to_string()))
    }

    /// Pages whose frontmatter matches `filter`, sorted by a field, with their frontmatter.
    pub fn meta(&self, query: &MetaQuery) -> Result<MetaResults> {
        let check = |what: &str, text: &str| {
            quire_query::parse(text).map(|_| ()).map_err(|e| {
                Error::bad_request(format!("invalid `{what}` at {}: {}", e.position, e.message))
            })
        };
        let mut dql = String::from("TABLE WITHOUT ID file.path, title, fm");
        if let Some(filter) = query.filter.as_deref().filter(|f| !f.trim().is_empty()) {
            let filter = kiwi::filter(filter).map_err(Error::bad_request)?;
            check("where", &filter)?;
            dql.push_str(&format!(" WHERE ({filter})"));
        }
        let descending = match query.order.as_deref().map(str::trim) {
            None | Some("") => false,
            Some(o) if o.eq_ignore_ascii_case("asc") => false,
            Some(o) if o.eq_ignore_ascii_case("desc") => true,
            Some(o) => {
                return Err(Error::bad_request(format!(
                    "`order` is `asc` or `desc`, not {o:?}"
                )))
            }
        };
        match query
            .sort
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            Some(sort) => {
                let (field, order) = match sort.strip_prefix('-') {
                    Some(field) => (kiwi::field(field), "DESC"),
                    None if descending => (kiwi::field(sort), "DESC"),
                    None => (kiwi::field(sort), "ASC"),
                };
                let field = field.as_str();
                check("sort", field)?;
                dql.push_str(&format!(" SORT ({field}) {order}, file.path ASC"));
            }
            None => dql.push_str(" SORT file.path ASC"),
        }
        let result = self.query(&dql)?;
        let total = result.rows.len();
        let offset = query.offset.unwrap_or(0);
        let limit = query.limit.unwrap_or(50).clamp(1, 1000);
        let pages = result
            .rows
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|row| {
                let mut cells = row.into_iter();
                let text = |v: Option<serde_json::Value>| match v {
                    Some(serde_json::Value::String(s)) => s,
                    _ => String::new(),
                };
                PageMeta {
                    path: text(cells.next()),
                    title: text(cells.next()),
                    frontmatter: cells.next().unwrap_or(serde_json::Value::Null),
                }
            })
            .collect();
        Ok(MetaResults { total, pages })
    }

    /// Pages linking to `path`, each link with the line that holds it.
    pub fn backlinks(&self, path: &str) -> Result<Vec<Backlink>> {
        let target = PagePath::new(path).map_err(|e| Error::bad_request(e.to_string()))?;
        let links = {
            let vault = self.0.links.vault();
            if !vault.contains(&target) {
                return Err(Error::not_found(format!("no such page: {target}")));
            }
            vault
                .backlinks(&target)
                .into_iter()
                .map(|(source, link)| {
                    let title = vault.title(&source).unwrap_or(source.stem()).to_string();
                    (source, title, link)
                })
                .collect::<Vec<_>>()
        };
        let mut out = Vec::with_capacity(links.len());
        let mut text_of: Option<(PagePath, String)> = None;
        for (source, title, link) in links {
            if text_of.as_ref().map(|(p, _)| p) != Some(&source) {
                let text = self
                    .0
                    .root
                    .read(&source)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .unwrap_or_default();
                text_of = Some((source.clone(), text));
            }
            let text = text_of.as_ref().map_or("", |(_, t)| t.as_str());
            out.push(Backlink {
                path: source.to_string(),
                title,
                context: line_around(text, link.span.start).trim().to_string(),
                line: link.line,
            });
        }
        Ok(out)
    }

    /// The link graph as of now (cached until the files change).
    fn link_graph(&self) -> Arc<LinkGraph> {
        let generation = self.0.links.generation();
        let mut cached = self
            .0
            .graph
            .cached
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((at, graph)) = cached.as_ref() {
            if *at == generation {
                return graph.clone();
            }
        }
        let graph = Arc::new(build_graph(&self.0.links.vault()));
        *cached = Some((generation, graph.clone()));
        graph
    }

    /// Pages and the resolved links between them.
    pub fn graph(&self) -> Graph {
        let graph = self.link_graph();
        let vault = self.0.links.vault();
        let view = graph.view(|path| {
            PagePath::new(path)
                .ok()
                .and_then(|p| vault.title(&p).map(str::to_string))
        });
        Graph {
            nodes: view
                .nodes
                .into_iter()
                .map(|n| GraphNode {
                    title: n.title.unwrap_or_default(),
                    id: n.id,
                    group: n.group,
                })
                .collect(),
            edges: view
                .edges
                .into_iter()
                .map(|e| GraphEdge {
                    source: e.source,
                    target: e.target,
                })
                .collect(),
        }
    }

    /// Counts, components and the `limit` pages of highest PageRank.
    pub fn analytics(&self, limit: usize) -> GraphAnalytics {
        let a = self.link_graph().analytics(limit.clamp(1, 1000));
        GraphAnalytics {
            total_nodes: a.total_nodes,
            total_edges: a.total_edges,
            components: a.components,
            largest_component_size: a.largest_component_size,
            orphans: a.orphans,
            top_pages: a
                .top_pages
                .into_iter()
                .map(|t| TopPage {
                    path: t.path,
                    pagerank: t.pagerank,
                    in_degree: t.in_degree,
                    out_degree: t.out_degree,
                })
                .collect(),
        }
    }

    /// Betweenness estimated from `sample` source pages, with PageRank, highest first.
    pub fn centrality(&self, sample: usize, limit: usize) -> Centrality {
        let pages = self
            .link_graph()
            .centrality(sample.clamp(1, 10_000), 42, limit.clamp(1, 1000));
        Centrality {
            pages: pages
                .into_iter()
                .map(|c| CentralPage {
                    path: c.path,
                    pagerank: c.pagerank,
                    betweenness: c.betweenness,
                })
                .collect(),
        }
    }

    /// Louvain communities of the undirected link graph, largest first.
    pub fn communities(&self) -> Communities {
        let c = self.link_graph().communities(42);
        Communities {
            communities: c.communities,
            modularity: c.modularity,
        }
    }

    /// The shortest chain of links from `from` to `to` (following links forward, or either
    /// way with `undirected`); not found when there is none.
    pub fn path(&self, from: &str, to: &str, undirected: bool) -> Result<GraphPath> {
        let graph = self.link_graph();
        for p in [from, to] {
            if !graph.contains(p) {
                return Err(Error::not_found(format!("no such page: {p}")));
            }
        }
        let direction = if undirected {
            LinkDirection::Either
        } else {
            LinkDirection::Forward
        };
        graph
            .shortest_path(from, to, direction)
            .map(|path| GraphPath { path })
            .ok_or_else(|| Error::not_found(format!("no chain of links leads from {from} to {to}")))
    }

    /// A page's outbound links, backlinks and (with `neighbors`) the other pages of its
    /// folder.
    pub fn walk(&self, path: &str, neighbors: bool) -> Result<GraphWalk> {
        let mode = if neighbors {
            Neighbors::SameDirectory
        } else {
            Neighbors::Omit
        };
        let walk = self
            .link_graph()
            .walk(path, mode)
            .ok_or_else(|| Error::not_found(format!("no such page: {path}")))?;
        Ok(GraphWalk {
            path: walk.path,
            outbound: walk.outbound,
            backlinks: walk.backlinks,
            neighbors: walk.neighbors,
        })
    }

    /// Rebuilds the search index and the catalog from the files.
    pub fn reindex(&self) -> Result<Reindexed> {
        let indexer = self.0.indexer.as_ref().ok_or_else(|| {
            Error::unavailable("the search index is not kept by this process (read-only)")
        })?;
        let started = Instant::now();
        let pages = indexer.rebuild()?;
        Ok(Reindexed {
            pages,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// Every row the index derived from the pages, as text (see `quire_index::Index::contents`),
    /// after the changes so far are indexed: for checks that it equals a rebuild.
    pub fn index_contents(&self) -> Result<String> {
        self.flush();
        Ok(self.indexer()?.index.contents()?)
    }

    /// Pages read so far of the index pass under way, and of how many (for progress bars).
    pub fn progress(&self) -> Option<(usize, usize)> {
        let p = &self.0.indexer.as_ref()?.progress;
        Some((
            p.done.load(std::sync::atomic::Ordering::Relaxed),
            p.total.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }

    /// Waits until every change so far is in the index (tests, and shutdown).
    pub fn flush(&self) {
        if let Some(indexer) = &self.0.indexer {
            indexer.flush();
        }
    }
}

/// Pages of each ranking a hybrid search fuses: enough for the page asked, at least 50.
fn hybrid_window(request: &SearchRequest) -> usize {
    (request.offset + request.limit).clamp(50, 200)
}

/// Whether a query is only plain words (no `AND`/`OR`/`NOT`, `-word`, `field:`, `"phrase"`,
/// `prefix*`, parentheses): what vectors can rank. The others mean exactly what they say.
fn plain_words(query: &str) -> bool {
    query.split_whitespace().all(|word| {
        !matches!(word, "AND" | "OR" | "NOT")
            && !word.starts_with('-')
            && !word.contains([':', '"', '*', '(', ')'])
    })
}

/// Reciprocal rank fusion of the BM25 hits and the pages vectors found (those at least
/// [`crate::vectors::HYBRID_FLOOR`] similar to the query): each page scored by the sum over
/// the rankings it is in of 1 / (k + rank), best first; each with whether only vectors found
/// it (its snippet is then its nearest chunk).
fn fuse(
    bm25: Vec<SearchHit>,
    near: Vec<crate::vectors::Near>,
    vault: &quire_vault::Vault,
) -> Vec<(SearchHit, bool)> {
    use crate::vectors::{HYBRID_FLOOR, RRF_K};
    // (hit, its BM25 rank if BM25 found it)
    let mut fused: Vec<(SearchHit, Option<usize>)> = Vec::with_capacity(bm25.len() + near.len());
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (rank, mut hit) in bm25.into_iter().enumerate() {
        hit.score = 1.0 / (RRF_K + rank as f64 + 1.0);
        at.insert(hit.path.clone(), fused.len());
        fused.push((hit, Some(rank)));
    }
    let near = near.into_iter().filter(|n| n.similarity >= HYBRID_FLOOR);
    for (rank, n) in near.enumerate() {
        let add = 1.0 / (RRF_K + rank as f64 + 1.0);
        match at.get(&n.path) {
            Some(&i) => fused[i].0.score += add,
            None => {
                at.insert(n.path.clone(), fused.len());
                fused.push((
                    SearchHit {
                        title: crate::vectors::title_of(vault, &n.path),
                        score: add,
                        snippet: crate::vectors::snippet(&n.text),
                        path: n.path,
                    },
                    None,
                ));
            }
        }
    }
    // Ties go to the pages that hold the words (a page written a moment ago and not embedded
    // yet keeps its place), then by BM25 rank, then by path.
    fused.sort_by(|a, b| {
        b.0.score
            .total_cmp(&a.0.score)
            .then_with(|| match (a.1, b.1) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| a.0.path.cmp(&b.0.path))
    });
    fused
        .into_iter()
        .map(|(hit, rank)| (hit, rank.is_none()))
        .collect()
}

fn query_error(e: QueryError) -> Error {
    match e {
        QueryError::Syntax { position, message } => {
            Error::bad_request(format!("invalid query at {position}: {message}"))
        }
        QueryError::Eval { position, message } => {
            Error::bad_request(format!("query failed at {position}: {message}"))
        }
        QueryError::TooManyRows { limit } => Error::unprocessable(format!(
            "the query scans more than {limit} rows ([dataview] max_scan_rows); narrow it with FROM"
        )),
        QueryError::Timeout { ms } => Error::unavailable(format!(
            "the query ran longer than {ms} ms ([dataview] query_timeout)"
        )),
    }
}

/// The graph of pages (not other files) and their resolved links.
fn build_graph(vault: &Vault) -> LinkGraph {
    let nodes: Vec<String> = vault
        .files()
        .filter(|p| p.is_page())
        .map(|p| p.to_string())
        .collect();
    let edges: Vec<(String, String)> = vault
        .resolved_links()
        .filter_map(|(source, _, resolution)| match resolution {
            Resolution::Resolved { path, step, .. } if step != Step::SamePage => {
                Some((source.to_string(), path.to_string()))
            }
            _ => None,
        })
        .collect();
    LinkGraph::new(nodes, edges)
}

/// The line of `text` holding byte `at`.
fn line_around(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    &text[start..end]
}
