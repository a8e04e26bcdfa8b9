//! The routes readers use without credentials (the gate lets them through,
//! `auth::is_public`): `GET /public/{token}` (a share link; its own password check) and
//! `GET {host}/p/{path}` (a published page). Both answer every refusal with one body per
//! status, so nothing tells an unknown token from a revoked one, or a private page from a
//! missing one. Comments, share links, publishing, the rules file and the theme are
//! operations of the table (`quire_ops::collab`).

use axum::extract::{Path, RawPathParams};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use quire_service::{Error, ErrorCode, Served};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::SpaceCtx;
use crate::error::path_param;
use crate::error::{blocking, ApiError, ErrorBody, QueryParams};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PasswordQuery {
    /// The link's password (or header `X-Share-Password`).
    pub password: Option<String>,
}

fn quoted(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

// --- share links ----------------------------------------------------------------------------

/// The password a reader sent: `?password=`, `X-Share-Password`, or the password of HTTP
/// Basic authentication (what a browser's password prompt sends).
fn share_password(headers: &HeaderMap, query: Option<String>) -> Option<String> {
    if let Some(p) = query.filter(|p| !p.is_empty()) {
        return Some(p);
    }
    if let Some(p) = headers
        .get("x-share-password")
        .and_then(|v| v.to_str().ok())
        .filter(|p| !p.is_empty())
    {
        return Some(p.to_string());
    }
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())?
        .trim()
        .strip_prefix("Basic ")
        .or_else(|| {
            headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())?
                .trim()
                .strip_prefix("basic ")
        })?;
    let decoded = decode_base64(basic.trim())?;
    let text = String::from_utf8(decoded).ok()?;
    text.split_once(':').map(|(_, p)| p.to_string())
}

/// Standard base64 (with or without padding); `None` on anything else.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::alphabet::STANDARD;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT.decode(text).ok()
}

/// The page behind a share link, without credentials: rendered HTML when the client asks for
/// HTML (a browser), the markdown otherwise. Unknown, revoked and expired links are one 404;
/// a missing or wrong password is one 401 with a `WWW-Authenticate` challenge.
#[utoipa::path(get, path = "/public/{token}", tag = "collaboration", operation_id = "open_share",
    params(("token" = String, Path, description = "the link's token"), PasswordQuery,
        ("X-Share-Password" = Option<String>, Header, description = "the link's password")),
    responses((status = 200, content_type = "text/markdown", body = String,
            description = "the page: markdown, or a rendered HTML document when `Accept` asks for text/html"),
        (status = 401, body = ErrorBody, description = "the link needs its password (missing or wrong)"),
        (status = 404, body = ErrorBody, description = "no such active link")))]
pub async fn open_share(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    QueryParams(q): QueryParams<PasswordQuery>,
    headers: HeaderMap,
) -> Response {
    let token = match path_param(&params, "token") {
        Ok(token) => token,
        Err(e) => return e.into_response(),
    };
    let password = share_password(&headers, q.password);
    let wants_html = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    let opened = blocking(move || {
        let page = space.shares().open(&token, password.as_deref())?;
        space.page_viewed(&page.path, Some("share"), None);
        let html = match wants_html {
            true => Some(space.publishing().render_shared(&page)?),
            false => None,
        };
        Ok((page, html))
    })
    .await;
    let private = [
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
    ];
    match opened {
        Ok((_, Some(html))) => (
            private,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            )],
            html,
        )
            .into_response(),
        Ok((page, None)) => (
            private,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/markdown; charset=utf-8"),
            )],
            page.text,
        )
            .into_response(),
        Err(ApiError(e)) if e.code == ErrorCode::Unauthorized => {
            let mut response = ApiError(Error::new(
                ErrorCode::Unauthorized,
                quire_service::PASSWORD_NEEDED,
            ))
            .into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"quire shared page\", charset=\"UTF-8\""),
            );
            response
        }
        Err(ApiError(e)) if e.code == ErrorCode::NotFound || e.code == ErrorCode::BadRequest => {
            ApiError(Error::not_found(quire_service::GONE)).into_response()
        }
        Err(e) => e.into_response(),
    }
}

// --- publishing -----------------------------------------------------------------------------

/// A published page rendered as HTML (with or without `.md`), or an asset a published page
/// uses; no credentials. `ETag` + `If-None-Match` give 304. Anything not published is 404.
#[utoipa::path(get, path = "/p/{*path}", tag = "collaboration", operation_id = "published_page",
    params(("path" = String, Path, description = "the page's path, `.md` optional")),
    responses((status = 200, content_type = "text/html", body = String,
            headers(("ETag" = String), ("Cache-Control" = String))),
        (status = 304, description = "unchanged since the ETag sent in `If-None-Match`"),
        (status = 404, body = ErrorBody, description = "no such published page")))]
pub async fn published_page(
    SpaceCtx(space): SpaceCtx,
    Path(path): Path<String>,
    headers: HeaderMap,
) -> Response {
    let served = blocking(move || {
        let served = space.publishing().serve(&path)?;
        if let Served::Page { path, .. } = &served {
            space.page_viewed(path, Some("public"), None);
        }
        Ok(served)
    })
    .await;
    let served = match served {
        Ok(served) => served,
        Err(ApiError(e)) if e.code == ErrorCode::NotFound || e.code == ErrorCode::BadRequest => {
            return ApiError(Error::not_found(quire_service::NOT_PUBLISHED)).into_response()
        }
        Err(e) => return e.into_response(),
    };
    let (etag, content_type, body) = match served {
        Served::Page { html, etag, .. } => (
            etag,
            HeaderValue::from_static("text/html; charset=utf-8"),
            html.into_bytes(),
        ),
        Served::Asset {
            bytes,
            media_type,
            etag,
        } => (etag, HeaderValue::from_static(media_type), bytes),
    };
    let tag = quoted(&etag);
    let cache = (
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=0, must-revalidate"),
    );
    if crate::docs::if_none_match(&headers, &etag) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, tag), cache]).into_response();
    }
    (
        [
            (header::ETAG, tag),
            cache,
            (header::CONTENT_TYPE, content_type),
        ],
        body,
    )
        .into_response()
}
