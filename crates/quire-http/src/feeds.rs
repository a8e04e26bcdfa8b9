//! The feeds of recent changes, `GET /feed.atom` (Atom) and `GET /feed.json` (JSON Feed 1.1):
//! representations of the `timeline` operation whose links are URLs of this server as the
//! client reached it, so they stay hand-written REST routes.

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use quire_api::workspace_edit::encode_uri_path;
use quire_api::{Change, ChangeAction, JsonFeed, Timeline};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::SpaceCtx;
use crate::error::{blocking, ApiResult, ErrorBody, QueryParams};

/// Changes a feed holds when the caller names no limit.
const FEED_LIMIT: usize = 50;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedParams {
    /// At most this many changes (default 50, at most 500).
    pub limit: Option<usize>,
}

/// What both feeds show: the space's name, its URL as the client reached it, and the newest
/// changes.
async fn feed_entries(
    space: std::sync::Arc<quire_service::Space>,
    q: FeedParams,
    headers: &HeaderMap,
) -> ApiResult<(String, String, Timeline)> {
    let name = space.name().to_string();
    let base = space_url(space.public_url(), headers, &name);
    let timeline = blocking(move || {
        space
            .versions()
            .timeline(None, Some(q.limit.unwrap_or(FEED_LIMIT)))
    })
    .await?;
    Ok((name, base, timeline))
}

/// Recent changes as an Atom feed.
#[utoipa::path(get, path = "/feed.atom", tag = "versions", operation_id = "feed_atom", params(FeedParams),
    responses((status = 200, body = String, content_type = "application/atom+xml"),
        (status = 400, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn feed_atom(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<FeedParams>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let (name, base, timeline) = feed_entries(space, q, &headers).await?;
    let xml = atom(&name, &base, &timeline.events);
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/atom+xml; charset=utf-8"),
        )],
        xml,
    )
        .into_response())
}

/// Recent changes as a JSON Feed 1.1.
#[utoipa::path(get, path = "/feed.json", tag = "versions", operation_id = "feed_json", params(FeedParams),
    responses((status = 200, body = JsonFeed, content_type = "application/feed+json"),
        (status = 400, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn feed_json(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<FeedParams>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let (name, base, timeline) = feed_entries(space, q, &headers).await?;
    let feed = JsonFeed::of_changes(&name, &timeline.events, Some(&base), |path| {
        file_url(&base, path)
    });
    let body = serde_json::to_vec(&feed)
        .map_err(|e| crate::error::ApiError(quire_service::Error::internal(e)))?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/feed+json"),
        )],
        body,
    )
        .into_response())
}

/// `<public_url>/api/quire/<space>` when `[server] public_url` is set (a proxy's Host says
/// nothing about the address users reach), else `http://<Host>/api/quire/<space>`: the
/// space's API as the client reached the server.
fn space_url(public_url: Option<&str>, headers: &HeaderMap, space: &str) -> String {
    if let Some(base) = public_url {
        return format!("{base}{}/{}", crate::BASE_PATH, encode_uri_path(space));
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or("localhost");
    format!(
        "http://{host}{}/{}",
        crate::BASE_PATH,
        encode_uri_path(space)
    )
}

/// Where a change's file can be read.
fn file_url(base: &str, path: &str) -> String {
    format!("{base}/file?path={}", encode_uri_path(path))
}

fn atom(space: &str, base: &str, changes: &[Change]) -> String {
    let updated = changes
        .first()
        .map(|c| c.timestamp.clone())
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".into());
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    xml.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    xml.push_str(&format!(
        "  <id>urn:quire:{}:changes</id>\n  <title>{}</title>\n  <updated>{}</updated>\n",
        escape_xml(&encode_uri_path(space)),
        escape_xml(&format!("quire: changes in {space}")),
        escape_xml(&updated)
    ));
    xml.push_str(&format!(
        "  <link rel=\"self\" href=\"{}\"/>\n",
        escape_xml(&format!("{base}/feed.atom"))
    ));
    for change in changes {
        xml.push_str("  <entry>\n");
        xml.push_str(&format!(
            "    <id>{}</id>\n    <title>{}</title>\n    <updated>{}</updated>\n",
            escape_xml(&change.feed_id(space)),
            escape_xml(&change.feed_title()),
            escape_xml(&change.timestamp)
        ));
        xml.push_str(&format!(
            "    <author><name>{}</name></author>\n",
            escape_xml(&change.actor)
        ));
        if change.action == ChangeAction::Write {
            let url = file_url(base, &change.path);
            xml.push_str(&format!("    <link href=\"{}\"/>\n", escape_xml(&url)));
        }
        xml.push_str(&format!(
            "    <summary>{}</summary>\n",
            escape_xml(&change.feed_summary())
        ));
        xml.push_str("  </entry>\n");
    }
    xml.push_str("</feed>\n");
    xml
}

/// Text for XML content and attribute values: markup characters escaped, and characters XML
/// 1.0 cannot hold dropped.
fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_drops_control_characters() {
        assert_eq!(escape_xml("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;");
    }
}
