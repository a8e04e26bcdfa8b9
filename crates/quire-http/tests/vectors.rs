//! Vector search over HTTP with the local model shipped in quire: `/search/semantic` (GET and
//! POST), hybrid `/search`, `/suggestions`, `/embeddings`, `/eval`'s semantic figures, the
//! 503 of every route with vector search off, embeddings that follow a move without the
//! embedder, and writes that go on while the embedder is unreachable.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{enc, result_paths, settle_vectors, TestServer};

const ON: &str = "[search.vector]\nenabled = true\n";

fn vault() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "astronomy/stellar-distances.md",
            "# Stellar distances\n\nAstronomers measure how far away stars are with parallax: \
             the apparent shift of a nearby star against distant ones as the Earth orbits the \
             Sun. Distances are given in light years and parsecs. Proxima Centauri, the \
             nearest star, is about 4.2 light years away.\n",
        ),
        (
            "astronomy/planets.md",
            "# Planets of the solar system\n\nMercury, Venus, Earth and Mars are rocky; \
             Jupiter and Saturn are gas giants; Uranus and Neptune are ice giants.\n",
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
             deeply, stake the vines and pick the fruit when it is red. See [[sourdough]].\n",
        ),
    ]
}

fn server(config: &str) -> TestServer {
    let s = TestServer::from_config(config, &vault());
    settle_vectors(&s);
    s
}

