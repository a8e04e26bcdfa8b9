//! Runs a parsed [`Query`] over a [`Catalog`]: `FROM` selection, the clauses in order, and
//! the result table, within [`ExecLimits`].

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use super::view::ViewShape;
use super::{
    Catalog, Clause, ExecLimits, IdColumn, PageData, Query, QueryError, QueryKind, QueryMode,
    QueryResult, SortKey, SortOrder, Source,
};
use crate::expr::{EvalContext, Expr, Scope};
use crate::value::{parse_date, Value};

/// How many rows pass between two looks at the clock.
const CLOCK_EVERY: u32 = 256;

/// Executes `query`. `ctx.now` is pinned once for the whole query (the system clock when
/// the caller gave none), so every row sees the same `now`.
pub fn execute(
    query: &Query,
    catalog: &dyn Catalog,
    limits: &ExecLimits,
    ctx: &EvalContext,
) -> Result<QueryResult, QueryError> {
    execute_view(query, &ViewShape::default(), catalog, limits, ctx).map(|out| out.result)
}

/// The result of a query run with a view's shape: the rows, and with `group_by` the groups
/// they fall in.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOutput {
    pub result: QueryResult,
    /// With `group_by`: every group in order, each covering the next `rows` result rows.
    pub groups: Vec<GroupSpan>,
}

/// A run of result rows sharing a `group_by` key.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSpan {
    pub key: serde_json::Value,
    pub rows: usize,
}

/// Executes `query`, then applies a saved view's filters, sort and grouping to its result rows
/// (see [`super::view`]). `COUNT` and `DISTINCT` take the filters before counting.
pub fn execute_view(
    query: &Query,
    shape: &ViewShape,
    catalog: &dyn Catalog,
    limits: &ExecLimits,
    ctx: &EvalContext,
) -> Result<ViewOutput, QueryError> {
    shape.check(&query.kind).map_err(|e| QueryError::Eval {
        position: 0,
        message: e.0,
    })?;
    let ctx = EvalContext::at(ctx.now());
    let mut budget = Budget::new(limits);
    let run = Run { catalog, ctx: &ctx };
    let (rows, group_name) = run.select(query, &mut budget)?;

    let id_header = group_name.unwrap_or_else(|| "File".to_owned());
    let (id, fields) = match &query.kind {
        QueryKind::Table { id, fields } => (*id, fields.iter().collect::<Vec<_>>()),
        QueryKind::List { expr } => (IdColumn::Shown, expr.iter().collect()),
        QueryKind::Count | QueryKind::Distinct { .. } => {
            let mut kept = Vec::with_capacity(rows.len());
            for row in rows {
                budget.tick()?;
                if run.holds(&shape.filters, &row, &[], &[])? {
                    kept.push(row);
                }
            }
            return Ok(ViewOutput {
                result: run.aggregate(&query.kind, &kept, &mut budget)?,
                groups: Vec::new(),
            });
        }
    };
    let mut headers = Vec::new();
    if id == IdColumn::Shown {
        headers.push(id_header);
    }
    headers.extend(fields.iter().map(|f| f.header.clone()));
    let mut table = Vec::with_capacity(rows.len());
    for row in rows {
        budget.tick()?;
        let mut cells = Vec::with_capacity(headers.len());
        if id == IdColumn::Shown {
            cells.push(row.id());
        }
        for field in &fields {
            cells.push(run.eval(&field.expr, &row)?);
        }
        if run.holds(&shape.filters, &row, &headers, &cells)? {
            table.push((row, cells));
        }
    }
    let eval =
        |expr: &Expr, (row, cells): &(Row, Vec<Value>)| run.eval_in(expr, row, &headers, cells);
    if !shape.sort.is_empty() {
        table = sort_by_keys(table, &shape.sort, None, &mut budget, eval)?;
    }
    let mut groups = Vec::new();
    if let Some(key) = &shape.group_by {
        let mut keyed = Vec::with_capacity(table.len());
        for item in table {
            budget.tick()?;
            keyed.push((eval(key, &item)?, item));
        }
        // Stable: rows keep the sort order within their group.
        keyed.sort_by(|a, b| a.0.sort_cmp(&b.0));
        table = Vec::with_capacity(keyed.len());
        for (key, item) in keyed {
            match groups.last_mut() {
                Some((k, n)) if Value::sort_cmp(k, &key).is_eq() => *n += 1,
                _ => groups.push((key, 1)),
            }
            table.push(item);
        }
    }
    Ok(ViewOutput {
        result: QueryResult {
            mode: match query.kind {
                QueryKind::List { .. } => QueryMode::List,
                _ => QueryMode::Table,
            },
            headers,
            rows: table
                .into_iter()
                .map(|(_, cells)| cells.iter().map(Value::to_json).collect())
                .collect(),
        },
        groups: groups
            .into_iter()
            .map(|(key, rows)| GroupSpan {
                key: key.to_json(),
                rows,
            })
            .collect(),
    })
}

