//! Saved import connections (`/import/connections…`, `/import/sync/status`): saved without
//! their password, run with the run's credentials against a real PostgreSQL
//! (`quire_testkit::servers`; skipped when it is not installed unless
//! `QUIRE_REQUIRE_DB_SERVERS` is set), scheduled, deleted. After every operation no file of
//! the root holds the password.

mod support;

use axum::http::Method;
use quire_testkit::servers::{Db, DbServer, PASSWORD};
use serde_json::{json, Value};
use support::{sync_git, TestServer};

fn server(files: &[(&str, &str)]) -> TestServer {
    TestServer::with(sync_git(), Default::default(), files)
}

async fn post(s: &TestServer, route: &str, body: Value) -> support::Reply {
    s.post_json(&format!("/api/quire/{route}"), body).await
}

#[tokio::test]
async fn a_file_connection_is_saved_listed_run_scheduled_and_deleted() {
    let s = server(&[("data/people.csv", "id,name\n1,Ada\n2,Grace\n")]);
    let r = s.get("/api/quire/import/connections").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json(), json!([]));

    let r = post(
        &s,
        "import/connections",
        json!({"from": "csv", "name": "People", "file": "data/people.csv",
               "id_column": "id", "prefix": "people",
               "mapping": {"path": "{{name}}.md", "title": "{{name}}"}}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let saved = r.json();
    let id = saved["id"].as_str().unwrap().to_owned();
    assert_eq!(saved["from"], "csv");
    assert_eq!(saved["needs_secret"], false);
    assert_eq!(saved["sync"], json!({"enabled": false}));

    let r = s.get("/api/quire/import/connections").await;
    assert_eq!(r.json().as_array().unwrap().len(), 1);

    let commits = s.commit_count();
    let r = post(&s, &format!("import/connections/{id}/run"), json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], 2);
    assert_eq!(s.commit_count(), commits + 1);
    assert!(s.disk("people/Ada.md").is_some());
    // Again: nothing changed, nothing imported, no commit; the run is recorded.
    let r = post(&s, &format!("import/connections/{id}/run"), json!({})).await;
    assert_eq!(r.json()["skipped"], 2);
    assert_eq!(s.commit_count(), commits + 1);
    let listed = s.get("/api/quire/import/connections").await.json();
    assert_eq!(listed[0]["last_run"]["skipped"], 2);

    // A schedule needs an interval of at least ten seconds.
    let r = post(
        &s,
        &format!("import/connections/{id}/sync"),
        json!({"enabled": true}),
    )
    .await;
    r.expect_error(400);
    let r = post(
        &s,
        &format!("import/connections/{id}/sync"),
        json!({"enabled": true, "interval": "1s"}),
    )
    .await;
    r.expect_error(400);
    let r = post(
        &s,
        &format!("import/connections/{id}/sync"),
        json!({"enabled": true, "interval": "1h"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["sync"], json!({"enabled": true, "interval": "1h"}));
    let status = s.get("/api/quire/import/sync/status").await;
    assert_eq!(status.status, 200, "{}", status.text());
    let syncs = status.json()["syncs"].clone();
    assert_eq!(syncs[0]["id"], id.as_str());
    assert_eq!(syncs[0]["enabled"], true);
    assert!(syncs[0]["next_run"].is_string(), "{syncs}");
    assert!(syncs[0].get("blocked").is_none(), "{syncs}");

    let r = s
        .call(
            Method::DELETE,
            &format!("/api/quire/import/connections/{id}"),
            &[],
            "",
        )
        .await;
    assert_eq!(r.status, 204, "{}", r.text());
    let r = s
        .call(
            Method::DELETE,
            &format!("/api/quire/import/connections/{id}"),
            &[],
            "",
        )
        .await;
    r.expect_error(404);
    let r = post(&s, &format!("import/connections/{id}/run"), json!({})).await;
    r.expect_error(404);
    assert_eq!(
        s.get("/api/quire/import/connections").await.json(),
        json!([])
    );
}

#[tokio::test]
async fn bad_connections_are_refused_and_write_nothing() {
    let s = server(&[]);
    let commits = s.commit_count();
    let r = post(&s, "import/connections", json!({"from": "nosuchsource"})).await;
    assert!(r.expect_error(400).contains("nosuchsource"));
    let r = post(&s, "import/connections", json!({"name": "no source"})).await;
    assert_eq!(r.status, 400, "{}", r.text());
    let r = post(&s, "import/connections/abc/sync", json!({"enabled": false})).await;
    r.expect_error(404);
    assert_eq!(s.commit_count(), commits);
    assert!(s.disk(".quire/state/import-connections.json").is_none());
}

#[tokio::test]
async fn a_database_connection_keeps_no_password_and_runs_with_the_runs_credentials() {
    let Some(db) = DbServer::start(Db::Postgres) else {
        return;
    };
    db.run(
        "CREATE TABLE notes (id int PRIMARY KEY, title text);
         INSERT INTO notes VALUES (1, 'First note'), (2, 'Second');",
    );
    let s = server(&[]);
    let dsn = db.dsn();
    assert!(dsn.contains(PASSWORD));
    let r = post(
        &s,
        "import/connections",
        json!({"from": "postgres", "name": "Shop notes", "dsn": dsn, "table": "notes",
               "id_column": "id", "mapping": {"path": "notes/{{id}}.md", "title": "{{title}}"}}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(!r.text().contains(PASSWORD));
    let saved = r.json();
    let id = saved["id"].as_str().unwrap().to_owned();
    assert_eq!(saved["needs_secret"], true);
    assert!(saved["dsn"].as_str().unwrap().contains("sslmode=disable"));
    support::assert_nowhere(&s, PASSWORD);

    // Without the password: refused, nothing written.
    let commits = s.commit_count();
    let r = post(&s, &format!("import/connections/{id}/run"), json!({})).await;
    assert!(r.expect_error(400).contains("credentials.password"));
    assert_eq!(s.commit_count(), commits);
    // A wrong one: the server refuses, the run says so, no password anywhere.
    let r = post(
        &s,
        &format!("import/connections/{id}/run"),
        json!({"credentials": {"password": "not-the-password"}}),
    )
    .await;
    assert!(r.status.as_u16() >= 400, "{}", r.text());
    assert!(!r.text().contains("not-the-password"));
    support::assert_nowhere(&s, "not-the-password");
    // The right one: the rows are pages, the password still nowhere.
    let r = post(
        &s,
        &format!("import/connections/{id}/run"),
        json!({"credentials": {"password": PASSWORD}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["imported"], 2);
    assert!(s.disk("notes/1.md").unwrap().contains("First note"));
    support::assert_nowhere(&s, PASSWORD);

    // Scheduled: it cannot run without its password, and the status says so.
    let r = post(
        &s,
        &format!("import/connections/{id}/sync"),
        json!({"enabled": true, "interval": "10m"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let syncs = s.get("/api/quire/import/sync/status").await.json()["syncs"].clone();
    assert!(
        syncs[0]["blocked"].as_str().unwrap().contains("password"),
        "{syncs}"
    );
    assert!(syncs[0].get("next_run").is_none(), "{syncs}");
    support::assert_nowhere(&s, PASSWORD);
}