#[tokio::test]
async fn vector_search_finds_pages_by_meaning_and_fuses_with_bm25() {
    // `[search.vector] enabled = true` and nothing else: the local model.
    let s = server(ON);

    // GET: each page once, best first, cosine similarity as score, the chunk as snippet.
    let q = enc("how far away are the stars");
    let r = s
        .get(&format!("/api/quire/search/semantic?q={q}&limit=3"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let found = result_paths(&v);
    assert_eq!(found[0], "astronomy/stellar-distances.md", "{v}");
    assert!(found.len() <= 3);
    let hit = &v["results"][0];
    assert!(hit["score"].as_f64().unwrap() > 0.0 && hit["score"].as_f64().unwrap() <= 1.0);
    assert_eq!(hit["title"], "Stellar distances");
    assert!(
        hit["snippet"].as_str().unwrap().contains("parallax"),
        "{hit}"
    );
    let mut unique = found.clone();
    unique.dedup();
    assert_eq!(unique, found, "each page once");

    // POST with `{query, limit}`.
    let r = s
        .post_json(
            "/api/quire/search/semantic",
            json!({"query": "baking bread at home", "limit": 2}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(result_paths(&r.json())[0], "kitchen/sourdough.md");

    // Hybrid is /search's default with vectors: words no page holds all of still rank the
    // page they mean first.
    let v = s
        .get(&format!(
            "/api/quire/search?q={}",
            enc("distance to the nearest star")
        ))
        .await
        .json();
    assert_eq!(v["mode"], "hybrid", "{v}");
    assert_eq!(result_paths(&v)[0], "astronomy/stellar-distances.md", "{v}");
    // `mode=bm25` is the old ranking; operators and fields are BM25's alone.
    let v = s
        .get(&format!("/api/quire/search?q={}&mode=bm25", enc("flour")))
        .await
        .json();
    assert_eq!(v["mode"], "bm25");
    assert_eq!(v["total"], 2);
    let v = s
        .get(&format!("/api/quire/search?q={}", enc("flour NOT eggs")))
        .await
        .json();
    assert_eq!(v["mode"], "bm25");
    assert_eq!(result_paths(&v), ["kitchen/sourdough.md"]);

    // A search right after a write finds it by its words at once (hybrid or not).
    s.put(
        "notes/new.md",
        "# Comets\n\nIcy bodies with long tails.\n",
        "tester",
    )
    .await;
    let v = s.get("/api/quire/search?q=comets").await.json();
    assert_eq!(result_paths(&v)[0], "notes/new.md", "{v}");
    // Pages vectors find only far from the query stay out.
    settle_vectors(&s);
    let v = s.get("/api/quire/search?q=comets").await.json();
    assert!(
        !result_paths(&v).contains(&"kitchen/pasta.md".to_string()),
        "{v}"
    );

    // Bad input: clear 4xx JSON.
    s.get("/api/quire/search/semantic").await.expect_error(400);
    s.get("/api/quire/search/semantic?q=%20")
        .await
        .expect_error(400);
    s.get("/api/quire/search?q=stars&mode=vectors")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn suggestions_name_similar_pages_not_yet_linked_and_embeddings_show_the_chunks() {
    let s = server(ON);
    let r = s
        .get("/api/quire/suggestions?path=kitchen/pasta.md&limit=3")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], "kitchen/pasta.md");
    let suggestions = v["suggestions"].as_array().unwrap();
    assert_eq!(suggestions[0]["target"], "kitchen/sourdough.md", "{v}");
    assert!(suggestions[0]["similarity"].as_f64().unwrap() > 0.0);
    assert!(suggestions[0]["snippet"]
        .as_str()
        .unwrap()
        .contains("dough"));
    assert!(suggestions.len() <= 3);
    assert!(suggestions
        .iter()
        .all(|s| s["target"] != "kitchen/pasta.md"));
    // A page it links to is no suggestion.
    let v = s
        .get("/api/quire/suggestions?path=garden/tomatoes.md")
        .await
        .json();
    assert!(
        v["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["target"] != "kitchen/sourdough.md"),
        "{v}"
    );

    let r = s
        .get("/api/quire/embeddings?path=astronomy/stellar-distances.md")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let dimensions = v["dimensions"].as_u64().unwrap() as usize;
    assert!(dimensions >= 64, "{v}");
    assert_eq!(v["current"], true);
    let chunks = v["chunks"].as_array().unwrap();
    assert_eq!(chunks.len(), 1, "a short page is one chunk");
    assert_eq!(chunks[0]["chunk_idx"], 0);
    assert!(chunks[0]["text"].as_str().unwrap().contains("parallax"));
    assert_eq!(chunks[0]["vector"].as_array().unwrap().len(), dimensions);

    s.get("/api/quire/suggestions?path=nope.md")
        .await
        .expect_error(404);
    s.get("/api/quire/embeddings?path=nope.md")
        .await
        .expect_error(404);
    s.get("/api/quire/embeddings").await.expect_error(400);
    s.get("/api/quire/suggestions?path=../x.md")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn a_moved_page_keeps_its_vectors_without_the_embedder() {
    let s = server(ON);
    let space = s.service.default_space();
    let before = space.vector_status().unwrap();
    assert_eq!(before.backlog, 0);
    assert_eq!(before.pages, 5);
    let r = s
        .post_json(
            "/api/quire/rename",
            json!({"from": "kitchen/pasta.md", "to": "recipes/pasta.md"}),
        )
        .await;
    assert!(r.status.is_success(), "{}", r.text());
    settle_vectors(&s);
    let after = space.vector_status().unwrap();
    assert_eq!(after.embedded, before.embedded, "nothing embedded again");
    assert!(after.reused > before.reused);
    assert_eq!(after.pages, 5);
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

    // An edit embeds the page again.
    s.put(
        "recipes/pasta.md",
        "# Fresh pasta\n\nKnead flour and eggs. Serve with tomato sauce and basil.\n",
        "tester",
    )
    .await;
    settle_vectors(&s);
    assert!(space.vector_status().unwrap().embedded > after.embedded);

    // `/eval` reports BM25, vectors and hybrid side by side.
    let r = s
        .post_json("/api/quire/eval", json!({"queries": [
                {"question": "how far away are the stars", "expected_paths": ["astronomy/stellar-distances.md"]},
                {"question": "baking bread", "expected_paths": ["kitchen/sourdough.md"]},
            ]}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert!(v["semantic"]["mrr"].as_f64().unwrap() > 0.5, "{v}");
    assert!(v["hybrid"]["hit_rate"].as_f64().unwrap() > 0.5, "{v}");
    assert_eq!(v["per_query"][0]["semantic_rank"], 1, "{v}");
}

#[tokio::test]
async fn with_vector_search_off_every_route_answers_503() {
    let s = server("");
    for route in [
        "/api/quire/search/semantic?q=stars",
        "/api/quire/suggestions?path=kitchen/pasta.md",
        "/api/quire/embeddings?path=kitchen/pasta.md",
    ] {
        let message = s.get(route).await.expect_error(503);
        assert!(message.contains("vector search off"), "{route}: {message}");
    }
    s.post_json("/api/quire/search/semantic", json!({"query": "stars"}))
        .await
        .expect_error(503);
    s.get("/api/quire/search?q=stars&mode=hybrid")
        .await
        .expect_error(503);
    let v = s.get("/api/quire/search?q=stars").await.json();
    assert_eq!(v["mode"], "bm25");
    let v = s.get("/readyz").await.json();
    assert!(v.get("vectors").is_none(), "{v}");
}

#[tokio::test]
async fn an_unreachable_embedder_delays_embeddings_never_writes() {
    // Nothing listens on port 1.
    let s = TestServer::from_config(
        "[search.vector]\nenabled = true\n[search.vector.embedder]\nprovider = \"http\"\n\
         url = \"http://127.0.0.1:1/v1\"\ndimensions = 8\ntimeout = \"1s\"\n",
        &vault(),
    );
    s.put(
        "notes/new.md",
        "# Comets\n\nIcy bodies with long tails.\n",
        "tester",
    )
    .await;
    let v = s.get("/api/quire/search?q=comets").await.json();
    assert_eq!(
        result_paths(&v),
        ["notes/new.md"],
        "full-text search goes on: {v}"
    );
    assert_eq!(v["mode"], "bm25", "the failing embedder is left out: {v}");
    let mut ready = Value::Null;
    for _ in 0..100 {
        ready = s.get("/readyz").await.json();
        if ready["vectors"]["default"]["last_error"].is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(ready["status"], "ok", "{ready}");
    let vectors = &ready["vectors"]["default"];
    assert!(
        vectors["last_error"]
            .as_str()
            .unwrap()
            .contains("unreachable"),
        "{ready}"
    );
    assert!(vectors["backlog"].as_u64().unwrap() >= 1, "{ready}");
    let metrics = s.get("/metrics").await.text();
    assert!(
        metrics.contains("quire_vector_failing{space=\"default\"} 1"),
        "{metrics}"
    );
    s.get("/api/quire/search/semantic?q=comets")
        .await
        .expect_error(503);
}

#[tokio::test]
async fn export_carries_each_pages_vectors_with_include_embeddings() {
    let s = server(ON);
    let r = s
        .get("/api/quire/export?format=jsonl&include-embeddings=true&path=kitchen")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let rows: Vec<Value> = r
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    let dimensions = s
        .get("/api/quire/embeddings?path=kitchen/pasta.md")
        .await
        .json()["dimensions"]
        .as_u64()
        .unwrap() as usize;
    for row in &rows {
        let vectors = row["embeddings"].as_array().unwrap();
        assert_eq!(vectors.len(), 1, "{row}");
        assert_eq!(vectors[0].as_array().unwrap().len(), dimensions);
    }
    // CSV: the column holds the list as JSON.
    let r = s
        .get("/api/quire/export?format=csv&include-embeddings=true&path=kitchen&columns=")
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let text = r.text();
    assert!(text.starts_with("path,embeddings\r\n"), "{text}");
}
