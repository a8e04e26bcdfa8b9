//! Confluence (REST API v1): `GET {uri}/rest/api/content?spaceKey={table}&type=page
//! &status=current&expand=body.storage,space,version&start=0&limit=50`, paged by `start`
//! while the answer has `_links.next`. `connection.uri` is the site's Confluence base
//! (`https://<site>.atlassian.net/wiki` for Cloud). Auth: `connection.api_key` as
//! `email:api_token` is basic auth (Cloud), anything else a bearer token (a Data Center
//! personal access token). A page is a row of `id`, `title`, `space` (its key), `body` (the
//! storage format's XHTML as markdown: headings, lists, tables, links, emphasis, by
//! `quire-ingest`'s HTML converter), `version`, `updated` and `url`.
//!
//! Browse lists the spaces the key sees: `GET {uri}/rest/api/space?limit=100&start=0`, paged
//! by `start` while the answer has `_links.next`; the names are the space keys (what
//! `connection.table` takes).

use base64::Engine;
use serde_json::Value;

use super::{encode, malformed, page_size, Client, Service};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

const PAGE_MOST: usize = 50;
/// Spaces asked for per page of a browse.
const SPACES_MOST: usize = 100;

/// The `Authorization` header of the key.
pub(crate) fn authorization(service: &Service) -> String {
    let key = service.api_key.as_deref().unwrap_or("");
    if key.contains(':') {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(key)
        )
    } else {
        format!("Bearer {key}")
    }
}

pub(super) fn rows(client: &Client, service: &Service, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let space = service.table.as_deref().unwrap_or("").trim();
    let limit = page_size(&cap, PAGE_MOST);
    let auth = authorization(service);
    let mut rows = Vec::new();
    let mut start = 0usize;
    loop {
        let url = format!(
            "{}/rest/api/content?spaceKey={}&type=page&status=current\
             &expand=body.storage%2Cspace%2Cversion&start={start}&limit={limit}",
            service.base,
            encode(space)
        );
        let answer = client.send(client.get(&url).set("Authorization", &auth), None)?;
        let results = answer
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Confluence, "a list of pages"))?;
        let site = answer
            .get("_links")
            .and_then(|l| l.get("base"))
            .and_then(Value::as_str)
            .unwrap_or(&service.base)
            .to_string();
        for page in results {
            if cap.push(&mut rows, page_row(page, &site))? {
                return Ok(rows);
            }
        }
        let more = answer
            .get("_links")
            .and_then(|l| l.get("next"))
            .is_some_and(Value::is_string);
        if !more || results.is_empty() {
            return Ok(rows);
        }
        start += results.len();
    }
}

/// The keys of the spaces the key sees, every page.
pub(super) fn spaces(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let auth = authorization(service);
    let mut keys = Vec::new();
    let mut start = 0usize;
    loop {
        let url = format!(
            "{}/rest/api/space?limit={SPACES_MOST}&start={start}",
            service.base
        );
        let answer = client.send(client.get(&url).set("Authorization", &auth), None)?;
        let results = answer
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Confluence, "a list of spaces"))?;
        for space in results {
            let key = space
                .get("key")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed(SourceKind::Confluence, "a list of spaces"))?;
            keys.push(key.to_string());
        }
        let more = answer
            .get("_links")
            .and_then(|l| l.get("next"))
            .is_some_and(Value::is_string);
        if !more || results.is_empty() {
            return Ok(keys);
        }
        start += results.len();
    }
}

fn page_row(page: &Value, site: &str) -> Row {
    let mut row = Row::new();
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    if let Some(id) = text(page.get("id")) {
        row.insert("id".to_string(), Value::String(id));
    }
    if let Some(title) = text(page.get("title")) {
        row.insert("title".to_string(), Value::String(title));
    }
    if let Some(key) = text(page.get("space").and_then(|s| s.get("key"))) {
        row.insert("space".to_string(), Value::String(key));
    }
    if let Some(xhtml) = text(
        page.get("body")
            .and_then(|b| b.get("storage"))
            .and_then(|s| s.get("value")),
    ) {
        row.insert("body".to_string(), Value::String(storage_markdown(&xhtml)));
    }
    if let Some(version) = page.get("version") {
        if let Some(number) = version.get("number").filter(|n| n.is_number()) {
            row.insert("version".to_string(), number.clone());
        }
        if let Some(when) = text(version.get("when")) {
            row.insert("updated".to_string(), Value::String(when));
        }
    }
    if let Some(webui) = text(page.get("_links").and_then(|l| l.get("webui"))) {
        row.insert(
            "url".to_string(),
            Value::String(format!("{}{webui}", site.trim_end_matches('/'))),
        );
    }
    row
}

/// The storage format (XHTML with `ac:` macros) as markdown.
pub(crate) fn storage_markdown(xhtml: &str) -> String {
    let html = format!("<!DOCTYPE html><html><body>{xhtml}</body></html>");
    match quire_ingest::convert(
        quire_ingest::Format::Html,
        html.as_bytes(),
        &quire_ingest::Limits::default(),
    ) {
        Ok(document) => document.markdown().trim().to_string(),
        Err(_) => String::new(),
    }
}
