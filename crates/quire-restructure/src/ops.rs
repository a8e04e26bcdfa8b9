//! The order of apply's file operations: deletes first, then renames in an order where
//! every destination is free when it is used (cycles such as swaps go through a temporary
//! path under `.quire/state/`), then writes.

use quire_vault::PagePath;

use crate::model::FileOp;

/// Folder for the temporary stops of renames that form a cycle; `.quire/state/` is
/// runtime state and not versioned, so nothing of it reaches the commit.
const SWAP_FOLDER: &str = ".quire/state/restructure-swap";

/// File operations collected in any order.
#[derive(Default)]
pub(crate) struct OpSet {
    pub(crate) deletes: Vec<(PagePath, String)>,
    pub(crate) moves: Vec<(PagePath, PagePath, String)>,
    pub(crate) writes: Vec<(PagePath, String, Option<String>)>,
}

impl OpSet {
    /// The operations in an order apply can run one by one.
    pub(crate) fn sequence(mut self) -> Vec<FileOp> {
        let mut ops = Vec::new();
        self.deletes.sort();
        for (path, expect) in self.deletes {
            ops.push(FileOp::Delete { path, expect });
        }
        self.moves.sort();
        let mut pending = self.moves;
        let mut swaps = 0usize;
        while !pending.is_empty() {
            let ready = pending.iter().position(|(_, to, _)| {
                !pending
                    .iter()
                    .any(|(from, other_to, _)| from == to && other_to != to)
            });
            match ready {
                Some(i) => {
                    let (from, to, expect) = pending.remove(i);
                    ops.push(FileOp::Move { from, to, expect });
                }
                None => {
                    // Every remaining destination is still occupied: a cycle. Park one
                    // file so the rest can proceed; its move finishes from the parking spot.
                    swaps += 1;
                    let (from, to, expect) = pending.remove(0);
                    let parked = PagePath::new(&format!("{SWAP_FOLDER}/{swaps}-{}", from.name()))
                        .unwrap_or_else(|_| from.clone());
                    ops.push(FileOp::Move {
                        from,
                        to: parked.clone(),
                        expect: expect.clone(),
                    });
                    pending.push((parked, to, expect));
                }
            }
        }
        self.writes.sort();
        for (path, content, expect) in self.writes {
            ops.push(FileOp::Write {
                path,
                content,
                expect,
            });
        }
        ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> PagePath {
        PagePath::new(text).unwrap()
    }

    #[test]
    fn chains_run_back_to_front_and_swaps_park_one_file() {
        let set = OpSet {
            deletes: Vec::new(),
            moves: vec![
                (p("a.md"), p("b.md"), "1".into()),
                (p("b.md"), p("c.md"), "2".into()),
                (p("x.md"), p("y.md"), "3".into()),
                (p("y.md"), p("x.md"), "4".into()),
            ],
            writes: Vec::new(),
        };
        let order: Vec<String> = set
            .sequence()
            .into_iter()
            .map(|op| match op {
                FileOp::Move { from, to, .. } => format!("{from}>{to}"),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            order,
            [
                "b.md>c.md",
                "a.md>b.md",
                "x.md>.quire/state/restructure-swap/1-x.md",
                "y.md>x.md",
                ".quire/state/restructure-swap/1-x.md>y.md",
            ]
        );
    }
}
