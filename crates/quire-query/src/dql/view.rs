//! A saved view's `filters`, `sort` and `group_by`: read from the JSON a client stored, checked
//! once (at save time), and applied to the rows of the view's DQL query by
//! [`execute_view`](super::execute_view).
//!
//! Every field named below is an expression of the expression language, usually a bare name
//! (`status`, `file.mtime`); a name that equals a result column's header (`File`, an `AS`
//! name) reads that column first.
//!
//! * `filters` (all must hold): a string (an expression, as in `WHERE`); an object
//!   `{"field": value, …}` where a scalar means `=`, a list means "one of" and an object maps
//!   operators to values (`{"priority": {">=": 2, "<": 5}}`); or a list of strings and
//!   `{"field", "op", "value"}` objects. Operators: `=` (`==`, `eq`, `is`), `!=` (`<>`, `ne`,
//!   `is not`), `<` (`lt`), `<=` (`le`, `lte`), `>` (`gt`), `>=` (`ge`, `gte`), `in`, `not
//!   in`, `contains`, `not contains`, `empty`, `not empty` (no `value`; empty is null, `""` or
//!   `[]`). A missing `op` is `=`.
//! * `sort` (first key first): a string `"field"`, `"field desc"` or `"-field"`; an object
//!   `{"field", "dir"}` (`field` may be spelt `id` or `column`; the direction `dir`,
//!   `direction` or `order` is `asc` or `desc`, or `"desc": true`); or a list of these.
//! * `group_by`: a string `"field"` or `{"field"}`; `null` or `""` for none.
//!
//! They apply to the query's result rows, in that order: filters, then sort (stable, so the
//! query's own order breaks ties), then grouping (groups in ascending key order, as DQL
//! `GROUP BY` orders them; each group's rows stay together in sort order).

use serde_json::Value as Json;

use super::{QueryKind, SortKey, SortOrder};
use crate::expr::parser::node_of;
use crate::expr::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::value::Value;

/// A stored view shape that cannot be used, with a sentence saying why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// A view's filters, sort keys and grouping, ready to run.
#[derive(Debug, Clone, Default)]
pub struct ViewShape {
    /// Conditions every row must meet.
    pub filters: Vec<Expr>,
    pub sort: Vec<SortKey>,
    pub group_by: Option<Expr>,
}

impl ViewShape {
    /// Reads the three settings as a view stores them (each may be absent).
    pub fn from_json(
        filters: Option<&Json>,
        sort: Option<&Json>,
        group_by: Option<&Json>,
    ) -> Result<ViewShape, ShapeError> {
        Ok(ViewShape {
            filters: read_filters(filters)?,
            sort: read_sort(sort)?,
            group_by: read_group_by(group_by)?,
        })
    }

    /// Whether nothing is to be done.
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty() && self.sort.is_empty() && self.group_by.is_none()
    }

    /// Checks the shape against the kind of query it applies to: a `COUNT` or `DISTINCT`
    /// result has no page rows to sort or group.
    pub fn check(&self, kind: &QueryKind) -> Result<(), ShapeError> {
        let what = match kind {
            QueryKind::Count => "COUNT",
            QueryKind::Distinct { .. } => "DISTINCT",
            _ => return Ok(()),
        };
        if !self.sort.is_empty() || self.group_by.is_some() {
            return Err(ShapeError(format!(
                "a {what} query has no rows to sort or group: remove `sort` and `group_by`, \
                 or use TABLE or LIST (`filters` apply before counting)"
            )));
        }
        Ok(())
    }
}

fn shape_error(message: impl Into<String>) -> ShapeError {
    ShapeError(message.into())
}

/// Parses a field expression; `what` names where it came from for the message.
fn field_expr(text: &str, what: &str) -> Result<Expr, ShapeError> {
    if text.trim().is_empty() {
        return Err(shape_error(format!("{what} is empty: name a field")));
    }
    crate::expr::parse(text).map_err(|e| {
        shape_error(format!(
            "{what} {text:?} is not a field or expression (at {}: {})",
            e.position, e.message
        ))
    })
}

/// A node built here (no source text): spans are empty.
fn node(kind: ExprKind) -> Result<Expr, ShapeError> {
    node_of(0, 0, kind).map_err(|e| shape_error(e.message))
}

fn literal(value: &Json) -> Result<Expr, ShapeError> {
    node(ExprKind::Literal(Value::from_json(value)))
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Result<Expr, ShapeError> {
    node(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)))
}

fn not(operand: Expr) -> Result<Expr, ShapeError> {
    node(ExprKind::Unary(UnaryOp::Not, Box::new(operand)))
}

