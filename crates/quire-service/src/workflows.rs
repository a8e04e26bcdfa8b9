//! Workflows: definitions in `.quire/workflows/<name>.json` (states and the transitions
//! between them), a page's place in one (frontmatter `workflow` and `state`), and boards.
//!
//! **Where things live.** A page's workflow and state are its frontmatter keys `workflow` and
//! `state`, set with the line-preserving frontmatter editor: they move with the page, show in
//! DQL, and a hand edit is as good as an API call. The order of the cards in a board column
//! is `.quire/workflows/<name>.order.json` (`{"<state>": ["<path>", …]}`): one file per
//! workflow, so reordering rewrites no page. A board lists a column's ordered pages first (in
//! that order, those still in the column), then the others by path; a page moved or renamed
//! since falls back to the end of its column. Every change (definition, assign, advance,
//! reorder) is one pipeline pass.
//!
//! **Transitions.** Advancing needs the page's workflow to exist and the target to be one of
//! its states (409 otherwise). With `[workflow] enforce_transitions = true` the move must
//! also be listed: a transition of the definition, or one of `[workflow] transitions`
//! (409 otherwise). `required_role` is stored and shown but not checked: quire knows no
//! roles.

use std::collections::{BTreeMap, HashSet};

use quire_api::{
    BoardCard, Workflow, WorkflowAdvance, WorkflowAssign, WorkflowBoard, WorkflowDeleted,
    WorkflowList, WorkflowPage, WorkflowReorder, WorkflowReordered,
};
use quire_store::{etag, StoreError};
use quire_vault::PagePath;
use serde_json::Value;

use crate::change::WriteOptions;
use crate::change::{Change, Expect, FileOp};
use crate::core::SpaceCore;
use crate::documents::Documents;
use crate::error::{Error, Result};

/// Where workflow definitions live inside the root.
pub const WORKFLOWS_DIR: &str = ".quire/workflows";

/// Suffix of a workflow's column order file.
const ORDER_SUFFIX: &str = ".order.json";

/// The workflow definitions, one JSON file a workflow.
const WORKFLOWS: Documents = Documents {
    dir: WORKFLOWS_DIR,
    kind: "workflow",
};

/// Bounds of one definition.
const MAX_STATES: usize = 100;
const MAX_TRANSITIONS: usize = 1000;
/// Paths of one reordered column, at most.
const MAX_ORDERED: usize = 10_000;

/// Frontmatter keys a board card shows besides the title.
const CARD_FIELDS: [&str; 4] = ["priority", "assignee", "due", "status"];

/// Workflow definitions and the pages in them, of one space.
#[derive(Clone, Copy)]
pub struct Workflows<'a>(pub(crate) &'a SpaceCore);

