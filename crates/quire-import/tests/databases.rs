//! The database sources against real servers (PostgreSQL, MariaDB, Redis from the system's
//! packages, started by `quire_testkit::servers`): column types become JSON as documented,
//! writes cannot be smuggled in, browse lists the tables, and a refused connection is a 400
//! whose message never holds the password. Each test skips when its server is not installed,
//! unless `QUIRE_REQUIRE_DB_SERVERS` is set.

use quire_import::databases::{rows, tables};
use quire_import::{Cap, Dsn, ImportError, SourceKind};
use quire_testkit::servers::{Db, DbServer, PASSWORD};
use serde_json::{json, Value};

fn read(kind: SourceKind, dsn: &str, query: &str) -> Result<Vec<Value>, ImportError> {
    let dsn = Dsn::parse(dsn, kind.schemes())?;
    Ok(rows(kind, &dsn, Some(query), Cap::all(1000))?
        .into_iter()
        .map(Value::Object)
        .collect())
}

fn browse(kind: SourceKind, dsn: &str) -> Vec<String> {
    tables(kind, &Dsn::parse(dsn, kind.schemes()).unwrap()).unwrap()
}

/// A server that refuses (wrong password, nothing listening) is a 400 without the password.
fn assert_refused(kind: SourceKind, server: &DbServer) {
    let wrong = "Wrong9PasswordXyz";
    for dsn in [
        server.dsn_with(wrong),
        server
            .dsn()
            .replace(&server.port().to_string(), &closed_port().to_string()),
    ] {
        let err = read(kind, &dsn, "notes").unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
        assert!(message.starts_with("cannot connect to"), "{message}");
        assert!(
            !message.contains(wrong) && !message.contains(PASSWORD),
            "{message}"
        );
    }
}

fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn postgres_columns_become_json_and_writes_are_refused() {
    let Some(server) = DbServer::start(Db::Postgres) else {
        return;
    };
    server.run(
        "CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, body text,
            stars int, score double precision, price numeric(10,2), done boolean,
            created timestamp, seen timestamptz, day date, meta jsonb, tags text[], big bigint);
         INSERT INTO notes (title, body, stars, score, price, done, created, seen, day, meta, tags, big)
         VALUES ('Café ☕', 'Line one', 5, 0.5, 12.34, true, '2024-03-01 09:30:00',
            '2024-03-01 09:30:00+00', '2024-03-01', '{\"a\": [1, {\"b\": null}]}', ARRAY['x','y'],
            9007199254740993),
                ('Bare', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
         CREATE SCHEMA app; CREATE TABLE app.people (name text); INSERT INTO app.people VALUES ('Ann');
         CREATE VIEW starred AS SELECT title FROM notes WHERE stars > 3;",
    );
    let dsn = server.dsn();
    let got = read(SourceKind::Postgres, &dsn, "notes").unwrap();
    assert_eq!(
        got[0],
        json!({"id": 1, "title": "Café ☕", "body": "Line one", "stars": 5, "score": 0.5,
            "price": 12.34, "done": true, "created": "2024-03-01T09:30:00",
            "seen": "2024-03-01T09:30:00+00:00", "day": "2024-03-01",
            "meta": {"a": [1, {"b": null}]}, "tags": ["x", "y"], "big": 9007199254740993u64})
    );
    assert_eq!(
        got[1],
        json!({"id": 2, "title": "Bare"}),
        "NULL is no value"
    );
    let got = read(
        SourceKind::Postgres,
        &dsn,
        "SELECT title FROM notes WHERE id = 2;",
    )
    .unwrap();
    assert_eq!(got, vec![json!({"title": "Bare"})]);
    assert_eq!(
        read(SourceKind::Postgres, &dsn, "app.people").unwrap(),
        vec![json!({"name": "Ann"})]
    );
    for bad in [
        "DELETE FROM notes",
        "WITH gone AS (DELETE FROM notes RETURNING *) SELECT * FROM gone",
        "SELECT 1; DELETE FROM notes",
        "SELECT * FROM nope",
    ] {
        let err = read(SourceKind::Postgres, &dsn, bad).unwrap_err();
        assert!(matches!(err, ImportError::BadRequest(_)), "{bad}: {err:?}");
    }
    assert_eq!(read(SourceKind::Postgres, &dsn, "notes").unwrap().len(), 2);
    assert_eq!(
        browse(SourceKind::Postgres, &dsn),
        vec!["app.people", "notes", "starred"]
    );
    assert_refused(SourceKind::Postgres, &server);
}

