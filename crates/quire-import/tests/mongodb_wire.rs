//! The `mongodb` source over the wire protocol, read by the official driver from a loopback
//! fake of a MongoDB server (`quire_testkit::fake_mongo`: real OP_MSG framing and BSON, a
//! cursor over batches, SCRAM-SHA-256), since no `mongod` can be installed where quire is
//! built. The fake checks each command (database, collection, filter, sort, batch size).

use std::time::{Duration, Instant};

use mongodb::bson::{doc, oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128};
use quire_import::mongo::Target;
use quire_import::{read, ImportError, Limits, Location, Source, SourceKind};
use quire_testkit::fake_mongo::{Fake, FakeMongo};
use serde_json::{json, Value};

const PASSWORD: &str = "Mongo7Secret9Pw";

fn id(n: u8) -> ObjectId {
    ObjectId::parse_str(format!("65f1a2b3c4d5e6f7080910{n:02x}")).unwrap()
}

fn notes() -> Vec<mongodb::bson::Document> {
    vec![
        doc! {"_id": id(1), "title": "First note", "stars": 5_i32, "views": 9_000_000_000_i64,
        "score": 4.5, "price": "12.30".parse::<Decimal128>().unwrap(),
        "created": DateTime::from_millis(1_709_285_400_000),
        "blob": Binary { subtype: BinarySubtype::Generic, bytes: b"hi!".to_vec() },
        "author": {"name": "Ann", "tags": ["rust", "notes"]}, "gone": Bson::Null,
        "tags": ["rust"]},
        doc! {"_id": id(2), "title": "Second", "tags": ["misc"]},
        doc! {"_id": id(3), "title": "Third", "tags": ["rust", "misc"]},
    ]
}

fn fake(user: bool) -> FakeMongo {
    FakeMongo::start(Fake {
        database: "shop".to_string(),
        collections: vec![
            ("notes".to_string(), notes()),
            ("archive".to_string(), Vec::new()),
            ("authors".to_string(), Vec::new()),
        ],
        batch: 2,
        user: user.then(|| ("ann".to_string(), PASSWORD.to_string())),
    })
}

fn source(uri: &str, collection: &str, query: Option<&str>) -> Source {
    Source {
        kind: SourceKind::Mongodb,
        location: Location::Mongo(Target::new(uri, Some("shop"), collection).unwrap()),
        query: query.map(str::to_string),
        sheet: None,
    }
}

fn values(rows: Vec<quire_import::Row>) -> Vec<Value> {
    rows.into_iter().map(Value::Object).collect()
}

/// The driver's dependencies must leave `serde_json`'s maps sorted by key, as the rest of quire
/// relies on (answers, signed request bodies): `bson` 2 turned on `preserve_order` for the whole
/// build, which is why the driver is built with `bson` 3. A dependency that turns it on again
/// fails here, in this crate's own tests, not only in a workspace run.
#[test]
fn the_driver_leaves_json_maps_sorted_by_key() {
    let value = json!({"zeta": 1, "alpha": 2, "mid": 3});
    assert_eq!(value.to_string(), r#"{"alpha":2,"mid":3,"zeta":1}"#);
}

#[test]
fn documents_are_read_over_two_batches_with_their_types_converted() {
    let fake = fake(false);
    let rows = read(
        &source(&fake.uri(None), "notes", None),
        &Limits::default(),
        None,
    )
    .unwrap();
    let rows = values(rows);
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        json!({"_id": "65f1a2b3c4d5e6f708091001", "title": "First note", "stars": 5,
            "views": 9_000_000_000_i64, "score": 4.5, "price": "12.30",
            "created": "2024-03-01T09:30:00Z", "blob": "aGkh",
            "author": {"name": "Ann", "tags": ["rust", "notes"]}, "gone": null,
            "tags": ["rust"]})
    );
    assert_eq!(rows[2]["_id"], json!("65f1a2b3c4d5e6f708091003"));
    let finds = fake.commands_named("find");
    assert_eq!(finds.len(), 1, "{finds:?}");
    let find = &finds[0];
    assert_eq!(find.db, "shop");
    assert_eq!(find.body.get_str("find").unwrap(), "notes");
    assert_eq!(find.body.get_document("filter").unwrap(), &doc! {});
    assert_eq!(find.body.get_document("sort").unwrap(), &doc! {"_id": 1});
    // An import asks for one row past its most, in bounded batches.
    assert_eq!(find.body.get("limit"), Some(&Bson::Int64(100_001)));
    assert_eq!(find.body.get("batchSize"), Some(&Bson::Int32(1000)));
    // The fake served two documents, then the third behind its cursor.
    let more = fake.commands_named("getMore");
    assert_eq!(more.len(), 1, "{more:?}");
    assert_eq!(more[0].body.get_str("collection").unwrap(), "notes");
}

