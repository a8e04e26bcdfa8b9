//! Restructuring through the service: planning a manifest against the space's live link
//! model, and applying a plan's file operations as one pipeline pass (one commit).

use quire_restructure::{
    FileOp as PlannedOp, Manifest, ManifestFormat, Plan, PlanOptions, SourceFile, Workspace,
};
use quire_store::{etag, StoreError};
use quire_vault::PagePath;

use crate::error::{Error, ErrorCode, Result};
use crate::pipeline::{Announce, Applied, Change, CommitMode, Expect, FileOp};
use crate::space::Space;

/// Folder of the comment files (DECISIONS §2).
pub const COMMENTS_DIR: &str = ".quire/comments";
/// Folder of the personal-state files (DECISIONS §2).
pub const PERSONAL_DIR: &str = ".quire/personal";

/// The space's files as the planner sees them: read lazily, only for pages it must rewrite.
struct DiskSource<'a> {
    space: &'a Space,
}

impl quire_restructure::Source for DiskSource<'_> {
    fn read(&self, path: &PagePath) -> Option<SourceFile> {
        let bytes = self.space.root.read(path).ok()?;
        let etag = etag(&bytes);
        let text = String::from_utf8(bytes).ok()?;
        Some(SourceFile { text, etag })
    }

    /// Pages from the index hook's cache; assets (not text, but they move too) from their
    /// raw bytes. A file changed behind the server's back makes apply's ETag re-check fail
    /// with 409, never a wrong write.
    fn etag(&self, path: &PagePath) -> Option<String> {
        self.space
            .cached_etag(path)
            .or_else(|| self.space.root.read(path).ok().map(|bytes| etag(&bytes)))
    }
}

/// Result of `POST /rename`.
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct Renamed {
    pub from: String,
    pub to: String,
    pub etag: String,
    /// Links rewritten in other pages (and in the page itself) so they keep their target.
    pub updated_links: usize,
}

/// Result of `POST /rename-dir`.
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct RenamedDir {
    pub from: String,
    pub to: String,
    /// Files moved.
    pub renamed: usize,
}

/// Whether a rename rewrites links (`relink`, default true).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relink {
    Yes,
    /// Move only; the move is recorded as a raw move for later repair.
    No,
}

impl Space {
    /// Parses a manifest body (JSON or YAML); 400 with the reason when it cannot be used.
    pub fn parse_manifest(&self, body: &[u8], format: ManifestFormat) -> Result<Manifest> {
        quire_restructure::parse_manifest(body, format)
            .map_err(|e| Error::bad_request(e.to_string()))
    }

    /// Plans a manifest for `actor` (pages other actors claim cannot be touched; `None` treats
    /// every claim as another's). Nothing is written.
    pub fn plan(&self, manifest: &Manifest, diffs: bool, actor: Option<&str>) -> Result<Plan> {
        let personal_files = self.personal_files()?;
        let claimed = self.claimed_by_others(actor.unwrap_or(""))?;
        let vault = self.vault();
        let source = DiskSource { space: self };
        let workspace = Workspace {
            vault: &vault,
            source: &source,
            personal_files,
            protect: self.refactor.protect.clone(),
            scope: self.refactor.scope.clone(),
            claimed,
            base: self.history.head(),
        };
        Ok(quire_restructure::plan(
            &workspace,
            manifest,
            &PlanOptions { diffs },
        ))
    }

    /// Applies the file operations of a plan as one change (one commit). Every operation
    /// carries the ETag the plan read, so a file changed since planning refuses the whole
    /// change with 409 and nothing is written.
    ///
    /// The ops are folded into the final state of each path first: a swap that the plan routes
    /// through a temporary path becomes two plain writes, and the temporary path never
    /// reaches the disk.
    pub fn apply_ops(&self, ops: &[PlannedOp], actor: &str, message: &str) -> Result<Applied> {
        let file_ops = self.fold_ops(ops)?;
        if file_ops.is_empty() {
            return Ok(Applied::default());
        }
        self.apply(Change {
            ops: file_ops,
            actor: actor.to_string(),
            message: message.to_string(),
            announce: Announce::PerFile,
            commit: CommitMode::Now,
        })
    }

