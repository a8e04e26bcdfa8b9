//! Vector stores besides sqlite-vec, over HTTP with the local model: pgvector on a real
//! PostgreSQL with the `vector` extension (the `pgserver` wheel's, started per test by
//! `quire_testkit::servers`; skipped without it unless `QUIRE_REQUIRE_PGVECTOR` is set), and
//! Qdrant's REST API against a fake Qdrant on loopback written here (Qdrant cannot be
//! installed on the test machines): it checks every request quire sends (method, path,
//! `api-key`, body) and keeps the points in memory, ranked by real cosine similarity.
//! Stores that are down delay embeddings, never writes; stores not built stop the start.

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::Method;
use quire_testkit::servers::{Db, DbServer, PASSWORD};
use serde_json::{json, Value};
use support::{enc, result_paths, settle_vectors, TestServer};

fn vault() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "astronomy/stellar-distances.md",
            "# Stellar distances\n\nAstronomers measure how far away stars are with parallax: \
             the apparent shift of a nearby star against distant ones as the Earth orbits the \
             Sun. Distances are given in light years and parsecs.\n",
        ),
        (
            "kitchen/sourdough.md",
            "# Sourdough bread\n\nFeed the starter with flour and water, let the dough rise \
             overnight, then bake it in a hot oven until the crust is dark.\n",
        ),
        (
            "kitchen/pasta.md",
            "# Fresh pasta\n\nKnead flour and eggs into a smooth dough, rest it, roll it thin \
             and cut noodles. Boil them in salted water for two minutes.\n",
        ),
        (
            "garden/tomatoes.md",
            "# Growing tomatoes\n\nPlant seedlings after the last frost, water the soil \
             deeply, stake the vines and pick the fruit when it is red.\n",
        ),
    ]
}

/// What every store must do, the same as sqlite-vec: search by meaning, fuse with BM25,
/// suggest, show a page's chunks, follow a move without the embedder, forget a deleted page.
async fn behaves_like_a_store(s: &TestServer) {
    settle_vectors(s);
    let v = s
        .get(&format!(
            "/api/quire/search/semantic?q={}&limit=3",
            enc("how far away are the stars")
        ))
        .await
        .json();
    assert_eq!(result_paths(&v)[0], "astronomy/stellar-distances.md", "{v}");
    let score = v["results"][0]["score"].as_f64().unwrap();
    assert!(score > 0.3 && score <= 1.0001, "cosine similarity: {v}");
    assert!(v["results"][0]["snippet"]
        .as_str()
        .unwrap()
        .contains("parallax"));

    let v = s
        .get(&format!(
            "/api/quire/search?q={}",
            enc("distance to the nearest star")
        ))
        .await
        .json();
    assert_eq!(v["mode"], "hybrid", "{v}");
    assert_eq!(result_paths(&v)[0], "astronomy/stellar-distances.md", "{v}");

    let v = s
        .get("/api/quire/suggestions?path=kitchen/pasta.md&limit=3")
        .await
        .json();
    assert_eq!(v["suggestions"][0]["target"], "kitchen/sourdough.md", "{v}");

    let v = s
        .get("/api/quire/embeddings?path=kitchen/pasta.md")
        .await
        .json();
    assert_eq!(v["current"], true, "{v}");
    let dimensions = v["dimensions"].as_u64().unwrap() as usize;
    assert_eq!(
        v["chunks"][0]["vector"].as_array().unwrap().len(),
        dimensions
    );
    assert!(v["chunks"][0]["text"].as_str().unwrap().contains("noodles"));

    let space = s.service.default_space();
    let before = space.vector_status().unwrap();
    assert_eq!((before.pages, before.chunks, before.backlog), (4, 4, 0));
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "kitchen/pasta.md", "to": "recipes/pasta.md"}),
        )
        .await;
    assert!(r.status.is_success(), "{}", r.text());
    settle_vectors(s);
    let after = space.vector_status().unwrap();
    assert_eq!(after.embedded, before.embedded, "a move embeds nothing");
    assert!(after.reused > before.reused);
    assert_eq!(after.pages, 4);
    let v = s
        .get(&format!(
            "/api/quire/search/semantic?q={}",
            enc("homemade noodles")
        ))
        .await
        .json();
    assert!(
        result_paths(&v).contains(&"recipes/pasta.md".to_string()),
        "{v}"
    );
    assert!(
        !result_paths(&v).contains(&"kitchen/pasta.md".to_string()),
        "{v}"
    );

    let r = s
        .call(
            Method::DELETE,
            "/api/quire/file?path=garden/tomatoes.md",
            &[("x-actor", "tester")],
            "",
        )
        .await;
    assert!(r.status.is_success(), "{}", r.text());
    settle_vectors(s);
    assert_eq!(space.vector_status().unwrap().pages, 3);
    let v = s
        .get(&format!(
            "/api/quire/search/semantic?q={}",
            enc("growing vegetables in the garden")
        ))
        .await
        .json();
    assert!(
        !result_paths(&v).contains(&"garden/tomatoes.md".to_string()),
        "{v}"
    );
}

