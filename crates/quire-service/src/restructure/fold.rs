//! Carrying out a plan's file operations as one pipeline pass (one commit), and counting what
//! it wrote.

use std::collections::BTreeMap;

use quire_api::AppliedResult;
use quire_restructure::FileOp as PlannedOp;
use quire_store::StoreError;
use quire_vault::PagePath;

use super::{COMMENTS_DIR, PERSONAL_DIR};
use crate::change::{Announce, Applied, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// Applies the file operations of a plan as one change (one commit). Every operation carries
/// the ETag the plan read, so a file changed since planning refuses the whole change with a
/// conflict and nothing is written.
pub(super) fn apply_ops(
    core: &SpaceCore,
    ops: &[PlannedOp],
    actor: &str,
    message: &str,
) -> Result<Applied> {
    let file_ops = fold_ops(ops, |path| match core.root.read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    })?;
    if file_ops.is_empty() {
        return Ok(Applied::default());
    }
    core.apply(Change {
        ops: file_ops,
        actor: actor.to_string(),
        message: message.to_string(),
        announce: Announce::PerFile,
        commit: CommitMode::Now,
    })
}

/// Folds a plan's ops into the final state of each path, with what each path must hold
/// before: a swap that the plan routes through a temporary path becomes two plain writes, and
/// the temporary path never reaches the disk. `read` gives a file's current bytes (for moves).
pub(crate) fn fold_ops(
    ops: &[PlannedOp],
    read: impl Fn(&PagePath) -> Result<Option<Vec<u8>>>,
) -> Result<Vec<FileOp>> {
    // Final content per path (None = absent) and what the path held before the plan.
    let mut state: BTreeMap<PagePath, Option<Vec<u8>>> = BTreeMap::new();
    let mut before: BTreeMap<PagePath, Expect> = BTreeMap::new();
    let note_before = |before: &mut BTreeMap<PagePath, Expect>, path: &PagePath, e: Expect| {
        before.entry(path.clone()).or_insert(e);
    };
    for op in ops {
        match op {
            PlannedOp::Write {
                path,
                content,
                expect,
            } => {
                let e = match expect {
                    Some(tag) => Expect::Etag(tag.clone()),
                    None if state.contains_key(path) => Expect::Anything,
                    None => Expect::Absent,
                };
                note_before(&mut before, path, e);
                state.insert(path.clone(), Some(content.clone().into_bytes()));
            }
            PlannedOp::Move { from, to, expect } => {
                let bytes = match state.get(from) {
                    Some(Some(bytes)) => bytes.clone(),
                    Some(None) => {
                        return Err(Error::internal(format!(
                            "plan moves {from} after removing it"
                        )))
                    }
                    None => {
                        note_before(&mut before, from, Expect::Etag(expect.clone()));
                        read(from)?.ok_or_else(|| {
                            Error::conflict(format!("{from} was removed since the plan was made"))
                        })?
                    }
                };
                if !state.contains_key(to) {
                    note_before(&mut before, to, Expect::Absent);
                }
                state.insert(from.clone(), None);
                state.insert(to.clone(), Some(bytes));
            }
            PlannedOp::Delete { path, expect } => {
                note_before(&mut before, path, Expect::Etag(expect.clone()));
                state.insert(path.clone(), None);
            }
        }
    }
    Ok(state
        .into_iter()
        .filter_map(|(path, content)| {
            let expect = before.remove(&path).unwrap_or_default();
            // A temporary path that starts and ends absent never touches the disk.
            if content.is_none() && expect == Expect::Absent {
                return None;
            }
            Some(FileOp {
                path,
                content,
                expect,
            })
        })
        .collect())
}

/// Counts what the pipeline wrote: comment and personal-state files are side files,
/// everything else a written or deleted file of the knowledge base.
pub(super) fn count_applied(applied: &Applied, removed_dirs: usize) -> AppliedResult {
    let mut result = AppliedResult {
        removed_dirs,
        commit: applied.commit.clone(),
        ..AppliedResult::default()
    };
    for file in &applied.files {
        let path = file.path.as_str();
        if path.starts_with(COMMENTS_DIR) || path.starts_with(PERSONAL_DIR) {
            result.side_files += 1;
        } else if file.etag.is_some() {
            result.written += 1;
        } else {
            result.deleted += 1;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn p(s: &str) -> PagePath {
        PagePath::new(s).unwrap()
    }

    fn disk(files: &[(&str, &str)]) -> impl Fn(&PagePath) -> Result<Option<Vec<u8>>> {
        let files: BTreeMap<PagePath, Vec<u8>> = files
            .iter()
            .map(|(k, v)| (p(k), v.as_bytes().to_vec()))
            .collect();
        move |path| Ok(files.get(path).cloned())
    }

    fn folded(ops: &[PlannedOp], files: &[(&str, &str)]) -> Vec<(String, Option<String>, Expect)> {
        fold_ops(ops, disk(files))
            .unwrap()
            .into_iter()
            .map(|op| {
                (
                    op.path.to_string(),
                    op.content.map(|c| String::from_utf8(c).unwrap()),
                    op.expect,
                )
            })
            .collect()
    }

    fn mv(from: &str, to: &str, etag: &str) -> PlannedOp {
        PlannedOp::Move {
            from: p(from),
            to: p(to),
            expect: etag.into(),
        }
    }

    #[test]
    fn a_swap_through_a_parking_path_folds_into_two_writes() {
        let ops = [
            mv("a.md", ".quire/state/restructure-swap/1-a.md", "ea"),
            mv("b.md", "a.md", "eb"),
            mv(".quire/state/restructure-swap/1-a.md", "b.md", "ea"),
        ];
        assert_eq!(
            folded(&ops, &[("a.md", "A"), ("b.md", "B")]),
            [
                ("a.md".into(), Some("B".into()), Expect::Etag("ea".into())),
                ("b.md".into(), Some("A".into()), Expect::Etag("eb".into())),
            ]
        );
    }

    #[test]
    fn a_chain_of_moves_lands_each_file_once() {
        let ops = [mv("b.md", "c.md", "eb"), mv("a.md", "b.md", "ea")];
        assert_eq!(
            folded(&ops, &[("a.md", "A"), ("b.md", "B")]),
            [
                ("a.md".into(), None, Expect::Etag("ea".into())),
                ("b.md".into(), Some("A".into()), Expect::Etag("eb".into())),
                ("c.md".into(), Some("B".into()), Expect::Absent),
            ]
        );
    }

    #[test]
    fn a_moved_page_rewritten_at_its_destination_is_one_write() {
        let ops = [
            PlannedOp::Delete {
                path: p("a.md"),
                expect: "ea".into(),
            },
            PlannedOp::Write {
                path: p("x/a.md"),
                content: "A relinked".into(),
                expect: None,
            },
            PlannedOp::Write {
                path: p("c.md"),
                content: "C relinked".into(),
                expect: Some("ec".into()),
            },
        ];
        assert_eq!(
            folded(&ops, &[("a.md", "A"), ("c.md", "C")]),
            [
                ("a.md".into(), None, Expect::Etag("ea".into())),
                (
                    "c.md".into(),
                    Some("C relinked".into()),
                    Expect::Etag("ec".into())
                ),
                ("x/a.md".into(), Some("A relinked".into()), Expect::Absent),
            ]
        );
    }

    #[test]
    fn a_move_of_a_file_that_vanished_is_a_conflict() {
        let err = fold_ops(&[mv("a.md", "b.md", "ea")], disk(&[])).unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::Conflict);
    }
}
