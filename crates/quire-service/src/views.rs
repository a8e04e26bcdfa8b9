//! Views: saved views (`.quire/views/<name>.json`, written through the pipeline like pages)
//! and computed view pages — pages whose frontmatter says `quire-view: true` and holds a DQL
//! `quire-query`, whose body is regenerated from the query's result.
//!
//! **Refresh rules.** A view page keeps its frontmatter bytes exactly; everything after it is
//! replaced by a marker comment and the rendered result (a table, or a list for `LIST`). A page
//! is written only when that text differs, by actor `quire` with the message
//! `Refresh view <path>`. Refreshes run on `POST /view/refresh` and on their own: the index
//! thread reports every pass (after the catalog holds it) to a refresher thread per space,
//! which gathers reports for [`DEBOUNCE`] and then refreshes every view page — unless every
//! page reported holds exactly the text a refresh wrote (the refresher's own writes), so a
//! refresh never triggers another. After a refresh that took longer than a quarter of
//! [`DEBOUNCE`] it gathers for four times that refresh's cost instead: a stream of writes to a
//! large vault with views keeps its writers, and the view pages lag by a few refreshes' cost.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use quire_api::{QueryResult, View, ViewDeleted, ViewGroup, ViewList, ViewRefresh, ViewResult};
use quire_query::dql::{self, ShapeError, ViewShape};
use quire_store::{etag, StoreError};
use quire_vault::PagePath;
use serde_json::Value;

use crate::change::WriteOptions;
use crate::change::{Announce, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::documents::Documents;
use crate::error::{Error, ErrorCode, Result};
use crate::find::Find;
use crate::indexing::Indexed;
use crate::outside::SYSTEM_ACTOR;

/// Where saved views live inside the root.
pub const VIEWS_DIR: &str = ".quire/views";

/// The saved views, one JSON file a view.
const VIEWS: Documents = Documents {
    dir: VIEWS_DIR,
    kind: "view",
};

/// How long the refresher gathers reports of the index before it refreshes.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

/// The longest the refresher gathers reports, however long its refreshes take.
pub const GATHER_MAX: Duration = Duration::from_secs(10);

/// Rows of `execute` when the caller names no limit, and the most it may ask for.
const EXECUTE_LIMIT: usize = 50;
const EXECUTE_LIMIT_MAX: usize = 1000;

/// The first line of a view page's generated body.
const MARKER: &str =
    "<!-- quire-view: generated from quire-query; text below this line is replaced -->";

/// Saved views and computed view pages of one space.
#[derive(Clone, Copy)]
pub struct Views<'a>(pub(crate) &'a SpaceCore);