fn read_filters(json: Option<&Json>) -> Result<Vec<Expr>, ShapeError> {
    let mut out = Vec::new();
    match json {
        None | Some(Json::Null) => {}
        Some(Json::String(text)) => {
            if !text.trim().is_empty() {
                out.push(field_expr(text, "`filters`")?);
            }
        }
        Some(Json::Object(map)) => {
            for (field, value) in map {
                let what = format!("`filters.{field}`");
                let lhs = field_expr(field, "a field of `filters`")?;
                out.push(shorthand(lhs, value, &what)?);
            }
        }
        Some(Json::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let what = format!("`filters[{i}]`");
                match item {
                    Json::String(text) => out.push(field_expr(text, &what)?),
                    Json::Object(map) => out.push(condition(map, &what)?),
                    other => {
                        return Err(shape_error(format!(
                            "{what} is {}: each filter is an expression (a string) or an \
                             object {{\"field\", \"op\", \"value\"}}",
                            json_kind(other)
                        )))
                    }
                }
            }
        }
        Some(other) => {
            return Err(shape_error(format!(
                "`filters` is {}: use an expression (a string), an object {{\"field\": \
                 value}} or a list of {{\"field\", \"op\", \"value\"}}",
                json_kind(other)
            )))
        }
    }
    Ok(out)
}

/// `{"field": value}`: a scalar is `=`, a list "one of", an object `{op: value, …}`.
fn shorthand(lhs: Expr, value: &Json, what: &str) -> Result<Expr, ShapeError> {
    match value {
        Json::Array(_) => binary(BinaryOp::In, lhs, literal(value)?),
        Json::Object(ops) => {
            if ops.is_empty() {
                return Err(shape_error(format!(
                    "{what} is an empty object: give operators and values, e.g. {{\">=\": 2}}"
                )));
            }
            let mut all: Option<Expr> = None;
            for (op, operand) in ops {
                let one = compare(lhs.clone(), op, Some(operand), what)?;
                all = Some(match all {
                    None => one,
                    Some(prev) => binary(BinaryOp::And, prev, one)?,
                });
            }
            Ok(all.expect("at least one operator"))
        }
        scalar => binary(BinaryOp::Eq, lhs, literal(scalar)?),
    }
}

/// `{"field", "op", "value"}`.
fn condition(map: &serde_json::Map<String, Json>, what: &str) -> Result<Expr, ShapeError> {
    let field = match map.get("field") {
        Some(Json::String(field)) => field,
        Some(other) => {
            return Err(shape_error(format!(
                "{what}.field is {}: it names a field (a string)",
                json_kind(other)
            )))
        }
        None => {
            return Err(shape_error(format!(
                "{what} has no `field`: a filter object is {{\"field\", \"op\", \"value\"}}"
            )))
        }
    };
    let lhs = field_expr(field, &format!("{what}.field"))?;
    let op = match map.get("op") {
        None | Some(Json::Null) => "=",
        Some(Json::String(op)) => op.as_str(),
        Some(other) => {
            return Err(shape_error(format!(
                "{what}.op is {}: it is an operator such as \"=\" or \"contains\"",
                json_kind(other)
            )))
        }
    };
    compare(lhs, op, map.get("value"), what)
}

/// One condition `lhs op value`.
fn compare(lhs: Expr, op: &str, value: Option<&Json>, what: &str) -> Result<Expr, ShapeError> {
    let folded = op.trim().to_lowercase();
    let folded = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    let binary_op = match folded.as_str() {
        "=" | "==" | "eq" | "is" => Some((BinaryOp::Eq, false)),
        "!=" | "<>" | "ne" | "is not" => Some((BinaryOp::NotEq, false)),
        "<" | "lt" => Some((BinaryOp::Lt, false)),
        "<=" | "le" | "lte" => Some((BinaryOp::Le, false)),
        ">" | "gt" => Some((BinaryOp::Gt, false)),
        ">=" | "ge" | "gte" => Some((BinaryOp::Ge, false)),
        "in" => Some((BinaryOp::In, false)),
        "not in" => Some((BinaryOp::NotIn, false)),
        // `value in field`: an element of a list, a substring, a key.
        "contains" => Some((BinaryOp::In, true)),
        "not contains" => Some((BinaryOp::NotIn, true)),
        _ => None,
    };
    if let Some((op, swapped)) = binary_op {
        let Some(value) = value else {
            return Err(shape_error(format!(
                "{what} has no `value` to compare with ({folded:?} needs one)"
            )));
        };
        let rhs = literal(value)?;
        if matches!(op, BinaryOp::In | BinaryOp::NotIn) && !swapped && !value.is_array() {
            return Err(shape_error(format!(
                "{what}: {folded:?} needs a list `value`, e.g. [\"a\", \"b\"]"
            )));
        }
        return if swapped {
            binary(op, rhs, lhs)
        } else {
            binary(op, lhs, rhs)
        };
    }
    match folded.as_str() {
        "empty" | "is empty" => empty(lhs),
        "not empty" | "is not empty" | "exists" => not(empty(lhs)?),
        _ => Err(shape_error(format!(
            "{what}: unknown operator {op:?}; use =, !=, <, <=, >, >=, in, not in, contains, \
             not contains, empty or not empty"
        ))),
    }
}