#[test]
fn mysql_columns_become_json_and_writes_are_refused() {
    let Some(server) = DbServer::start(Db::Mariadb) else {
        return;
    };
    server.run(
        "CREATE TABLE notes (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(100) NOT NULL,
            body TEXT, stars INT, score DOUBLE, price DECIMAL(10,2), done BOOLEAN,
            created DATETIME, day DATE, at TIME, big BIGINT UNSIGNED, raw BLOB)
            DEFAULT CHARSET utf8mb4;
         INSERT INTO notes (title, body, stars, score, price, done, created, day, at, big, raw)
         VALUES ('Café ☕', 'Line one', 5, 0.5, 12.34, TRUE, '2024-03-01 09:30:00', '2024-03-01',
            '09:30:00', 18446744073709551615, x'00ff'),
                ('Bare', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
         CREATE VIEW starred AS SELECT title FROM notes WHERE stars > 3;",
    );
    let dsn = server.dsn();
    let got = read(SourceKind::Mysql, &dsn, "notes").unwrap();
    assert_eq!(
        got[0],
        json!({"id": 1, "title": "Café ☕", "body": "Line one", "stars": 5, "score": 0.5,
            "price": 12.34, "done": true, "created": "2024-03-01T09:30:00", "day": "2024-03-01",
            "at": "09:30:00", "big": 18446744073709551615u64})
    );
    assert_eq!(got[1], json!({"id": 2, "title": "Bare"}));
    assert_eq!(
        read(
            SourceKind::Mysql,
            &dsn,
            "SELECT title FROM notes WHERE id = 2"
        )
        .unwrap(),
        vec![json!({"title": "Bare"})]
    );
    for bad in [
        "DELETE FROM notes",
        "SELECT 1; DELETE FROM notes",
        "SELECT * FROM nope",
    ] {
        let err = read(SourceKind::Mysql, &dsn, bad).unwrap_err();
        assert!(matches!(err, ImportError::BadRequest(_)), "{bad}: {err:?}");
    }
    assert_eq!(read(SourceKind::Mysql, &dsn, "notes").unwrap().len(), 2);
    assert_eq!(browse(SourceKind::Mysql, &dsn), vec!["notes", "starred"]);
    assert_refused(SourceKind::Mysql, &server);
}

#[test]
fn redis_hashes_strings_and_lists_become_rows_with_their_key() {
    let Some(server) = DbServer::start(Db::Redis) else {
        return;
    };
    server.run(
        "HSET note:1 title \"First note\" body \"Hello\" stars 5\n\
         SET note:2 \"{\\\"title\\\": \\\"Second\\\", \\\"n\\\": 2}\"\n\
         SET note:3 \"just text\"\n\
         RPUSH note:4 b a\n\
         SET other 1\n",
    );
    let dsn = server.dsn();
    let got = read(SourceKind::Redis, &dsn, "note:*").unwrap();
    assert_eq!(
        got,
        vec![
            json!({"_key": "note:1", "title": "First note", "body": "Hello", "stars": "5"}),
            json!({"_key": "note:2", "value": {"title": "Second", "n": 2}}),
            json!({"_key": "note:3", "value": "just text"}),
            json!({"_key": "note:4", "value": ["b", "a"]}),
        ]
    );
    assert_eq!(browse(SourceKind::Redis, &dsn), vec!["note:*", "other"]);
    assert_refused(SourceKind::Redis, &server);
}
