//! The values expressions compute with: conversion from and to JSON, ordering, equality,
//! truthiness and the one text form used by `string()`, templates and concatenation.
//!
//! Rules, in one place:
//! * **Type order** (used by `SORT` and by `<`/`>` across types, which never fail):
//!   null < bool < number < duration < date < string = link < list < object.
//!   Null therefore sorts first.
//! * **Equality** is type-aware: `1 = "1"` is false. Links and strings compare by their text
//!   (a link's text is its path). Operators (not `SORT`) also compare a date with a string
//!   that parses as a date, so `due < "2024-05-01"` works.
//! * **Truthiness**: null, false, 0, NaN, `""`, `[]`, `{}` and a zero duration are false;
//!   everything else (dates, links) is true.
//! * **From JSON**: strings shaped `YYYY-MM-DD` or RFC 3339 become dates.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveDateTime, Timelike};

/// A value an expression reads or computes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Date(DateTime<FixedOffset>),
    Duration(Duration),
    List(Vec<Value>),
    Object(BTreeMap<String, Value>),
    /// A link to a page; the text is the target path when it resolved, else the link text.
    Link(String),
}

impl Value {
    /// Converts frontmatter JSON; date-shaped strings become [`Value::Date`].
    pub fn from_json(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => match parse_date(s) {
                Some(date) => Value::Date(date),
                None => Value::String(s.clone()),
            },
            serde_json::Value::Array(items) => {
                Value::List(items.iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// The JSON form of query output: dates and durations as their text, links as paths,
    /// whole numbers as integers, NaN and infinities as null.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => number_to_json(*n),
            Value::String(s) | Value::Link(s) => serde_json::Value::String(s.clone()),
            Value::Date(_) | Value::Duration(_) => serde_json::Value::String(self.to_string()),
            Value::List(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_json).collect())
            }
            Value::Object(map) => serde_json::Value::Object(
                map.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
            ),
        }
    }

    /// Whether the value counts as true in `where`, `and`, `or`, `not` and `choice`.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Date(_) | Value::Link(_) => true,
            Value::Duration(d) => !d.is_zero(),
            Value::List(items) => !items.is_empty(),
            Value::Object(map) => !map.is_empty(),
        }
    }

    /// A short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Date(_) => "date",
            Value::Duration(_) => "duration",
            Value::List(_) => "list",
            Value::Object(_) => "object",
            Value::Link(_) => "link",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Number(_) => 2,
            Value::Duration(_) => 3,
            Value::Date(_) => 4,
            Value::String(_) | Value::Link(_) => 5,
            Value::List(_) => 6,
            Value::Object(_) => 7,
        }
    }

    /// The total order `SORT` uses: type order first, then within the type. Never coerces,
    /// so it stays a total order.
    pub fn sort_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Number(a), Value::Number(b)) => a.total_cmp(b),
            (Value::Duration(a), Value::Duration(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::String(a) | Value::Link(a), Value::String(b) | Value::Link(b)) => a.cmp(b),
            (Value::List(a), Value::List(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let ord = x.sort_cmp(y);
                    if ord != Ordering::Equal {
                        return ord;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Value::Object(a), Value::Object(b)) => {
                for ((ka, va), (kb, vb)) in a.iter().zip(b) {
                    let ord = ka.cmp(kb).then_with(|| va.sort_cmp(vb));
                    if ord != Ordering::Equal {
                        return ord;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// The order of the comparison operators: [`Value::sort_cmp`], except that a date and a
    /// string that parses as a date compare as dates.
    pub fn compare(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Date(a), Value::String(s)) => match parse_date(s) {
                Some(b) => a.cmp(&b),
                None => self.sort_cmp(other),
            },
            (Value::String(s), Value::Date(b)) => match parse_date(s) {
                Some(a) => a.cmp(b),
                None => self.sort_cmp(other),
            },
            _ => self.sort_cmp(other),
        }
    }

    /// Equality of `=`, `==`, `!=`, `in` and `contains`.
    pub fn equals(&self, other: &Value) -> bool {
        self.compare(other) == Ordering::Equal
    }
}

fn number_to_json(n: f64) -> serde_json::Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null)
    }
}

