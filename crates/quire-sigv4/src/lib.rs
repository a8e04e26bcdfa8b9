//! AWS Signature Version 4 for one request, as the `bedrock` embedder (`quire-embed`) and the
//! `dynamodb` import source (`quire-import`) send it: the canonical request, the string to
//! sign, the derived key, the `Authorization` header.
//! Written from AWS's description of the process ("Create a signed AWS API request"), and
//! checked against the published test suite's `get-vanilla` and `post-vanilla` vectors.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// Long-term or temporary AWS credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    /// Sent as `x-amz-security-token` (temporary credentials).
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    // By hand: the secret and the token stay out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// From `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and (optional) `AWS_SESSION_TOKEN`.
    pub fn from_env() -> Option<Credentials> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Some(Credentials {
            access_key_id: var("AWS_ACCESS_KEY_ID")?,
            secret_access_key: var("AWS_SECRET_ACCESS_KEY")?,
            session_token: var("AWS_SESSION_TOKEN"),
        })
    }
}

/// What one request is, as far as the signature covers it.
pub struct Request<'a> {
    pub method: &'a str,
    pub host: &'a str,
    /// The path as sent (already percent-encoded), e.g. `/model/amazon.titan%3A0/invoke`.
    pub path: &'a str,
    /// Headers signed besides `host` and `x-amz-date` (names in lower case).
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// The headers to add to `request`: `x-amz-date`, `x-amz-security-token` when the
/// credentials have one, and `authorization`. `now` is `YYYYMMDDTHHMMSSZ`.
pub fn sign(
    request: &Request<'_>,
    credentials: &Credentials,
    region: &str,
    service: &str,
    now: &str,
) -> Vec<(String, String)> {
    let date = &now[..8];
    let mut headers: Vec<(String, String)> = vec![
        ("host".into(), request.host.trim().to_owned()),
        ("x-amz-date".into(), now.to_owned()),
    ];
    if let Some(token) = &credentials.session_token {
        headers.push(("x-amz-security-token".into(), token.clone()));
    }
    for (name, value) in request.headers {
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    headers.sort();
    let signed: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
    let signed = signed.join(";");
    let canonical_headers: String = headers.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
    // Services other than S3 sign each path segment encoded once more.
    let canonical_path = request
        .path
        .split('/')
        .map(encode)
        .collect::<Vec<_>>()
        .join("/");
    let canonical = format!(
        "{}\n{}\n\n{}\n{}\n{}",
        request.method,
        if canonical_path.is_empty() {
            "/"
        } else {
            &canonical_path
        },
        canonical_headers,
        signed,
        hex(&Sha256::digest(request.body))
    );
    let scope = format!("{date}/{region}/{service}/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{now}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let key = signing_key(&credentials.secret_access_key, date, region, service);
    let signature = hex(&hmac(&key, to_sign.as_bytes()));
    let mut out = vec![("x-amz-date".to_owned(), now.to_owned())];
    if let Some(token) = &credentials.session_token {
        out.push(("x-amz-security-token".to_owned(), token.clone()));
    }
    out.push((
        "authorization".to_owned(),
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed}, Signature={signature}",
            credentials.access_key_id
        ),
    ));
    out
}

/// The current time as SigV4 writes it.
pub fn now() -> String {
    chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string()
}

fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> Vec<u8> {
    let k = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k = hmac(&k, region.as_bytes());
    let k = hmac(&k, service.as_bytes());
    hmac(&k, b"aws4_request")
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> Credentials {
        Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        }
    }

    fn authorization(method: &str) -> String {
        let request = Request {
            method,
            host: "example.amazonaws.com",
            path: "/",
            headers: &[],
            body: b"",
        };
        let headers = sign(
            &request,
            &suite(),
            "us-east-1",
            "service",
            "20150830T123600Z",
        );
        headers
            .into_iter()
            .find(|(n, _)| n == "authorization")
            .map(|(_, v)| v)
            .unwrap()
    }

    #[test]
    fn the_test_suites_vanilla_requests_sign_as_published() {
        assert_eq!(
            authorization("GET"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        assert!(authorization("POST").ends_with(
            "Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        ));
    }

    #[test]
    fn a_session_token_is_sent_and_signed_and_paths_are_encoded_again() {
        let mut credentials = suite();
        credentials.session_token = Some("token".into());
        let request = Request {
            method: "POST",
            host: "bedrock-runtime.us-east-1.amazonaws.com",
            path: "/model/amazon.titan-embed-text-v2%3A0/invoke",
            headers: &[("content-type", "application/json")],
            body: b"{}",
        };
        let headers = sign(
            &request,
            &credentials,
            "us-east-1",
            "bedrock",
            "20260101T000000Z",
        );
        let auth = &headers
            .iter()
            .find(|(n, _)| n == "authorization")
            .unwrap()
            .1;
        assert!(auth.contains("SignedHeaders=content-type;host;x-amz-date;x-amz-security-token"));
        assert!(auth.contains("/20260101/us-east-1/bedrock/aws4_request"));
        assert!(headers.contains(&("x-amz-security-token".into(), "token".into())));
        assert_eq!(
            encode("amazon.titan-embed-text-v2:0"),
            "amazon.titan-embed-text-v2%3A0"
        );
        assert_eq!(encode("%3A"), "%253A");
        assert!(!format!("{credentials:?}").contains("wJalr"));
    }
}
