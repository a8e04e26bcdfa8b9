//! Google Sheets: `GET /v4/spreadsheets/{spreadsheet}/values/{range}?majorDimension=ROWS
//! &valueRenderOption=UNFORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING`
//! (`Authorization: Bearer <OAuth access token>`), read a block of 1000 rows at a time
//! (`'Sheet'!1:1000`, `'Sheet'!1001:2000`, …) until a block comes back short. The first row
//! is the header (named as CSV headers are: trimmed, `column_<n>` for an empty cell,
//! `<name>_<n>` for a repeat); each later row is a record keyed by it, an empty cell no value,
//! a blank row skipped. `connection.table` is the sheet (default `Sheet1`), or an A1 range
//! with `!` (`Notes!A1:D50`) read in one request.
//!
//! Browse lists the spreadsheet's sheets (tabs): `GET /v4/spreadsheets/{spreadsheet}
//! ?fields=sheets.properties.title`, one request (the API does not page it), the titles.

use serde_json::Value;

use super::{encode, malformed, Client, Service};
use crate::kind::SourceKind;
use crate::rows::{column_names, Cap};
use crate::{ImportError, Row};

pub(crate) const BLOCK: usize = 1000;
const DEFAULT_SHEET: &str = "Sheet1";

pub(super) fn rows(client: &Client, service: &Service, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let spreadsheet = service.database_id.as_deref().unwrap_or("").trim();
    let table = service
        .table
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(DEFAULT_SHEET);
    let bearer = format!("Bearer {}", service.api_key.as_deref().unwrap_or(""));
    let fetch = |range: &str| -> Result<Vec<Value>, ImportError> {
        let url = format!(
            "{}/v4/spreadsheets/{}/values/{}?majorDimension=ROWS\
             &valueRenderOption=UNFORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING",
            service.base,
            encode(spreadsheet),
            encode(range)
        );
        let answer = client.send(client.get(&url).set("Authorization", &bearer), None)?;
        match answer.get("values") {
            Some(Value::Array(values)) => Ok(values.clone()),
            None if answer.is_object() => Ok(Vec::new()),
            _ => Err(malformed(SourceKind::Gsheets, "a range of values")),
        }
    };
    let mut names: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    let sheet = format!("'{}'", table.replace('\'', "''"));
    let mut start = 1usize;
    loop {
        let (range, whole) = if table.contains('!') {
            (table.to_string(), true)
        } else {
            (format!("{sheet}!{start}:{}", start + BLOCK - 1), false)
        };
        let block = fetch(&range)?;
        let got = block.len();
        for line in block {
            let Value::Array(cells) = line else {
                return Err(malformed(SourceKind::Gsheets, "rows of cells"));
            };
            let Some(names) = &names else {
                let texts: Vec<String> = cells.iter().map(cell_text).collect();
                names = Some(column_names(texts.iter().map(String::as_str)));
                continue;
            };
            let mut row = Row::new();
            for (name, cell) in names.iter().zip(cells) {
                match cell {
                    Value::Null => {}
                    Value::String(s) if s.is_empty() => {}
                    value => {
                        row.insert(name.clone(), value);
                    }
                }
            }
            if row.is_empty() {
                continue;
            }
            if cap.push(&mut rows, row)? {
                return Ok(rows);
            }
        }
        if whole || got < BLOCK {
            return Ok(rows);
        }
        start += BLOCK;
    }
}

fn cell_text(cell: &Value) -> String {
    match cell {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The titles of the spreadsheet's sheets (each usable as `connection.table`).
pub(super) fn sheets(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let spreadsheet = service.database_id.as_deref().unwrap_or("").trim();
    let bearer = format!("Bearer {}", service.api_key.as_deref().unwrap_or(""));
    let url = format!(
        "{}/v4/spreadsheets/{}?fields=sheets.properties.title",
        service.base,
        encode(spreadsheet)
    );
    let answer = client.send(client.get(&url).set("Authorization", &bearer), None)?;
    let sheets = match answer.get("sheets") {
        Some(Value::Array(sheets)) => sheets.as_slice(),
        // A spreadsheet's answer with no sheet has no `sheets` at all.
        None if answer.is_object() => &[],
        _ => return Err(malformed(SourceKind::Gsheets, "a list of sheets")),
    };
    sheets
        .iter()
        .map(|sheet| {
            sheet
                .get("properties")
                .and_then(|p| p.get("title"))
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| malformed(SourceKind::Gsheets, "a list of sheets"))
        })
        .collect()
}