#[test]
fn a_preview_reads_one_batch_and_too_many_rows_stop_the_import() {
    let fake = fake(false);
    let rows = read(
        &source(&fake.uri(None), "notes", None),
        &Limits::default(),
        Some(1),
    )
    .unwrap();
    assert_eq!(values(rows)[0]["title"], json!("First note"));
    let find = &fake.commands_named("find")[0];
    assert_eq!(find.body.get("limit"), Some(&Bson::Int64(1)));
    // The driver asks for a batch one past a limit equal to it (so the server closes the
    // cursor with that batch): still one batch.
    assert!(
        matches!(find.body.get("batchSize"), Some(Bson::Int32(1 | 2))),
        "{find:?}"
    );
    assert!(fake.commands_named("getMore").is_empty());
    // Two rows at most: the third is one too many, and nothing past it is asked for.
    let small = Limits {
        max_rows: 2,
        ..Limits::default()
    };
    let err = read(&source(&fake.uri(None), "notes", None), &small, None).unwrap_err();
    assert!(matches!(err, ImportError::TooLarge(_)), "{err:?}");
    let find = &fake.commands_named("find")[1];
    assert_eq!(find.body.get("limit"), Some(&Bson::Int64(3)));
}

#[test]
fn the_filter_of_query_reaches_the_server() {
    let fake = fake(false);
    let query = r#"{"tags": "rust", "_id": {"$oid": "65f1a2b3c4d5e6f708091003"}}"#;
    let rows = read(
        &source(&fake.uri(None), "notes", Some(query)),
        &Limits::default(),
        None,
    )
    .unwrap();
    assert_eq!(
        values(rows)
            .iter()
            .map(|r| r["title"].clone())
            .collect::<Vec<_>>(),
        vec![json!("Third")]
    );
    let find = &fake.commands_named("find")[0];
    assert_eq!(
        find.body.get_document("filter").unwrap(),
        &doc! {"tags": "rust", "_id": id(3)}
    );
    // A filter that is no JSON object is refused before connecting.
    let err = read(
        &source(&fake.uri(None), "notes", Some("[1]")),
        &Limits::default(),
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("filter document"), "{err}");
}

#[test]
fn browse_lists_the_collections_sorted_and_a_missing_one_is_a_bad_request() {
    let fake = fake(false);
    let target = Target::new(&fake.uri(None), Some("shop"), "").unwrap();
    assert_eq!(
        quire_import::mongo::collections(&target).unwrap(),
        vec!["archive", "authors", "notes"]
    );
    let err = read(
        &source(&fake.uri(None), "nope", None),
        &Limits::default(),
        None,
    )
    .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
    assert!(
        message.contains("no collection `nope`") && message.contains(&fake.host()),
        "{message}"
    );
    // Another database lists nothing, so its collection is missing too.
    let other = Source {
        location: Location::Mongo(Target::new(&fake.uri(None), Some("other"), "notes").unwrap()),
        ..source(&fake.uri(None), "notes", None)
    };
    let err = read(&other, &Limits::default(), None).unwrap_err();
    assert!(err.to_string().contains("database `other`"), "{err}");
    assert!(fake.commands_named("find").is_empty());
}

#[test]
fn a_login_by_scram_sha_256_reads_and_a_wrong_password_is_refused_without_it() {
    let fake = fake(true);
    let rows = read(
        &source(&fake.uri(Some(("ann", PASSWORD))), "notes", None),
        &Limits::default(),
        None,
    )
    .unwrap();
    assert_eq!(rows.len(), 3);
    assert!(!fake.commands_named("saslContinue").is_empty());
    let wrong = "Wrong5Password8Q";
    let err = read(
        &source(&fake.uri(Some(("ann", wrong))), "notes", None),
        &Limits::default(),
        None,
    )
    .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
    assert!(
        message.contains("cannot connect to mongodb://ann@127.0.0.1"),
        "{message}"
    );
    assert!(!message.contains(wrong), "{message}");
    // Without a login, the server refuses the listing: still no password, still a 400.
    let err = read(
        &source(&fake.uri(None), "notes", None),
        &Limits::default(),
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("requires authentication"), "{err}");
}

#[test]
fn nothing_listening_is_a_bad_request_within_seconds() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let uri = format!("mongodb://ann:{PASSWORD}@127.0.0.1:{port}/");
    let started = Instant::now();
    let err = read(&source(&uri, "notes", None), &Limits::default(), None).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let message = err.to_string();
    assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
    assert!(
        message.contains(&format!(
            "cannot connect to mongodb://ann@127.0.0.1:{port}/"
        )),
        "{message}"
    );
    assert!(!message.contains(PASSWORD), "{message}");
    assert!(
        message.contains("no server answered within 4 s") && message.contains("refused"),
        "{message}"
    );
    // A URI that is none: refused before anything is sent, without its text.
    let err = Target::new(
        &format!("mongodb://ann:{PASSWORD}@127.0.0.1:x/"),
        Some("shop"),
        "n",
    )
    .unwrap_err();
    assert!(!err.to_string().contains(PASSWORD), "{err}");
}
