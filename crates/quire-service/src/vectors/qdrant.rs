//! The Qdrant store (`[search.vector.store] provider = "qdrant"`): one point per chunk in the
//! collection `collection` (default `quire`) of the server at `url`, over Qdrant's REST API,
//! `api_key` sent as its `api-key` header.
//!
//! * The collection is made at the first call when missing (cosine distance, the embedder's
//!   size) with a keyword index on `path`; one of another size or distance is refused, never
//!   deleted (it may not be quire's).
//! * A point's id is derived from its page and order; its payload holds `path`, `chunk_idx`,
//!   `hash`, `text`, the page's `etag` and the `model`. Points of another model are deleted
//!   at the first call, as the other stores empty themselves for another model.
//! * Replacing pages deletes their points by a filter on `path`, then upserts the new ones
//!   (`wait=true`): a search in between misses the page, never mixes two versions of it.
//! * A page's ETag is read from its first chunk's payload: a page with no chunk (empty) is
//!   looked at again at each start, which costs no embedding.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use quire_index::{Neighbor, StoredChunk};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::backend::{checked_name, BackendError, BackendResult, PageChunks, VectorBackend};

/// The collection when `collection` names none.
pub(crate) const DEFAULT_COLLECTION: &str = "quire";

/// Points asked per page of a scroll.
const SCROLL_PAGE: usize = 256;

/// How long one request may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The Qdrant store of one space.
pub(crate) struct Qdrant {
    /// `url` without its trailing `/`.
    base: String,
    collection: String,
    api_key: Option<String>,
    model: String,
    dimensions: usize,
    agent: ureq::Agent,
    /// Whether the collection was checked (made when missing) and other models' points
    /// deleted: done at the first call that reaches the server.
    ready: Mutex<bool>,
}