/// Counts rows and looks at the clock every [`CLOCK_EVERY`] steps.
struct Budget {
    start: Instant,
    limits: ExecLimits,
    rows: usize,
    steps: u32,
}

impl Budget {
    fn new(limits: &ExecLimits) -> Budget {
        Budget {
            start: Instant::now(),
            limits: *limits,
            rows: 0,
            steps: 0,
        }
    }

    fn tick(&mut self) -> Result<(), QueryError> {
        self.steps = self.steps.wrapping_add(1);
        if self.steps.is_multiple_of(CLOCK_EVERY) && self.start.elapsed() > self.limits.timeout {
            return Err(QueryError::Timeout {
                ms: self.limits.timeout.as_millis() as u64,
            });
        }
        Ok(())
    }

    fn add_rows(&mut self, n: usize) -> Result<(), QueryError> {
        self.rows = self.rows.saturating_add(n);
        if self.rows > self.limits.max_scan_rows {
            return Err(QueryError::TooManyRows {
                limit: self.limits.max_scan_rows,
            });
        }
        Ok(())
    }
}

/// A page row, or a group row after `GROUP BY`.
#[derive(Debug, Clone)]
struct Row<'a> {
    page: Option<&'a PageData>,
    /// `FLATTEN` names, `key` and the group's `AS` name, by dotted path.
    bindings: Vec<(String, Value)>,
    group: Option<Vec<Row<'a>>>,
}

impl<'a> Row<'a> {
    fn page(page: &'a PageData) -> Row<'a> {
        Row {
            page: Some(page),
            bindings: Vec::new(),
            group: None,
        }
    }

    fn with_binding(&self, name: &str, value: Value) -> Row<'a> {
        let mut row = self.clone();
        row.bindings.retain(|(n, _)| n != name);
        row.bindings.push((name.to_owned(), value));
        row
    }

    /// The first column: the page path, or the group key.
    fn id(&self) -> Value {
        match self.page {
            Some(page) => Value::String(page.path.clone()),
            None => self
                .bindings
                .iter()
                .find(|(n, _)| n == "key")
                .map(|(_, v)| v.clone())
                .unwrap_or(Value::Null),
        }
    }
}

struct Run<'c> {
    catalog: &'c dyn Catalog,
    ctx: &'c EvalContext,
}

impl<'c> Run<'c> {
    fn eval(&self, expr: &Expr, row: &Row) -> Result<Value, QueryError> {
        let scope = RowScope {
            row,
            catalog: self.catalog,
            ctx: self.ctx,
            computed: true,
        };
        expr.eval(&scope, self.ctx).map_err(QueryError::eval)
    }

    /// The rows of a query: the pages passing every `FROM`, then the other clauses in the
    /// order written. Also the name of the group key column after a `GROUP BY`.
    fn select(
        &self,
        query: &Query,
        budget: &mut Budget,
    ) -> Result<(Vec<Row<'c>>, Option<String>), QueryError> {
        let catalog: &'c dyn Catalog = self.catalog;
        let matchers: Vec<Matcher> = query
            .clauses
            .iter()
            .filter_map(|clause| match clause {
                Clause::From(source) => Some(Matcher::new(source, catalog)),
                _ => None,
            })
            .collect();
        let mut rows = Vec::new();
        for page in catalog.pages() {
            budget.tick()?;
            if matchers.iter().all(|m| m.matches(page)) {
                budget.add_rows(1)?;
                rows.push(Row::page(page));
            }
        }

        let mut group_name: Option<String> = None;
        let mut clauses = query.clauses.iter().peekable();
        while let Some(clause) = clauses.next() {
            match clause {
                Clause::From(_) => {}
                Clause::Where(expr) => {
                    let mut kept = Vec::with_capacity(rows.len());
                    for row in rows {
                        budget.tick()?;
                        if self.eval(expr, &row)?.truthy() {
                            kept.push(row);
                        }
                    }
                    rows = kept;
                }
                Clause::Sort(keys) => {
                    let limit = match clauses.peek() {
                        Some(Clause::Limit(n)) => Some(*n),
                        _ => None,
                    };
                    rows =
                        sort_by_keys(rows, keys, limit, budget, |expr, row| self.eval(expr, row))?;
                }
                Clause::GroupBy { expr, name } => {
                    rows = self.group(rows, expr, name.as_deref(), budget)?;
                    group_name = Some(name.clone().unwrap_or_else(|| "key".to_owned()));
                }
                Clause::Flatten { expr, name } => {
                    let mut out = Vec::with_capacity(rows.len());
                    for row in rows {
                        budget.tick()?;
                        match self.eval(expr, &row)? {
                            Value::List(items) if !items.is_empty() => {
                                budget.add_rows(items.len() - 1)?;
                                for item in items {
                                    out.push(row.with_binding(name, item));
                                }
                            }
                            Value::List(_) => out.push(row.with_binding(name, Value::Null)),
                            value => out.push(row.with_binding(name, value)),
                        }
                    }
                    rows = out;
                }
                Clause::Limit(n) => rows.truncate(*n),
            }
        }
        Ok((rows, group_name))
    }

