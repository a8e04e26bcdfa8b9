//! The built-in functions: names, arities (checked at parse time) and what they compute.
//!
//! Functions never fail on odd data: a wrong type gives `null` (for example `year("x")`).
//! They fail only on a wrong layout or regular expression the query itself wrote.

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveTime};

use super::layout::strftime_layout;
use super::EvalContext;
use crate::value::{parse_date_loose, parse_duration, Value};

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `slug(text)`: a file-name slug, lowercase words joined by `-` (see [`crate::slug`]).
    Slug,
    /// `year(d)`, `month(d)`, `day(d)`: numbers from a date or a date string.
    Year,
    Month,
    Day,
    /// `date(t)` parses (`YYYY-MM-DD`, RFC 3339, `YYYY-MM-DD HH:MM[:SS]`, `today`, `now`,
    /// `tomorrow`, `yesterday`); `date(t, layout)` formats with a strftime or Go layout.
    Date,
    /// `now()`: the context's pinned clock.
    Now,
    /// `dur("3 days")`: a duration (see [`crate::value::parse_duration`]).
    Dur,
    Lower,
    Upper,
    /// `length(x)`: characters of a string, items of a list or object; 0 for null.
    Length,
    /// `contains(haystack, needle)`: same as `needle in haystack`.
    Contains,
    StartsWith,
    EndsWith,
    /// `replace(text, find, with)`: every occurrence, literally.
    Replace,
    /// `split(text, separator)`: a list of strings.
    Split,
    /// `join(list, separator = ", ")`.
    Join,
    /// `regexmatch(pattern, text)`: the whole text matches (Dataview's rule).
    RegexMatch,
    /// `regextest(pattern, text)`: the pattern matches somewhere in the text.
    RegexTest,
    /// `default(x, fallback)`: `fallback` when `x` is null.
    Default,
    /// `choice(condition, if_true, if_false)`.
    Choice,
    /// `round(n, digits = 0)`.
    Round,
    /// `min(list)` / `min(a, b, …)`; nulls are ignored.
    Min,
    Max,
    /// `sum(list)` of numbers (or of durations).
    Sum,
    /// `list(a, b, …)`.
    List,
    /// `number(x)`: a number from a number or numeric string, else null.
    Number,
    /// `string(x)`: the text form.
    String,
}

const NAMES: [(&str, Func); 27] = [
    ("slug", Func::Slug),
    ("year", Func::Year),
    ("month", Func::Month),
    ("day", Func::Day),
    ("date", Func::Date),
    ("now", Func::Now),
    ("dur", Func::Dur),
    ("lower", Func::Lower),
    ("upper", Func::Upper),
    ("length", Func::Length),
    ("contains", Func::Contains),
    ("startswith", Func::StartsWith),
    ("endswith", Func::EndsWith),
    ("replace", Func::Replace),
    ("split", Func::Split),
    ("join", Func::Join),
    ("regexmatch", Func::RegexMatch),
    ("regextest", Func::RegexTest),
    ("default", Func::Default),
    ("choice", Func::Choice),
    ("round", Func::Round),
    ("min", Func::Min),
    ("max", Func::Max),
    ("sum", Func::Sum),
    ("list", Func::List),
    ("number", Func::Number),
    ("string", Func::String),
];

impl Func {
    /// The function called `name`, ignoring case.
    pub fn from_name(name: &str) -> Option<Func> {
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }

    /// Minimum and maximum number of arguments (`None`: no maximum).
    pub fn arity(self) -> (usize, Option<usize>) {
        match self {
            Func::Now => (0, Some(0)),
            Func::List => (0, None),
            Func::Min | Func::Max => (1, None),
            Func::Date | Func::Join | Func::Round => (1, Some(2)),
            Func::Contains
            | Func::StartsWith
            | Func::EndsWith
            | Func::Split
            | Func::RegexMatch
            | Func::RegexTest
            | Func::Default => (2, Some(2)),
            Func::Replace | Func::Choice => (3, Some(3)),
            Func::Slug
            | Func::Year
            | Func::Month
            | Func::Day
            | Func::Dur
            | Func::Lower
            | Func::Upper
            | Func::Length
            | Func::Sum
            | Func::Number
            | Func::String => (1, Some(1)),
        }
    }

    /// The pattern actually compiled: `regexmatch` must match the whole text.
    pub(crate) fn anchor(self, pattern: &str) -> String {
        match self {
            Func::RegexMatch => format!("^(?:{pattern})$"),
            _ => pattern.to_owned(),
        }
    }
}