impl Qdrant {
    /// Checks `url` and the collection's name; reaches the server at the first call.
    pub(crate) fn new(
        url: &str,
        api_key: Option<&str>,
        collection: Option<&str>,
        model: &str,
        dimensions: usize,
    ) -> Result<Qdrant, String> {
        let base = url.trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!(
                "[search.vector.store] url {base:?} is no http:// or https:// address of Qdrant"
            ));
        }
        let collection = checked_name(collection.unwrap_or(DEFAULT_COLLECTION), true)?;
        Ok(Qdrant {
            base: base.to_string(),
            collection: collection.to_string(),
            api_key: api_key.map(str::to_string).filter(|k| !k.is_empty()),
            model: model.to_string(),
            dimensions,
            agent: ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(5))
                .timeout(TIMEOUT)
                .build(),
            ready: Mutex::new(false),
        })
    }

    /// Sends `body` (or nothing) to `path` under the collection; the answer's `result`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> BackendResult<Value> {
        let url = format!("{}/collections/{}{path}", self.base, self.collection);
        let mut request = self.agent.request(method, &url);
        if let Some(key) = &self.api_key {
            request = request.set("api-key", key);
        }
        let answer = match body {
            Some(body) => request.send_json(body),
            None => request.call(),
        };
        match answer {
            Ok(response) => {
                let value: Value = response.into_json().map_err(|e| {
                    self.failed(&format!("{method} {path}: an answer that is not JSON: {e}"))
                })?;
                Ok(value.get("result").cloned().unwrap_or(Value::Null))
            }
            Err(ureq::Error::Status(status, response)) => {
                let text = response.into_string().unwrap_or_default();
                let said = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|v| v["status"]["error"].as_str().map(str::to_string))
                    .unwrap_or_else(|| text.chars().take(200).collect());
                Err(self.failed(&format!("{method} {path} answered {status}: {said}")))
            }
            Err(ureq::Error::Transport(e)) => Err(self.failed(&format!("unreachable: {e}"))),
        }
    }

    fn failed(&self, message: &str) -> BackendError {
        let mut message = message.to_string();
        if let Some(key) = &self.api_key {
            message = message.replace(key.as_str(), "***");
        }
        BackendError::Remote(format!("qdrant at {}: {message}", self.base))
    }

    /// Makes sure the collection is there and holds only this model's points, once.
    fn ready(&self) -> BackendResult<()> {
        let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
        if *ready {
            return Ok(());
        }
        match self.call("GET", "", None) {
            Ok(info) => {
                let vectors = &info["config"]["params"]["vectors"];
                let size = vectors["size"].as_u64();
                let distance = vectors["distance"].as_str();
                if size != Some(self.dimensions as u64) || distance != Some("Cosine") {
                    return Err(self.failed(&format!(
                        "the collection {} holds vectors of {} numbers by {} distance, and this \
                         model's are {} numbers by cosine: name another collection or delete it",
                        self.collection,
                        size.map_or("?".to_string(), |s| s.to_string()),
                        distance.unwrap_or("?"),
                        self.dimensions
                    )));
                }
                let others =
                    json!({"filter": {"must_not": [match_value("model", json!(self.model))]}});
                self.call("POST", "/points/delete?wait=true", Some(others))?;
            }
            Err(BackendError::Remote(message)) if message.contains("answered 404") => {
                let config = json!({"vectors": {"size": self.dimensions, "distance": "Cosine"}});
                self.call("PUT", "", Some(config))?;
                let index = json!({"field_name": "path", "field_schema": "keyword"});
                self.call("PUT", "/index?wait=true", Some(index))?;
            }
            Err(e) => return Err(e),
        }
        *ready = true;
        Ok(())
    }

    /// [`Qdrant::call`] once the collection is ready.
    fn send(&self, method: &str, path: &str, body: Value) -> BackendResult<Value> {
        self.ready()?;
        self.call(method, path, Some(body))
    }

    /// Every point `filter` selects, with the payload fields `fields` (and their vectors when
    /// `vectors`), page by page.
    fn scroll(
        &self,
        filter: Option<Value>,
        fields: &[&str],
        vectors: bool,
    ) -> BackendResult<Vec<Value>> {
        let mut points = Vec::new();
        let mut offset = Value::Null;
        loop {
            let mut body = json!({
                "limit": SCROLL_PAGE,
                "with_payload": fields,
                "with_vector": vectors,
            });
            if let Some(filter) = &filter {
                body["filter"] = filter.clone();
            }
            if !offset.is_null() {
                body["offset"] = offset;
            }
            let result = self.send("POST", "/points/scroll", body)?;
            if let Some(page) = result["points"].as_array() {
                points.extend(page.iter().cloned());
            }
            offset = result["next_page_offset"].clone();
            if offset.is_null() {
                return Ok(points);
            }
        }
    }

    /// A point's id: a UUID made of the SHA-256 of its page and order, so writing a page
    /// again overwrites its points.
    fn point_id(path: &str, idx: usize) -> String {
        let digest = Sha256::digest(format!("{path}\n{idx}").as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        )
    }
}