    /// The one-row `COUNT` result, or the `DISTINCT` table.
    fn aggregate(
        &self,
        kind: &QueryKind,
        rows: &[Row],
        budget: &mut Budget,
    ) -> Result<QueryResult, QueryError> {
        let QueryKind::Distinct { expr } = kind else {
            return Ok(QueryResult {
                mode: QueryMode::Count,
                headers: vec!["count".to_owned()],
                rows: vec![vec![serde_json::Value::from(rows.len())]],
            });
        };
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut distinct: Vec<(Value, usize)> = Vec::new();
        for row in rows {
            budget.tick()?;
            let values = match self.eval(&expr.expr, row)? {
                Value::List(items) => items,
                value => vec![value],
            };
            for value in values {
                if value == Value::Null {
                    continue;
                }
                let identity = format!("{}:{}", value.type_name(), value.to_json());
                match seen.get(&identity) {
                    Some(&i) => distinct[i].1 += 1,
                    None => {
                        seen.insert(identity, distinct.len());
                        distinct.push((value, 1));
                    }
                }
            }
        }
        Ok(QueryResult {
            mode: QueryMode::Distinct,
            headers: vec![expr.header.clone(), "count".to_owned()],
            rows: distinct
                .into_iter()
                .map(|(value, n)| vec![value.to_json(), serde_json::Value::from(n)])
                .collect(),
        })
    }

    /// `expr` over a result row whose columns (`headers`, `cells`) are known: a name equal to
    /// a header reads that column.
    fn eval_in(
        &self,
        expr: &Expr,
        row: &Row,
        headers: &[String],
        cells: &[Value],
    ) -> Result<Value, QueryError> {
        let scope = ColumnScope {
            headers,
            cells,
            row: RowScope {
                row,
                catalog: self.catalog,
                ctx: self.ctx,
                computed: true,
            },
        };
        expr.eval(&scope, self.ctx).map_err(QueryError::eval)
    }

