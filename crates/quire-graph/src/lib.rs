//! Pure analysis of the wiki-link graph: one `LinkGraph` built from page paths and resolved
//! links, and the questions the `/graph*` routes ask of it — PageRank, degrees, weakly
//! connected components, sampled Brandes betweenness, Louvain communities, shortest paths,
//! walks around a page and the node/edge view the UI draws.
//!
//! No I/O and no failure on user content: the caller (the service, reading the link index)
//! feeds page paths and `(source, target)` pairs of *resolved* links in; unknown endpoints
//! and self-links are counted and dropped, never an error. Every result is plain data with
//! serde derives, converted to the wire only at the edge.
//!
//! *Architecture Invariant*: every result is deterministic. Nodes are kept sorted by path,
//! adjacency is sorted by node, ties are broken by path, and the only randomness (betweenness
//! sampling, Louvain visiting order) comes from a caller-provided seed.
//!
//! The graph is stored as two `petgraph::csr::Csr` adjacency structures (links out and links
//! in) so the iterative kernels walk flat, sorted slices.
//!
//! ```
//! use quire_graph::{LinkDirection, LinkGraph, Neighbors};
//!
//! let graph = LinkGraph::new(
//!     ["index.md", "notes/a.md", "notes/b.md"],
//!     [("index.md", "notes/a.md"), ("notes/a.md", "notes/b.md")],
//! );
//! let analytics = graph.analytics(10);
//! assert_eq!((analytics.total_edges, analytics.components), (2, 1));
//! assert_eq!(analytics.top_pages[0].path, "notes/b.md");
//! assert_eq!(
//!     graph.shortest_path("index.md", "notes/b.md", LinkDirection::Forward),
//!     Some(vec!["index.md".into(), "notes/a.md".into(), "notes/b.md".into()]),
//! );
//! let walk = graph.walk("notes/a.md", Neighbors::SameDirectory).unwrap();
//! assert_eq!(walk.neighbors, ["notes/b.md"]);
//! ```

mod analytics;
mod centrality;
mod community;
mod graph;
mod navigate;
mod rank;
mod rng;
mod view;

pub use analytics::{GraphAnalytics, TopPage};
pub use centrality::CentralPage;
pub use community::Communities;
pub use graph::{LinkGraph, Skipped};
pub use navigate::{LinkDirection, Neighbors, Walk};
pub use rank::PageRank;
pub use view::{group_of, GraphEdge, GraphNode, GraphView};
