//! Claim endpoints: every status the spec names (200, 400, 403, 404, 409 with `active_claim`,
//! 503 without a claim store).

mod support;

use axum::http::Method;
use quire_service::AssetRules;
use serde_json::{json, Value};
use support::{sync_git, Reply, TestServer};

async fn claim(s: &TestServer, actor: Option<&str>, body: Value) -> Reply {
    send(s, Method::POST, "/api/quire/claim", actor, body).await
}

async fn release(s: &TestServer, actor: Option<&str>, path: &str) -> Reply {
    send(
        s,
        Method::DELETE,
        "/api/quire/claim",
        actor,
        json!({ "path": path }),
    )
    .await
}

async fn send(
    s: &TestServer,
    method: Method,
    uri: &str,
    actor: Option<&str>,
    body: Value,
) -> Reply {
    let mut headers = vec![("content-type", "application/json")];
    if let Some(actor) = actor {
        headers.push(("x-actor", actor));
    }
    s.call(method, uri, &headers, body.to_string()).await
}

/// Milliseconds since the epoch of an RFC 3339 UTC time as the server writes it
/// (`2024-05-01T12:00:00Z`, `2024-05-01T12:00:00.250Z`).
fn instant(v: &Value) -> i64 {
    let text = v.as_str().expect("a string");
    let body = text
        .strip_suffix('Z')
        .unwrap_or_else(|| panic!("{text} is not UTC"));
    let (date, time) = body.split_once('T').expect("date and time");
    let numbers = |part: &str, sep: char| -> Vec<i64> {
        part.split(sep)
            .map(|n| n.parse().expect("a number"))
            .collect()
    };
    let (time, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let [year, month, day] = numbers(date, '-')[..] else {
        panic!("{text}: bad date")
    };
    let [hour, minute, second] = numbers(time, ':')[..] else {
        panic!("{text}: bad time")
    };
    // Days from 1970-01-01 (proleptic Gregorian), by shifting the year to start in March.
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * m + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let millis: i64 = format!("{fraction:0<3}")[..3].parse().expect("fraction");
    ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
}

#[test]
fn timestamps_are_read_back_as_epoch_milliseconds() {
    let cases = [
        ("1970-01-01T00:00:00Z", 0),
        ("2000-03-01T00:00:00.5Z", 951_868_800_500),
        ("2023-11-14T22:13:20Z", 1_700_000_000_000),
        ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
    ];
    for (text, millis) in cases {
        assert_eq!(instant(&json!(text)), millis, "{text}");
    }
}

#[tokio::test]
async fn claim_answers_200_with_a_30_minute_lease_by_default() {
    let s = TestServer::new();
    let r = claim(&s, Some("alice"), json!({ "path": "notes/a.md" })).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["path"], "notes/a.md");
    assert_eq!(v["actor"], "alice");
    assert_eq!(v["lease_duration"], "30m");
    let lease = instant(&v["expires_at"]) - instant(&v["claimed_at"]);
    assert_eq!(lease, 30 * 60 * 1000);
    s.assert_clean();
}

