//! The `vertex` embedder without an API key: the service account that
//! `GOOGLE_APPLICATION_CREDENTIALS` names signs a JWT (RS256), the token endpoint answers an
//! access token, and `predict` is called with it; the token is reused while it lasts. One test
//! in its own binary: it sets the process's environment. The key pair in `tests/fixtures/` was
//! made for this test with `openssl genpkey` and grants nothing anywhere.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use quire_embed::{remote, EmbedError, Purpose, RemoteSpec};
use serde_json::{json, Value};

struct Seen {
    line: String,
    headers: HashMap<String, String>,
    body: String,
}

fn answer_one(listener: &TcpListener, answer: &Value) -> Seen {
    let (stream, _) = listener.accept().expect("accept");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    reader.read_line(&mut line).expect("request line");
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).expect("header");
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').expect("a header");
        headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
    }
    let length: usize = headers["content-length"].parse().expect("length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("body");
    let text = answer.to_string();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
    .expect("answer");
    Seen {
        line,
        headers,
        body: String::from_utf8(body).expect("utf-8"),
    }
}

#[test]
fn a_service_account_gets_a_token_once_and_predict_is_called_with_it() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let dir = tempfile_dir();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let private = std::fs::read_to_string(format!("{fixtures}/test-key.pem")).expect("key");
    let account = dir.join("account.json");
    std::fs::write(
        &account,
        json!({
            "type": "service_account",
            "project_id": "demo-project",
            "client_email": "quire@demo-project.iam.gserviceaccount.com",
            "private_key": private,
            "token_uri": format!("{url}/token"),
        })
        .to_string(),
    )
    .expect("write");
    let spec = RemoteSpec {
        provider: "vertex".into(),
        url: Some(url.clone()),
        model: None,
        api_key: None,
        dimensions: Some(2),
        timeout: Duration::from_secs(5),
    };
    std::env::remove_var("GOOGLE_APPLICATION_CREDENTIALS");
    std::env::remove_var("GOOGLE_CLOUD_PROJECT");
    let err = remote(&spec).expect_err("no credentials");
    assert!(
        matches!(&err, EmbedError::Config(m) if m.contains("GOOGLE_APPLICATION_CREDENTIALS")),
        "{err}"
    );
    std::env::set_var("GOOGLE_APPLICATION_CREDENTIALS", &account);

    let server = std::thread::spawn(move || {
        let token = answer_one(
            &listener,
            &json!({"access_token": "ya29.test-token", "expires_in": 3599, "token_type": "Bearer"}),
        );
        let predictions = json!({"predictions": [
            {"embeddings": {"values": [3.0, 4.0]}},
            {"embeddings": {"values": [0.0, 1.0]}},
        ]});
        let first = answer_one(&listener, &predictions);
        let second = answer_one(
            &listener,
            &json!({"predictions": [{"embeddings": {"values": [1.0, 0.0]}}]}),
        );
        (token, first, second)
    });
    let embedder = remote(&spec).expect("builds");
    assert_eq!(embedder.model(), "text-embedding-005");
    let v = embedder
        .embed(&["a", "b"], Purpose::Document)
        .expect("embeds");
    assert_eq!(v, vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
    embedder
        .embed(&["q"], Purpose::Query)
        .expect("embeds again");
    let (token, first, second) = server.join().expect("server");

    // The token request: a JWT grant signed by the account's key.
    assert!(token.line.starts_with("POST /token "), "{}", token.line);
    assert_eq!(
        token.headers["content-type"],
        "application/x-www-form-urlencoded"
    );
    let form: HashMap<String, String> = token
        .body
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), decode(v)))
        .collect();
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    let public = std::fs::read(format!("{fixtures}/test-key.pub.pem")).expect("public key");
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&[format!("{url}/token")]);
    let claims = jsonwebtoken::decode::<Value>(
        &form["assertion"],
        &DecodingKey::from_rsa_pem(&public).expect("public key"),
        &validation,
    )
    .expect("a JWT the account's key signed")
    .claims;
    assert_eq!(claims["iss"], "quire@demo-project.iam.gserviceaccount.com");
    assert_eq!(
        claims["scope"],
        "https://www.googleapis.com/auth/cloud-platform"
    );

    // Both predictions use that token: it was asked for once.
    for (seen, task, texts) in [
        (&first, "RETRIEVAL_DOCUMENT", vec!["a", "b"]),
        (&second, "RETRIEVAL_QUERY", vec!["q"]),
    ] {
        assert!(
            seen.line.starts_with(
                "POST /v1/projects/demo-project/locations/us-central1/publishers/google/models/text-embedding-005:predict "
            ),
            "{}",
            seen.line
        );
        assert_eq!(seen.headers["authorization"], "Bearer ya29.test-token");
        let body: Value = serde_json::from_str(&seen.body).expect("json");
        let instances: Vec<Value> = texts
            .iter()
            .map(|t| json!({"content": t, "task_type": task}))
            .collect();
        assert_eq!(
            body,
            json!({"instances": instances, "parameters": {"outputDimensionality": 2}})
        );
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("quire-vertex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Form decoding: `+` is a space, `%XX` a byte.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).expect("hex"));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).expect("utf-8")
}