    /// Whether every condition holds for a row.
    fn holds(
        &self,
        conditions: &[Expr],
        row: &Row,
        headers: &[String],
        cells: &[Value],
    ) -> Result<bool, QueryError> {
        for condition in conditions {
            if !self.eval_in(condition, row, headers, cells)?.truthy() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Groups rows by `expr`; groups come out sorted by key.
    fn group<'a>(
        &self,
        rows: Vec<Row<'a>>,
        expr: &Expr,
        name: Option<&str>,
        budget: &mut Budget,
    ) -> Result<Vec<Row<'a>>, QueryError> {
        let mut keyed = Vec::with_capacity(rows.len());
        for row in rows {
            budget.tick()?;
            keyed.push((self.eval(expr, &row)?, row));
        }
        keyed.sort_by(|a, b| a.0.sort_cmp(&b.0));
        let mut groups: Vec<Row<'a>> = Vec::new();
        let mut current: Option<(Value, Vec<Row<'a>>)> = None;
        let finish = |groups: &mut Vec<Row<'a>>, key: Value, members: Vec<Row<'a>>| {
            let mut bindings = vec![("key".to_owned(), key.clone())];
            if let Some(name) = name.filter(|n| *n != "key") {
                bindings.push((name.to_owned(), key));
            }
            groups.push(Row {
                page: None,
                bindings,
                group: Some(members),
            });
        };
        for (key, row) in keyed {
            match &mut current {
                Some((k, members)) if k.sort_cmp(&key).is_eq() => members.push(row),
                _ => {
                    if let Some((k, members)) = current.take() {
                        finish(&mut groups, k, members);
                    }
                    current = Some((key, vec![row]));
                }
            }
        }
        if let Some((k, members)) = current {
            finish(&mut groups, k, members);
        }
        Ok(groups)
    }
}

/// Stable multi-key sort of any rows, `eval` giving a key's value for a row; with a `limit`
/// only the first `limit` rows are fully ordered (and kept).
fn sort_by_keys<T>(
    items: Vec<T>,
    keys: &[SortKey],
    limit: Option<usize>,
    budget: &mut Budget,
    eval: impl Fn(&Expr, &T) -> Result<Value, QueryError>,
) -> Result<Vec<T>, QueryError> {
    let mut decorated = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        budget.tick()?;
        let values = keys
            .iter()
            .map(|key| eval(&key.expr, &item))
            .collect::<Result<Vec<_>, _>>()?;
        decorated.push((values, i, item));
    }
    let cmp = |a: &(Vec<Value>, usize, T), b: &(Vec<Value>, usize, T)| {
        for (key, (x, y)) in keys.iter().zip(a.0.iter().zip(&b.0)) {
            let ord = x.sort_cmp(y);
            let ord = match key.order {
                SortOrder::Asc => ord,
                SortOrder::Desc => ord.reverse(),
            };
            if ord.is_ne() {
                return ord;
            }
        }
        // The original position breaks ties, so the sort is stable.
        a.1.cmp(&b.1)
    };
    if let Some(n) = limit.filter(|&n| n < decorated.len()) {
        if n == 0 {
            return Ok(Vec::new());
        }
        decorated.select_nth_unstable_by(n - 1, cmp);
        decorated.truncate(n);
    }
    decorated.sort_unstable_by(cmp);
    Ok(decorated.into_iter().map(|(_, _, item)| item).collect())
}

/// A result row's columns by header, then the row's own variables.
struct ColumnScope<'r, 'a> {
    headers: &'r [String],
    cells: &'r [Value],
    row: RowScope<'r, 'a>,
}

impl Scope for ColumnScope<'_, '_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.lookup(&[name.to_owned()])
    }

    fn lookup(&self, path: &[String]) -> Option<Value> {
        if !self.headers.is_empty() {
            for k in (1..=path.len()).rev() {
                let name = path[..k].join(".");
                if let Some(i) = self.headers.iter().position(|h| *h == name) {
                    return Some(walk(self.cells.get(i)?.clone(), &path[k..]));
                }
            }
        }
        self.row.lookup(path)
    }

    fn resolve_link(&self, text: &str) -> Option<String> {
        self.row.resolve_link(text)
    }
}

/// The variables of one row.
struct RowScope<'r, 'a> {
    row: &'r Row<'a>,
    catalog: &'r dyn Catalog,
    ctx: &'r EvalContext,
    /// Whether the catalog's computed fields are visible (not inside one: no chains, no
    /// cycles).
    computed: bool,
}

impl Scope for RowScope<'_, '_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.lookup(&[name.to_owned()])
    }

    fn lookup(&self, path: &[String]) -> Option<Value> {
        let first = path.first()?;
        for k in (1..=path.len()).rev() {
            let prefix = &path[..k];
            if let Some((_, value)) = self
                .row
                .bindings
                .iter()
                .find(|(name, _)| name.split('.').eq(prefix.iter().map(String::as_str)))
            {
                return Some(walk(value.clone(), &path[k..]));
            }
        }
        if let Some(group) = &self.row.group {
            if first == "rows" {
                let items = group
                    .iter()
                    .map(|member| {
                        let scope = RowScope {
                            row: member,
                            catalog: self.catalog,
                            ctx: self.ctx,
                            computed: self.computed,
                        };
                        if path.len() == 1 {
                            scope.row_object()
                        } else {
                            scope.lookup(&path[1..]).unwrap_or(Value::Null)
                        }
                    })
                    .collect();
                return Some(Value::List(items));
            }
        }
        let page = self.row.page?;
        if self.computed {
            if let Some(field) = self.catalog.computed().iter().find(|f| f.name == *first) {
                let inner = RowScope {
                    computed: false,
                    ..*self
                };
                // A computed field that fails on a page (a type error) reads as null there.
                let value = field.expr.eval(&inner, self.ctx).unwrap_or(Value::Null);
                return Some(walk(value, &path[1..]));
            }
        }
        page_lookup(page, path)
    }

    fn resolve_link(&self, text: &str) -> Option<String> {
        self.catalog.resolve_link(text)
    }
}