    fn fold_ops(&self, ops: &[PlannedOp]) -> Result<Vec<FileOp>> {
        use std::collections::BTreeMap;
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
                            match self.root.read(from) {
                                Ok(bytes) => bytes,
                                Err(StoreError::NotFound { .. }) => {
                                    return Err(Error::conflict(format!(
                                        "{from} was removed since the plan was made"
                                    )))
                                }
                                Err(e) => return Err(e.into()),
                            }
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

    /// `POST /rename`: one file, links rewritten unless `relink` is off; never overwrites.
    pub fn rename(&self, from: &str, to: &str, relink: Relink, actor: &str) -> Result<Renamed> {
        let from_path = PagePath::new(from)?;
        let to_path = PagePath::new(to)?;
        if self.root.kind(&from_path)?.is_none() {
            return Err(Error::not_found(format!("{from_path} does not exist")));
        }
        if self.root.kind(&to_path)?.is_some() {
            return Err(Error::conflict(format!(
                "{to_path} already exists; rename never overwrites"
            )));
        }
        let manifest = move_manifest(from_path.as_str(), to_path.as_str())?;
        let plan = self.plan(&manifest, false, Some(actor))?;
        refuse_blocked(&plan)?;
        let (ops, updated_links) = match relink {
            Relink::Yes => (plan.ops.clone(), rewritten_links(&plan)),
            // Only the moves: no page other than the moved one is touched.
            Relink::No => (
                plan.ops
                    .iter()
                    .filter(|op| matches!(op, PlannedOp::Move { .. }))
                    .cloned()
                    .chain(moved_page_verbatim(&plan, &from_path, &to_path))
                    .collect(),
                0,
            ),
        };
        let applied = self.apply_ops(&ops, actor, &format!("Rename {from_path} to {to_path}"))?;
        let etag = applied
            .files
            .iter()
            .find(|f| f.path == to_path)
            .and_then(|f| f.etag.clone())
            .unwrap_or_default();
        Ok(Renamed {
            from: from_path.to_string(),
            to: to_path.to_string(),
            etag,
            updated_links,
        })
    }

    /// `POST /rename-dir`: a folder and everything below it, links rewritten.
    pub fn rename_dir(&self, from: &str, to: &str, actor: &str) -> Result<RenamedDir> {
        let from_path = PagePath::new(from.trim_end_matches('/'))?;
        let to_path = PagePath::new(to.trim_end_matches('/'))?;
        match self.root.kind(&from_path)? {
            Some(quire_store::EntryKind::Dir) => {}
            Some(_) => return Err(Error::bad_request(format!("{from_path} is not a folder"))),
            None => return Err(Error::not_found(format!("{from_path} does not exist"))),
        }
        if self.root.kind(&to_path)?.is_some() {
            return Err(Error::conflict(format!(
                "{to_path} already exists; rename never overwrites"
            )));
        }
        let manifest = move_manifest(&format!("{from_path}/"), &format!("{to_path}/"))?;
        let plan = self.plan(&manifest, false, Some(actor))?;
        refuse_blocked(&plan)?;
        self.apply_ops(
            &plan.ops,
            actor,
            &format!("Rename folder {from_path} to {to_path}"),
        )?;
        Ok(RenamedDir {
            from: from_path.to_string(),
            to: to_path.to_string(),
            renamed: plan.moves.len(),
        })
    }

    fn personal_files(&self) -> Result<Vec<PagePath>> {
        let dir = PagePath::new(PERSONAL_DIR).expect("constant path is valid");
        let nodes = match self.root.tree(Some(&dir)) {
            Ok(nodes) => nodes,
            Err(StoreError::NotFound { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for node in nodes {
            if !node.is_dir && node.name.ends_with(".json") {
                out.push(PagePath::new(&node.path)?);
            }
        }
        Ok(out)
    }
}

fn move_manifest(from: &str, to: &str) -> Result<Manifest> {
    let body = serde_json::json!({"moves": [{"from": from, "to": to}]}).to_string();
    quire_restructure::parse_manifest(body.as_bytes(), ManifestFormat::Json)
        .map_err(|e| Error::internal(format!("built-in manifest rejected: {e}")))
}

/// A plan that cannot be applied: a taken destination is 409, anything else 422.
fn refuse_blocked(plan: &Plan) -> Result<()> {
    if plan.errors.is_empty() && plan.plan_only.is_empty() {
        return Ok(());
    }
    let code = if plan.conflicts.iter().any(|c| c.code.as_str() == "exists") {
        ErrorCode::Conflict
    } else {
        ErrorCode::Unprocessable
    };
    let mut reasons: Vec<&str> = plan.errors.iter().map(String::as_str).collect();
    reasons.extend(plan.plan_only.iter().map(String::as_str));
    Err(Error::new(code, reasons.join("; ")))
}

fn rewritten_links(plan: &Plan) -> usize {
    plan.edits.iter().map(|e| e.links.len()).sum()
}

/// Without relinking a moved page keeps its bytes: when the plan rewrote links inside the
/// moved page itself, its Write op is replaced by a plain move of the old bytes.
fn moved_page_verbatim(plan: &Plan, from: &PagePath, to: &PagePath) -> Option<PlannedOp> {
    let rewrote_itself = plan
        .ops
        .iter()
        .any(|op| matches!(op, PlannedOp::Write { path, .. } if path == to));
    if !rewrote_itself {
        return None;
    }
    plan.ops.iter().find_map(|op| match op {
        PlannedOp::Delete { path, expect } if path == from => Some(PlannedOp::Move {
            from: from.clone(),
            to: to.clone(),
            expect: expect.clone(),
        }),
        _ => None,
    })
}
