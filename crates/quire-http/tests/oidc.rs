//! OIDC: a local identity provider (its own RSA keys, discovery and JWKS served on loopback
//! by a small axum server) and the router validating its tokens: a good token passes and
//! names the actor; expired, not-yet-valid, wrongly signed, other-audience and other-issuer
//! tokens get 401; a rotated key works after one refetch of the keys; an issuer that cannot
//! be reached stops the start.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::Method;
use jsonwebtoken::{EncodingKey, Header};
use quire_config::Config;
use serde_json::{json, Value};
use support::TestServer;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/oidc");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

/// The provider: serves discovery and the key set it is told to publish.
struct Provider {
    issuer: String,
    published: Arc<Mutex<Vec<Value>>>,
}

async fn provider(keys: &[&str]) -> Provider {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}/realm", listener.local_addr().unwrap());
    let published: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(
        keys.iter()
            .map(|k| serde_json::from_str(&fixture(&format!("{k}.jwk.json"))).unwrap())
            .collect(),
    ));
    let discovery = json!({
        "issuer": issuer,
        "jwks_uri": format!("{issuer}/jwks"),
        "id_token_signing_alg_values_supported": ["RS256"],
    });
    let keys = published.clone();
    let app = axum::Router::new()
        .route(
            "/realm/.well-known/openid-configuration",
            axum::routing::get(move || {
                let d = discovery.clone();
                async move { axum::Json(d) }
            }),
        )
        .route(
            "/realm/jwks",
            axum::routing::get(move || {
                let keys = keys.lock().unwrap().clone();
                async move { axum::Json(json!({ "keys": keys })) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Provider { issuer, published }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A token signed with fixture key `key`, announced as `kid`.
fn token(key: &str, kid: &str, claims: Value) -> String {
    let mut header = Header::new(jsonwebtoken::Algorithm::RS256);
    header.kid = Some(kid.to_string());
    let pem = fixture(&format!("{key}.pem"));
    jsonwebtoken::encode(
        &header,
        &claims,
        &EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap(),
    )
    .unwrap()
}

fn claims(issuer: &str) -> Value {
    json!({"iss": issuer, "aud": "quire", "sub": "alice@example.com",
           "iat": now(), "nbf": now() - 10, "exp": now() + 600})
}

fn config(issuer: &str) -> Config {
    Config::from_toml_str(
        &format!("[auth]\ntype = \"oidc\"\nissuer = \"{issuer}\"\nclient_id = \"quire\"\n"),
        &|_| None,
    )
    .unwrap()
    .config
}

async fn server_for(issuer: &str) -> TestServer {
    let config = config(issuer);
    let http = tokio::task::spawn_blocking(move || {
        quire_http::HttpSettings::from_config(&config, &["default"])
    })
    .await
    .unwrap()
    .expect("the issuer is reachable");
    TestServer::spaces_with(&["default"], http)
}

async fn put(server: &TestServer, token: &str, path: &str) -> (u16, String) {
    let reply = server
        .call(
            Method::PUT,
            &format!("/api/quire/file?path={path}"),
            &[("authorization", &format!("Bearer {token}"))],
            Body::from("# Page\n"),
        )
        .await;
    (reply.status.as_u16(), reply.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_of_the_provider_are_checked_fully() {
    let provider = provider(&["key1"]).await;
    let server = server_for(&provider.issuer).await;
    let iss = provider.issuer.as_str();

    let good = token("key1", "key1", claims(iss));
    let (status, body) = put(&server, &good, "good.md").await;
    assert_eq!(status, 200, "{body}");
    let repo = git2::Repository::open(server.dir.path().join("default")).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert_eq!(head.author().name(), Some("alice@example.com"));

    let mut expired = claims(iss);
    expired["exp"] = json!(now() - 300);
    let mut early = claims(iss);
    early["nbf"] = json!(now() + 300);
    let mut audience = claims(iss);
    audience["aud"] = json!("another-app");
    let mut other_issuer = claims(iss);
    other_issuer["iss"] = json!("http://127.0.0.1:1/evil");
    let cases = [
        ("expired", token("key1", "key1", expired), "expired"),
        (
            "not yet valid",
            token("key1", "key1", early),
            "not valid yet",
        ),
        (
            "wrong audience",
            token("key1", "key1", audience),
            "audience",
        ),
        (
            "wrong issuer",
            token("key1", "key1", other_issuer),
            "issuer",
        ),
        // Signed by a key the provider never published, claiming the published kid.
        ("forged", token("other", "key1", claims(iss)), "signature"),
        (
            "unknown kid",
            token("other", "other", claims(iss)),
            "unknown key",
        ),
    ];
    for (name, bad, says) in cases {
        let (status, body) = put(&server, &bad, &format!("{}.md", name.replace(' ', "-"))).await;
        assert_eq!(status, 401, "{name}: {body}");
        assert!(body.contains(says), "{name}: {body}");
        assert!(!body.contains(&bad), "the token is not echoed");
    }
    // A tampered payload with the original signature.
    let mut parts: Vec<String> = good.split('.').map(str::to_string).collect();
    parts[1] = parts[1].chars().rev().collect();
    let (status, _) = put(&server, &parts.join("."), "tampered.md").await;
    assert_eq!(status, 401);
    assert!(!server.dir.path().join("default/expired.md").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_actor_claim_scope_and_audience_come_from_the_configuration() {
    let provider = provider(&["key1"]).await;
    let iss = provider.issuer.clone();
    let config = Config::from_toml_str(
        &format!(
            "[auth]\ntype = \"oidc\"\nissuer = \"{iss}\"\nclient_id = \"wiki\"\n\
             actor_claim = \"email\"\noidc_scope = \"read\"\n"
        ),
        &|_| None,
    )
    .unwrap()
    .config;
    let http = tokio::task::spawn_blocking(move || {
        quire_http::HttpSettings::from_config(&config, &["default"])
    })
    .await
    .unwrap()
    .expect("the issuer is reachable");
    let server = TestServer::spaces_with(&["default"], http);
    let mut wiki = claims(&iss);
    wiki["aud"] = json!("wiki");
    wiki["email"] = json!("carol@example.com");
    // `oidc_scope = "read"`: signed-in people read, and writing is beyond their scope.
    let (status, body) = put(&server, &token("key1", "key1", wiki.clone()), "w.md").await;
    assert_eq!(status, 403, "{body}");
    let reply = server
        .call(
            Method::GET,
            "/api/quire/tree",
            &[(
                "authorization",
                &format!("Bearer {}", token("key1", "key1", wiki.clone())),
            )],
            Body::empty(),
        )
        .await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.text());
    // `client_id` is the audience: the default client's tokens are someone else's.
    let (status, body) = put(&server, &token("key1", "key1", claims(&iss)), "q.md").await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("audience"), "{body}");
    // `actor_claim`: a token without that claim names no actor.
    let mut anonymous = wiki.clone();
    anonymous.as_object_mut().unwrap().remove("email");
    let reply = server
        .call(
            Method::GET,
            "/api/quire/tree",
            &[(
                "authorization",
                &format!("Bearer {}", token("key1", "key1", anonymous)),
            )],
            Body::empty(),
        )
        .await;
    assert_eq!(reply.status.as_u16(), 401, "{}", reply.text());
    assert!(reply.text().contains("email"), "{}", reply.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_fetched_once_and_then_cached() {
    let provider = provider(&["key1"]).await;
    let server = server_for(&provider.issuer).await;
    let iss = provider.issuer.clone();
    // The provider rotates: key2 is published, key1 withdrawn.
    *provider.published.lock().unwrap() =
        vec![serde_json::from_str(&fixture("key2.jwk.json")).unwrap()];
    let rotated = token("key2", "key2", claims(&iss));
    let (status, body) = put(&server, &rotated, "rotated.md").await;
    assert_eq!(status, 200, "{body}");
    // Cached: the provider going silent does not matter for known keys.
    provider.published.lock().unwrap().clear();
    let (status, _) = put(&server, &rotated, "rotated2.md").await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_issuer_refuses_to_start() {
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}/realm", listener.local_addr().unwrap());
    drop(listener);
    let config = config(&issuer);
    let err = tokio::task::spawn_blocking(move || {
        quire_http::HttpSettings::from_config(&config, &["default"]).err()
    })
    .await
    .unwrap()
    .expect("refused");
    assert_eq!(err.setting, "auth.issuer");
    assert!(err.message.contains("discovery"), "{}", err.message);
    // Plain http to another host is refused before any request.
    let config = config_for_remote();
    let err = quire_http::HttpSettings::from_config(&config, &["default"])
        .err()
        .expect("refused");
    assert!(err.message.contains("https"), "{}", err.message);
}

fn config_for_remote() -> Config {
    config("http://id.example.com/realm")
}