impl RowScope<'_, '_> {
    /// A whole row as one object: frontmatter keys, `file`, and bindings.
    fn row_object(&self) -> Value {
        let mut object = match self.row.page {
            Some(page) => {
                let mut object = match Value::from_json(&page.frontmatter) {
                    Value::Object(map) => map,
                    _ => Default::default(),
                };
                object.insert("file".to_owned(), file_object(page));
                object
            }
            None => Default::default(),
        };
        for (name, value) in &self.row.bindings {
            object.insert(name.clone(), value.clone());
        }
        Value::Object(object)
    }
}

fn walk(mut value: Value, fields: &[String]) -> Value {
    for field in fields {
        value = crate::expr::member_of(&value, field);
    }
    value
}

/// Reads a variable path (`file.mtime`, `fm.status`, a bare frontmatter key, `title`…) of a
/// page the way DQL expressions see it.
pub fn page_lookup(page: &PageData, path: &[String]) -> Option<Value> {
    let (first, rest) = path.split_first()?;
    let value = match first.as_str() {
        "file" => match rest.split_first() {
            None => file_object(page),
            Some((field, rest)) => return Some(walk(file_field(page, field), rest)),
        },
        "fm" => match rest.split_first() {
            None => Value::from_json(&page.frontmatter),
            Some((key, rest)) => return Some(frontmatter(page, key, rest)),
        },
        "title" => Value::String(page.title.clone()),
        "path" => Value::String(page.path.clone()),
        "tags" => Value::List(
            page.tags
                .iter()
                .map(|t| Value::String(t.trim_start_matches('#').to_owned()))
                .collect(),
        ),
        key => return Some(frontmatter(page, key, rest)),
    };
    Some(walk(value, rest))
}

/// A frontmatter key (`review_by` also finds `review-by`), walking JSON before converting so
/// one field does not convert the whole object.
fn frontmatter(page: &PageData, key: &str, rest: &[String]) -> Value {
    let map = match page.frontmatter.as_object() {
        Some(map) => map,
        None => return Value::Null,
    };
    let found = map.get(key).or_else(|| {
        key.contains('_')
            .then(|| map.get(&key.replace('_', "-")))
            .flatten()
    });
    let Some(mut json) = found else {
        return Value::Null;
    };
    let mut rest = rest;
    while let Some((field, tail)) = rest.split_first() {
        match json.as_object() {
            Some(object) => match object.get(field) {
                Some(inner) => {
                    json = inner;
                    rest = tail;
                }
                None => return Value::Null,
            },
            None => break,
        }
    }
    walk(Value::from_json(json), rest)
}

fn file_object(page: &PageData) -> Value {
    const FIELDS: [&str; 14] = [
        "name", "path", "folder", "link", "tags", "etags", "inlinks", "outlinks", "size", "ctime",
        "mtime", "day", "words", "ext",
    ];
    Value::Object(
        FIELDS
            .iter()
            .map(|f| ((*f).to_owned(), file_field(page, f)))
            .collect(),
    )
}