/// Checks `condition` holds on the server (it raises an error otherwise).
fn holds(db: &DbServer, condition: &str) {
    db.run(&format!(
        "DO $$ BEGIN IF NOT ({condition}) THEN RAISE EXCEPTION 'does not hold: %', '{}'; END IF; END $$;",
        condition.replace('\'', "''")
    ));
}

#[tokio::test]
async fn pgvector_keeps_chunks_in_postgres_and_ranks_them_by_cosine() {
    let Some(db) = DbServer::start(Db::Pgvector) else {
        return;
    };
    let config = format!(
        "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"pgvector\"\n\
         dsn = \"{}\"\ncollection = \"kb\"\n",
        db.dsn()
    );
    let s = TestServer::from_config(&config, &vault());
    behaves_like_a_store(&s).await;

    // The extension, the tables and the HNSW index are quire's own, in the database.
    holds(
        &db,
        "EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')",
    );
    holds(&db, "(SELECT count(*) FROM kb_pages) = 3");
    holds(
        &db,
        "(SELECT count(*) FROM kb_chunks WHERE path = 'recipes/pasta.md') = 1",
    );
    holds(
        &db,
        "NOT EXISTS (SELECT 1 FROM kb_chunks WHERE path = 'kitchen/pasta.md')",
    );
    holds(
        &db,
        "EXISTS (SELECT 1 FROM pg_indexes WHERE tablename = 'kb_chunks' \
         AND indexdef LIKE '%hnsw%vector_cosine_ops%')",
    );

    // /readyz names the store, never its password.
    let ready = s.get("/readyz").await.json();
    let store = ready["vectors"]["default"]["store"].as_str().unwrap();
    assert!(
        store.starts_with("pgvector at postgres://quire@127.0.0.1:"),
        "{ready}"
    );
    assert!(!ready.to_string().contains(PASSWORD), "{ready}");
    drop(s);

    // Another model empties the tables at its first call (the same size here: the sizes
    // are the model's; a model name is all the store can tell apart).
    db.run("UPDATE kb_meta SET value = 'another-model' WHERE key = 'model';");
    let s = TestServer::from_config(&config, &vault());
    settle_vectors(&s);
    holds(&db, "(SELECT count(*) FROM kb_pages) = 4");
    holds(
        &db,
        "(SELECT value FROM kb_meta WHERE key = 'model') <> 'another-model'",
    );
}

#[tokio::test]
async fn a_pgvector_dsn_asking_for_tls_or_missing_stops_the_start() {
    for (store, expected) in [
        (
            "dsn = \"postgres://u:Secr3tPw@127.0.0.1:5432/db?sslmode=require\"",
            "TLS",
        ),
        ("collection = \"kb\"", "needs dsn"),
        (
            "dsn = \"postgres://u:Secr3tPw@127.0.0.1:5432/db\"\ncollection = \"kb; DROP\"",
            "not a plain name",
        ),
    ] {
        let config = format!(
            "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"pgvector\"\n{store}\n"
        );
        let message = open_error(&config);
        assert!(message.contains(expected), "{store}: {message}");
        assert!(!message.contains("Secr3tPw"), "{message}");
    }
}

#[tokio::test]
async fn stores_not_built_stop_the_start() {
    for provider in ["pinecone", "weaviate", "milvus"] {
        let message = open_error(&format!(
            "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"{provider}\"\n\
             url = \"http://127.0.0.1:1\"\n"
        ));
        assert!(
            message.contains(provider) && message.contains("not built"),
            "{message}"
        );
    }
    let message = open_error(
        "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"qdrant\"\n",
    );
    assert!(message.contains("needs url"), "{message}");
}

