//! Talking to a running server: the command line's one HTTP client. Bodies are the wire types
//! of `quire-api`; a refusal comes back as the service's `Error`, its code read from the status
//! through the one table, so exit codes are the same as when the command works on a root.

use anyhow::Context;
use quire_service::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A server, by its host address (`http://127.0.0.1:3333`). Its calls share one agent, so
/// a command that calls many times (a mount relaying every file operation) reuses its
/// connections instead of opening one per call.
#[derive(Debug, Clone)]
pub struct Remote {
    host: String,
    agent: ureq::Agent,
}

impl Remote {
    pub fn new(host: &str) -> Remote {
        let host = host.trim_end_matches('/');
        let host = host.strip_suffix(quire_http::BASE_PATH).unwrap_or(host);
        Remote {
            host: host.to_string(),
            agent: ureq::AgentBuilder::new().build(),
        }
    }

    /// `POST {base_url}{route}` with raw bytes (a manifest in YAML or JSON).
    pub fn post_bytes<T: DeserializeOwned>(
        &self,
        route: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> anyhow::Result<T> {
        let request = self.request(route, headers);
        self.answer(request.send_bytes(body))
    }

    /// `POST {base_url}{route}` with a JSON body.
    pub fn post_json<T: DeserializeOwned>(
        &self,
        route: &str,
        headers: &[(&str, &str)],
        body: &impl Serialize,
    ) -> anyhow::Result<T> {
        let request = self.request(route, headers);
        let body = serde_json::to_value(body).context("serialising the request")?;
        self.answer(request.send_json(body))
    }

    /// `GET {base_url}{route}` with query parameters.
    pub fn get_json<T: DeserializeOwned>(
        &self,
        route: &str,
        query: &[(&str, String)],
    ) -> anyhow::Result<T> {
        let mut request = self.request_with("GET", route, &[]);
        for (name, value) in query {
            request = request.query(name, value);
        }
        self.answer(request.call())
    }

    /// Any request: `method` on `{base_url}{route}` with query parameters and an optional
    /// body (bytes and their media type). Answers the media type and bytes of a success.
    pub fn send(
        &self,
        method: &str,
        route: &str,
        query: &[(String, String)],
        headers: &[(&str, &str)],
        body: Option<(&[u8], &str)>,
    ) -> anyhow::Result<(String, Vec<u8>)> {
        let mut request = self.request_with(method, route, headers);
        for (name, value) in query {
            request = request.query(name, value);
        }
        let sent = match body {
            Some((bytes, media)) => request.set("Content-Type", media).send_bytes(bytes),
            None => request.call(),
        };
        let response = self.answer_raw(sent)?;
        let media = response.content_type().to_string();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut response.into_reader(), &mut bytes)
            .context("reading the server's answer")?;
        Ok((media, bytes))
    }

    fn request(&self, route: &str, headers: &[(&str, &str)]) -> ureq::Request {
        self.request_with("POST", route, headers)
    }

    fn request_with(&self, method: &str, route: &str, headers: &[(&str, &str)]) -> ureq::Request {
        let url = format!("{}{}{route}", self.host, quire_http::BASE_PATH);
        let mut request = self
            .agent
            .request(method, &url)
            .set("X-Quire-Client", "cli");
        // A server with authentication on needs the key; the command reads it where the
        // server's operator would put it.
        if let Some(key) = std::env::var("QUIRE_API_KEY")
            .ok()
            .filter(|k| !k.trim().is_empty())
        {
            request = request.set("Authorization", &format!("Bearer {}", key.trim()));
        }
        for (name, value) in headers {
            request = request.set(name, value);
        }
        request
    }

    fn answer<T: DeserializeOwned>(
        &self,
        sent: Result<ureq::Response, ureq::Error>,
    ) -> anyhow::Result<T> {
        self.answer_raw(sent)?
            .into_json()
            .context("the server's answer is not what was expected")
    }

    /// A success as it came, a refusal as the service's error (its code from the status).
    fn answer_raw(
        &self,
        sent: Result<ureq::Response, ureq::Error>,
    ) -> anyhow::Result<ureq::Response> {
        match sent {
            Ok(r) => Ok(r),
            Err(ureq::Error::Status(status, r)) => {
                let text = r.into_string().unwrap_or_default();
                let body: Option<quire_api::ErrorBody> = serde_json::from_str(&text).ok();
                let code = ErrorCode::from_http_status(status);
                let message = match &body {
                    Some(body) => body.error.clone(),
                    None => text,
                };
                let mut error =
                    Error::new(code, format!("the server refused ({status}): {message}"));
                if let Some(plan) = body.and_then(|b| b.plan) {
                    error = error.with_plan(*plan);
                }
                Err(error.into())
            }
            Err(e) => Err(Error::new(
                ErrorCode::Unavailable,
                format!(
                    "cannot reach a quire server at {} ({e}); start one with `quire serve`, or \
                     work directly with --root DIR",
                    self.host
                ),
            )
            .into()),
        }
    }
}
