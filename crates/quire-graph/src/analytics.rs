//! The "Graph analytics" resource: counts, weakly connected components, orphans and the
//! pages ranked highest by PageRank.

use petgraph::unionfind::UnionFind;

use crate::{LinkGraph, PageRank};

/// Whole-graph figures for `GET /graph/analytics`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GraphAnalytics {
    /// Pages.
    pub total_nodes: usize,
    /// Distinct directed edges (repeated links count once).
    pub total_edges: usize,
    /// Weakly connected components (link direction ignored); an isolated page is one.
    pub components: usize,
    /// Pages in the largest weakly connected component (0 for an empty graph).
    pub largest_component_size: usize,
    /// Pages no other page links to — the knowledge-base meaning of "orphan", the same as
    /// `/links/orphans` and a plan's `integrity.orphaned`. A page may be an orphan and
    /// still link out.
    pub orphans: usize,
    /// Pages with no links in either direction (a subset of `orphans`).
    pub isolated: usize,
    /// The highest-ranked pages, by PageRank descending then path.
    pub top_pages: Vec<TopPage>,
}

/// One row of `top_pages`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TopPage {
    pub path: String,
    pub pagerank: f64,
    /// Distinct pages linking here.
    pub in_degree: usize,
    /// Distinct pages linked from here.
    pub out_degree: usize,
}

impl LinkGraph {
    /// Analytics with the `limit` highest-ranked pages, ranked with `PageRank::default()`.
    pub fn analytics(&self, limit: usize) -> GraphAnalytics {
        self.analytics_with(limit, &self.pagerank(PageRank::default()))
    }

    /// Analytics over ranks the caller already holds (aligned with [`LinkGraph::paths`]),
    /// so one PageRank run can serve several questions.
    ///
    /// # Panics
    /// When `ranks` is not one value per page.
    pub fn analytics_with(&self, limit: usize, ranks: &[f64]) -> GraphAnalytics {
        let n = self.node_count();
        assert_eq!(ranks.len(), n, "one rank per page");
        let sizes = self.component_sizes();
        let mut orphans = 0;
        let mut isolated = 0;
        for v in 0..n as u32 {
            if self.in_slice(v).is_empty() {
                orphans += 1;
                if self.out_slice(v).is_empty() {
                    isolated += 1;
                }
            }
        }
        let top_pages = self
            .ranked(ranks, limit)
            .into_iter()
            .map(|v| TopPage {
                path: self.path(v).to_owned(),
                pagerank: ranks[v as usize],
                in_degree: self.in_slice(v).len(),
                out_degree: self.out_slice(v).len(),
            })
            .collect();
        GraphAnalytics {
            total_nodes: n,
            total_edges: self.edge_count(),
            components: sizes.len(),
            largest_component_size: sizes.iter().copied().max().unwrap_or(0),
            orphans,
            isolated,
            top_pages,
        }
    }

    /// Sizes of the weakly connected components, in no particular order.
    pub(crate) fn component_sizes(&self) -> Vec<usize> {
        let n = self.node_count();
        let mut sets = UnionFind::<u32>::new(n);
        for v in 0..n as u32 {
            for &w in self.out_slice(v) {
                sets.union(v, w);
            }
        }
        let mut count = vec![0usize; n];
        for root in sets.into_labeling() {
            count[root as usize] += 1;
        }
        count.retain(|&c| c > 0);
        count
    }

    /// The `limit` nodes with the highest `score`, descending, ties by path.
    pub(crate) fn ranked(&self, score: &[f64], limit: usize) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.node_count() as u32).collect();
        // Nodes are numbered in path order, so the node number breaks ties by path.
        let by_score = |a: &u32, b: &u32| {
            score[*b as usize]
                .total_cmp(&score[*a as usize])
                .then(a.cmp(b))
        };
        if limit < order.len() {
            order.select_nth_unstable_by(limit, by_score);
            order.truncate(limit);
        }
        order.sort_unstable_by(by_score);
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_ignore_link_direction() {
        // {a, b, c} via a->b<-c, {d, e} via d->e, {f} alone.
        let g = LinkGraph::new(
            ["a", "b", "c", "d", "e", "f"],
            [("a", "b"), ("c", "b"), ("d", "e")],
        );
        let a = g.analytics(10);
        assert_eq!(a.total_nodes, 6);
        assert_eq!(a.total_edges, 3);
        assert_eq!(a.components, 3);
        assert_eq!(a.largest_component_size, 3);
        // No inbound: a, c, d, f. No links at all: f.
        assert_eq!(a.orphans, 4);
        assert_eq!(a.isolated, 1);
    }

    #[test]
    fn top_pages_sort_by_rank_then_path_and_respect_limit() {
        let g = LinkGraph::new(
            ["hub", "b", "a", "c"],
            [("a", "hub"), ("b", "hub"), ("c", "hub")],
        );
        let a = g.analytics(3);
        let paths: Vec<&str> = a.top_pages.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["hub", "a", "b"]);
        assert_eq!(a.top_pages[0].in_degree, 3);
        assert_eq!(a.top_pages[0].out_degree, 0);
        assert_eq!(a.top_pages[1].out_degree, 1);
    }

    #[test]
    fn empty_graph_has_no_components() {
        let g = LinkGraph::new(Vec::<String>::new(), Vec::<(String, String)>::new());
        let a = g.analytics(5);
        assert_eq!((a.components, a.largest_component_size), (0, 0));
        assert!(a.top_pages.is_empty());
    }

    #[test]
    fn analytics_serializes_with_the_spec_field_names() {
        let g = LinkGraph::new(["a", "b"], [("a", "b")]);
        let json = serde_json::to_value(g.analytics(1)).unwrap();
        for key in [
            "total_nodes",
            "total_edges",
            "components",
            "largest_component_size",
            "orphans",
            "top_pages",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        let top = &json["top_pages"][0];
        assert_eq!(top["path"], "b");
        for key in ["pagerank", "in_degree", "out_degree"] {
            assert!(top.get(key).is_some(), "{key}");
        }
    }
}
