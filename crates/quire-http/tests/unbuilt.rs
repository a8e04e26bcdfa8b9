//! The spec's routes whose subsystem quire does not build answer the spec's defined status,
//! not 404: 503 "vector search off" for vector search, an empty list of import connections,
//! 501 for the rest; none of them writes anything.

mod support;

use axum::http::Method;
use support::TestServer;

#[tokio::test]
async fn vector_search_routes_answer_503_vector_search_off() {
    let s = TestServer::new();
    for (method, uri) in [
        (Method::GET, "/api/quire/search/semantic?q=alpha"),
        (Method::POST, "/api/quire/search/semantic"),
        (Method::GET, "/api/quire/suggestions?path=a.md&limit=5"),
        (Method::GET, "/api/quire/embeddings?path=a.md"),
    ] {
        let r = s.call(method.clone(), uri, &[], "").await;
        let message = r.expect_error(503);
        assert!(
            message.contains("vector search off"),
            "{method} {uri}: {message}"
        );
    }
    s.assert_clean();
}

#[tokio::test]
async fn unbuilt_import_export_and_ingest_routes_answer_501_and_write_nothing() {
    let s = TestServer::new();
    let commits = s.commit_count();
    for (method, uri) in [
        (Method::POST, "/api/quire/import/airbyte/spec"),
        (Method::POST, "/api/quire/import/airbyte-cloud/sync"),
        (Method::GET, "/api/quire/import/airbyte-cloud/connections"),
    ] {
        let r = s
            .call(
                method.clone(),
                uri,
                &[("content-type", "application/json")],
                "{}",
            )
            .await;
        let message = r.expect_error(501);
        assert!(
            message.contains("not implemented"),
            "{method} {uri}: {message}"
        );
    }
    assert_eq!(s.commit_count(), commits);
    s.assert_clean();
}

#[tokio::test]
async fn unbuilt_routes_answer_under_a_named_space_too() {
    let s = TestServer::new();
    let r = s.get("/api/quire/default/suggestions?path=a.md").await;
    r.expect_error(503);
}

#[tokio::test]
async fn every_route_of_the_spec_answers_something_other_than_404() {
    let s = TestServer::new();
    let spec = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/spec-routes.txt"
    ));
    // The list of the spec's routes lives beside the spec's words (docs/spec-routes.txt).
    let spec = spec.expect("docs/spec-routes.txt lists the spec's routes");
    let mut missing = Vec::new();
    for line in spec
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let (method, path) = line.split_once(' ').unwrap();
        let method: Method = method.parse().unwrap();
        let uri = path.replace("{path}", "notes/x.md").replace(['{', '}'], "");
        let uri = match uri.starts_with("/api/") || uri.starts_with("/p/") || !uri.starts_with('/')
        {
            true => uri,
            false if ["/health", "/healthz", "/readyz", "/metrics"].contains(&uri.as_str()) => uri,
            false => format!("/api/quire{uri}"),
        };
        let r = s
            .call(
                method.clone(),
                &uri,
                &[("content-type", "application/json")],
                "{}",
            )
            .await;
        // A 404 must be the resource's, never the router's "no such route".
        if r.status == 404 && r.text().contains("no such route") || r.status == 405 {
            missing.push(format!("{method} {uri}: {} {}", r.status, r.text()));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