/// The message of the error opening a root with `config` gives.
fn open_error(config: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let config = quire_config::Config::from_toml_str(config, &|_| None)
        .expect("config parses")
        .config;
    let mut settings = quire_service::settings_from_config(dir.path(), &config);
    for space in &mut settings {
        space.history = support::sync_git();
    }
    match quire_service::Service::open(settings) {
        Ok(_) => panic!("the service opened"),
        Err(e) => e.message,
    }
}

#[tokio::test]
async fn an_unreachable_store_delays_embeddings_never_writes() {
    // Nothing listens on port 1.
    for (store, expected) in [
        (
            format!(
                "provider = \"pgvector\"\ndsn = \"postgres://quire:{PASSWORD}@127.0.0.1:1/kb\""
            ),
            "pgvector at postgres://quire@127.0.0.1:1/kb",
        ),
        (
            format!(
                "provider = \"qdrant\"\nurl = \"http://127.0.0.1:1\"\napi_key = \"{PASSWORD}\""
            ),
            "qdrant at http://127.0.0.1:1: unreachable",
        ),
    ] {
        let s = TestServer::from_config(
            &format!("[search.vector]\nenabled = true\n[search.vector.store]\n{store}\n"),
            &vault(),
        );
        let r = s
            .put(
                "notes/new.md",
                "# Comets\n\nIcy bodies with long tails.\n",
                "tester",
            )
            .await;
        assert!(r.status.is_success(), "the write goes on: {}", r.text());
        let v = s.get("/api/quire/search?q=comets").await.json();
        assert_eq!(result_paths(&v), ["notes/new.md"], "{v}");
        assert_eq!(v["mode"], "bm25", "the store is left out: {v}");
        let mut ready = Value::Null;
        // Up to 30 s: the first failure is reported at once, but a loaded machine is slow.
        for _ in 0..600 {
            ready = s.get("/readyz").await.json();
            if ready["vectors"]["default"]["last_error"].is_string() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(ready["status"], "ok", "{ready}");
        let vectors = &ready["vectors"]["default"];
        let error = vectors["last_error"].as_str().unwrap_or_default();
        assert!(error.contains(expected), "{ready}");
        assert!(vectors["backlog"].as_u64().unwrap() >= 1, "{ready}");
        assert!(!ready.to_string().contains(PASSWORD), "{ready}");
        let message = s
            .get("/api/quire/search/semantic?q=comets")
            .await
            .expect_error(503);
        assert!(!message.contains(PASSWORD), "{message}");
        // The vectors computed wait in the local cache: none is computed twice.
        assert!(s.dir.path().join(".quire/state/vectors.db").is_file());
    }
}

// ---- A fake Qdrant -----------------------------------------------------------------------

const API_KEY: &str = "qk-test-4f1a";

/// What the fake keeps: the collection's vector size and distance, its points by id, every
/// request, and what was wrong in them.
#[derive(Default)]
struct Qdrant {
    collection: Option<(u64, String)>,
    indexed: Vec<String>,
    points: BTreeMap<String, (Vec<f64>, Value)>,
    requests: Vec<String>,
    wrong: Vec<String>,
}

struct FakeQdrant {
    url: String,
    state: Arc<Mutex<Qdrant>>,
}

impl FakeQdrant {
    /// Serves the collection `kb` on a free loopback port.
    fn start() -> FakeQdrant {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(Qdrant::default()));
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = shared.clone();
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        FakeQdrant { url, state }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Qdrant> {
        self.state.lock().unwrap()
    }
}

/// Answers the requests of one connection (kept alive) until the client closes it.
fn serve(stream: TcpStream, state: &Mutex<Qdrant>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut length = 0;
        let mut key = None;
        let mut json_body = false;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap(),
                "api-key" => key = Some(value.trim().to_string()),
                "content-type" => json_body = value.contains("application/json"),
                _ => {}
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let body: Value = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body).unwrap()
        };
        let (status, answer) = {
            let mut q = state.lock().unwrap();
            q.requests.push(format!("{method} {target}"));
            if key.as_deref() != Some(API_KEY) {
                q.wrong.push(format!("{method} {target}: api-key {key:?}"));
            }
            if !body.is_null() && !json_body {
                q.wrong
                    .push(format!("{method} {target}: a body not sent as JSON"));
            }
            answer(&mut q, &method, &target, &body)
        };
        let text = answer.to_string();
        let reason = if status == 200 { "OK" } else { "Error" };
        write!(
            writer,
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        )
        .unwrap();
    }
}

