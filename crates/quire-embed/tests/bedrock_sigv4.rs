//! The `bedrock` embedder without an API key signs each request with AWS SigV4 from the
//! environment's credentials. One test in its own binary: it sets the process's environment.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use quire_embed::{remote, EmbedError, Purpose, RemoteSpec};

#[test]
fn without_a_key_bedrock_signs_with_sigv4_and_without_credentials_it_refuses_to_start() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let spec = RemoteSpec {
        provider: "bedrock".into(),
        url: Some(url.clone()),
        model: None,
        api_key: None,
        dimensions: Some(2),
        timeout: Duration::from_secs(5),
    };
    for name in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    ] {
        std::env::remove_var(name);
    }
    let err = remote(&spec).expect_err("no credentials");
    assert!(
        matches!(&err, EmbedError::Config(m) if m.contains("AWS_ACCESS_KEY_ID")),
        "{err}"
    );

    std::env::set_var("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
    std::env::set_var(
        "AWS_SECRET_ACCESS_KEY",
        "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    );
    std::env::set_var("AWS_SESSION_TOKEN", "session-token");
    std::env::set_var("AWS_REGION", "eu-west-1");
    let server = std::thread::spawn(move || {
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
        let answer = r#"{"embedding":[1.0,0.0]}"#;
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        )
        .expect("answer");
        (line, headers, body)
    });
    let embedder = remote(&spec).expect("builds");
    embedder
        .embed(&["hello"], Purpose::Document)
        .expect("embeds");
    let (line, headers, body) = server.join().expect("server");
    assert!(
        line.starts_with("POST /model/amazon.titan-embed-text-v2%3A0/invoke "),
        "{line}"
    );
    assert_eq!(body, br#"{"dimensions":2,"inputText":"hello"}"#.to_vec());
    let date = &headers["x-amz-date"];
    assert_eq!(date.len(), 16, "YYYYMMDDTHHMMSSZ: {date}");
    assert_eq!(headers["x-amz-security-token"], "session-token");
    let auth = &headers["authorization"];
    let prefix = format!(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{}/eu-west-1/bedrock/aws4_request, \
         SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=",
        &date[..8]
    );
    assert!(auth.starts_with(&prefix), "{auth}");
    let signature = &auth[prefix.len()..];
    assert!(
        signature.len() == 64 && signature.bytes().all(|b| b.is_ascii_hexdigit()),
        "{signature}"
    );
    assert!(!auth.contains("wJalr"), "the secret is never sent");
}