#[tokio::test]
async fn claim_takes_the_requested_lease_and_the_holder_renews_it() {
    let s = TestServer::new();
    let first = claim(
        &s,
        Some("alice"),
        json!({ "path": "a.md", "lease_duration": "1m" }),
    )
    .await
    .json();
    let r = claim(
        &s,
        Some("alice"),
        json!({ "path": "a.md", "lease_duration": "2h" }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let renewed = r.json();
    assert_eq!(renewed["lease_duration"], "2h");
    assert_eq!(renewed["claimed_at"], first["claimed_at"]);
    assert!(instant(&renewed["expires_at"]) > instant(&first["expires_at"]));
}

#[tokio::test]
async fn claim_answers_400_for_missing_actor_bad_lease_or_bad_path() {
    let s = TestServer::new();
    let cases = [
        (None, json!({ "path": "a.md" }), "X-Actor"),
        (Some("  "), json!({ "path": "a.md" }), "X-Actor"),
        (
            Some("alice"),
            json!({ "path": "a.md", "lease_duration": "59s" }),
            "lease_duration",
        ),
        (
            Some("alice"),
            json!({ "path": "a.md", "lease_duration": "25h" }),
            "lease_duration",
        ),
        (
            Some("alice"),
            json!({ "path": "a.md", "lease_duration": "soon" }),
            "lease_duration",
        ),
        (Some("alice"), json!({ "path": "../outside.md" }), "path"),
        (Some("alice"), json!({ "path": "" }), "path"),
        (Some("alice"), json!({ "lease_duration": "5m" }), "path"),
    ];
    for (actor, body, mentions) in cases {
        let message = claim(&s, actor, body.clone()).await.expect_error(400);
        assert!(
            message.contains(mentions),
            "{body} by {actor:?}: {message:?} should mention {mentions}"
        );
    }
    let listed = s.get("/api/quire/claims").await.json();
    assert_eq!(listed["claims"], json!([]), "no request above claimed");
}

#[tokio::test]
async fn claim_held_by_another_actor_answers_409_with_the_active_claim() {
    let s = TestServer::new();
    let alice = claim(&s, Some("alice"), json!({ "path": "a.md" }))
        .await
        .json();
    let r = claim(&s, Some("bob"), json!({ "path": "a.md" })).await;
    assert_eq!(r.expect_error(409), "already claimed");
    assert_eq!(r.json()["active_claim"], alice);
}

#[tokio::test]
async fn release_by_the_holder_answers_200_and_frees_the_path() {
    let s = TestServer::new();
    claim(&s, Some("alice"), json!({ "path": "a.md" })).await;
    let r = release(&s, Some("alice"), "a.md").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!({ "released": "a.md" }));
    let r = claim(&s, Some("bob"), json!({ "path": "a.md" })).await;
    assert_eq!(
        r.status,
        200,
        "bob may claim after the release: {}",
        r.text()
    );
}

#[tokio::test]
async fn release_by_another_actor_answers_403_and_keeps_the_claim() {
    let s = TestServer::new();
    claim(&s, Some("alice"), json!({ "path": "a.md" })).await;
    let message = release(&s, Some("bob"), "a.md").await.expect_error(403);
    assert!(message.contains("alice"), "{message}");
    let listed = s.get("/api/quire/claims").await.json();
    assert_eq!(listed["claims"][0]["actor"], "alice");
}

#[tokio::test]
async fn release_of_an_unclaimed_path_answers_404() {
    let s = TestServer::new();
    release(&s, Some("alice"), "a.md").await.expect_error(404);
}

#[tokio::test]
async fn release_answers_400_without_actor_or_with_a_bad_path() {
    let s = TestServer::new();
    claim(&s, Some("alice"), json!({ "path": "a.md" })).await;
    release(&s, None, "a.md").await.expect_error(400);
    release(&s, Some("alice"), "../a.md")
        .await
        .expect_error(400);
}

#[tokio::test]
async fn claims_lists_every_active_claim_by_path() {
    let s = TestServer::new();
    claim(&s, Some("bob"), json!({ "path": "b.md" })).await;
    claim(&s, Some("alice"), json!({ "path": "a.md" })).await;
    let r = s.get("/api/quire/claims").await;
    assert_eq!(r.status, 200);
    let claims = r.json()["claims"].clone();
    let listed: Vec<(&str, &str)> = claims
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["path"].as_str().unwrap(), c["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, [("a.md", "alice"), ("b.md", "bob")]);
}

#[tokio::test]
async fn claim_paths_are_normalised_like_every_other_path() {
    let s = TestServer::new();
    claim(&s, Some("alice"), json!({ "path": "/notes/a.md" })).await;
    let r = claim(&s, Some("bob"), json!({ "path": "notes/a.md" })).await;
    assert_eq!(r.expect_error(409), "already claimed");
}

#[tokio::test]
async fn claims_are_served_for_a_space_named_in_the_url() {
    let s = TestServer::new();
    let r = send(
        &s,
        Method::POST,
        "/api/quire/default/claim",
        Some("alice"),
        json!({ "path": "a.md" }),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let listed = s.get("/api/quire/claims").await.json();
    assert_eq!(listed["claims"][0]["path"], "a.md");
}

#[tokio::test]
async fn every_claim_route_answers_503_without_a_claim_store() {
    // A folder where the index database belongs: the space opens, its claim store does not.
    let s = TestServer::with(
        sync_git(),
        AssetRules::default(),
        &[(".quire/state/index.db/occupied", "")],
    );
    for r in [
        claim(&s, Some("alice"), json!({ "path": "a.md" })).await,
        release(&s, Some("alice"), "a.md").await,
        s.get("/api/quire/claims").await,
    ] {
        assert_eq!(r.expect_error(503), "claims not enabled");
    }
}

#[tokio::test]
async fn openapi_document_lists_the_claim_routes() {
    let s = TestServer::new();
    let doc = s.get("/api/openapi.json").await.json();
    let paths = &doc["paths"];
    assert!(paths["/api/quire/claim"].get("post").is_some());
    assert!(paths["/api/quire/claim"].get("delete").is_some());
    assert!(paths["/api/quire/claims"].get("get").is_some());
}