fn ok(result: Value) -> (u16, Value) {
    (
        200,
        json!({"result": result, "status": "ok", "time": 0.0001}),
    )
}

fn error(status: u16, message: &str) -> (u16, Value) {
    (status, json!({"status": {"error": message}, "time": 0.0}))
}

/// Whether a point's payload passes a Qdrant filter of `must` / `must_not` conditions
/// (`{"key", "match": {"value"}}` or `{"match": {"any"}}`).
fn passes(payload: &Value, filter: &Value) -> bool {
    let holds = |c: &Value| {
        let field = &payload[c["key"].as_str().unwrap()];
        match (&c["match"]["value"], &c["match"]["any"]) {
            (v, _) if !v.is_null() => field == v,
            (_, Value::Array(any)) => any.contains(field),
            _ => panic!("a condition the fake does not know: {c}"),
        }
    };
    let list = |k: &str| filter[k].as_array().cloned().unwrap_or_default();
    list("must").iter().all(holds) && !list("must_not").iter().any(holds)
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The payload fields `with_payload` asks for (a list of names, or all).
fn pick(payload: &Value, with: &Value) -> Value {
    match with {
        Value::Array(names) => Value::Object(
            names
                .iter()
                .map(|n| {
                    let n = n.as_str().unwrap();
                    (n.to_string(), payload[n].clone())
                })
                .collect(),
        ),
        Value::Bool(false) => Value::Null,
        _ => payload.clone(),
    }
}

fn answer(q: &mut Qdrant, method: &str, target: &str, body: &Value) -> (u16, Value) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let Some(rest) = path.strip_prefix("/collections/kb") else {
        return error(404, &format!("no route {path}"));
    };
    if !rest.is_empty() && q.collection.is_none() {
        return error(404, "Not found: Collection `kb` doesn't exist!");
    }
    let waits = query.split('&').any(|p| p == "wait=true");
    match (method, rest) {
        ("GET", "") => match &q.collection {
            None => error(404, "Not found: Collection `kb` doesn't exist!"),
            Some((size, distance)) => ok(json!({
                "status": "green",
                "points_count": q.points.len(),
                "config": {"params": {"vectors": {"size": size, "distance": distance}}},
            })),
        },
        ("PUT", "") => {
            let size = body["vectors"]["size"].as_u64();
            let distance = body["vectors"]["distance"].as_str();
            match (size, distance) {
                (Some(size), Some(distance)) => {
                    q.collection = Some((size, distance.to_string()));
                    ok(json!(true))
                }
                _ => error(400, &format!("bad collection: {body}")),
            }
        }
        ("PUT", "/index") => {
            q.indexed
                .push(body["field_name"].as_str().unwrap_or("").to_string());
            ok(json!({"operation_id": 1, "status": "completed"}))
        }
        ("PUT", "/points") => {
            if !waits {
                q.wrong.push("an upsert without wait=true".into());
            }
            let size = q.collection.as_ref().unwrap().0 as usize;
            for point in body["points"].as_array().unwrap() {
                let id = point["id"].as_str().unwrap_or("").to_string();
                let vector = floats(&point["vector"]);
                let uuid = id.len() == 36 && id.matches('-').count() == 4;
                if !uuid || vector.len() != size {
                    return error(400, &format!("bad point {id}: {} numbers", vector.len()));
                }
                q.points.insert(id, (vector, point["payload"].clone()));
            }
            ok(json!({"operation_id": 2, "status": "completed"}))
        }
        ("POST", "/points/delete") => {
            if !waits {
                q.wrong.push("a delete without wait=true".into());
            }
            let filter = &body["filter"];
            q.points.retain(|_, (_, payload)| !passes(payload, filter));
            ok(json!({"operation_id": 3, "status": "completed"}))
        }
        ("POST", "/points/scroll") => {
            let limit = body["limit"].as_u64().unwrap_or(10) as usize;
            let from = body["offset"].as_str().unwrap_or("").to_string();
            let selected: Vec<(&String, &(Vec<f64>, Value))> = q
                .points
                .range(from..)
                .filter(|(_, (_, p))| body["filter"].is_null() || passes(p, &body["filter"]))
                .take(limit + 1)
                .collect();
            let next = selected
                .get(limit)
                .map(|(id, _)| json!(id))
                .unwrap_or(Value::Null);
            let points: Vec<Value> = selected
                .iter()
                .take(limit)
                .map(|(id, (vector, payload))| {
                    let mut p = json!({"id": id, "payload": pick(payload, &body["with_payload"])});
                    if body["with_vector"] == json!(true) {
                        p["vector"] = json!(vector);
                    }
                    p
                })
                .collect();
            ok(json!({"points": points, "next_page_offset": next}))
        }
        ("POST", "/points/query") => {
            let query = floats(&body["query"]);
            let limit = body["limit"].as_u64().unwrap_or(10) as usize;
            let mut scored: Vec<(f64, &String, &Value)> = q
                .points
                .iter()
                .map(|(id, (v, p))| (cosine(&query, v), id, p))
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let points: Vec<Value> = scored
                .into_iter()
                .take(limit)
                .map(|(score, id, p)| {
                    json!({"id": id, "version": 1, "score": score,
                           "payload": pick(p, &body["with_payload"])})
                })
                .collect();
            ok(json!({"points": points}))
        }
        ("POST", "/points/count") => {
            let count = q
                .points
                .values()
                .filter(|(_, p)| body["filter"].is_null() || passes(p, &body["filter"]))
                .count();
            ok(json!({"count": count}))
        }
        _ => error(404, &format!("no route {method} {path}")),
    }
}