fn match_value(key: &str, value: Value) -> Value {
    json!({"key": key, "match": {"value": value}})
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

impl VectorBackend for Qdrant {
    fn describe(&self) -> String {
        format!("qdrant at {} (collection {})", self.base, self.collection)
    }

    fn page_etags(&self) -> BackendResult<HashMap<String, String>> {
        let first = json!({"must": [match_value("chunk_idx", json!(0))]});
        let points = self.scroll(Some(first), &["path", "etag"], false)?;
        Ok(points
            .iter()
            .map(|p| (text(&p["payload"]["path"]), text(&p["payload"]["etag"])))
            .collect())
    }

    fn page_etag(&self, path: &str) -> BackendResult<Option<String>> {
        let body = json!({
            "filter": {"must": [match_value("path", json!(path)), match_value("chunk_idx", json!(0))]},
            "limit": 1,
            "with_payload": ["etag"],
            "with_vector": false,
        });
        let result = self.send("POST", "/points/scroll", body)?;
        Ok(result["points"]
            .as_array()
            .and_then(|points| points.first())
            .and_then(|p| p["payload"]["etag"].as_str())
            .map(str::to_string))
    }

    fn replace_pages(&self, pages: &[PageChunks<'_>]) -> BackendResult<()> {
        let paths: Vec<&str> = pages.iter().map(|(path, _, _)| *path).collect();
        self.remove_pages(&paths)?;
        let points: Vec<Value> = pages
            .iter()
            .flat_map(|(path, etag, chunks)| {
                chunks.iter().enumerate().map(move |(idx, chunk)| {
                    json!({
                        "id": Qdrant::point_id(path, idx),
                        "vector": chunk.vector,
                        "payload": {
                            "path": path,
                            "chunk_idx": idx,
                            "hash": chunk.hash,
                            "text": chunk.text,
                            "etag": etag,
                            "model": self.model,
                        },
                    })
                })
            })
            .collect();
        if points.is_empty() {
            return Ok(());
        }
        self.send("PUT", "/points?wait=true", json!({"points": points}))?;
        Ok(())
    }

    fn remove_pages(&self, paths: &[&str]) -> BackendResult<()> {
        if paths.is_empty() {
            return Ok(());
        }
        let body = json!({"filter": {"must": [{"key": "path", "match": {"any": paths}}]}});
        self.send("POST", "/points/delete?wait=true", body)?;
        Ok(())
    }

    fn nearest(&self, query: &[f32], k: usize) -> BackendResult<Vec<Neighbor>> {
        if query.len() != self.dimensions || k == 0 {
            return Ok(Vec::new());
        }
        let body = json!({
            "query": query,
            "limit": k,
            "with_payload": ["path", "chunk_idx", "text"],
        });
        let result = self.send("POST", "/points/query", body)?;
        Ok(result["points"]
            .as_array()
            .map(|points| {
                points
                    .iter()
                    .map(|p| Neighbor {
                        path: text(&p["payload"]["path"]),
                        idx: p["payload"]["chunk_idx"].as_u64().unwrap_or(0) as usize,
                        text: text(&p["payload"]["text"]),
                        similarity: p["score"].as_f64().unwrap_or(0.0) as f32,
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    fn chunks_of(&self, path: &str) -> BackendResult<Vec<StoredChunk>> {
        let filter = json!({"must": [match_value("path", json!(path))]});
        let points = self.scroll(Some(filter), &["chunk_idx", "hash", "text"], true)?;
        let mut chunks: Vec<StoredChunk> = points
            .iter()
            .map(|p| StoredChunk {
                idx: p["payload"]["chunk_idx"].as_u64().unwrap_or(0) as usize,
                hash: text(&p["payload"]["hash"]),
                text: text(&p["payload"]["text"]),
                vector: p["vector"]
                    .as_array()
                    .map(|v| v.iter().map(|x| x.as_f64().unwrap_or(0.0) as f32).collect())
                    .unwrap_or_default(),
            })
            .collect();
        chunks.sort_by_key(|c| c.idx);
        Ok(chunks)
    }

    fn counts(&self) -> BackendResult<(usize, usize)> {
        let count = |filter: Option<Value>| -> BackendResult<usize> {
            let mut body = json!({"exact": true});
            if let Some(filter) = filter {
                body["filter"] = filter;
            }
            let result = self.send("POST", "/points/count", body)?;
            Ok(result["count"].as_u64().unwrap_or(0) as usize)
        };
        let pages = count(Some(json!({"must": [match_value("chunk_idx", json!(0))]})))?;
        Ok((pages, count(None)?))
    }

    fn hashes(&self) -> BackendResult<HashSet<String>> {
        let points = self.scroll(None, &["hash"], false)?;
        Ok(points.iter().map(|p| text(&p["payload"]["hash"])).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_ids_are_uuids_fixed_by_page_and_order() {
        let id = Qdrant::point_id("notes/a.md", 0);
        assert_eq!(id.len(), 36);
        assert_eq!(id.matches('-').count(), 4);
        assert_eq!(id, Qdrant::point_id("notes/a.md", 0));
        assert_ne!(id, Qdrant::point_id("notes/a.md", 1));
    }

    #[test]
    fn only_plain_http_addresses_and_names_are_taken() {
        assert!(Qdrant::new("localhost:6333", None, None, "m", 3).is_err());
        assert!(Qdrant::new("http://q:6333/", None, Some("a/b"), "m", 3).is_err());
        let q = Qdrant::new("http://q:6333/", Some("k"), Some("my-notes"), "m", 3).unwrap();
        assert_eq!(
            q.describe(),
            "qdrant at http://q:6333 (collection my-notes)"
        );
    }
}
