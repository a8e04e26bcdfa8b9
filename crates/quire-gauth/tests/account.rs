//! Reading a service account key: what is read, and that neither the key nor its text shows
//! in an error or in `Debug`. (The token exchange itself is tested where it is used: the
//! vertex embedder in `quire-embed`, the firestore source in `quire-import`.) The key pair in
//! `tests/fixtures/` was made for tests with `openssl genpkey` and grants nothing anywhere.

use std::time::Duration;

use quire_gauth::{Account, Error, DATASTORE, TOKEN_URI};
use serde_json::json;

fn private_key() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/test-key.pem");
    std::fs::read_to_string(path).expect("test key")
}

#[test]
fn a_key_is_read_and_never_shown() {
    let key = private_key();
    let text = json!({
        "type": "service_account",
        "project_id": "demo-project",
        "client_email": "quire@demo-project.iam.gserviceaccount.com",
        "private_key": key,
    })
    .to_string();
    let account =
        Account::from_json(&text, "credentials", DATASTORE, Duration::from_secs(5)).expect("a key");
    assert_eq!(account.project_id(), Some("demo-project"));
    assert_eq!(account.token_uri(), TOKEN_URI);
    let shown = format!("{account:?}");
    assert!(
        shown.contains("quire@demo-project") && !shown.contains("PRIVATE"),
        "{shown}"
    );
}

#[test]
fn a_wrong_key_is_a_config_error_without_its_text() {
    let key = private_key();
    let line = key.lines().nth(1).expect("a key line").to_owned();
    let cut: String = key.chars().take(key.len() / 2).collect();
    for (text, expected) in [
        (
            format!("{{\"private_key\": {:?}", key),
            "is not a service account key",
        ),
        (
            "\"just a string\"".to_owned(),
            "is not a service account key",
        ),
        (
            json!({"private_key": key}).to_string(),
            "has no client_email",
        ),
        (
            json!({"client_email": "a@b"}).to_string(),
            "has no private_key",
        ),
        (
            json!({"client_email": "a@b", "private_key": cut}).to_string(),
            "private key of credentials is unreadable",
        ),
    ] {
        let err = Account::from_json(&text, "credentials", DATASTORE, Duration::from_secs(5))
            .expect_err("not a key");
        let Error::Config(message) = &err else {
            panic!("{err:?}")
        };
        assert!(message.contains(expected), "{message}");
        assert!(
            !message.contains(&line) && !message.contains("PRIVATE"),
            "{message}"
        );
    }
}
