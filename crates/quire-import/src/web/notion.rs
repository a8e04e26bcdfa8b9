//! Notion: `POST /v1/databases/{database_id}/query` (`Authorization: Bearer <key>`,
//! `Notion-Version: 2022-06-28`), `page_size` 100, paged by `start_cursor` while `has_more`.
//! A page is a row of `id`, `url`, `created_time`, `last_edited_time` and its properties as
//! plain values (see [`plain`]), and `body`: the page's blocks as markdown (see [`blocks`]),
//! which the default mapping takes as the page's content. Bodies are read once the rows are
//! known, one page after another, so a preview reads only the bodies of the rows it shows and
//! an import past the row cap reads none. A property named `body` gives way to the page body,
//! as properties named `id` or `url` do.

mod blocks;

use serde_json::{json, Map, Value};

use super::{encode, json_query, malformed, page_size, Client, Service};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

pub(crate) const VERSION: &str = "2022-06-28";
const PAGE_MOST: usize = 100;
/// The row field holding a page's body as markdown.
pub(crate) const BODY: &str = "body";

fn authorized(request: ureq::Request, service: &Service) -> ureq::Request {
    request
        .set(
            "Authorization",
            &format!("Bearer {}", service.api_key.as_deref().unwrap_or("")),
        )
        .set("Notion-Version", VERSION)
}

pub(super) fn rows(
    client: &Client,
    service: &Service,
    query: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    let database = service.database_id.as_deref().unwrap_or("").trim();
    let url = format!("{}/v1/databases/{}/query", service.base, encode(database));
    let filter = json_query(query, "a Notion database filter")?;
    let mut rows = Vec::new();
    let mut pages: Vec<(Option<String>, String)> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut body = json!({ "page_size": page_size(&cap, PAGE_MOST) });
        if let Some(filter) = &filter {
            body["filter"] = filter.clone();
        }
        if let Some(cursor) = &cursor {
            body["start_cursor"] = Value::String(cursor.clone());
        }
        let answer = client.send(authorized(client.post(&url), service), Some(&body))?;
        let results = answer
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Notion, "a list of pages"))?;
        let mut full = false;
        for page in results {
            pages.push((
                page.get("id").and_then(Value::as_str).map(str::to_string),
                title(page),
            ));
            if cap.push(&mut rows, page_row(page))? {
                full = true;
                break;
            }
        }
        let more = answer.get("has_more").and_then(Value::as_bool) == Some(true);
        match answer.get("next_cursor").and_then(Value::as_str) {
            Some(next) if !full && more && !results.is_empty() => cursor = Some(next.to_string()),
            _ => break,
        }
    }
    for (row, (id, title)) in rows.iter_mut().zip(&pages) {
        let Some(id) = id else { continue };
        let blocks = blocks::read(client, service, id, 0).map_err(|e| match e {
            ImportError::BadRequest(why) => ImportError::BadRequest(client.scrub(&format!(
                "cannot read the body of Notion page {title:?} ({id}): {why}"
            ))),
            other => other,
        })?;
        row.insert(BODY.to_string(), Value::String(blocks::markdown(&blocks)));
    }
    Ok(rows)
}

