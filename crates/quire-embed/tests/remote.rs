//! Remote embedders against a loopback fake: each test pins the exact request a provider
//! sends and how its answer (or silence) is read.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use quire_embed::{remote, EmbedError, Purpose, RemoteSpec};
use serde_json::{json, Value};

/// One request as the fake saw it.
#[derive(Debug)]
struct Seen {
    method: String,
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// A server on 127.0.0.1 that answers each of `answers` to one request, in order.
fn fake(answers: Vec<(u16, Value)>) -> (String, JoinHandle<Vec<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let handle = std::thread::spawn(move || {
        answers
            .into_iter()
            .map(|(status, answer)| {
                let (stream, _) = listener.accept().expect("accept");
                serve(stream, status, &answer)
            })
            .collect()
    });
    (url, handle)
}

fn serve(stream: TcpStream, status: u16, answer: &Value) -> Seen {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    reader.read_line(&mut line).expect("request line");
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let (mut length, mut authorization) = (0, None);
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).expect("header");
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').expect("a header");
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().expect("a length"),
            "authorization" => authorization = Some(value.trim().to_owned()),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("body");
    let text = answer.to_string();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
    .expect("answer");
    Seen {
        method,
        path,
        authorization,
        body: serde_json::from_slice(&body).expect("a JSON body"),
    }
}

fn spec(provider: &str, url: &str, key: Option<&str>, dimensions: Option<usize>) -> RemoteSpec {
    RemoteSpec {
        provider: provider.to_owned(),
        url: Some(url.to_owned()),
        model: None,
        api_key: key.map(str::to_owned),
        dimensions,
        timeout: Duration::from_secs(5),
    }
}

