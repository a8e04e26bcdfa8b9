//! Elasticsearch: the scroll API. `POST /{index}/_search?scroll=1m` with `{"size": 500,
//! "sort": ["_doc"]}` (and `query` when the import gives one), then `POST /_search/scroll`
//! with the answer's `_scroll_id` until a page comes back empty, then `DELETE
//! /_search/scroll` for that id. Auth: `connection.api_key` is an encoded API key sent as
//! `Authorization: ApiKey <key>`, or `user:password` sent as basic auth; none for a server
//! without security. A hit is a row of its `_source` plus `_id`.

use base64::Engine;
use serde_json::{json, Value};

use super::{encode, json_query, malformed, page_size, Client, Service};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

const PAGE_MOST: usize = 500;
const KEEP_ALIVE: &str = "1m";

/// The `Authorization` header of the key, if any.
pub(crate) fn authorization(service: &Service) -> Option<String> {
    let key = service.api_key.as_deref()?;
    Some(if key.contains(':') {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(key)
        )
    } else {
        format!("ApiKey {key}")
    })
}

fn authorized(request: ureq::Request, service: &Service) -> ureq::Request {
    match authorization(service) {
        Some(value) => request.set("Authorization", &value),
        None => request,
    }
}

pub(super) fn rows(
    client: &Client,
    service: &Service,
    query: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    let index = service.table.as_deref().unwrap_or("").trim();
    let mut body = json!({ "size": page_size(&cap, PAGE_MOST), "sort": ["_doc"] });
    if let Some(query) = json_query(query, "an Elasticsearch query (`{\"match\": …}`)")? {
        body["query"] = query;
    }
    let url = format!(
        "{}/{}/_search?scroll={KEEP_ALIVE}",
        service.base,
        encode(index)
    );
    let mut answer = client.send(authorized(client.post(&url), service), Some(&body))?;
    let mut rows = Vec::new();
    let mut scroll_id: Option<String> = None;
    let outcome = loop {
        if let Some(id) = answer.get("_scroll_id").and_then(Value::as_str) {
            scroll_id = Some(id.to_string());
        }
        let Some(hits) = answer
            .get("hits")
            .and_then(|h| h.get("hits"))
            .and_then(Value::as_array)
        else {
            break Err(malformed(SourceKind::Elasticsearch, "search hits"));
        };
        if hits.is_empty() {
            break Ok(());
        }
        let mut full = false;
        for hit in hits {
            let mut row = Row::new();
            if let Some(Value::Object(source)) = hit.get("_source") {
                row.extend(source.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            if let Some(id) = hit.get("_id") {
                row.insert("_id".to_string(), id.clone());
            }
            match cap.push(&mut rows, row) {
                Ok(true) => {
                    full = true;
                    break;
                }
                Ok(false) => {}
                Err(e) => return Err(e),
            }
        }
        if full {
            break Ok(());
        }
        let Some(id) = &scroll_id else {
            break Ok(());
        };
        let next = json!({ "scroll": KEEP_ALIVE, "scroll_id": id });
        let url = format!("{}/_search/scroll", service.base);
        match client.send(authorized(client.post(&url), service), Some(&next)) {
            Ok(a) => answer = a,
            Err(e) => break Err(e),
        }
    };
    if let Some(id) = scroll_id {
        // Frees the server's search context; a failure here changes nothing read.
        let url = format!("{}/_search/scroll", service.base);
        let _ = client.send(
            authorized(client.delete(&url), service),
            Some(&json!({ "scroll_id": id })),
        );
    }
    outcome.map(|()| rows)
}

/// The indices (`GET /_cat/indices?format=json&h=index`), hidden ones (`.…`) left out.
pub(super) fn indices(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let url = format!("{}/_cat/indices?format=json&h=index", service.base);
    let answer = client.send(authorized(client.get(&url), service), None)?;
    let list = answer
        .as_array()
        .ok_or_else(|| malformed(SourceKind::Elasticsearch, "a list of indices"))?;
    Ok(list
        .iter()
        .filter_map(|i| i.get("index").and_then(Value::as_str))
        .filter(|n| !n.starts_with('.'))
        .map(str::to_string)
        .collect())
}
