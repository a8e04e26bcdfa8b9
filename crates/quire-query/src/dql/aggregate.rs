//! `/query/aggregate`: frontmatter grouped by one field with `count`, `avg`, `sum`, `min`
//! and `max` per group.

use std::fmt;

use serde_json::{Map, Value as Json};

use super::exec::page_lookup;
use super::Catalog;
use crate::value::Value;

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalcFunc {
    Count,
    Avg,
    Sum,
    Min,
    Max,
}

/// One calculation: `count`, `count:field` (pages where the field is set), `avg:field`, …
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Calc {
    pub func: CalcFunc,
    pub field: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AggregateError {
    #[error("unknown aggregate function '{name}' (use count, avg, sum, min, max)")]
    UnknownFunction { name: String },
    #[error("'{func}' needs a field, as in {func}:priority")]
    MissingField { func: String },
    #[error("the group field is empty")]
    EmptyGroupField,
}

impl Calc {
    /// Parses the `calc` parameter: `count,avg:priority,sum:hours`.
    pub fn parse_list(spec: &str) -> Result<Vec<Calc>, AggregateError> {
        spec.split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(Calc::parse)
            .collect()
    }

    /// Parses one `function` or `function:field`.
    pub fn parse(part: &str) -> Result<Calc, AggregateError> {
        let (name, field) = match part.split_once(':') {
            Some((name, field)) => (
                name.trim(),
                Some(field.trim().to_owned()).filter(|f| !f.is_empty()),
            ),
            None => (part.trim(), None),
        };
        let func = match name.to_ascii_lowercase().as_str() {
            "count" => CalcFunc::Count,
            "avg" => CalcFunc::Avg,
            "sum" => CalcFunc::Sum,
            "min" => CalcFunc::Min,
            "max" => CalcFunc::Max,
            _ => {
                return Err(AggregateError::UnknownFunction {
                    name: name.to_owned(),
                })
            }
        };
        if func != CalcFunc::Count && field.is_none() {
            return Err(AggregateError::MissingField {
                func: name.to_ascii_lowercase(),
            });
        }
        Ok(Calc { func, field })
    }

    /// The output key: `count`, or `<function>_<field>`.
    pub fn key(&self) -> String {
        match &self.field {
            None => self.func.to_string(),
            Some(field) => format!("{}_{field}", self.func),
        }
    }
}

impl fmt::Display for CalcFunc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CalcFunc::Count => "count",
            CalcFunc::Avg => "avg",
            CalcFunc::Sum => "sum",
            CalcFunc::Min => "min",
            CalcFunc::Max => "max",
        })
    }
}

/// Groups every page by `group_field` (a frontmatter key, or a path such as `file.folder`)
/// and computes `calcs` per group. Each row has the group field, `count` (always), and one
/// key per calc. Groups are sorted by value, pages without the field form the `null` group
/// first. `avg`/`sum` read numbers only; `min`/`max` any non-null value.
pub fn aggregate(
    catalog: &dyn Catalog,
    group_field: &str,
    calcs: &[Calc],
) -> Result<Vec<Map<String, Json>>, AggregateError> {
    if group_field.trim().is_empty() {
        return Err(AggregateError::EmptyGroupField);
    }
    let path = split_path(group_field);
    let mut keyed: Vec<(Value, usize)> = catalog
        .pages()
        .iter()
        .enumerate()
        .map(|(i, page)| (page_lookup(page, &path).unwrap_or(Value::Null), i))
        .collect();
    keyed.sort_by(|a, b| a.0.sort_cmp(&b.0).then(a.1.cmp(&b.1)));

    let mut rows = Vec::new();
    let mut start = 0;
    while start < keyed.len() {
        let mut end = start + 1;
        while end < keyed.len() && keyed[end].0.sort_cmp(&keyed[start].0).is_eq() {
            end += 1;
        }
        let pages: Vec<usize> = keyed[start..end].iter().map(|(_, i)| *i).collect();
        let mut row = Map::new();
        row.insert(group_field.to_owned(), keyed[start].0.to_json());
        row.insert("count".to_owned(), Json::from(pages.len()));
        for calc in calcs {
            let values: Vec<Value> = match &calc.field {
                Some(field) => {
                    let field_path = split_path(field);
                    pages
                        .iter()
                        .map(|&i| {
                            page_lookup(&catalog.pages()[i], &field_path).unwrap_or(Value::Null)
                        })
                        .filter(|v| *v != Value::Null)
                        .collect()
                }
                None => Vec::new(),
            };
            let numbers = || {
                values.iter().filter_map(|v| match v {
                    Value::Number(n) => Some(*n),
                    _ => None,
                })
            };
            let result = match calc.func {
                CalcFunc::Count if calc.field.is_none() => Json::from(pages.len()),
                CalcFunc::Count => Json::from(values.len()),
                CalcFunc::Sum => Value::Number(numbers().sum()).to_json(),
                CalcFunc::Avg => {
                    let count = numbers().count();
                    if count == 0 {
                        Json::Null
                    } else {
                        Value::Number(numbers().sum::<f64>() / count as f64).to_json()
                    }
                }
                CalcFunc::Min | CalcFunc::Max => values
                    .iter()
                    .reduce(|best, v| {
                        let wins = if calc.func == CalcFunc::Min {
                            v.compare(best).is_lt()
                        } else {
                            v.compare(best).is_gt()
                        };
                        if wins {
                            v
                        } else {
                            best
                        }
                    })
                    .map(Value::to_json)
                    .unwrap_or(Json::Null),
            };
            row.insert(calc.key(), result);
        }
        rows.push(row);
        start = end;
    }
    Ok(rows)
}

fn split_path(field: &str) -> Vec<String> {
    field.trim().split('.').map(str::to_owned).collect()
}