/// A page's title: its `title` property's text.
fn title(page: &Value) -> String {
    page.get("properties")
        .and_then(Value::as_object)
        .and_then(|p| {
            p.values()
                .find(|v| v.get("type").and_then(Value::as_str) == Some("title"))
        })
        .and_then(plain)
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// One Notion page as a row.
pub(crate) fn page_row(page: &Value) -> Row {
    let mut row = Map::new();
    if let Some(Value::Object(properties)) = page.get("properties") {
        for (name, property) in properties {
            if let Some(value) = plain(property) {
                row.insert(name.clone(), value);
            }
        }
    }
    for key in ["id", "url", "created_time", "last_edited_time"] {
        if let Some(value) = page.get(key).filter(|v| !v.is_null()) {
            row.insert(key.to_string(), value.clone());
        }
    }
    row
}

fn texts(value: Option<&Value>) -> Option<Value> {
    let parts = value?.as_array()?;
    let text: String = parts
        .iter()
        .filter_map(|p| p.get("plain_text").and_then(Value::as_str))
        .collect();
    Some(Value::String(text))
}

fn names(value: Option<&Value>, key: &str) -> Option<Value> {
    let items = value?.as_array()?;
    Some(Value::Array(
        items
            .iter()
            .filter_map(|i| i.get(key).and_then(Value::as_str))
            .map(|s| Value::String(s.to_string()))
            .collect(),
    ))
}

fn date(value: Option<&Value>) -> Option<Value> {
    let value = value?;
    let start = value.get("start")?.clone();
    match value.get("end").filter(|e| !e.is_null()) {
        Some(end) => Some(json!({ "start": start, "end": end })),
        None => Some(start),
    }
}

/// A property as a plain value by its `type`: `title`/`rich_text` → text; `number`;
/// `select`/`status` → its name; `multi_select` → names; `date` → start (or `{start, end}`);
/// `checkbox`; `url`, `email`, `phone_number`; `people` → names; `relation` → page ids;
/// `files` → names; `created_by`/`last_edited_by` → name; `created_time`/
/// `last_edited_time`; `formula` and `rollup` → their result; `unique_id` → `PREFIX-n`.
/// An empty value (null) is no value.
fn plain(property: &Value) -> Option<Value> {
    let kind = property.get("type")?.as_str()?;
    let value = property.get(kind);
    let out = match kind {
        "title" | "rich_text" => texts(value),
        "select" | "status" => value?.get("name").cloned(),
        "multi_select" => names(value, "name"),
        "people" => names(value, "name"),
        "relation" => names(value, "id"),
        "files" => names(value, "name"),
        "date" => date(value),
        "created_by" | "last_edited_by" => value?.get("name").or(value?.get("id")).cloned(),
        "formula" => {
            let inner = value?;
            let kind = inner.get("type")?.as_str()?;
            match kind {
                "date" => date(inner.get("date")),
                _ => inner.get(kind).cloned(),
            }
        }
        "rollup" => {
            let inner = value?;
            let kind = inner.get("type")?.as_str()?;
            match kind {
                "array" => Some(Value::Array(
                    inner
                        .get("array")?
                        .as_array()?
                        .iter()
                        .filter_map(plain)
                        .collect(),
                )),
                "date" => date(inner.get("date")),
                _ => inner.get(kind).cloned(),
            }
        }
        "unique_id" => {
            let inner = value?;
            let number = inner.get("number")?;
            match inner.get("prefix").and_then(Value::as_str) {
                Some(prefix) => Some(Value::String(format!("{prefix}-{number}"))),
                None => Some(number.clone()),
            }
        }
        _ => value.cloned(),
    };
    out.filter(|v| !v.is_null())
}

/// The databases shared with the key (`POST /v1/search` filtered to databases), each by its
/// id, what `connection.database_id` takes.
pub(super) fn databases(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let url = format!("{}/v1/search", service.base);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut body = json!({
            "filter": {"property": "object", "value": "database"},
            "page_size": PAGE_MOST,
        });
        if let Some(cursor) = &cursor {
            body["start_cursor"] = Value::String(cursor.clone());
        }
        let answer = client.send(authorized(client.post(&url), service), Some(&body))?;
        let results = answer
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Notion, "a list of databases"))?;
        names.extend(
            results
                .iter()
                .filter_map(|d| d.get("id").and_then(Value::as_str))
                .map(str::to_string),
        );
        let more = answer.get("has_more").and_then(Value::as_bool) == Some(true);
        match answer.get("next_cursor").and_then(Value::as_str) {
            Some(next) if more => cursor = Some(next.to_string()),
            _ => break,
        }
    }
    Ok(names)
}