impl Workflows<'_> {
    /// Every workflow definition, by name. A file that is no definition is skipped (and
    /// logged).
    pub fn list(&self) -> Result<WorkflowList> {
        let workflows = WORKFLOWS
            .list_json::<Workflow>(&self.0.root)?
            .into_iter()
            .map(|(name, workflow)| Workflow { name, ..workflow })
            .collect();
        Ok(WorkflowList { workflows })
    }

    /// One workflow definition.
    pub fn get(&self, name: &str) -> Result<Workflow> {
        let workflow: Workflow = WORKFLOWS.read_json(&self.0.root, name)?;
        Ok(Workflow {
            name: name.to_string(),
            ..workflow
        })
    }

    /// Creates or replaces a workflow definition (its `name` is set to `name`) after checking
    /// its structure.
    pub fn put(&self, name: &str, mut workflow: Workflow, opts: &WriteOptions) -> Result<Workflow> {
        WORKFLOWS.path(name)?;
        workflow.name = name.to_string();
        check_definition(&workflow)?;
        let mut bytes = serde_json::to_vec_pretty(&workflow).map_err(Error::internal)?;
        bytes.push(b'\n');
        WORKFLOWS.write_one(self.0, name, bytes, opts)?;
        Ok(workflow)
    }

    /// Deletes a workflow definition and its column order. Pages keep their `workflow` and
    /// `state`; they can no longer be advanced.
    pub fn delete(&self, name: &str, opts: &WriteOptions) -> Result<WorkflowDeleted> {
        WORKFLOWS.delete_one(self.0, name, &[order_path(name)?], opts)?;
        Ok(WorkflowDeleted {
            status: "deleted".into(),
            name: name.to_string(),
        })
    }

    /// Puts a page into a workflow: frontmatter `workflow` and `state` (the request's state,
    /// else the workflow's `initial`, else its first state).
    pub fn assign(&self, request: &WorkflowAssign, opts: &WriteOptions) -> Result<WorkflowPage> {
        let path = page_path(&request.path)?;
        let workflow = self.get(&request.workflow)?;
        let state = match request.state.as_deref().map(str::trim) {
            Some(state) if !state.is_empty() => state.to_string(),
            _ => initial_state(&workflow),
        };
        if !has_state(&workflow, &state) {
            return Err(Error::bad_request(format!(
                "{state:?} is no state of workflow {}; its states: {}",
                workflow.name,
                state_names(&workflow)
            )));
        }
        let (text, current) = self.read_page(&path)?;
        let mut editor = quire_syntax::FrontmatterEditor::new(&text);
        editor.set("workflow", &Value::String(workflow.name.clone()));
        editor.set("state", &Value::String(state.clone()));
        let etag = self.write_page(
            &path,
            editor.finish(),
            current,
            opts,
            format!("Assign {path} to workflow {} ({state})", workflow.name),
        )?;
        Ok(WorkflowPage {
            path: path.to_string(),
            workflow: workflow.name,
            state,
            from: None,
            etag,
        })
    }

    /// Moves a page to `target_state` of its workflow (see the module comment for what is
    /// allowed). Moving to the state the page is in changes nothing.
    pub fn advance(&self, request: &WorkflowAdvance, opts: &WriteOptions) -> Result<WorkflowPage> {
        let path = page_path(&request.path)?;
        let target = request.target_state.trim().to_string();
        if target.is_empty() {
            return Err(Error::bad_request("`target_state` is empty"));
        }
        let (text, current) = self.read_page(&path)?;
        let frontmatter = quire_syntax::parse_frontmatter(&text).map(|f| f.value);
        let field = |key: &str| {
            frontmatter
                .as_ref()
                .and_then(|f| f.get(key))
                .and_then(Value::as_str)
                .map(|s| s.trim().to_string())
        };
        let (Some(name), Some(from)) = (field("workflow"), field("state")) else {
            return Err(Error::conflict(format!(
                "{path} is in no workflow (frontmatter `workflow` and `state`); assign it first"
            )));
        };
        let workflow = match self.get(&name) {
            Ok(workflow) => workflow,
            Err(e) if e.code == crate::error::ErrorCode::NotFound => {
                return Err(Error::conflict(format!(
                    "{path} is in workflow {name}, which no longer exists; it keeps its state \
                     {from:?} but cannot be advanced"
                )))
            }
            Err(e) => return Err(e),
        };
        if !has_state(&workflow, &target) {
            return Err(Error::conflict(format!(
                "transition not allowed: {target:?} is no state of workflow {name} ({})",
                state_names(&workflow)
            )));
        }
        let config = &self.0.editorial.workflow;
        let listed = workflow
            .transitions
            .iter()
            .any(|t| t.from == from && t.to == target)
            || config.allows_globally(&from, &target);
        if config.enforce_transitions && !listed && from != target {
            return Err(Error::conflict(format!(
                "transition not allowed: workflow {name} has no transition {from} -> {target}"
            )));
        }
        let mut editor = quire_syntax::FrontmatterEditor::new(&text);
        editor.set("state", &Value::String(target.clone()));
        let etag = self.write_page(
            &path,
            editor.finish(),
            current,
            opts,
            format!("Advance {path}: {from} -> {target}"),
        )?;
        Ok(WorkflowPage {
            path: path.to_string(),
            workflow: name,
            state: target,
            from: Some(from),
            etag,
        })
    }

    /// Stores the top-to-bottom order of one column of a workflow's board.
    pub fn reorder(
        &self,
        request: &WorkflowReorder,
        opts: &WriteOptions,
    ) -> Result<WorkflowReordered> {
        let workflow = self.get(&request.workflow)?;
        if !has_state(&workflow, &request.state) {
            return Err(Error::bad_request(format!(
                "{:?} is no state of workflow {}; its states: {}",
                request.state,
                workflow.name,
                state_names(&workflow)
            )));
        }
        if request.paths.len() > MAX_ORDERED {
            return Err(Error::bad_request(format!(
                "a column is ordered with at most {MAX_ORDERED} paths"
            )));
        }
        let mut seen = HashSet::new();
        let mut paths = Vec::with_capacity(request.paths.len());
        for raw in &request.paths {
            let path = PagePath::new(raw)?;
            if !seen.insert(path.clone()) {
                return Err(Error::bad_request(format!("{path} is listed twice")));
            }
            paths.push(path.to_string());
        }
        let file = order_path(&workflow.name)?;
        let (mut order, expect) = self.read_order(&file)?;
        order.insert(request.state.clone(), paths.clone());
        let mut bytes = serde_json::to_vec_pretty(&order).map_err(Error::internal)?;
        bytes.push(b'\n');
        self.0.apply(Change::one(
            FileOp {
                path: file,
                content: Some(bytes),
                expect,
            },
            opts,
            || format!("Reorder {} column {}", workflow.name, request.state),
        ))?;
        Ok(WorkflowReordered {
            workflow: workflow.name,
            state: request.state.clone(),
            paths,
        })
    }

    /// The pages of a workflow by state (see [`WorkflowBoard`]).
    pub fn board(&self, name: &str) -> Result<WorkflowBoard> {
        let workflow = self.get(name)?;
        let (order, _) = self.read_order(&order_path(name)?)?;
        let indexer = self.0.indexer.as_ref().ok_or_else(|| {
            Error::unavailable("the catalog is not kept by this process (read-only)")
        })?;
        indexer.catch_up();
        let vault = self.0.links.vault();
        let pages = indexer
            .catalog
            .snapshot(&vault)
            .ok_or_else(|| Error::unavailable("the catalog is being built; try again shortly"))?;
        drop(vault);
        let mut board: BTreeMap<String, Vec<BoardCard>> = workflow
            .states
            .iter()
            .map(|s| (s.name.clone(), Vec::new()))
            .collect();
        for page in pages.iter() {
            let text = |key: &str| {
                page.frontmatter
                    .get(key)
                    .and_then(Value::as_str)
                    .map(str::trim)
            };
            if text("workflow") != Some(name) {
                continue;
            }
            let Some(state) = text("state") else { continue };
            let fields = CARD_FIELDS
                .iter()
                .filter_map(|k| page.frontmatter.get(*k).map(|v| (k.to_string(), v.clone())))
                .collect();
            board.entry(state.to_string()).or_default().push(BoardCard {
                path: page.path.clone(),
                title: page.title.clone(),
                fields,
            });
        }
        for (state, cards) in board.iter_mut() {
            let ranked = order.get(state);
            let rank = |path: &str| {
                ranked
                    .and_then(|paths| paths.iter().position(|p| p == path))
                    .unwrap_or(usize::MAX)
            };
            cards.sort_by(|a, b| {
                rank(&a.path)
                    .cmp(&rank(&b.path))
                    .then_with(|| a.path.cmp(&b.path))
            });
        }
        let mut states: Vec<String> = workflow.states.iter().map(|s| s.name.clone()).collect();
        for state in board.keys() {
            if !states.contains(state) {
                states.push(state.clone());
            }
        }
        Ok(WorkflowBoard {
            workflow: workflow.name,
            board,
            states,
        })
    }

    /// A page's text and ETag; 404 when it does not exist, 400 when it is no text.
    fn read_page(&self, path: &PagePath) -> Result<(String, String)> {
        let bytes = self.0.root.read(path)?;
        let tag = etag(&bytes);
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::bad_request(format!("{path} is not UTF-8 text")))?;
        Ok((text, tag))
    }

    /// Writes a page's new text, expecting the version read (a concurrent edit is a 409).
    fn write_page(
        &self,
        path: &PagePath,
        text: String,
        read: String,
        opts: &WriteOptions,
        message: String,
    ) -> Result<String> {
        let bytes = text.into_bytes();
        let tag = etag(&bytes);
        let expect = match &opts.expect {
            Expect::Anything => Expect::Etag(read),
            given => given.clone(),
        };
        self.0.apply(Change::one(
            FileOp {
                path: path.clone(),
                content: Some(bytes),
                expect,
            },
            opts,
            || message,
        ))?;
        Ok(tag)
    }

    /// The stored column order and the precondition of rewriting it.
    fn read_order(&self, path: &PagePath) -> Result<(BTreeMap<String, Vec<String>>, Expect)> {
        match self.0.root.read(path) {
            Ok(bytes) => {
                let order = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                    tracing::warn!("{path} is no column order ({e}); it is replaced");
                    BTreeMap::new()
                });
                Ok((order, Expect::Etag(etag(&bytes))))
            }
            Err(StoreError::NotFound { .. }) => Ok((BTreeMap::new(), Expect::Absent)),
            Err(e) => Err(e.into()),
        }
    }
}

