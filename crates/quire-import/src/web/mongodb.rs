//! MongoDB through the Atlas Data API, for an `http(s)://` `connection.uri` (older setups:
//! MongoDB has retired the Data API; a `mongodb://` or `mongodb+srv://` URI is read over the
//! wire protocol by `crate::mongo` instead): `POST {uri}/action/find` with header `api-key: <key>` and body `{dataSource,
//! database, collection, filter, sort: {_id: 1}, limit, skip}`, paged by `skip` until a page
//! comes back short. The cluster is the URL's `dataSource=` parameter (default `Cluster0`,
//! Atlas's first cluster). Extended JSON is decoded: `{"$oid": …}` → its hex text,
//! `{"$date": …}` → the date's text, `$numberLong`/`$numberInt`/`$numberDouble` → numbers,
//! `$numberDecimal` → text.

use serde_json::{json, Map, Number, Value};

use super::{json_query, malformed, page_size, Client, Service};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

const PAGE_MOST: usize = 1000;
pub(crate) const DEFAULT_DATA_SOURCE: &str = "Cluster0";

/// The endpoint without its parameters, and the cluster (`dataSource`).
fn endpoint(service: &Service) -> (String, String) {
    let (base, params) = service
        .base
        .split_once('?')
        .unwrap_or((service.base.as_str(), ""));
    let source = params
        .split('&')
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| *k == "dataSource")
        .map(|(_, v)| v.to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| DEFAULT_DATA_SOURCE.to_string());
    (base.trim_end_matches('/').to_string(), source)
}

pub(super) fn rows(
    client: &Client,
    service: &Service,
    query: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    let (base, data_source) = endpoint(service);
    let url = format!("{base}/action/find");
    let filter = json_query(query, "a MongoDB filter document")?.unwrap_or_else(|| json!({}));
    let limit = page_size(&cap, PAGE_MOST);
    let mut rows = Vec::new();
    let mut skip = 0usize;
    loop {
        let body = json!({
            "dataSource": data_source,
            "database": service.database.as_deref().unwrap_or("").trim(),
            "collection": service.collection.as_deref().unwrap_or("").trim(),
            "filter": filter,
            "sort": {"_id": 1},
            "limit": limit,
            "skip": skip,
        });
        let request = client
            .post(&url)
            .set("api-key", service.api_key.as_deref().unwrap_or(""));
        let answer = client.send(request, Some(&body))?;
        let documents = answer
            .get("documents")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Mongodb, "a list of documents"))?;
        for document in documents {
            let Value::Object(row) = plain(document.clone()) else {
                return Err(malformed(SourceKind::Mongodb, "a list of documents"));
            };
            if cap.push(&mut rows, row)? {
                return Ok(rows);
            }
        }
        if documents.len() < limit {
            return Ok(rows);
        }
        skip += documents.len();
    }
}

/// Extended JSON → plain JSON.
pub(crate) fn plain(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            if map.len() == 1 {
                let (key, inner) = map.iter().next().expect("one entry");
                match (key.as_str(), inner) {
                    ("$oid", Value::String(hex)) => return Value::String(hex.clone()),
                    ("$date", Value::String(text)) => return Value::String(text.clone()),
                    ("$date", Value::Object(_)) => {
                        return plain(inner.clone());
                    }
                    ("$numberLong" | "$numberInt", Value::String(n)) => {
                        if let Ok(n) = n.parse::<i64>() {
                            return Value::Number(n.into());
                        }
                    }
                    ("$numberDouble", Value::String(n)) => {
                        if let Some(n) = n.parse::<f64>().ok().and_then(Number::from_f64) {
                            return Value::Number(n);
                        }
                        return Value::String(n.clone());
                    }
                    ("$numberDecimal", Value::String(n)) => return Value::String(n.clone()),
                    _ => {}
                }
            }
            Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, plain(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(plain).collect()),
        other => other,
    }
}
