//! The tie-break among the files one resolution step found (DECISIONS §3): same folder as
//! the linking page, then fewest components, then byte order.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::ops::Range;

use crate::index::Hit;

/// Lists up to this long are scanned for a folder's hits rather than searched.
const SCAN: usize = 16;

/// The hits of one step in (components, bytes) order, which is the tie-break order for a
/// link written outside all their folders. The files of one folder share a depth and are
/// adjacent in byte order among the files of that depth, so a linking page's own folder
/// is a binary search away and moving it to the front gives the order for that page.
#[derive(Debug, Clone)]
pub(crate) struct Ranked<H> {
    hits: Vec<H>,
}

impl<H: Borrow<Hit>> Ranked<H> {
    /// Sorts `hits`, which must not repeat a path.
    pub(crate) fn new(mut hits: Vec<H>) -> Ranked<H> {
        hits.sort_unstable_by(|a, b| {
            let (a, b) = (a.borrow(), b.borrow());
            (a.depth, &a.path).cmp(&(b.depth, &b.path))
        });
        Ranked { hits }
    }

    pub(crate) fn len(&self) -> usize {
        self.hits.len()
    }

    /// The hit a link written in `folder` resolves to.
    pub(crate) fn winner(&self, folder: &str) -> Option<&H> {
        let local = self.local(folder);
        self.hits
            .get(local.start)
            .filter(|_| !local.is_empty())
            .or(self.hits.first())
    }

    /// Every hit in tie-break order for a link written in `folder`: the winner first.
    pub(crate) fn into_order(mut self, folder: &str) -> Vec<H> {
        let local = self.local(folder);
        if local.start > 0 && !local.is_empty() {
            self.hits[..local.end].rotate_right(local.len());
        }
        self.hits
    }

    /// Where the hits inside `folder` (not below it) sit: short lists are scanned, long
    /// ones searched.
    fn local(&self, folder: &str) -> Range<usize> {
        let inside = |hit: &H| hit.borrow().folder() == folder;
        let start = if self.hits.len() <= SCAN {
            self.hits.iter().position(inside).unwrap_or(self.hits.len())
        } else {
            let depth = if folder.is_empty() {
                1
            } else {
                folder.bytes().filter(|b| *b == b'/').count() + 2
            };
            let depth_of = |hit: &H| hit.borrow().depth;
            let start = self.hits.partition_point(|hit| depth_of(hit) < depth);
            start
                + self.hits[start..].partition_point(|hit| {
                    depth_of(hit) == depth
                        && sorts_before_folder(hit.borrow().path.as_str(), folder)
                })
        };
        let len = self.hits[start..].partition_point(inside);
        start..start + len
    }
}

/// Does `path` sort before every path inside `folder` (byte order below `folder/`)?
/// Nothing sorts before the root's files among files of depth one.
fn sorts_before_folder(path: &str, folder: &str) -> bool {
    if folder.is_empty() {
        return false;
    }
    let (path, folder) = (path.as_bytes(), folder.as_bytes());
    let shared = path.len().min(folder.len());
    match path[..shared].cmp(&folder[..shared]) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => path.len() <= folder.len() || path[folder.len()] < b'/',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::PagePath;

    fn hits(paths: &[&str]) -> Vec<Hit> {
        paths
            .iter()
            .map(|p| Hit::new(&PagePath::new(p).unwrap()))
            .collect()
    }

    /// The tie-break spelled out as one sort key, to check the binary searches against.
    fn by_key(mut hits: Vec<Hit>, folder: &str) -> Vec<String> {
        hits.sort_by(|a, b| {
            (a.folder() != folder, a.depth, &a.path).cmp(&(b.folder() != folder, b.depth, &b.path))
        });
        hits.into_iter().map(|hit| hit.path.to_string()).collect()
    }

    #[test]
    fn winner_prefers_the_linking_folder_then_depth_then_bytes() {
        let few = hits(&[
            "b/x.md",
            "a/x.md",
            "a/c/x.md",
            "x.md",
            "a/b/x.md",
            "a b/x.md",
            "a/y.md",
            "y.md",
            "a-b/c/x.md",
            "a/b c/x.md",
        ]);
        // Enough hits that a folder is found by binary search rather than by a scan.
        let mut many = few.clone();
        for i in 0..SCAN {
            many.push(Hit::new(&PagePath::new(&format!("d/e{i}/x.md")).unwrap()));
        }
        let cases = [
            ("", "x.md"),
            ("a", "a/x.md"),
            ("a/b", "a/b/x.md"),
            ("a/c", "a/c/x.md"),
            ("a b", "a b/x.md"),
            ("zzz", "x.md"),
            ("a/d", "x.md"),
            ("a-b", "x.md"),
            ("a-b/c", "a-b/c/x.md"),
        ];
        for all in [few, many.clone()] {
            let ranked = Ranked::new(all.clone());
            for (folder, want) in cases {
                let order: Vec<String> = ranked
                    .clone()
                    .into_order(folder)
                    .into_iter()
                    .map(|hit| hit.path.to_string())
                    .collect();
                assert_eq!(order, by_key(all.clone(), folder), "{folder:?}");
                let winner = ranked.winner(folder).map(|hit| hit.path.as_str());
                assert_eq!(winner, Some(want), "{folder:?}");
            }
        }
        let winner = Ranked::new(many)
            .winner("d/e3")
            .map(|hit| hit.path.to_string());
        assert_eq!(winner.as_deref(), Some("d/e3/x.md"));
    }

    #[test]
    fn no_hits_no_winner() {
        let ranked: Ranked<Hit> = Ranked::new(Vec::new());
        assert!(ranked.winner("a").is_none());
        assert!(ranked.into_order("").is_empty());
    }
}