/// The structure a definition must have: states (unique, non-empty names), transitions
/// between them, an initial state among them.
fn check_definition(workflow: &Workflow) -> Result<()> {
    let bad = |what: String| Err(Error::bad_request(format!("invalid workflow: {what}")));
    if workflow.states.is_empty() {
        return bad("`states` is empty".into());
    }
    if workflow.states.len() > MAX_STATES {
        return bad(format!("more than {MAX_STATES} states"));
    }
    if workflow.transitions.len() > MAX_TRANSITIONS {
        return bad(format!("more than {MAX_TRANSITIONS} transitions"));
    }
    let mut names = HashSet::new();
    for state in &workflow.states {
        let name = state.name.as_str();
        if name.trim().is_empty() || name.trim() != name || name.len() > 128 {
            return bad(format!(
                "state name {name:?} must be 1 to 128 bytes without surrounding spaces"
            ));
        }
        if name.contains(['\n', '\r']) {
            return bad(format!("state name {name:?} holds a line break"));
        }
        if !names.insert(name) {
            return bad(format!("state {name:?} appears twice"));
        }
    }
    for t in &workflow.transitions {
        for end in [&t.from, &t.to] {
            if !names.contains(end.as_str()) {
                return bad(format!(
                    "transition {} -> {} names {end:?}, which is no state",
                    t.from, t.to
                ));
            }
        }
    }
    if let Some(initial) = &workflow.initial {
        if !names.contains(initial.as_str()) {
            return bad(format!("`initial` {initial:?} is no state"));
        }
    }
    Ok(())
}

fn initial_state(workflow: &Workflow) -> String {
    workflow
        .initial
        .clone()
        .unwrap_or_else(|| workflow.states[0].name.clone())
}

fn has_state(workflow: &Workflow, state: &str) -> bool {
    workflow.states.iter().any(|s| s.name == state)
}

fn state_names(workflow: &Workflow) -> String {
    workflow
        .states
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A page path: valid, and a markdown page.
fn page_path(raw: &str) -> Result<PagePath> {
    let path = PagePath::new(raw)?;
    if !path.is_page() {
        return Err(Error::bad_request(format!(
            "{path} is no page: workflows hold markdown pages"
        )));
    }
    Ok(path)
}

/// The file of a workflow's column order, beside its definition.
fn order_path(name: &str) -> Result<PagePath> {
    WORKFLOWS.path(name)?;
    Ok(PagePath::new(&format!(
        "{WORKFLOWS_DIR}/{name}{ORDER_SUFFIX}"
    ))?)
}