impl Views<'_> {
    /// Every saved view, by name. A file under `.quire/views/` that is no view is skipped
    /// (and logged).
    pub fn list(&self) -> Result<ViewList> {
        let views = VIEWS
            .list_json::<View>(&self.0.root)?
            .into_iter()
            .map(|(name, view)| View { name, ..view })
            .collect();
        Ok(ViewList { views })
    }

    /// One saved view.
    pub fn get(&self, name: &str) -> Result<View> {
        let view: View = VIEWS.read_json(&self.0.root, name)?;
        Ok(View {
            name: name.to_string(),
            ..view
        })
    }

    /// Creates or replaces a saved view named `name` (its `name` field is set to it). The
    /// query must parse.
    pub fn put(&self, name: &str, mut view: View, opts: &WriteOptions) -> Result<View> {
        VIEWS.path(name)?;
        if view.query.trim().is_empty() {
            return Err(Error::bad_request("a view needs a `query` (DQL)"));
        }
        let parsed = dql::parse_query(&view.query).map_err(|e| match e {
            dql::QueryError::Syntax { position, message } => {
                Error::bad_request(format!("invalid query at {position}: {message}"))
            }
            other => Error::bad_request(format!("invalid query: {other}")),
        })?;
        shape_of(&view, &parsed).map_err(|e| Error::bad_request(format!("invalid view: {e}")))?;
        view.name = name.to_string();
        let mut bytes = serde_json::to_vec_pretty(&view).map_err(Error::internal)?;
        bytes.push(b'\n');
        VIEWS.write_one(self.0, name, bytes, opts)?;
        Ok(view)
    }

    /// Deletes a saved view.
    pub fn delete(&self, name: &str, opts: &WriteOptions) -> Result<ViewDeleted> {
        VIEWS.delete_one(self.0, name, &[], opts)?;
        Ok(ViewDeleted {
            status: "deleted".into(),
            name: name.to_string(),
        })
    }

    /// Runs a saved view's query with its filters, sort and grouping: the rows from `offset`,
    /// `limit` of them (default 50, at most 1000), with the total, and the groups with
    /// `group_by`. A view file edited by hand into something that cannot run is a 422.
    pub fn execute(
        &self,
        name: &str,
        limit: Option<usize>,
        offset: Option<usize>,
    ) -> Result<ViewResult> {
        let view = self.get(name)?;
        let unusable = |what: String| {
            Error::unprocessable(format!(
                "the saved view {name} cannot run: {what}; save it again with PUT /views/{name}"
            ))
        };
        let parsed = dql::parse_query(&view.query).map_err(|e| unusable(e.to_string()))?;
        let shape = shape_of(&view, &parsed).map_err(|e| unusable(e.to_string()))?;
        let (result, spans) = Find(self.0).query_shaped(&parsed, &shape)?;
        let limit = limit.unwrap_or(EXECUTE_LIMIT).clamp(1, EXECUTE_LIMIT_MAX);
        let offset = offset.unwrap_or(0);
        let total = result.rows.len();
        let rows = result.rows.into_iter().skip(offset).take(limit).collect();
        let groups = shape.group_by.is_some().then(|| {
            let mut start = 0;
            spans
                .into_iter()
                .map(|span| {
                    let group = ViewGroup {
                        key: span.key,
                        total: span.rows,
                        offset: start,
                    };
                    start += span.rows;
                    group
                })
                .collect()
        });
        Ok(ViewResult {
            view,
            mode: result.mode,
            headers: result.headers,
            rows,
            total,
            limit,
            offset,
            groups,
        })
    }

    /// Recomputes every computed view page now, writing those whose text changes.
    pub fn refresh(&self) -> Result<ViewRefresh> {
        let started = Instant::now();
        let pages = self.view_pages()?;
        let mut written = 0;
        for path in &pages {
            match self.refresh_page(path) {
                Ok(true) => written += 1,
                Ok(false) => {}
                // Another writer got there first: its write is reported and refreshes again.
                Err(e) if e.code == ErrorCode::Conflict => {}
                Err(e) => tracing::warn!("refreshing the view {path} failed: {}", e.message),
            }
        }
        Ok(ViewRefresh {
            refreshed: pages.len(),
            written,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// Waits (at most `timeout`) until the automatic refreshes of every change indexed so far
    /// are done; `false` on timeout. For tests and tools that read view pages after a write.
    pub fn settle(&self, timeout: Duration) -> bool {
        if let Some(indexer) = &self.0.indexer {
            indexer.flush();
        }
        let deadline = Instant::now() + timeout;
        while self.0.view_refresh.pending.load(Ordering::Acquire) > 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    /// Pages whose frontmatter says `quire-view: true`, from the catalog (without a snapshot:
    /// a vault with no view page costs its refresher a look at each page's frontmatter).
    fn view_pages(&self) -> Result<Vec<PagePath>> {
        let indexer = self.0.indexer.as_ref().ok_or_else(|| {
            Error::unavailable("the catalog is not kept by this process (read-only)")
        })?;
        let paths = indexer
            .catalog
            .paths_where(|page| is_view(&page.frontmatter))
            .ok_or_else(|| Error::unavailable("the catalog is being built; try again shortly"))?;
        Ok(paths.iter().filter_map(|p| PagePath::new(p).ok()).collect())
    }

    /// Regenerates one view page; `true` when its text changed and was written.
    fn refresh_page(&self, path: &PagePath) -> Result<bool> {
        let bytes = match self.0.root.read(path) {
            Ok(bytes) => bytes,
            Err(StoreError::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e.into()),
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(false);
        };
        let parsed = quire_syntax::parse(&text);
        let Some(frontmatter) = &parsed.frontmatter else {
            return Ok(false);
        };
        if !is_view(&frontmatter.value) {
            return Ok(false);
        }
        let query = frontmatter
            .value
            .get("quire-query")
            .and_then(Value::as_str)
            .unwrap_or("");
        let body = match Find(self.0).query(query) {
            Ok(result) => render(&result),
            // The catalog is not ready or the query ran too long: keep the page as it is.
            Err(e) if e.code == ErrorCode::Unavailable => return Ok(false),
            Err(e) => format!("> quire-view: the query failed: {}\n", one_line(&e.message)),
        };
        let mut generated = text[..frontmatter.span.end].to_string();
        if !generated.ends_with('\n') {
            generated.push('\n');
        }
        generated.push('\n');
        generated.push_str(MARKER);
        generated.push_str("\n\n");
        generated.push_str(&body);
        if generated == text {
            return Ok(false);
        }
        let bytes = generated.into_bytes();
        // Known before the write, so the index's report of it is recognised as our own.
        self.0
            .view_refresh
            .own
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.clone(), etag(&bytes));
        self.0.apply(Change {
            message: format!("Refresh view {path}"),
            ops: vec![FileOp {
                path: path.clone(),
                content: Some(bytes),
                expect: Expect::Etag(etag(text.as_bytes())),
            }],
            actor: SYSTEM_ACTOR.to_string(),
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        })?;
        Ok(true)
    }

    /// Whether reports of the index call for a refresh: yes, unless every page reported holds
    /// exactly what a refresh wrote to it.
    fn needs_refresh(&self, reports: &[Indexed]) -> bool {
        let own = self
            .0
            .view_refresh
            .own
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        reports.iter().any(|report| match report {
            Indexed::All => true,
            Indexed::Pages(pages) => pages
                .iter()
                .any(|(path, etag)| own.get(path) != etag.as_ref()),
        })
    }
}

/// Starts the refresher thread of a space (when its index is kept here). It holds the space
/// weakly and ends when the index thread, the sender of its reports, is gone.
pub(crate) fn start_refresher(core: &Arc<SpaceCore>) {
    let reports = core
        .view_refresh
        .reports
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    let Some(reports) = reports else {
        return;
    };
    let weak = Arc::downgrade(core);
    let started = std::thread::Builder::new()
        .name("quire-views".into())
        .spawn(move || run_refresher(weak, reports));
    if let Err(e) = started {
        tracing::error!("the view refresher could not start; views refresh only on request: {e}");
    }
}

fn run_refresher(core: Weak<SpaceCore>, reports: Receiver<Indexed>) {
    let mut gather = DEBOUNCE;
    while let Ok(first) = reports.recv() {
        let mut batch = vec![first];
        let deadline = Instant::now() + gather;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match reports.recv_timeout(left) {
                Ok(report) => batch.push(report),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        let Some(core) = core.upgrade() else {
            return;
        };
        let views = Views(&core);
        if views.needs_refresh(&batch) {
            let started = Instant::now();
            if let Err(e) = views.refresh() {
                if e.code != ErrorCode::Unavailable {
                    tracing::warn!("refreshing the views failed: {}", e.message);
                }
            }
            gather = gathering_after(started.elapsed());
        }
        core.view_refresh
            .pending
            .fetch_sub(batch.len(), Ordering::AcqRel);
    }
}

/// How long to gather reports after a refresh that took `took`: [`DEBOUNCE`], or four times
/// the refresh's cost when that is longer (at most [`GATHER_MAX`]), so that under a stream of
/// writes refreshing takes at most a fifth of a core from the writers.
fn gathering_after(took: Duration) -> Duration {
    (took * 4).clamp(DEBOUNCE, GATHER_MAX)
}

/// A view's `filters`, `sort` and `group_by`, checked against its query.
fn shape_of(view: &View, query: &dql::Query) -> std::result::Result<ViewShape, ShapeError> {
    let shape = ViewShape::from_json(
        view.filters.as_ref(),
        view.sort.as_ref(),
        view.group_by.as_ref(),
    )?;
    shape.check(&query.kind)?;
    Ok(shape)
}

/// `quire-view: true` (or the string `"true"`).
fn is_view(frontmatter: &Value) -> bool {
    match frontmatter.get("quire-view") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// A query result as markdown: a list for `LIST`, a table otherwise. Paths in the `File`
/// column become wiki links.
fn render(result: &QueryResult) -> String {
    if result.rows.is_empty() {
        return "_No results._\n".into();
    }
    let file_column = result.headers.iter().position(|h| h == "File");
    let cell = |i: usize, v: &Value| match (Some(i) == file_column, v) {
        (true, Value::String(path)) => wiki_link(path),
        _ => cell_text(v),
    };
    let mut out = String::new();
    if result.mode == "LIST" {
        for row in &result.rows {
            let cells: Vec<String> = row.iter().enumerate().map(|(i, v)| cell(i, v)).collect();
            out.push_str("- ");
            out.push_str(&cells.join(": "));
            out.push('\n');
        }
        return out;
    }
    let headers: Vec<String> = result.headers.iter().map(|h| escape_cell(h)).collect();
    out.push_str(&format!("| {} |\n", headers.join(" | ")));
    out.push_str(&format!("|{}\n", " --- |".repeat(headers.len().max(1))));
    for row in &result.rows {
        let cells: Vec<String> = row.iter().enumerate().map(|(i, v)| cell(i, v)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// `notes/a.md` → `[[notes/a]]`: the root-relative form resolves exactly.
fn wiki_link(path: &str) -> String {
    let target = path.strip_suffix(".md").unwrap_or(path);
    format!("[[{}]]", escape_cell(target))
}

fn cell_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => escape_cell(s),
        Value::Array(items) => items.iter().map(cell_text).collect::<Vec<_>>().join(", "),
        Value::Object(_) => escape_cell(&value.to_string()),
        other => other.to_string(),
    }
}

/// One table cell: pipes escaped, line breaks folded.
fn escape_cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

fn one_line(text: &str) -> String {
    text.split(['\r', '\n'])
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refreshes_are_spaced_by_their_cost() {
        assert_eq!(gathering_after(Duration::from_millis(1)), DEBOUNCE);
        assert_eq!(
            gathering_after(Duration::from_millis(30)),
            Duration::from_millis(120)
        );
        assert_eq!(gathering_after(Duration::from_secs(60)), GATHER_MAX);
    }

    #[test]
    fn names_are_checked() {
        for ok in ["a", "my-view_2", &"x".repeat(64)] {
            assert!(VIEWS.path(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a b", "../x", "a.json", &"x".repeat(65), "é"] {
            assert!(VIEWS.path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tables_link_files_and_escape_pipes() {
        let result = QueryResult {
            mode: "TABLE".into(),
            headers: vec!["File".into(), "status".into()],
            rows: vec![vec![
                Value::String("notes/a.md".into()),
                Value::String("a|b\nc".into()),
            ]],
        };
        assert_eq!(
            render(&result),
            "| File | status |\n| --- | --- |\n| [[notes/a]] | a\\|b c |\n"
        );
    }

    #[test]
    fn lists_are_bullets() {
        let result = QueryResult {
            mode: "LIST".into(),
            headers: vec!["File".into()],
            rows: vec![vec![Value::String("a.md".into())]],
        };
        assert_eq!(render(&result), "- [[a]]\n");
    }

    #[test]
    fn empty_results_say_so() {
        let result = QueryResult {
            mode: "TABLE".into(),
            headers: vec!["File".into()],
            rows: vec![],
        };
        assert_eq!(render(&result), "_No results._\n");
    }
}