/// Compiles a query-supplied pattern with a size cap, so a hostile pattern cannot take
/// unbounded memory.
pub(crate) fn compile_regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("invalid regular expression: {e}"))
}

/// The error of a function or operator whose text would pass [`super::MAX_TEXT_BYTES`].
pub(crate) fn too_long(what: &str, bytes: usize) -> String {
    format!(
        "{what} would make a text of {bytes} bytes, over the limit of {} bytes",
        super::MAX_TEXT_BYTES
    )
}

/// Applies `func` to evaluated arguments. `regex` is the pattern precompiled at parse time.
pub(crate) fn call(
    func: Func,
    args: Vec<Value>,
    regex: Option<&regex::Regex>,
    ctx: &EvalContext,
) -> Result<Value, String> {
    match func {
        Func::List => return Ok(Value::List(args)),
        Func::Min | Func::Max => return Ok(extreme(func, args)),
        _ => {}
    }
    let mut args = args.into_iter();
    let mut next = || args.next().unwrap_or(Value::Null);
    Ok(match func {
        Func::Slug => match next() {
            Value::Null => Value::Null,
            v => Value::String(crate::slug(&v.to_string())),
        },
        Func::Year | Func::Month | Func::Day => match as_date(&next(), ctx) {
            Some(d) => Value::Number(match func {
                Func::Year => d.year() as f64,
                Func::Month => d.month() as f64,
                _ => d.day() as f64,
            }),
            None => Value::Null,
        },
        Func::Date => {
            let date = as_date(&next(), ctx);
            match next() {
                Value::Null => date.map(Value::Date).unwrap_or(Value::Null),
                layout => {
                    let layout = strftime_layout(&layout.to_string())?;
                    match date {
                        Some(d) => Value::String(d.format(&layout).to_string()),
                        None => Value::Null,
                    }
                }
            }
        }
        Func::Now => Value::Date(ctx.now()),
        Func::Dur => match next() {
            Value::Duration(d) => Value::Duration(d),
            Value::String(s) => parse_duration(&s)
                .map(Value::Duration)
                .unwrap_or(Value::Null),
            _ => Value::Null,
        },
        Func::Lower => map_text(next(), &|s| s.to_lowercase()),
        Func::Upper => map_text(next(), &|s| s.to_uppercase()),
        Func::Length => Value::Number(match next() {
            Value::String(s) => s.chars().count() as f64,
            Value::List(items) => items.len() as f64,
            Value::Object(map) => map.len() as f64,
            Value::Null => 0.0,
            _ => 1.0,
        }),
        Func::Contains => {
            let haystack = next();
            Value::Bool(contains(&haystack, &next()))
        }
        Func::StartsWith | Func::EndsWith => {
            let (text, affix) = (next(), next());
            match (&text, &affix) {
                (Value::Null, _) | (_, Value::Null) => Value::Bool(false),
                _ => {
                    let (text, affix) = (text.to_string(), affix.to_string());
                    Value::Bool(if func == Func::StartsWith {
                        text.starts_with(&affix)
                    } else {
                        text.ends_with(&affix)
                    })
                }
            }
        }
        Func::Replace => {
            let (text, find, with) = (next(), next(), next());
            match text {
                Value::Null => Value::Null,
                text => {
                    let find = find.to_string();
                    let text = text.to_string();
                    if find.is_empty() {
                        Value::String(text)
                    } else {
                        let with = with.to_string();
                        // The length is known before a byte is copied.
                        let grows = with.len().saturating_sub(find.len());
                        let made = text.len().saturating_add(
                            text.matches(find.as_str()).count().saturating_mul(grows),
                        );
                        if made > super::MAX_TEXT_BYTES {
                            return Err(too_long("replace", made));
                        }
                        Value::String(text.replace(&find, &with))
                    }
                }
            }
        }
        Func::Split => {
            let (text, sep) = (next(), next());
            match text {
                Value::Null => Value::Null,
                text => {
                    let (text, sep) = (text.to_string(), sep.to_string());
                    let parts: Vec<Value> = if sep.is_empty() {
                        text.chars().map(|c| Value::String(c.to_string())).collect()
                    } else {
                        text.split(sep.as_str()).map(Value::from).collect()
                    };
                    Value::List(parts)
                }
            }
        }
        Func::Join => {
            let list = next();
            let sep = match next() {
                Value::Null => ", ".to_owned(),
                sep => sep.to_string(),
            };
            match list {
                Value::List(items) => Value::String(
                    items
                        .iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(&sep),
                ),
                Value::Null => Value::Null,
                other => Value::String(other.to_string()),
            }
        }
        Func::RegexMatch | Func::RegexTest => {
            let (pattern, text) = (next(), next());
            let compiled;
            let re = match regex {
                Some(re) => re,
                None => {
                    compiled = compile_regex(&func.anchor(&pattern.to_string()))?;
                    &compiled
                }
            };
            match text {
                Value::Null => Value::Bool(false),
                text => Value::Bool(re.is_match(&text.to_string())),
            }
        }
        Func::Default => match next() {
            Value::Null => next(),
            v => v,
        },
        Func::Choice => {
            let (cond, a, b) = (next(), next(), next());
            if cond.truthy() {
                a
            } else {
                b
            }
        }
        Func::Round => {
            let (n, digits) = (next(), next());
            match (n, digits) {
                (Value::Number(n), Value::Null) => Value::Number(n.round()),
                (Value::Number(n), Value::Number(d)) => {
                    let scale = 10f64.powi(d.clamp(0.0, 15.0) as i32);
                    Value::Number((n * scale).round() / scale)
                }
                _ => Value::Null,
            }
        }
        Func::Sum => match next() {
            Value::List(items) => sum(&items),
            Value::Number(n) => Value::Number(n),
            _ => Value::Null,
        },
        Func::Number => match next() {
            Value::Number(n) => Value::Number(n),
            Value::String(s) => s
                .trim()
                .parse::<f64>()
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Value::Bool(b) => Value::Number(if b { 1.0 } else { 0.0 }),
            _ => Value::Null,
        },
        Func::String => Value::String(next().to_string()),
        Func::List | Func::Min | Func::Max => Value::Null,
    })
}

