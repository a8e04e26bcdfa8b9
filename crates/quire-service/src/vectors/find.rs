//! What vector search answers: `/search/semantic`, the hybrid ranking of `/search`,
//! `/suggestions` and `/embeddings`.

use std::collections::{BTreeSet, HashMap};

use quire_api::{EmbeddedChunk, Embeddings, SearchHit, SemanticResults, Suggestion, Suggestions};
use quire_index::Neighbor;
use quire_vault::{PagePath, Resolution, Step};

use super::Vectors;
use crate::error::{Error, Result};
use crate::find::Find;

/// What `/search/semantic` and friends answer when vector search is off.
pub const VECTOR_OFF: &str =
    "vector search off: enable it with [search.vector] enabled = true in .quire/config.toml";

/// The constant of reciprocal rank fusion: a page's fused score is the sum over the two
/// rankings of 1 / (K + its rank), ranks counted from 1. 60 is the value of the method's
/// paper; it keeps one ranking's top hit from drowning the other's.
pub(crate) const RRF_K: f64 = 60.0;

/// Pages vectors find join a hybrid ranking only from this cosine similarity up: a k-NN
/// search always answers its k nearest pages, however far, and a search for a word one page
/// holds should not list every other page after it. With the local model unrelated texts
/// score below 0.3 and texts on one subject above it.
pub(crate) const HYBRID_FLOOR: f32 = 0.3;

/// Chunks asked of the store per page wanted: a page often has several chunks near a query.
const CHUNKS_PER_PAGE: usize = 4;

/// Characters of a chunk shown as a snippet.
const SNIPPET_CHARS: usize = 300;

/// A page found by vectors: its best chunk's similarity and text.
pub(crate) struct Near {
    pub(crate) path: String,
    pub(crate) similarity: f32,
    pub(crate) text: String,
}

impl<'a> Find<'a> {
    /// The vector search of this space, or 503.
    pub(crate) fn vectors(&self) -> Result<&'a Vectors> {
        let core = self.0;
        match &core.vectors {
            Some(vectors) => Ok(vectors),
            None if core.find.vectors.is_some() => Err(Error::unavailable(
                "vector search is kept by the process writing this space",
            )),
            None => Err(Error::unavailable(VECTOR_OFF)),
        }
    }
}

impl Find<'_> {
    /// Pages nearest in meaning to `query`, best first: the query is embedded, the store's
    /// nearest chunks are grouped by page (each page once, scored by its nearest chunk).
    pub fn semantic(&self, query: &str, limit: Option<usize>) -> Result<SemanticResults> {
        let vectors = self.vectors()?;
        if query.trim().is_empty() {
            return Err(Error::bad_request("missing query `q`"));
        }
        let limit = limit.unwrap_or(10).clamp(1, 100);
        let near = self.nearest_pages(vectors, query, limit, None)?;
        let vault = self.0.links.vault();
        Ok(SemanticResults {
            query: query.to_string(),
            results: near
                .into_iter()
                .map(|n| SearchHit {
                    title: title_of(&vault, &n.path),
                    score: f64::from(n.similarity),
                    snippet: snippet(&n.text),
                    path: n.path,
                })
                .collect(),
        })
    }

    /// The `limit` pages nearest `query` that exist now (under `folder` when given).
    pub(crate) fn nearest_pages(
        &self,
        vectors: &Vectors,
        query: &str,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<Near>> {
        let vector = vectors.embed_query(query)?;
        let neighbors = vectors
            .store()
            .nearest(&vector, limit * CHUNKS_PER_PAGE + 10)?;
        let vault = self.0.links.vault();
        let exists = |path: &str| PagePath::new(path).is_ok_and(|p| vault.contains(&p));
        let inside = |path: &str| folder.is_none_or(|f| in_folder(path, f));
        Ok(best_per_page(neighbors, |p| exists(p) && inside(p), limit))
    }

    /// Pages similar to `path` that it does not link to yet, most similar first, each with
    /// the chunk of it that came nearest one of `path`'s chunks; pages less similar than
    /// [`HYBRID_FLOOR`] share no subject with it and are left out.
    pub fn suggestions(&self, path: &str, limit: Option<usize>) -> Result<Suggestions> {
        let vectors = self.vectors()?;
        let page = PagePath::new(path).map_err(|e| Error::bad_request(e.to_string()))?;
        let limit = limit.unwrap_or(10).clamp(1, 50);
        // The pages it links to: its own links resolved, not every link of the vault. The
        // link model is not held while the store is searched (writers wait for it).
        let linked: BTreeSet<String> = {
            let vault = self.0.links.vault();
            let Some(summary) = vault.page(&page) else {
                return Err(Error::not_found(format!("no such page: {page}")));
            };
            summary
                .links
                .iter()
                .filter_map(|link| match vault.resolve(&page, link) {
                    Resolution::Resolved { path, step, .. } if step != Step::SamePage => {
                        Some(path.to_string())
                    }
                    _ => None,
                })
                .collect()
        };
        let own = vectors.store().chunks_of(path)?;
        let mut best: HashMap<String, Near> = HashMap::new();
        for chunk in &own {
            let neighbors = vectors
                .store()
                .nearest(&chunk.vector, limit * CHUNKS_PER_PAGE + own.len() + 10)?;
            for n in neighbors {
                let unrelated = n.similarity < HYBRID_FLOOR;
                if unrelated || n.path == path || linked.contains(&n.path) {
                    continue;
                }
                let better = best
                    .get(&n.path)
                    .is_none_or(|b| n.similarity > b.similarity);
                if better {
                    best.insert(
                        n.path.clone(),
                        Near {
                            path: n.path,
                            similarity: n.similarity,
                            text: n.text,
                        },
                    );
                }
            }
        }
        let vault = self.0.links.vault();
        let exists = |path: &str| PagePath::new(path).is_ok_and(|p| vault.contains(&p));
        let mut found: Vec<Near> = best.into_values().filter(|n| exists(&n.path)).collect();
        found.sort_by(|a, b| {
            b.similarity
                .total_cmp(&a.similarity)
                .then_with(|| a.path.cmp(&b.path))
        });
        found.truncate(limit);
        Ok(Suggestions {
            path: path.to_string(),
            suggestions: found
                .into_iter()
                .map(|n| Suggestion {
                    title: title_of(&vault, &n.path),
                    similarity: f64::from(n.similarity),
                    snippet: plain(&n.text),
                    target: n.path,
                })
                .collect(),
        })
    }

    /// A page's chunks and their vectors as stored.
    pub fn embeddings(&self, path: &str) -> Result<Embeddings> {
        let vectors = self.vectors()?;
        let page = PagePath::new(path).map_err(|e| Error::bad_request(e.to_string()))?;
        if !self.0.links.vault().contains(&page) {
            return Err(Error::not_found(format!("no such page: {page}")));
        }
        let store = vectors.store();
        let chunks = store.chunks_of(path)?;
        let stored = store.page_etag(path)?;
        let now = self
            .0
            .root
            .read(&page)
            .ok()
            .map(|bytes| quire_store::etag(&bytes));
        Ok(Embeddings {
            path: path.to_string(),
            model: vectors.embedder().model().to_string(),
            dimensions: vectors.dimensions(),
            current: stored.is_some() && stored == now,
            chunks: chunks
                .into_iter()
                .map(|c| EmbeddedChunk {
                    chunk_idx: c.idx,
                    text: c.text,
                    vector: c.vector,
                })
                .collect(),
        })
    }

    /// Waits until every change so far is indexed and embedded (tests, benchmarks); false
    /// when `timeout` passed first. Without vector search, only the index is waited for.
    pub fn settle_vectors(&self, timeout: std::time::Duration) -> bool {
        self.flush();
        match &self.0.vectors {
            Some(vectors) => vectors.settle(timeout),
            None => true,
        }
    }
}

