//! Firestore: `GET /v1/projects/{project}/databases/{database}/documents/{collection}
//! ?pageSize=300` (`Authorization: Bearer <OAuth access token>`), paged by the answer's
//! `nextPageToken` given back as `pageToken=`. The database is `connection.database`
//! (default `(default)`). A document is a row of its decoded `fields` plus `id` (the last
//! segment of its name), `name`, `createTime` and `updateTime`.
//!
//! Browse lists the database's top-level collections: `POST …/documents:listCollectionIds`
//! with `{"pageSize": 300}`, then `pageToken` while the answer's `nextPageToken` is not
//! empty. Without `api_key`, `credentials` (a service account key) is exchanged for an access
//! token with the `datastore` scope first ([`token`]).

use std::time::Duration;

use serde_json::{json, Map, Number, Value};

use super::{encode, malformed, page_size, Client, Service, TIMEOUT_SECS};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

const PAGE_MOST: usize = 300;

/// An access token for `credentials`, a service account key's JSON text. Its errors name
/// `credentials`, never the key.
pub(super) fn token(credentials: &str) -> Result<String, ImportError> {
    let account = quire_gauth::Account::from_json(
        credentials,
        "`credentials`",
        quire_gauth::DATASTORE,
        Duration::from_secs(TIMEOUT_SECS),
    )
    .map_err(|e| ImportError::BadRequest(format!("Firestore: {e}")))?;
    account
        .token()
        .map_err(|e| ImportError::BadRequest(format!("Firestore: {e}")))
}

/// `{base}/v1/projects/{project}/databases/{database}/documents`.
fn documents_url(service: &Service) -> String {
    let project = service.project.as_deref().unwrap_or("").trim();
    let database = service
        .database
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .unwrap_or("(default)");
    let database = if database == "(default)" {
        database.to_string()
    } else {
        encode(database)
    };
    format!(
        "{}/v1/projects/{}/databases/{database}/documents",
        service.base,
        encode(project)
    )
}

/// The ids of the database's top-level collections.
pub(super) fn collections(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let url = format!("{}:listCollectionIds", documents_url(service));
    let bearer = format!("Bearer {}", service.api_key.as_deref().unwrap_or(""));
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut body = json!({"pageSize": PAGE_MOST});
        if let Some(token) = &token {
            body["pageToken"] = Value::String(token.clone());
        }
        let answer = client.send(client.post(&url).set("Authorization", &bearer), Some(&body))?;
        let ids = match answer.get("collectionIds") {
            Some(Value::Array(ids)) => ids.as_slice(),
            None if answer.is_object() => &[],
            _ => return Err(malformed(SourceKind::Firestore, "a list of collection ids")),
        };
        names.extend(ids.iter().filter_map(Value::as_str).map(str::to_string));
        match answer.get("nextPageToken").and_then(Value::as_str) {
            Some(next) if !next.is_empty() && !ids.is_empty() => token = Some(next.to_string()),
            _ => return Ok(names),
        }
    }
}

pub(super) fn rows(client: &Client, service: &Service, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let collection = service.collection.as_deref().unwrap_or("").trim();
    let collection: Vec<String> = collection.split('/').map(encode).collect();
    let url = format!("{}/{}", documents_url(service), collection.join("/"));
    let size = page_size(&cap, PAGE_MOST);
    let bearer = format!("Bearer {}", service.api_key.as_deref().unwrap_or(""));
    let mut rows = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut page_url = format!("{url}?pageSize={size}");
        if let Some(token) = &token {
            page_url.push_str(&format!("&pageToken={}", encode(token)));
        }
        let answer = client.send(client.get(&page_url).set("Authorization", &bearer), None)?;
        let documents = match answer.get("documents") {
            Some(Value::Array(documents)) => documents.as_slice(),
            None if answer.is_object() => &[],
            _ => return Err(malformed(SourceKind::Firestore, "a list of documents")),
        };
        for document in documents {
            let mut row = Row::new();
            if let Some(Value::Object(fields)) = document.get("fields") {
                for (name, value) in fields {
                    if let Some(value) = decode(value) {
                        row.insert(name.clone(), value);
                    }
                }
            }
            if let Some(name) = document.get("name").and_then(Value::as_str) {
                let id = name.rsplit('/').next().unwrap_or(name);
                row.insert("id".to_string(), Value::String(id.to_string()));
                row.insert("name".to_string(), Value::String(name.to_string()));
            }
            for key in ["createTime", "updateTime"] {
                if let Some(value) = document.get(key) {
                    row.insert(key.to_string(), value.clone());
                }
            }
            if cap.push(&mut rows, row)? {
                return Ok(rows);
            }
        }
        match answer.get("nextPageToken").and_then(Value::as_str) {
            Some(next) if !next.is_empty() && !documents.is_empty() => {
                token = Some(next.to_string())
            }
            _ => return Ok(rows),
        }
    }
}

/// A Firestore `Value` as plain JSON: `stringValue`, `integerValue` (a number),
/// `doubleValue`, `booleanValue`, `timestampValue` (its text), `mapValue`, `arrayValue`,
/// `referenceValue` (the path), `geoPointValue` (`{latitude, longitude}`), `bytesValue`
/// (base64 text); `nullValue` is no value.
pub(crate) fn decode(value: &Value) -> Option<Value> {
    let map = value.as_object()?;
    let (kind, inner) = map.iter().next()?;
    match kind.as_str() {
        "nullValue" => None,
        "integerValue" => match inner {
            Value::String(n) => n
                .parse::<i64>()
                .ok()
                .map(|n| Value::Number(n.into()))
                .or_else(|| Some(inner.clone())),
            other => Some(other.clone()),
        },
        "doubleValue" => match inner {
            Value::String(n) => n
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Value::Number)
                .or_else(|| Some(inner.clone())),
            other => Some(other.clone()),
        },
        "mapValue" => {
            let mut out = Map::new();
            if let Some(Value::Object(fields)) = inner.get("fields") {
                for (name, value) in fields {
                    if let Some(value) = decode(value) {
                        out.insert(name.clone(), value);
                    }
                }
            }
            Some(Value::Object(out))
        }
        "arrayValue" => Some(Value::Array(
            inner
                .get("values")
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(decode).collect())
                .unwrap_or_default(),
        )),
        _ => Some(inner.clone()),
    }
}