#[tokio::test]
async fn qdrant_keeps_one_point_per_chunk_over_its_rest_api() {
    let fake = FakeQdrant::start();
    let config = format!(
        "[search.vector]\nenabled = true\n[search.vector.store]\nprovider = \"qdrant\"\n\
         url = \"{}/\"\napi_key = \"{API_KEY}\"\ncollection = \"kb\"\n",
        fake.url
    );
    let s = TestServer::from_config(&config, &vault());
    behaves_like_a_store(&s).await;
    {
        let q = fake.state();
        assert!(q.wrong.is_empty(), "{:#?}", q.wrong);
        // Made at the first call: looked for, created (cosine, the model's size), indexed.
        assert_eq!(
            q.requests[..3],
            [
                "GET /collections/kb",
                "PUT /collections/kb",
                "PUT /collections/kb/index?wait=true"
            ],
            "{:#?}",
            q.requests
        );
        let dimensions = s
            .service
            .default_space()
            .vector_status()
            .unwrap()
            .dimensions;
        assert_eq!(q.collection, Some((dimensions as u64, "Cosine".into())));
        assert_eq!(q.indexed, ["path"]);
        // One point per chunk, with what quire reads back.
        assert_eq!(q.points.len(), 3);
        let (_, payload) = q
            .points
            .values()
            .find(|(_, p)| p["path"] == "recipes/pasta.md")
            .expect("the moved page's point");
        assert_eq!(payload["chunk_idx"], 0);
        assert!(payload["text"].as_str().unwrap().contains("noodles"));
        for field in ["hash", "etag", "model"] {
            assert!(payload[field].is_string(), "{field}: {payload}");
        }
        assert!(q
            .requests
            .iter()
            .any(|r| r == "POST /collections/kb/points/query"));
    }
    let ready = s.get("/readyz").await.json();
    assert_eq!(
        ready["vectors"]["default"]["store"],
        format!("qdrant at {} (collection kb)", fake.url),
        "{ready}"
    );
    assert!(!ready.to_string().contains(API_KEY));
    drop(s);

    // A collection of another size is refused, never deleted: it may not be quire's.
    let other = FakeQdrant::start();
    other.state().collection = Some((3, "Cosine".into()));
    let s = TestServer::from_config(&config.replace(&fake.url, &other.url), &vault());
    let mut error = String::new();
    for _ in 0..200 {
        let ready = s.get("/readyz").await.json();
        if let Some(e) = ready["vectors"]["default"]["last_error"].as_str() {
            error = e.to_string();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(error.contains("holds vectors of 3 numbers"), "{error}");
    let q = other.state();
    assert_eq!(q.collection, Some((3, "Cosine".into())));
    assert!(
        !q.requests.iter().any(|r| r.starts_with("DELETE")),
        "{:?}",
        q.requests
    );
}
