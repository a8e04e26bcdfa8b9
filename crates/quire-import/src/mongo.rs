//! MongoDB over its wire protocol: `connection.uri` = `mongodb://…` or `mongodb+srv://…`,
//! read with the official driver's blocking API (`mongodb::sync`). (An `https://` URI is the
//! Atlas Data API instead, `crate::web`.)
//!
//! **Reading.** `find` on `database.collection` with the filter of `query` (a JSON object;
//! none: every document), sorted by `_id`, through a cursor whose batches hold at most
//! [`BATCH`] documents; the find is limited to the rows the [`Cap`] lets through (a preview's
//! `first`, an import's most plus one to notice one too many), so a big collection is never
//! read whole. A collection that the database does not list is a 400 before anything is read.
//! Browse lists the database's collections (`listCollections`, names only, sorted).
//!
//! **Types.** ObjectId → its hex text, DateTime → RFC 3339 text, Int32/Int64/Double →
//! numbers (a NaN or infinity as text), Decimal128 → its text, Binary → base64 text,
//! documents and arrays → objects and lists, null → null, Timestamp → `{t, i}`, a regular
//! expression → `/pattern/flags`, JavaScript → its code; MinKey, MaxKey, undefined and
//! DBPointer are left out. `_id` is `_source_id` (as the Data API path gives it).
//!
//! **The password never leaves.** The URI is a [`Dsn`]: it prints without its password, and
//! every driver message is scrubbed of it (plain and percent-encoded) and of the URI before it
//! becomes an [`ImportError`]. TLS is the driver's (rustls), on when the URI says so
//! (`tls=true`) and for every `mongodb+srv://`. Server selection and connecting give up after
//! [`CONNECT_TIMEOUT`]: nothing listening is a 400 within seconds.

use std::time::Duration;

use base64::Engine as _;
use mongodb::bson::{doc, Bson, Document};
use mongodb::options::ClientOptions;
use serde_json::{Map, Number, Value};

use crate::dsn::Dsn;
use crate::rows::Cap;
use crate::{ImportError, Row};

/// The URI schemes of the wire protocol.
pub const SCHEMES: [&str; 2] = ["mongodb", "mongodb+srv"];
/// The most documents one batch of the cursor holds.
pub const BATCH: usize = 1000;
/// How long server selection and a connection attempt wait.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(4);

/// Whether `uri` is for the wire protocol (`mongodb://`, `mongodb+srv://`) rather than the
/// Data API.
pub fn is_wire_uri(uri: &str) -> bool {
    uri.trim()
        .split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// A collection to read: the server's URI, the database and the collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub uri: Dsn,
    pub database: String,
    pub collection: String,
}

impl Target {
    /// Parses `uri`; `database` defaults to the URI's path. `collection` may be empty for a
    /// browse. A missing database is 400 naming the field.
    pub fn new(uri: &str, database: Option<&str>, collection: &str) -> Result<Target, ImportError> {
        let uri = Dsn::parse(uri, &SCHEMES)?;
        let database = database
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .unwrap_or(uri.database())
            .to_string();
        if database.is_empty() {
            return Err(ImportError::BadRequest(
                "a `mongodb` import needs `connection.database` (or a database in the URI's path)"
                    .to_string(),
            ));
        }
        Ok(Target {
            uri,
            database,
            collection: collection.trim().to_string(),
        })
    }

    /// `_source` of its pages: `mongodb:<host:port>/<database>/<collection>`.
    pub fn source_name(&self) -> String {
        format!(
            "mongodb:{}/{}/{}",
            self.uri.place(),
            self.database,
            self.collection
        )
    }

    fn client(&self) -> Result<mongodb::sync::Client, ImportError> {
        let mut options = ClientOptions::parse(self.uri.secret())
            .run()
            .map_err(|e| self.refused(&e))?;
        options.server_selection_timeout = Some(CONNECT_TIMEOUT);
        options.connect_timeout = Some(CONNECT_TIMEOUT);
        options.app_name = Some("quire import".to_string());
        mongodb::sync::Client::with_options(options).map_err(|e| self.refused(&e))
    }

    fn refused(&self, e: &mongodb::error::Error) -> ImportError {
        self.uri.refused(&reason(e))
    }

