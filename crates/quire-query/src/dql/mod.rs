//! DQL, the Dataview-style query language of `/query`, and the aggregation of
//! `/query/aggregate`.
//!
//! ```text
//! TABLE [WITHOUT ID] expr [AS "name"], …  |  LIST [expr]  |  COUNT  |  DISTINCT expr
//! then, in any order and repeatable:
//!   FROM source   WHERE expr   SORT expr [ASC|DESC], …   GROUP BY expr [AS name]
//!   FLATTEN expr [AS name]   LIMIT n
//! ```
//! Keywords are case-insensitive. Every `FROM` narrows the pages before anything else runs
//! (several `FROM`s intersect); the other clauses run in the order written, so a `WHERE`
//! after `GROUP BY` filters groups. Sources: `"folder"` (a path prefix at folder boundaries,
//! or one page's path), `#tag` (nested `#tag/sub` included), `[[page]]` (pages linking to
//! it), `outgoing([[page]])` (pages it links to), combined with `and`, `or`, `-`/`!`/`not`
//! and parentheses.
//!
//! Variables for a page row: `file.name` (file name without `.md`), `file.path`,
//! `file.folder`, `file.link`, `file.tags` (with `#` and parent tags), `file.etags` (as
//! written, with `#`), `file.inlinks`, `file.outlinks`, `file.size`, `file.ctime`,
//! `file.mtime`, `file.day` (a `YYYY-MM-DD` in the file name), `file.words`; `title`,
//! `path`, `tags` (without `#`); `fm` (all frontmatter) and every other bare name reads
//! frontmatter (`review_by` also finds `review-by`), except the names of the catalog's
//! computed fields ([`ComputedField`]), which compute. `FLATTEN x AS n` binds `n` (without
//! `AS`, the flattened path itself). After `GROUP BY`: `key` (and the `AS` name) and `rows`,
//! where `rows.field` lists that field over the group's rows.
//!
//! Results ([`QueryResult`]):
//! * `TABLE`: the first column is the page path, header `File` (the group key, header
//!   `key` or the `AS` name, after `GROUP BY`), unless `WITHOUT ID`; then one column per
//!   field, headed by its `AS` name or its source text.
//! * `LIST`: `File` and, with an expression, a second column headed by its text.
//! * `COUNT`: one row, header `count`, the number of result rows.
//! * `DISTINCT expr`: one row per distinct value of `expr` over the result rows, in order
//!   of first appearance, with the number of rows having it: headers `[expr text, "count"]`.
//!   List values count each item (so `DISTINCT file.tags` lists tags); nulls are skipped.

mod aggregate;
mod exec;
mod parser;
mod print;
pub mod view;

use std::time::Duration;

use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use crate::expr::{Error, EvalContext, Expr};

pub use aggregate::{aggregate, AggregateError, Calc, CalcFunc};
pub use exec::{execute, execute_view, page_lookup, GroupSpan, ViewOutput};
pub use parser::parse_query;
pub use view::{ShapeError, ViewShape};

/// A page as the caller's index knows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageData {
    /// Root-relative path with `/`, including `.md`.
    pub path: String,
    pub title: String,
    /// Tags with or without a leading `#`.
    pub tags: Vec<String>,
    /// The frontmatter as JSON (an object, or null when there is none).
    pub frontmatter: serde_json::Value,
    /// Resolved target paths of the page's links.
    pub outlinks: Vec<String>,
    /// Paths of the pages linking here.
    pub inlinks: Vec<String>,
    pub size: u64,
    pub ctime: Option<DateTime<FixedOffset>>,
    pub mtime: Option<DateTime<FixedOffset>>,
    pub word_count: u32,
}

/// The pages a query runs over; implemented by the service over its index.
pub trait Catalog {
    fn pages(&self) -> &[PageData];
    /// Resolves `[[text]]` to a page path the way the vault does.
    fn resolve_link(&self, text: &str) -> Option<String>;
    /// Fields computed for every page (`[dataview] computed_fields`); none by default.
    fn computed(&self) -> &[ComputedField] {
        &[]
    }
}

/// A field every page has, computed by an expression over the page's own fields
/// (`[dataview] computed_fields`: `name = "expression"`).
///
/// A query reads it by name like a frontmatter key, and it wins over a frontmatter key of the
/// same name; `FLATTEN` and `GROUP BY` names win over it. Its expression sees the page's
/// fields but no computed field (so `priority = "default(priority, 3)"` reads the
/// frontmatter's `priority`, and computed fields cannot form cycles). On a page where the
/// expression fails (a type error) it is null.
#[derive(Debug, Clone)]
pub struct ComputedField {
    pub name: String,
    pub expr: Expr,
}