fn file_field(page: &PageData, field: &str) -> Value {
    let links =
        |paths: &[String]| Value::List(paths.iter().map(|p| Value::Link(p.clone())).collect());
    let date = |d: Option<chrono::DateTime<chrono::FixedOffset>>| {
        d.map(Value::Date).unwrap_or(Value::Null)
    };
    match field {
        "name" => Value::String(stem(&page.path).to_owned()),
        "path" => Value::String(page.path.clone()),
        "folder" => Value::String(folder(&page.path).to_owned()),
        "link" => Value::Link(page.path.clone()),
        "ext" => Value::String(
            file_name(&page.path)
                .rsplit_once('.')
                .map(|(_, ext)| ext.to_owned())
                .unwrap_or_default(),
        ),
        "tags" => {
            let mut tags: Vec<String> = Vec::new();
            for tag in &page.tags {
                let tag = tag.trim_start_matches('#');
                // `#a/b` also yields its parent `#a`, as in Dataview.
                for (i, _) in tag.match_indices('/') {
                    push_unique(&mut tags, format!("#{}", &tag[..i]));
                }
                push_unique(&mut tags, format!("#{tag}"));
            }
            Value::List(tags.into_iter().map(Value::String).collect())
        }
        "etags" => Value::List(
            page.tags
                .iter()
                .map(|t| Value::String(format!("#{}", t.trim_start_matches('#'))))
                .collect(),
        ),
        "inlinks" => links(&page.inlinks),
        "outlinks" => links(&page.outlinks),
        "size" => Value::Number(page.size as f64),
        "ctime" => date(page.ctime),
        "mtime" => date(page.mtime),
        "day" => day_from_name(stem(&page.path)),
        "words" => Value::Number(page.word_count as f64),
        _ => Value::Null,
    }
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

fn stem(path: &str) -> &str {
    let name = file_name(path);
    name.strip_suffix(".md").unwrap_or(name)
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The first `YYYY-MM-DD` in a file name.
fn day_from_name(name: &str) -> Value {
    let bytes = name.as_bytes();
    for start in 0..bytes.len().saturating_sub(9) {
        if !bytes[start].is_ascii_digit()
            || !name.is_char_boundary(start)
            || !name.is_char_boundary(start + 10)
        {
            continue;
        }
        if let Some(date) = parse_date(&name[start..start + 10]) {
            return Value::Date(date);
        }
    }
    Value::Null
}

/// A `FROM` source with its links resolved once per query.
enum Matcher<'c> {
    Folder(String),
    Tag(String),
    LinksTo(String),
    LinkedFrom(HashSet<&'c str>),
    And(Box<Matcher<'c>>, Box<Matcher<'c>>),
    Or(Box<Matcher<'c>>, Box<Matcher<'c>>),
    Not(Box<Matcher<'c>>),
}

impl<'c> Matcher<'c> {
    fn new(source: &Source, catalog: &'c dyn Catalog) -> Matcher<'c> {
        let resolve = |text: &str| {
            catalog
                .resolve_link(text)
                .unwrap_or_else(|| text.to_owned())
        };
        match source {
            Source::Folder(folder) => Matcher::Folder(folder.trim_matches('/').to_owned()),
            Source::Tag(tag) => Matcher::Tag(tag.trim_start_matches('#').to_lowercase()),
            Source::LinksTo(text) => Matcher::LinksTo(resolve(text)),
            Source::LinkedFrom(text) => {
                let target = resolve(text);
                let outlinks = catalog
                    .pages()
                    .iter()
                    .find(|p| p.path == target)
                    .map(|p| p.outlinks.iter().map(String::as_str).collect())
                    .unwrap_or_default();
                Matcher::LinkedFrom(outlinks)
            }
            Source::And(a, b) => Matcher::And(
                Box::new(Matcher::new(a, catalog)),
                Box::new(Matcher::new(b, catalog)),
            ),
            Source::Or(a, b) => Matcher::Or(
                Box::new(Matcher::new(a, catalog)),
                Box::new(Matcher::new(b, catalog)),
            ),
            Source::Not(a) => Matcher::Not(Box::new(Matcher::new(a, catalog))),
        }
    }

    fn matches(&self, page: &PageData) -> bool {
        match self {
            Matcher::Folder(folder) => {
                folder.is_empty()
                    || page.path.strip_prefix(folder.as_str()).is_some_and(|rest| {
                        rest.is_empty() || rest == ".md" || rest.starts_with('/')
                    })
            }
            Matcher::Tag(tag) => page
                .tags
                .iter()
                .any(|t| tag_matches(t.trim_start_matches('#'), tag)),
            Matcher::LinksTo(target) => page.outlinks.iter().any(|l| l == target),
            Matcher::LinkedFrom(paths) => paths.contains(page.path.as_str()),
            Matcher::And(a, b) => a.matches(page) && b.matches(page),
            Matcher::Or(a, b) => a.matches(page) || b.matches(page),
            Matcher::Not(a) => !a.matches(page),
        }
    }
}

/// `tag` (lowercase) equals `t` or is one of its parents, ignoring case.
fn tag_matches(t: &str, tag: &str) -> bool {
    let lower;
    let t = if t.is_ascii() {
        t
    } else {
        lower = t.to_lowercase();
        &lower
    };
    let (t, tag) = (t.as_bytes(), tag.as_bytes());
    t.len() >= tag.len()
        && t[..tag.len()].eq_ignore_ascii_case(tag)
        && (t.len() == tag.len() || t[tag.len()] == b'/')
}
