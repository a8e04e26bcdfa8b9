//! DynamoDB: `Scan` over the JSON protocol — `POST /` to `https://dynamodb.<region>.
//! amazonaws.com` with `X-Amz-Target: DynamoDB_20120810.Scan`, `Content-Type:
//! application/x-amz-json-1.0`, body `{TableName, Limit, ExclusiveStartKey?}`, signed with
//! AWS Signature Version 4 (`quire-sigv4`, service `dynamodb`), paged by the answer's
//! `LastEvaluatedKey` given back as `ExclusiveStartKey` until there is none.
//!
//! Browse lists the tables with `ListTables` (`X-Amz-Target: DynamoDB_20120810.ListTables`,
//! body `{Limit: 100}`, then `{Limit: 100, ExclusiveStartTableName}` from each answer's
//! `LastEvaluatedTableName` until there is none), signed the same way; names: `TableNames`.
//!
//! Credentials: `connection.api_key` as `ACCESS_KEY_ID:SECRET_ACCESS_KEY` (a third
//! `:SESSION_TOKEN` part for temporary credentials), always given by the request: the
//! server's own AWS credentials (which the `bedrock` embedder may use) never sign an import,
//! or anyone allowed to import could read every table the server's identity reaches. The
//! region: the URL's
//! when it is AWS's (`dynamodb.eu-west-1.amazonaws.com`), else `AWS_REGION`,
//! `AWS_DEFAULT_REGION`, else `us-east-1`. An item is a row of its attributes decoded (see
//! [`decode`]).

use serde_json::{json, Map, Number, Value};

use super::{malformed, page_size, Client, Service};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

const PAGE_MOST: usize = 1000;
/// Table names asked for per `ListTables` page (the API's most).
const LIST_MOST: usize = 100;
pub(crate) const TARGET: &str = "DynamoDB_20120810.Scan";
const LIST_TARGET: &str = "DynamoDB_20120810.ListTables";
pub(crate) const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

/// The region of the environment (`AWS_REGION`, `AWS_DEFAULT_REGION`), else `us-east-1`.
pub(crate) fn env_region() -> String {
    ["AWS_REGION", "AWS_DEFAULT_REGION"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "us-east-1".to_string())
}

/// The region a request to `host` is signed for.
pub(crate) fn region_of(host: &str) -> String {
    let name = host.split(':').next().unwrap_or(host);
    let labels: Vec<&str> = name.split('.').collect();
    match labels.as_slice() {
        ["dynamodb", region, "amazonaws", ..] if !region.is_empty() => region.to_string(),
        _ => env_region(),
    }
}

fn credentials(service: &Service) -> Result<quire_sigv4::Credentials, ImportError> {
    if let Some(key) = service.api_key.as_deref() {
        let mut parts = key.splitn(3, ':');
        let id = parts.next().unwrap_or("").trim();
        let secret = parts.next().unwrap_or("").trim();
        if id.is_empty() || secret.is_empty() {
            return Err(ImportError::BadRequest(
                "a `dynamodb` `connection.api_key` is `ACCESS_KEY_ID:SECRET_ACCESS_KEY` \
                 (or `…:SESSION_TOKEN` after them)"
                    .to_string(),
            ));
        }
        return Ok(quire_sigv4::Credentials {
            access_key_id: id.to_string(),
            secret_access_key: secret.to_string(),
            session_token: parts
                .next()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string),
        });
    }
    Err(ImportError::BadRequest(
        "a `dynamodb` import needs `connection.api_key` (`ACCESS_KEY_ID:SECRET_ACCESS_KEY`); \
         the server's own AWS credentials are never used for an import"
            .to_string(),
    ))
}

/// Signed calls of one service's JSON protocol: `POST` of a body with an `X-Amz-Target`.
struct Signer<'a> {
    client: &'a Client,
    credentials: quire_sigv4::Credentials,
    host: String,
    region: String,
    /// The path signed: the base URL's, `/` when it has none.
    path: String,
    url: String,
}