/// The text form: null is empty, whole numbers print without a fraction, a date at UTC
/// midnight prints as `YYYY-MM-DD` (else RFC 3339), durations as `3d 4h`, lists joined by
/// `, `, objects as JSON, links as their path.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => {
                if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e15 {
                    write!(f, "{}", *n as i64)
                } else {
                    write!(f, "{n}")
                }
            }
            Value::String(s) | Value::Link(s) => f.write_str(s),
            Value::Date(d) => {
                if d.offset().local_minus_utc() == 0 && d.time() == chrono::NaiveTime::MIN {
                    write!(f, "{}", d.format("%Y-%m-%d"))
                } else {
                    f.write_str(&d.to_rfc3339())
                }
            }
            Value::Duration(d) => f.write_str(&format_duration(*d)),
            Value::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                Ok(())
            }
            Value::Object(_) => write!(f, "{}", self.to_json()),
        }
    }
}

impl From<&serde_json::Value> for Value {
    fn from(json: &serde_json::Value) -> Self {
        Value::from_json(json)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<DateTime<FixedOffset>> for Value {
    fn from(d: DateTime<FixedOffset>) -> Self {
        Value::Date(d)
    }
}

/// Parses the two date shapes frontmatter strings are recognised by: `YYYY-MM-DD` (UTC
/// midnight) and RFC 3339. Cheap rejection first: most strings are not dates.
pub fn parse_date(s: &str) -> Option<DateTime<FixedOffset>> {
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' || !b[..4].iter().all(u8::is_ascii_digit) {
        return None;
    }
    if b.len() == 10 {
        let date = NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
        return Some(
            date.and_time(chrono::NaiveTime::MIN)
                .and_utc()
                .fixed_offset(),
        );
    }
    DateTime::parse_from_rfc3339(s).ok()
}

/// [`parse_date`] plus the shapes `date()` also accepts: `YYYY-MM-DDTHH:MM[:SS]` and
/// `YYYY-MM-DD HH:MM[:SS]` without an offset (read as UTC).
pub(crate) fn parse_date_loose(s: &str) -> Option<DateTime<FixedOffset>> {
    let s = s.trim();
    if let Some(date) = parse_date(s) {
        return Some(date);
    }
    const NAIVE: [&str; 4] = [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ];
    NAIVE.iter().find_map(|layout| {
        NaiveDateTime::parse_from_str(s, layout)
            .ok()
            .map(|dt| dt.and_utc().fixed_offset())
    })
}

/// Text form of a duration, read back by `dur()`: `3d 4h 5m 6s`, `250ms`, `0s`.
pub fn format_duration(d: Duration) -> String {
    let mut out = String::new();
    if d < Duration::zero() {
        out.push('-');
    }
    let ms = d.num_milliseconds().unsigned_abs();
    let parts = [
        (ms / 86_400_000, "d"),
        (ms / 3_600_000 % 24, "h"),
        (ms / 60_000 % 60, "m"),
        (ms / 1000 % 60, "s"),
        (ms % 1000, "ms"),
    ];
    let mut any = false;
    for (n, unit) in parts {
        if n > 0 {
            if any {
                out.push(' ');
            }
            out.push_str(&format!("{n}{unit}"));
            any = true;
        }
    }
    if !any {
        out.push_str("0s");
    }
    out
}

/// Parses durations such as `3 days`, `1 day 2 hours`, `1h30m`, `2w`, `90s`, `250ms`.
/// A month is 30 days and a year 365 days. `None` for anything else.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim().to_lowercase();
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let mut total_ms = 0f64;
    let mut parts = 0;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if let Some(after) = rest.strip_prefix("and ") {
            rest = after.trim_start();
        }
        if rest.is_empty() {
            break;
        }
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..num_len].parse().ok()?;
        rest = rest[num_len..].trim_start();
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let unit_ms = unit_millis(&rest[..unit_len])?;
        rest = &rest[unit_len..];
        total_ms += number * unit_ms;
        parts += 1;
    }
    if parts == 0 || !total_ms.is_finite() || total_ms.abs() > 1e17 {
        return None;
    }
    let ms = if negative { -total_ms } else { total_ms };
    Duration::try_milliseconds(ms.round() as i64)
}