fn is_unit(v: &[f32]) -> bool {
    (v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5
}

#[test]
fn openai_posts_model_input_dimensions_and_orders_by_index() {
    let (url, server) = fake(vec![(
        200,
        json!({"data": [
            {"index": 1, "embedding": [0.0, 2.0]},
            {"index": 0, "embedding": [3.0, 4.0]},
        ]}),
    )]);
    let embedder = remote(&spec(
        "openai",
        &format!("{url}/v1/"),
        Some("sk-test"),
        Some(2),
    ))
    .expect("builds");
    assert_eq!(embedder.model(), "text-embedding-3-small");
    assert_eq!(embedder.dimensions(), 2);
    let v = embedder
        .embed(&["a", "b"], Purpose::Document)
        .expect("embeds");
    assert_eq!(v, vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
    let seen = server.join().expect("server");
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(
        seen[0].body,
        json!({"model": "text-embedding-3-small", "input": ["a", "b"], "dimensions": 2})
    );
}

#[test]
fn http_needs_a_url_and_sends_no_key_when_none_is_set() {
    let mut no_url = spec("http", "", None, Some(2));
    no_url.url = None;
    assert!(matches!(remote(&no_url), Err(EmbedError::Config(_))));

    let (url, server) = fake(vec![(
        200,
        json!({"data": [{"index": 0, "embedding": [1.0, 0.0, 0.0]}]}),
    )]);
    let mut s = spec("http", &url, None, None);
    s.model = Some("local-model".into());
    // No dimensions configured: one probe at construction learns them.
    let embedder = remote(&s).expect("builds");
    assert_eq!(embedder.dimensions(), 3);
    let seen = server.join().expect("server");
    assert_eq!(seen[0].path, "/embeddings");
    assert_eq!(seen[0].authorization, None);
    assert_eq!(
        seen[0].body,
        json!({"model": "local-model", "input": ["dimension probe"]})
    );
}

#[test]
fn ollama_posts_to_api_embed() {
    let (url, server) = fake(vec![(
        200,
        json!({"model": "nomic-embed-text", "embeddings": [[1.0, 1.0]]}),
    )]);
    let embedder = remote(&spec("ollama", &url, None, Some(2))).expect("builds");
    let v = embedder.embed(&["hello"], Purpose::Query).expect("embeds");
    assert!(is_unit(&v[0]));
    let seen = server.join().expect("server");
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("POST", "/api/embed")
    );
    assert_eq!(seen[0].authorization, None);
    assert_eq!(
        seen[0].body,
        json!({"model": "nomic-embed-text", "input": ["hello"]})
    );
}

#[test]
fn cohere_needs_a_key_and_sends_the_input_type() {
    assert!(matches!(
        remote(&spec("cohere", "http://127.0.0.1:9", None, Some(2))),
        Err(EmbedError::Config(_))
    ));
    let (url, server) = fake(vec![
        (200, json!({"embeddings": {"float": [[0.0, 5.0]]}})),
        (200, json!({"embeddings": {"float": [[5.0, 0.0]]}})),
    ]);
    let embedder = remote(&spec("cohere", &url, Some("co-key"), Some(2))).expect("builds");
    assert_eq!(
        embedder.embed(&["doc"], Purpose::Document).expect("embeds"),
        vec![vec![0.0, 1.0]]
    );
    assert_eq!(
        embedder.embed(&["query"], Purpose::Query).expect("embeds"),
        vec![vec![1.0, 0.0]]
    );
    let seen = server.join().expect("server");
    assert_eq!(seen[0].path, "/v2/embed");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer co-key"));
    assert_eq!(
        seen[0].body,
        json!({"model": "embed-english-v3.0", "texts": ["doc"], "input_type": "search_document", "embedding_types": ["float"]})
    );
    assert_eq!(seen[1].body["input_type"], "search_query");
}

#[test]
fn voyage_needs_a_key_and_sends_the_input_type() {
    assert!(matches!(
        remote(&spec("voyage", "http://127.0.0.1:9", None, Some(2))),
        Err(EmbedError::Config(_))
    ));
    let (url, server) = fake(vec![(
        200,
        json!({"data": [{"index": 0, "embedding": [2.0, 0.0]}]}),
    )]);
    let embedder = remote(&spec("voyage", &url, Some("vo-key"), Some(2))).expect("builds");
    assert_eq!(
        embedder.embed(&["q"], Purpose::Query).expect("embeds"),
        vec![vec![1.0, 0.0]]
    );
    let seen = server.join().expect("server");
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer vo-key"));
    assert_eq!(
        seen[0].body,
        json!({"model": "voyage-3-lite", "input": ["q"], "input_type": "query"})
    );
}

#[test]
fn bedrock_titan_posts_one_text_per_invoke_and_cohere_a_batch_with_an_api_key() {
    let (url, server) = fake(vec![
        (
            200,
            json!({"embedding": [3.0, 4.0], "inputTextTokenCount": 1}),
        ),
        (
            200,
            json!({"embedding": [0.0, 2.0], "inputTextTokenCount": 1}),
        ),
    ]);
    let embedder =
        remote(&spec("bedrock", &url, Some("bedrock-api-key"), Some(2))).expect("builds");
    assert_eq!(embedder.model(), "amazon.titan-embed-text-v2:0");
    let v = embedder
        .embed(&["a", "b"], Purpose::Document)
        .expect("embeds");
    assert_eq!(v, vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
    let seen = server.join().expect("server");
    assert_eq!(seen.len(), 2, "Titan takes one text per request");
    for (request, text) in seen.iter().zip(["a", "b"]) {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/model/amazon.titan-embed-text-v2%3A0/invoke");
        assert_eq!(
            request.authorization.as_deref(),
            Some("Bearer bedrock-api-key")
        );
        assert_eq!(request.body, json!({"inputText": text, "dimensions": 2}));
    }

    let (url, server) = fake(vec![(200, json!({"embeddings": [[1.0, 0.0], [0.0, 1.0]]}))]);
    let mut cohere = spec("bedrock", &url, Some("k"), Some(2));
    cohere.model = Some("cohere.embed-english-v3".into());
    let embedder = remote(&cohere).expect("builds");
    assert_eq!(
        embedder
            .embed(&["x", "y"], Purpose::Query)
            .expect("embeds")
            .len(),
        2
    );
    let seen = server.join().expect("server");
    assert_eq!(seen[0].path, "/model/cohere.embed-english-v3/invoke");
    assert_eq!(
        seen[0].body,
        json!({"texts": ["x", "y"], "input_type": "search_query"})
    );
}

#[test]
fn an_unknown_provider_is_a_configuration_error() {
    for provider in ["nope", "vertexai"] {
        let err =
            remote(&spec(provider, "http://127.0.0.1:9", Some("k"), Some(2))).expect_err("refused");
        assert!(matches!(err, EmbedError::Config(_)), "{provider}: {err}");
    }
}

#[test]
fn batches_hold_at_most_64_texts() {
    let answer = |n: usize| json!({"embeddings": vec![vec![1.0, 0.0]; n]});
    let (url, server) = fake(vec![(200, answer(64)), (200, answer(6))]);
    let embedder = remote(&spec("ollama", &url, None, Some(2))).expect("builds");
    let texts: Vec<String> = (0..70).map(|i| format!("t{i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    assert_eq!(
        embedder
            .embed(&refs, Purpose::Document)
            .expect("embeds")
            .len(),
        70
    );
    let seen = server.join().expect("server");
    assert_eq!(seen[0].body["input"].as_array().map(Vec::len), Some(64));
    assert_eq!(seen[1].body["input"][0], "t64");
}

#[test]
fn a_vector_of_the_wrong_length_is_refused() {
    let (url, server) = fake(vec![(200, json!({"embeddings": [[1.0, 0.0, 0.0]]}))]);
    let embedder = remote(&spec("ollama", &url, None, Some(2))).expect("builds");
    let err = embedder
        .embed(&["x"], Purpose::Document)
        .expect_err("refused");
    assert!(
        matches!(err, EmbedError::Refused(ref m) if m.contains("3 numbers")),
        "{err}"
    );
    server.join().expect("server");
}

#[test]
fn an_error_status_is_refused_with_an_excerpt_but_never_the_key() {
    let (url, server) = fake(vec![(401, json!({"error": "bad key sk-secret"}))]);
    let embedder = remote(&spec("openai", &url, Some("sk-secret"), Some(2))).expect("builds");
    let err = embedder
        .embed(&["x"], Purpose::Document)
        .expect_err("refused");
    let message = err.to_string();
    assert!(matches!(err, EmbedError::Refused(_)), "{message}");
    assert!(
        message.contains("401") && message.contains("bad key"),
        "{message}"
    );
    assert!(!message.contains("sk-secret"), "{message}");
    server.join().expect("server");
}

#[test]
fn a_server_that_never_answers_is_unreachable_after_the_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let mut s = spec("ollama", &url, None, Some(2));
    s.timeout = Duration::from_millis(200);
    let embedder = remote(&s).expect("builds");
    let start = Instant::now();
    let err = embedder
        .embed(&["x"], Purpose::Document)
        .expect_err("times out");
    assert!(matches!(err, EmbedError::Unreachable(_)), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    drop(listener);
}

#[test]
fn a_refused_connection_is_unreachable() {
    // Bind then drop: the port is free and nothing listens on it.
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let embedder = remote(&spec(
        "ollama",
        &format!("http://127.0.0.1:{port}"),
        None,
        Some(2),
    ))
    .expect("builds");
    let err = embedder
        .embed(&["x"], Purpose::Document)
        .expect_err("refused");
    assert!(matches!(err, EmbedError::Unreachable(_)), "{err}");
    // And at construction, when the dimensions must be probed.
    let err = remote(&spec(
        "ollama",
        &format!("http://127.0.0.1:{port}"),
        None,
        None,
    ))
    .expect_err("refused");
    assert!(matches!(err, EmbedError::Unreachable(_)), "{err}");
}