    /// A failure after connecting: a refused login or an unreachable server is still "cannot
    /// connect"; anything else a failed query.
    fn failed(&self, e: &mongodb::error::Error) -> ImportError {
        use mongodb::error::ErrorKind;
        match *e.kind {
            ErrorKind::ServerSelection { .. }
            | ErrorKind::Authentication { .. }
            | ErrorKind::Io(_)
            | ErrorKind::ConnectionPoolCleared { .. }
            | ErrorKind::DnsResolve { .. }
            | ErrorKind::InvalidTlsConfig { .. } => self.refused(e),
            _ => self.uri.failed(&reason(e)),
        }
    }
}

/// The driver's words for `e`, without its labels; a server selection that timed out names
/// the time and the server's own error (`Connection refused (os error 111)`), not the whole
/// topology.
fn reason(e: &mongodb::error::Error) -> String {
    let text = e.kind.to_string();
    if !matches!(*e.kind, mongodb::error::ErrorKind::ServerSelection { .. }) {
        return text;
    }
    let waited = format!("no server answered within {} s", CONNECT_TIMEOUT.as_secs());
    match text
        .split("Error: Kind: ")
        .nth(1)
        .and_then(|rest| rest.split(", labels:").next())
    {
        Some(cause) => format!("{waited}: {cause}"),
        None => waited,
    }
}

/// The collections of the target's database, sorted.
pub fn collections(target: &Target) -> Result<Vec<String>, ImportError> {
    let client = target.client()?;
    let mut names = client
        .database(&target.database)
        .list_collection_names()
        .authorized_collections(true)
        .run()
        .map_err(|e| target.failed(&e))?;
    names.sort();
    Ok(names)
}

/// The documents of the target's collection matching `query`, sorted by `_id`.
pub fn rows(target: &Target, query: Option<&str>, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let filter = filter(query)?;
    if target.collection.is_empty() {
        return Err(ImportError::BadRequest(
            "a `mongodb` import needs `connection.collection`".to_string(),
        ));
    }
    let client = target.client()?;
    let database = client.database(&target.database);
    let listed = database
        .list_collection_names()
        .filter(doc! {"name": &target.collection})
        .authorized_collections(true)
        .run()
        .map_err(|e| target.failed(&e))?;
    if !listed.contains(&target.collection) {
        return Err(ImportError::BadRequest(format!(
            "{} has no collection `{}` in database `{}`",
            target.uri.redacted(),
            target.collection,
            target.database
        )));
    }
    // A preview takes its rows; an import one past its most, to tell "too many".
    let wanted = cap.first.unwrap_or(cap.max.saturating_add(1)).max(1);
    let cursor = database
        .collection::<Document>(&target.collection)
        .find(filter)
        .sort(doc! {"_id": 1})
        .batch_size(wanted.min(BATCH) as u32)
        .limit(i64::try_from(wanted).unwrap_or(i64::MAX))
        .run()
        .map_err(|e| target.failed(&e))?;
    let mut rows = Vec::new();
    for document in cursor {
        let document = document.map_err(|e| target.failed(&e))?;
        if cap.push(&mut rows, row(document))? {
            break;
        }
    }
    Ok(rows)
}

/// `query` as a filter document: a JSON object (Extended JSON as the server's shell writes
/// it, `{"_id": {"$oid": "…"}}`, is read as BSON).
fn filter(query: Option<&str>) -> Result<Document, ImportError> {
    let Some(query) = query.map(str::trim).filter(|q| !q.is_empty()) else {
        return Ok(Document::new());
    };
    let bad = || {
        ImportError::BadRequest("`query` is a MongoDB filter document as a JSON object".to_string())
    };
    let value: Value = serde_json::from_str(query).map_err(|_| bad())?;
    if !value.is_object() {
        return Err(bad());
    }
    match Bson::try_from(value).map_err(|_| bad())? {
        Bson::Document(document) => Ok(document),
        _ => Err(bad()),
    }
}

/// One document as a row.
pub fn row(document: Document) -> Row {
    document
        .into_iter()
        .filter_map(|(key, value)| json(value).map(|v| (key, v)))
        .collect()
}