/// Each page once, with its nearest chunk, in the order of the chunks, at most `limit`.
fn best_per_page(neighbors: Vec<Neighbor>, keep: impl Fn(&str) -> bool, limit: usize) -> Vec<Near> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for n in neighbors {
        if out.len() == limit {
            break;
        }
        if !keep(&n.path) || !seen.insert(n.path.clone()) {
            continue;
        }
        out.push(Near {
            path: n.path,
            similarity: n.similarity,
            text: n.text,
        });
    }
    out
}

/// Whether `path` is inside `folder` (`notes` or `notes/`; empty means everywhere).
pub(crate) fn in_folder(path: &str, folder: &str) -> bool {
    let folder = folder.trim().trim_matches('/');
    folder.is_empty()
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

pub(crate) fn title_of(vault: &quire_vault::Vault, path: &str) -> String {
    PagePath::new(path)
        .ok()
        .and_then(|p| vault.title(&p).map(str::to_string))
        .unwrap_or_else(|| path.trim_end_matches(".md").to_string())
}

/// A chunk's text as a search snippet: [`plain`], HTML escaped like the full-text snippets.
pub(crate) fn snippet(text: &str) -> String {
    plain(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A chunk's text to show: its lines joined, heading marks (`#`) taken off, cut at a word
/// near [`SNIPPET_CHARS`] (`…` where cut).
pub(crate) fn plain(text: &str) -> String {
    let joined = text
        .lines()
        .map(|line| line.trim_start_matches('#').trim())
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut cut: String = joined.chars().take(SNIPPET_CHARS).collect();
    if cut.len() < joined.len() {
        if let Some(space) = cut.rfind(' ') {
            cut.truncate(space);
        }
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_match_whole_names() {
        assert!(in_folder("notes/a.md", "notes"));
        assert!(in_folder("notes/a.md", "notes/"));
        assert!(!in_folder("notesx/a.md", "notes"));
        assert!(in_folder("a.md", ""));
    }

    #[test]
    fn snippets_are_cut_at_a_word_and_escaped() {
        assert_eq!(snippet("a <b> & c"), "a &lt;b&gt; &amp; c");
        assert_eq!(
            plain("# Title\n\nBody text.\n## Sub\nMore."),
            "Title Body text. Sub More."
        );
        let long = "word ".repeat(100);
        let s = snippet(&long);
        assert!(s.ends_with('…') && s.chars().count() <= SNIPPET_CHARS + 1);
    }
}