/// `lhs = null or lhs = "" or lhs = []`.
fn empty(lhs: Expr) -> Result<Expr, ShapeError> {
    let null = binary(BinaryOp::Eq, lhs.clone(), literal(&Json::Null)?)?;
    let blank = binary(
        BinaryOp::Eq,
        lhs.clone(),
        literal(&Json::String(String::new()))?,
    )?;
    let none = binary(BinaryOp::Eq, lhs, literal(&Json::Array(Vec::new()))?)?;
    binary(BinaryOp::Or, binary(BinaryOp::Or, null, blank)?, none)
}

fn read_sort(json: Option<&Json>) -> Result<Vec<SortKey>, ShapeError> {
    match json {
        None | Some(Json::Null) => Ok(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| sort_key(item, &format!("`sort[{i}]`")))
            .collect(),
        Some(Json::String(text)) if text.trim().is_empty() => Ok(Vec::new()),
        Some(item) => Ok(vec![sort_key(item, "`sort`")?]),
    }
}

fn sort_key(json: &Json, what: &str) -> Result<SortKey, ShapeError> {
    match json {
        Json::String(text) => sort_text(text, what),
        Json::Object(map) => {
            let field = named_field(map, what)?;
            let expr = field_expr(field, &format!("{what}.field"))?;
            let direction = ["dir", "direction", "order"]
                .iter()
                .find_map(|k| map.get(*k).map(|v| (*k, v)));
            let order = match (direction, map.get("desc")) {
                (Some((key, Json::String(dir))), _) => direction_of(dir).ok_or_else(|| {
                    shape_error(format!("{what}.{key} is {dir:?}: use \"asc\" or \"desc\""))
                })?,
                (Some((key, other)), _) => {
                    return Err(shape_error(format!(
                        "{what}.{key} is {}: use \"asc\" or \"desc\"",
                        json_kind(other)
                    )))
                }
                (None, Some(Json::Bool(true))) => SortOrder::Desc,
                (None, Some(Json::Bool(false)) | None) => SortOrder::Asc,
                (None, Some(other)) => {
                    return Err(shape_error(format!(
                        "{what}.desc is {}: use true or false",
                        json_kind(other)
                    )))
                }
            };
            Ok(SortKey { expr, order })
        }
        other => Err(shape_error(format!(
            "{what} is {}: a sort key is \"field\", \"field desc\", \"-field\" or \
             {{\"field\", \"dir\"}}",
            json_kind(other)
        ))),
    }
}

/// `"field"`, `"field desc"`, `"field asc"`, `"-field"`.
fn sort_text(text: &str, what: &str) -> Result<SortKey, ShapeError> {
    let text = text.trim();
    if let Some(field) = text.strip_prefix('-') {
        return Ok(SortKey {
            expr: field_expr(field, what)?,
            order: SortOrder::Desc,
        });
    }
    if let Some((field, last)) = text.rsplit_once(char::is_whitespace) {
        if let Some(order) = direction_of(last) {
            return Ok(SortKey {
                expr: field_expr(field, what)?,
                order,
            });
        }
    }
    Ok(SortKey {
        expr: field_expr(text, what)?,
        order: SortOrder::Asc,
    })
}

fn direction_of(word: &str) -> Option<SortOrder> {
    match word.trim().to_lowercase().as_str() {
        "asc" | "ascending" => Some(SortOrder::Asc),
        "desc" | "descending" => Some(SortOrder::Desc),
        _ => None,
    }
}

/// `field`, or the same spelt `id` or `column`.
fn named_field<'a>(
    map: &'a serde_json::Map<String, Json>,
    what: &str,
) -> Result<&'a str, ShapeError> {
    for key in ["field", "id", "column"] {
        match map.get(key) {
            Some(Json::String(field)) => return Ok(field),
            Some(other) => {
                return Err(shape_error(format!(
                    "{what}.{key} is {}: it names a field (a string)",
                    json_kind(other)
                )))
            }
            None => {}
        }
    }
    Err(shape_error(format!("{what} has no `field`")))
}

fn read_group_by(json: Option<&Json>) -> Result<Option<Expr>, ShapeError> {
    match json {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Json::String(text)) => Ok(Some(field_expr(text, "`group_by`")?)),
        Some(Json::Object(map)) => {
            let field = named_field(map, "`group_by`")?;
            Ok(Some(field_expr(field, "`group_by.field`")?))
        }
        Some(other) => Err(shape_error(format!(
            "`group_by` is {}: it names one field, as \"field\" or {{\"field\"}}",
            json_kind(other)
        ))),
    }
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}