/// One BSON value as JSON; `None` for the types that have no JSON form here.
pub fn json(value: Bson) -> Option<Value> {
    Some(match value {
        Bson::Null => Value::Null,
        Bson::Boolean(b) => Value::Bool(b),
        Bson::Int32(n) => Value::Number(n.into()),
        Bson::Int64(n) => Value::Number(n.into()),
        Bson::Double(x) => match Number::from_f64(x) {
            Some(n) => Value::Number(n),
            None => Value::String(x.to_string()),
        },
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => Value::String(s),
        Bson::JavaScriptCodeWithScope(code) => Value::String(code.code),
        Bson::ObjectId(id) => Value::String(id.to_hex()),
        Bson::DateTime(at) => match at.try_to_rfc3339_string() {
            Ok(text) => Value::String(text),
            Err(_) => Value::Number(at.timestamp_millis().into()),
        },
        Bson::Decimal128(d) => Value::String(d.to_string()),
        Bson::Binary(binary) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(binary.bytes))
        }
        Bson::Document(document) => Value::Object(row(document)),
        Bson::Array(items) => Value::Array(items.into_iter().filter_map(json).collect()),
        Bson::Timestamp(ts) => {
            let mut map = Map::new();
            map.insert("t".to_string(), Value::Number(ts.time.into()));
            map.insert("i".to_string(), Value::Number(ts.increment.into()));
            Value::Object(map)
        }
        Bson::RegularExpression(re) => Value::String(format!("/{}/{}", re.pattern, re.options)),
        Bson::Undefined | Bson::MaxKey | Bson::MinKey | Bson::DbPointer(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::{oid::ObjectId, spec::BinarySubtype, Binary, DateTime, Decimal128};
    use serde_json::json;

    #[test]
    fn bson_values_become_plain_json() {
        let id = ObjectId::parse_str("65f1a2b3c4d5e6f708091a2b").unwrap();
        let document = doc! {
            "_id": id,
            "at": DateTime::from_millis(1_709_285_400_000),
            "n32": 5_i32,
            "n64": 9_007_199_254_740_993_i64,
            "x": 2.5,
            "price": "12.30".parse::<Decimal128>().unwrap(),
            "data": Binary { subtype: BinarySubtype::Generic, bytes: b"hi!".to_vec() },
            "nested": {"a": [1_i32, "two", Bson::Null]},
            "none": Bson::Null,
            "gone": Bson::MinKey,
        };
        assert_eq!(
            Value::Object(row(document)),
            json!({
                "_id": "65f1a2b3c4d5e6f708091a2b",
                "at": "2024-03-01T09:30:00Z",
                "n32": 5,
                "n64": 9_007_199_254_740_993_i64,
                "x": 2.5,
                "price": "12.30",
                "data": "aGkh",
                "nested": {"a": [1, "two", null]},
                "none": null,
            })
        );
    }

    #[test]
    fn a_filter_is_a_json_object_and_extended_json_is_read() {
        let f = filter(Some(
            r#"{"tags": "rust", "_id": {"$oid": "65f1a2b3c4d5e6f708091a2b"}}"#,
        ))
        .unwrap();
        assert_eq!(f.get_str("tags").unwrap(), "rust");
        assert!(matches!(f.get("_id"), Some(Bson::ObjectId(_))));
        assert!(filter(None).unwrap().is_empty());
        for bad in ["[1]", "nope", "3"] {
            assert!(filter(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_uri_is_told_apart_and_prints_without_its_password() {
        assert!(is_wire_uri("mongodb://h:27017"));
        assert!(is_wire_uri("MongoDB+srv://cluster0.example.net"));
        assert!(!is_wire_uri("https://data.mongodb-api.com/app/x"));
        let target = Target::new(
            "mongodb+srv://ann:s%40cret@cluster0.example.net/shop?retryWrites=true&tls=true",
            None,
            "notes",
        )
        .unwrap();
        assert_eq!(target.database, "shop");
        assert_eq!(
            target.source_name(),
            "mongodb:cluster0.example.net/shop/notes"
        );
        assert!(!format!("{target:?}").contains("cret"), "{target:?}");
        let err = Target::new("mongodb://h:27017", None, "notes").unwrap_err();
        assert!(err.to_string().contains("connection.database"), "{err}");
        let hosts = Target::new("mongodb://u:pw1234@a:1,b:2/db?replicaSet=rs", None, "c").unwrap();
        assert_eq!(hosts.source_name(), "mongodb:a:1,b:2/db/c");
    }
}