/// `min`/`max` over the items of one list argument, else over the arguments; nulls are
/// ignored.
fn extreme(func: Func, args: Vec<Value>) -> Value {
    let values = match <[Value; 1]>::try_from(args) {
        Ok([Value::List(items)]) => items,
        Ok([single]) => vec![single],
        Err(args) => args,
    };
    values
        .into_iter()
        .filter(|v| *v != Value::Null)
        .reduce(|best, v| {
            let wins = match func {
                Func::Min => v.compare(&best).is_lt(),
                _ => v.compare(&best).is_gt(),
            };
            if wins {
                v
            } else {
                best
            }
        })
        .unwrap_or(Value::Null)
}

fn sum(items: &[Value]) -> Value {
    if items.iter().any(|v| matches!(v, Value::Duration(_))) {
        let total = items.iter().fold(Duration::zero(), |acc, v| match v {
            Value::Duration(d) => acc.checked_add(d).unwrap_or(acc),
            _ => acc,
        });
        return Value::Duration(total);
    }
    Value::Number(
        items
            .iter()
            .map(|v| match v {
                Value::Number(n) => *n,
                _ => 0.0,
            })
            .sum(),
    )
}

fn map_text(value: Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::Null => Value::Null,
        Value::String(s) => Value::String(f(&s)),
        Value::List(items) => Value::List(items.into_iter().map(|v| map_text(v, f)).collect()),
        other => Value::String(f(&other.to_string())),
    }
}

/// Membership shared by `in` and `contains()`.
pub(crate) fn contains(haystack: &Value, needle: &Value) -> bool {
    match haystack {
        Value::List(items) => items.iter().any(|item| item.equals(needle)),
        Value::String(text) => match needle {
            Value::Null => false,
            needle => text.contains(needle.to_string().as_str()),
        },
        Value::Object(map) => map.contains_key(needle.to_string().as_str()),
        _ => false,
    }
}

/// A date from a date value or a date string (including `today`, `now`, …).
fn as_date(value: &Value, ctx: &EvalContext) -> Option<DateTime<FixedOffset>> {
    match value {
        Value::Date(d) => Some(*d),
        Value::String(s) => {
            let midnight = |days: i64| {
                let now = ctx.now();
                let day = now.date_naive() + Duration::days(days);
                day.and_time(NaiveTime::MIN)
                    .and_local_timezone(*now.offset())
                    .single()
            };
            match s.trim().to_ascii_lowercase().as_str() {
                "now" => Some(ctx.now()),
                "today" => midnight(0),
                "tomorrow" => midnight(1),
                "yesterday" => midnight(-1),
                _ => parse_date_loose(s),
            }
        }
        _ => None,
    }
}
