//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods) → rows, with `calamine`: the first sheet, or the
//! one named; its first row names the columns. Cells become JSON as they are typed: numbers
//! (a whole number as an integer), booleans, text, and dates as ISO 8601 text (`2024-03-01`,
//! `2024-03-01T09:30:00`, a time alone `09:30:00`). Empty and error cells are no value.

use std::io::Cursor;

use calamine::{Data, Reader};
use serde_json::{Map, Number, Value};

use crate::rows::{column_names, Cap};
use crate::{ImportError, Row};

/// The rows of the workbook `bytes` (named `name` in messages).
pub fn excel_rows(
    bytes: Vec<u8>,
    name: &str,
    sheet: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    let mut book = calamine::open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(|e| {
        ImportError::BadRequest(format!(
            "{name} is no spreadsheet calamine reads (xlsx, xlsm, xlsb, xls, ods): {e}"
        ))
    })?;
    let names = book.sheet_names();
    let chosen = match sheet.map(str::trim).filter(|s| !s.is_empty()) {
        Some(wanted) => names
            .iter()
            .find(|n| n.as_str() == wanted)
            .cloned()
            .ok_or_else(|| {
                ImportError::BadRequest(format!(
                    "{name} has no sheet {wanted:?}; its sheets are {}",
                    names
                        .iter()
                        .map(|n| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
        None => names
            .first()
            .cloned()
            .ok_or_else(|| ImportError::BadRequest(format!("{name} holds no sheet")))?,
    };
    let range = book.worksheet_range(&chosen).map_err(|e| {
        ImportError::BadRequest(format!("sheet {chosen:?} of {name} cannot be read: {e}"))
    })?;
    let mut lines = range.rows();
    let Some(header) = lines.next() else {
        return Ok(Vec::new());
    };
    let header: Vec<String> = header.iter().map(header_text).collect();
    let columns = column_names(header.iter().map(String::as_str));
    let mut rows = Vec::new();
    for line in lines {
        let mut row = Map::new();
        for (column, cell) in columns.iter().zip(line) {
            if let Some(value) = cell_value(cell) {
                row.insert(column.clone(), value);
            }
        }
        if row.is_empty() {
            continue;
        }
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

fn header_text(cell: &Data) -> String {
    match cell_value(cell) {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// One cell as JSON; `None` for an empty or error cell.
pub fn cell_value(cell: &Data) -> Option<Value> {
    match cell {
        Data::Empty | Data::Error(_) => None,
        Data::String(s) if s.is_empty() => None,
        Data::String(s) => Some(Value::String(s.clone())),
        Data::Bool(b) => Some(Value::Bool(*b)),
        Data::Int(n) => Some(Value::Number((*n).into())),
        Data::Float(x) => number(*x),
        Data::DateTimeIso(s) | Data::DurationIso(s) => Some(Value::String(s.clone())),
        Data::DateTime(dt) if dt.is_duration() => Some(Value::String(duration(dt.as_f64()))),
        Data::DateTime(dt) => {
            let (y, mo, d, h, mi, s, ms) = dt.to_ymd_hms_milli();
            let time = if ms > 0 {
                format!("{h:02}:{mi:02}:{s:02}.{ms:03}")
            } else {
                format!("{h:02}:{mi:02}:{s:02}")
            };
            let text = if dt.as_f64() < 1.0 && dt.as_f64() >= 0.0 {
                time
            } else if (h, mi, s, ms) == (0, 0, 0, 0) {
                format!("{y:04}-{mo:02}-{d:02}")
            } else {
                format!("{y:04}-{mo:02}-{d:02}T{time}")
            };
            Some(Value::String(text))
        }
    }
}

/// A float as JSON: a whole number within ±2^53 as an integer (spreadsheets store every
/// number as a float); NaN and infinities are no value.
fn number(x: f64) -> Option<Value> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() <= EXACT {
        return Some(Value::Number((x as i64).into()));
    }
    Number::from_f64(x).map(Value::Number)
}

/// A duration in days as `[h]:mm:ss`.
fn duration(days: f64) -> String {
    let total = (days * 86_400.0).round() as i64;
    let sign = if total < 0 { "-" } else { "" };
    let total = total.abs();
    format!(
        "{sign}{}:{:02}:{:02}",
        total / 3600,
        total / 60 % 60,
        total % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{ExcelDateTime, ExcelDateTimeType};
    use serde_json::json;

    fn date(x: f64) -> Data {
        Data::DateTime(ExcelDateTime::new(x, ExcelDateTimeType::DateTime, false))
    }

    #[test]
    fn cells_become_typed_json() {
        assert_eq!(cell_value(&Data::Float(3.0)), Some(json!(3)));
        assert_eq!(cell_value(&Data::Float(2.5)), Some(json!(2.5)));
        assert_eq!(cell_value(&Data::Bool(true)), Some(json!(true)));
        assert_eq!(cell_value(&Data::Empty), None);
        assert_eq!(cell_value(&Data::String(String::new())), None);
        assert_eq!(cell_value(&date(45352.0)), Some(json!("2024-03-01")));
        assert_eq!(
            cell_value(&date(45352.5)),
            Some(json!("2024-03-01T12:00:00"))
        );
        assert_eq!(cell_value(&date(0.25)), Some(json!("06:00:00")));
        let long = Data::DateTime(ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false));
        assert_eq!(cell_value(&long), Some(json!("36:00:00")));
    }
}