impl<'a> Signer<'a> {
    /// The signer of `service`; no `api_key` is a 400 before anything is sent.
    fn new(client: &'a Client, service: &Service) -> Result<Signer<'a>, ImportError> {
        let credentials = credentials(service)?;
        let host = service.host().to_string();
        let path = service
            .base
            .split_once("://")
            .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
            .unwrap_or("/")
            .to_string();
        let url = format!("{}{}", service.base, if path == "/" { "/" } else { "" });
        Ok(Signer {
            client,
            credentials,
            region: region_of(&host),
            host,
            path,
            url,
        })
    }

    /// Sends `body` as the operation `target` names, signed, and reads the JSON answer.
    fn call(&self, target: &str, body: &Value) -> Result<Value, ImportError> {
        let text = body.to_string();
        let signed = quire_sigv4::sign(
            &quire_sigv4::Request {
                method: "POST",
                host: &self.host,
                path: &self.path,
                headers: &[("content-type", CONTENT_TYPE), ("x-amz-target", target)],
                body: text.as_bytes(),
            },
            &self.credentials,
            &self.region,
            "dynamodb",
            &quire_sigv4::now(),
        );
        let mut request = self
            .client
            .post(&self.url)
            .set("Content-Type", CONTENT_TYPE)
            .set("X-Amz-Target", target);
        for (name, value) in &signed {
            request = request.set(name, value);
        }
        self.client.send_text(request, Some(&text))
    }
}

pub(super) fn rows(client: &Client, service: &Service, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let signer = Signer::new(client, service)?;
    let table = service.table.as_deref().unwrap_or("").trim();
    let limit = page_size(&cap, PAGE_MOST);
    let mut rows = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut body = json!({ "TableName": table, "Limit": limit });
        if let Some(key) = &start {
            body["ExclusiveStartKey"] = key.clone();
        }
        let answer = signer.call(TARGET, &body)?;
        let items = answer
            .get("Items")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Dynamodb, "a list of items"))?;
        for item in items {
            let Some(attributes) = item.as_object() else {
                return Err(malformed(SourceKind::Dynamodb, "a list of items"));
            };
            let mut row = Row::new();
            for (name, value) in attributes {
                if let Some(value) = decode(value) {
                    row.insert(name.clone(), value);
                }
            }
            if cap.push(&mut rows, row)? {
                return Ok(rows);
            }
        }
        match answer.get("LastEvaluatedKey") {
            Some(key @ Value::Object(_)) => start = Some(key.clone()),
            _ => return Ok(rows),
        }
    }
}

/// The names of the tables the credentials see in the region (`ListTables`, every page).
pub(super) fn tables(client: &Client, service: &Service) -> Result<Vec<String>, ImportError> {
    let signer = Signer::new(client, service)?;
    let mut names = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let mut body = json!({ "Limit": LIST_MOST });
        if let Some(name) = &start {
            body["ExclusiveStartTableName"] = Value::String(name.clone());
        }
        let answer = signer.call(LIST_TARGET, &body)?;
        let page = answer
            .get("TableNames")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(SourceKind::Dynamodb, "a list of table names"))?;
        for name in page {
            let name = name
                .as_str()
                .ok_or_else(|| malformed(SourceKind::Dynamodb, "a list of table names"))?;
            names.push(name.to_string());
        }
        match answer.get("LastEvaluatedTableName").and_then(Value::as_str) {
            // A repeated name would page forever.
            Some(last) if !last.is_empty() && start.as_deref() != Some(last) => {
                start = Some(last.to_string());
            }
            _ => return Ok(names),
        }
    }
}

fn number(text: &str) -> Value {
    if let Ok(n) = text.parse::<i64>() {
        return Value::Number(n.into());
    }
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => Value::Number(n),
        None => Value::String(text.to_string()),
    }
}

/// An attribute value as plain JSON: `S` text, `N` a number (text when it does not fit),
/// `BOOL`, `L` a list, `M` an object, `SS`/`NS`/`BS` lists, `B` its base64 text; `NULL` is
/// no value.
pub(crate) fn decode(value: &Value) -> Option<Value> {
    let map = value.as_object()?;
    let (kind, inner) = map.iter().next()?;
    match (kind.as_str(), inner) {
        ("NULL", _) => None,
        ("N", Value::String(n)) => Some(number(n)),
        ("NS", Value::Array(ns)) => Some(Value::Array(
            ns.iter().filter_map(Value::as_str).map(number).collect(),
        )),
        ("L", Value::Array(items)) => Some(Value::Array(items.iter().filter_map(decode).collect())),
        ("M", Value::Object(fields)) => Some(Value::Object(
            fields
                .iter()
                .filter_map(|(k, v)| decode(v).map(|v| (k.clone(), v)))
                .collect::<Map<String, Value>>(),
        )),
        (_, other) => Some(other.clone()),
    }
}
