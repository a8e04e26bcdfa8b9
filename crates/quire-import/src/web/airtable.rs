//! Airtable: `GET /v0/{base_id}/{table_id}?pageSize=100` (`Authorization: Bearer <token>`),
//! paged by the answer's `offset` given back as `offset=`. A record is a row of its `fields`
//! plus `id` and `createdTime`.

use serde_json::Value;

use super::{encode, malformed, page_size, Client, Service};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

const PAGE_MOST: usize = 100;

fn bearer(service: &Service) -> String {
    format!("Bearer {}", service.api_key.as_deref().unwrap_or(""))
}

pub(super) fn rows(client: &Client, service: &Service, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let base = service.base_id.as_deref().unwrap_or("").trim();
    let table = service.table_id.as_deref().unwrap_or("").trim();
    let url = format!("{}/v0/{}/{}", service.base, encode(base), encode(table));
    let size = page_size(&cap, PAGE_MOST);
    let mut rows = Vec::new();
    let mut offset: Option<String> = None;
    loop {
        let mut page_url = format!("{url}?pageSize={size}");
        if let Some(offset) = &offset {
            page_url.push_str(&format!("&offset={}", encode(offset)));
        }
        let request = client.get(&page_url).set("Authorization", &bearer(service));
        let answer = client.send(request, None)?;
        let records = answer
            .get("records")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Airtable, "a list of records"))?;
        for record in records {
            let mut row = Row::new();
            if let Some(Value::Object(fields)) = record.get("fields") {
                row.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            for key in ["id", "createdTime"] {
                if let Some(value) = record.get(key) {
                    row.insert(key.to_string(), value.clone());
                }
            }
            if cap.push(&mut rows, row)? {
                return Ok(rows);
            }
        }
        match answer.get("offset").and_then(Value::as_str) {
            Some(next) if !records.is_empty() => offset = Some(next.to_string()),
            _ => return Ok(rows),
        }
    }
}

/// The tables of the base (`GET /v0/meta/bases/{base_id}/tables`), by name.
pub(super) fn tables(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let base = service.base_id.as_deref().unwrap_or("").trim();
    let url = format!("{}/v0/meta/bases/{}/tables", service.base, encode(base));
    let answer = client.send(
        client.get(&url).set("Authorization", &bearer(service)),
        None,
    )?;
    let tables = answer
        .get("tables")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(SourceKind::Airtable, "a list of tables"))?;
    Ok(tables
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(str::to_string)
        .collect())
}