fn unit_millis(unit: &str) -> Option<f64> {
    const SECOND: f64 = 1000.0;
    const DAY: f64 = 86_400.0 * SECOND;
    Some(match unit {
        "ms" | "millisecond" | "milliseconds" => 1.0,
        "s" | "sec" | "secs" | "second" | "seconds" => SECOND,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0 * SECOND,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0 * SECOND,
        "d" | "day" | "days" => DAY,
        "w" | "wk" | "wks" | "week" | "weeks" => 7.0 * DAY,
        "mo" | "month" | "months" => 30.0 * DAY,
        "y" | "yr" | "yrs" | "year" | "years" => 365.0 * DAY,
        _ => return None,
    })
}

/// Fields of a date value: `d.year`, `d.month`, `d.day`, `d.hour`, `d.minute`, `d.second`,
/// `d.weekday` (1 = Monday).
pub(crate) fn date_field(d: &DateTime<FixedOffset>, field: &str) -> Value {
    use chrono::Datelike;
    let n = match field {
        "year" => d.year() as f64,
        "month" => d.month() as f64,
        "day" => d.day() as f64,
        "hour" => d.hour() as f64,
        "minute" => d.minute() as f64,
        "second" => d.second() as f64,
        "weekday" => d.weekday().number_from_monday() as f64,
        _ => return Value::Null,
    };
    Value::Number(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn date_shaped_strings_become_dates() {
        assert!(matches!(
            Value::from_json(&json!("2024-03-05")),
            Value::Date(_)
        ));
        assert!(matches!(
            Value::from_json(&json!("2024-03-05T10:00:00+02:00")),
            Value::Date(_)
        ));
        assert!(matches!(
            Value::from_json(&json!("2024-3-5")),
            Value::String(_)
        ));
        assert!(matches!(
            Value::from_json(&json!("2024-13-45")),
            Value::String(_)
        ));
    }

    #[test]
    fn json_round_trip_keeps_whole_numbers_whole() {
        let v = Value::from_json(&json!({"a": 3, "b": [1.5, "x", null], "d": "2024-01-02"}));
        assert_eq!(
            v.to_json(),
            json!({"a": 3, "b": [1.5, "x", null], "d": "2024-01-02"})
        );
    }

    #[test]
    fn null_sorts_first_and_types_order() {
        let mut values = vec![
            Value::from("b"),
            Value::Number(2.0),
            Value::Null,
            Value::Bool(true),
            Value::Number(-1.0),
        ];
        values.sort_by(Value::sort_cmp);
        assert_eq!(
            values,
            vec![
                Value::Null,
                Value::Bool(true),
                Value::Number(-1.0),
                Value::Number(2.0),
                Value::from("b")
            ]
        );
    }

    #[test]
    fn equality_is_type_aware_but_links_match_their_path() {
        assert!(!Value::Number(1.0).equals(&Value::from("1")));
        assert!(Value::Link("a.md".into()).equals(&Value::from("a.md")));
        let d = parse_date("2024-01-02").unwrap();
        assert!(Value::Date(d).equals(&Value::from("2024-01-02")));
        assert_eq!(
            Value::Date(d).sort_cmp(&Value::from("2024-01-02")),
            Ordering::Less
        );
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(parse_duration("3 days"), Some(Duration::days(3)));
        assert_eq!(
            parse_duration("1 day, 2 hours and 30 minutes"),
            Some(Duration::minutes(26 * 60 + 30))
        );
        assert_eq!(parse_duration("1h30m"), Some(Duration::minutes(90)));
        assert_eq!(parse_duration("2w"), Some(Duration::days(14)));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(
            format_duration(Duration::minutes(26 * 60 + 30)),
            "1d 2h 30m"
        );
        assert_eq!(
            parse_duration(&format_duration(Duration::seconds(93_784))),
            Some(Duration::seconds(93_784))
        );
        assert_eq!(format_duration(Duration::zero()), "0s");
    }

    #[test]
    fn truthiness() {
        assert!(!Value::Null.truthy());
        assert!(!Value::from("").truthy());
        assert!(!Value::Number(0.0).truthy());
        assert!(!Value::List(vec![]).truthy());
        assert!(Value::from("x").truthy());
        assert!(Value::Link("a".into()).truthy());
    }
}
