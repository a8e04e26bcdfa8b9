//! PageRank by power iteration over the collapsed link graph, with dangling pages' rank
//! spread evenly over all pages.

use crate::LinkGraph;

/// PageRank parameters. `PageRank::default()` is what `analytics` and `centrality` use.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PageRank {
    /// Probability of following a link rather than jumping to a random page.
    pub damping: f64,
    /// Stop once the L1 change between two iterations is below this.
    pub tolerance: f64,
    /// Stop after this many iterations even if not converged.
    pub max_iter: usize,
}

impl Default for PageRank {
    fn default() -> Self {
        PageRank {
            damping: 0.85,
            tolerance: 1e-9,
            max_iter: 100,
        }
    }
}

impl LinkGraph {
    /// PageRank of every page, aligned with [`LinkGraph::paths`], summing to 1 (empty for
    /// an empty graph).
    ///
    /// Each distinct edge counts once, whatever its multiplicity: linking a page twice does
    /// not vote twice. A page without outgoing links (dangling) hands its rank to every
    /// page evenly, so no rank leaks out. `damping` is clamped to `[0, 1]`.
    pub fn pagerank(&self, params: PageRank) -> Vec<f64> {
        let n = self.node_count();
        if n == 0 {
            return Vec::new();
        }
        let d = params.damping.clamp(0.0, 1.0);
        let nf = n as f64;
        let out_degree: Vec<u32> = (0..n as u32)
            .map(|v| self.out_slice(v).len() as u32)
            .collect();

        let mut rank = vec![1.0 / nf; n];
        let mut next = vec![0.0; n];
        // rank[u] / out_degree[u], the share u passes along each of its links.
        let mut share = vec![0.0; n];
        for _ in 0..params.max_iter {
            let mut dangling = 0.0;
            for u in 0..n {
                if out_degree[u] == 0 {
                    dangling += rank[u];
                    share[u] = 0.0;
                } else {
                    share[u] = rank[u] / f64::from(out_degree[u]);
                }
            }
            let base = (1.0 - d) / nf + d * dangling / nf;
            let mut change = 0.0;
            for v in 0..n {
                let inbound: f64 = self
                    .in_slice(v as u32)
                    .iter()
                    .map(|&u| share[u as usize])
                    .sum();
                let r = base + d * inbound;
                change += (r - rank[v]).abs();
                next[v] = r;
            }
            std::mem::swap(&mut rank, &mut next);
            if change < params.tolerance {
                break;
            }
        }
        // Floating-point drift only; the iteration itself preserves the total.
        let total: f64 = rank.iter().sum();
        if total > 0.0 {
            rank.iter_mut().for_each(|r| *r /= total);
        }
        rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn symmetric_cycle_ranks_uniformly() {
        let g = LinkGraph::new(
            ["a", "b", "c", "d"],
            [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")],
        );
        let r = g.pagerank(PageRank::default());
        assert!(r.iter().all(|&x| close(x, 0.25)), "{r:?}");
    }

    #[test]
    fn ranks_sum_to_one_with_dangling_pages() {
        let g = LinkGraph::new(["a", "b", "c", "d"], [("a", "b"), ("c", "b"), ("d", "b")]);
        let r = g.pagerank(PageRank::default());
        assert!(close(r.iter().sum(), 1.0));
        assert!(r[1] > r[0] && close(r[0], r[2]) && close(r[2], r[3]));
    }

    #[test]
    fn two_pages_one_link_matches_closed_form() {
        // a -> b, b dangling. With d = 0.85 and dangling mass spread evenly:
        // ra = 0.075 + 0.425 rb, rb = 0.075 + 0.425 rb + 0.85 ra, ra + rb = 1
        // => ra = 0.075 + 0.425 (1 - ra) => ra = 0.5 / 1.425.
        let g = LinkGraph::new(["a", "b"], [("a", "b")]);
        let r = g.pagerank(PageRank::default());
        let ra = 0.5 / 1.425;
        assert!(close(r[0], ra) && close(r[1], 1.0 - ra), "{r:?}");
    }

    #[test]
    fn star_center_outranks_leaves_and_multiplicity_does_not_vote() {
        let g = LinkGraph::new(
            ["hub", "x", "y", "z"],
            [("x", "hub"), ("x", "hub"), ("y", "hub"), ("z", "hub")],
        );
        let r = g.pagerank(PageRank::default());
        let leaves = &r[1..];
        assert!(leaves.iter().all(|&l| close(l, leaves[0])));
        assert!(r[0] > 3.0 * leaves[0]);
    }

    #[test]
    fn graph_without_links_is_uniform() {
        let g = LinkGraph::new(["a", "b", "c"], Vec::<(&str, &str)>::new());
        let r = g.pagerank(PageRank::default());
        assert!(r.iter().all(|&x| close(x, 1.0 / 3.0)));
    }
}
