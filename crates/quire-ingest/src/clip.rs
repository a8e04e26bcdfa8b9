//! Fetching a web page to clip: `http` and `https` only, with timeouts, a few redirects and a
//! size cap; the answer must be HTML. A failure to reach the page, or an error status from
//! it, is [`IngestError::Fetch`] (502); a URL that is no web address is a bad request.

use std::io::Read;
use std::time::Duration;

use crate::IngestError;

/// Bytes of a page the clipper reads at most.
pub const MAX_PAGE_BYTES: u64 = 8 << 20;
/// Connecting, and the whole fetch.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// A fetched page.
#[derive(Debug)]
pub struct Fetched {
    /// The URL after redirects.
    pub url: url::Url,
    pub html: String,
}

/// Checks a URL to clip.
pub fn parse_url(text: &str) -> Result<url::Url, IngestError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(IngestError::BadRequest("`url` is required".into()));
    }
    let url = url::Url::parse(text)
        .map_err(|e| IngestError::BadRequest(format!("{text:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(IngestError::BadRequest(format!(
            "{text:?} is not an http or https address"
        )));
    }
    Ok(url)
}

/// Fetches the page at `url`.
pub fn fetch(url: &url::Url) -> Result<Fetched, IngestError> {
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(CONNECT_TIMEOUT)
        .timeout(FETCH_TIMEOUT)
        .redirects(5)
        .user_agent(concat!("quire-clipper/", env!("CARGO_PKG_VERSION")))
        .build();
    let response = match agent
        .get(url.as_str())
        .set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
        .call()
    {
        Ok(r) => r,
        Err(ureq::Error::Status(code, _)) => {
            return Err(IngestError::Fetch(format!("{url} answered HTTP {code}")))
        }
        Err(ureq::Error::Transport(t)) => {
            return Err(IngestError::Fetch(format!("{url} cannot be reached: {t}")))
        }
    };
    let final_url = url::Url::parse(response.get_url()).unwrap_or_else(|_| url.clone());
    let media = response.content_type().to_ascii_lowercase();
    if !matches!(media.as_str(), "text/html" | "application/xhtml+xml") {
        return Err(IngestError::Unsupported(format!(
            "{url} is {media}, not an HTML page: the clipper reads web pages (ingest a document with POST /ingest)"
        )));
    }
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(MAX_PAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| IngestError::Fetch(format!("{url} broke off: {e}")))?;
    if bytes.len() as u64 > MAX_PAGE_BYTES {
        return Err(IngestError::TooLarge(format!(
            "{url} is larger than {MAX_PAGE_BYTES} bytes"
        )));
    }
    Ok(Fetched {
        url: final_url,
        html: crate::html::decode(&bytes),
    })
}