/// Names a computed field cannot take: the row variables DQL gives a meaning.
const RESERVED: [&str; 8] = ["file", "fm", "title", "path", "tags", "rows", "key", "now"];

impl ComputedField {
    /// Checks a name and parses an expression; the error is a sentence naming the field.
    pub fn new(name: &str, expr: &str) -> Result<ComputedField, String> {
        let mut chars = name.chars();
        let identifier = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && chars.all(|c| c.is_alphanumeric() || c == '_');
        if !identifier {
            return Err(format!(
                "{name:?} is not a field name: letters, digits and '_', not starting with a digit"
            ));
        }
        if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "{name:?} is a name DQL gives a meaning already ({}); choose another",
                RESERVED.join(", ")
            ));
        }
        let expr = crate::expr::parse(expr).map_err(|e| {
            format!(
                "{name}: invalid expression at {}: {} (in {expr:?})",
                e.position, e.message
            )
        })?;
        Ok(ComputedField {
            name: name.to_owned(),
            expr,
        })
    }
}

/// `[dataview]` limits of one query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecLimits {
    /// Most rows a query may process: pages passing `FROM` plus rows added by `FLATTEN`.
    pub max_scan_rows: usize,
    /// Wall-clock budget; checked every few hundred rows.
    pub timeout: Duration,
}

impl Default for ExecLimits {
    fn default() -> Self {
        ExecLimits {
            max_scan_rows: 100_000,
            timeout: Duration::from_secs(5),
        }
    }
}

/// Why a query failed. The cases stay apart so HTTP can map them (syntax and evaluation
/// errors are the caller's, limits are 422/503-like).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("syntax error at {position}: {message}")]
    Syntax { position: usize, message: String },
    #[error("evaluation error at {position}: {message}")]
    Eval { position: usize, message: String },
    #[error("query scans more than {limit} rows")]
    TooManyRows { limit: usize },
    #[error("query ran longer than {ms} ms")]
    Timeout { ms: u64 },
}

impl QueryError {
    pub(crate) fn syntax(e: Error) -> QueryError {
        QueryError::Syntax {
            position: e.position,
            message: e.message,
        }
    }

    pub(crate) fn eval(e: Error) -> QueryError {
        QueryError::Eval {
            position: e.position,
            message: e.message,
        }
    }
}

/// A parsed query.
#[derive(Debug, Clone)]
pub struct Query {
    pub kind: QueryKind,
    pub clauses: Vec<Clause>,
}

#[derive(Debug, Clone)]
pub enum QueryKind {
    Table { id: IdColumn, fields: Vec<Field> },
    List { expr: Option<Field> },
    Count,
    Distinct { expr: Field },
}

/// Whether a `TABLE` starts with the page (or group key) column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdColumn {
    Shown,
    /// `WITHOUT ID`.
    Hidden,
}

/// An output expression and its header.
#[derive(Debug, Clone)]
pub struct Field {
    pub expr: Expr,
    /// The `AS` name, else the expression's source text.
    pub header: String,
}

#[derive(Debug, Clone)]
pub enum Clause {
    From(Source),
    Where(Expr),
    Sort(Vec<SortKey>),
    GroupBy { expr: Expr, name: Option<String> },
    Flatten { expr: Expr, name: String },
    Limit(usize),
}

#[derive(Debug, Clone)]
pub struct SortKey {
    pub expr: Expr,
    pub order: SortOrder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    Asc,
    Desc,
}

/// A `FROM` source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `"folder"`: a folder prefix or a page path.
    Folder(String),
    /// `#tag`, without `#`.
    Tag(String),
    /// `[[page]]`: pages linking to the page.
    LinksTo(String),
    /// `outgoing([[page]])`: pages the page links to.
    LinkedFrom(String),
    And(Box<Source>, Box<Source>),
    Or(Box<Source>, Box<Source>),
    Not(Box<Source>),
}

/// The query type, serialised as `"TABLE"`, `"LIST"`, `"COUNT"`, `"DISTINCT"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum QueryMode {
    Table,
    List,
    Count,
    Distinct,
}

/// The `/query` response body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    pub mode: QueryMode,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// Parses and executes `src` in one step.
pub fn run(
    src: &str,
    catalog: &dyn Catalog,
    limits: &ExecLimits,
    ctx: &EvalContext,
) -> Result<QueryResult, QueryError> {
    execute(&parse_query(src)?, catalog, limits, ctx)
}
