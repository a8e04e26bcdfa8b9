//! Comments, share links, publishing, the rules file and the theme: thin routes over the
//! space's `Comments`, `Shares`, `Publishing`, `Rules` and `Themes`.
//!
//! Two routes need no credentials (the gate lets them through, `auth::is_public`):
//! `GET /public/{token}` (a share link; its own password check) and `GET {host}/p/{path}` (a
//! published page). Both answer every refusal with one body per status, so nothing tells an
//! unknown token from a revoked one, or a private page from a missing one.

use axum::extract::{Path, RawPathParams};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use quire_api::{
    Comment, CommentDeleted, CommentPatch, NewComment, NewShare, Publication, Publications,
    PublishBulkRequest, PublishRequest, RulesWritten, ShareLink, ShareList, ShareRevoked, Theme,
};
use quire_service::{Error, ErrorCode, RulesFormat, Served};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::context::{write_options, write_options_with, SpaceCtx};
use crate::error::{blocking, ApiError, ApiResult, ErrorBody, JsonBody, QueryParams};
use crate::error::{path_param, RawBody};

#[derive(Deserialize, IntoParams)]
pub struct PageQuery {
    /// The page, root-relative.
    pub path: String,
}

#[derive(Deserialize, IntoParams)]
pub struct PasswordQuery {
    /// The link's password (or header `X-Share-Password`).
    pub password: Option<String>,
}

#[derive(Deserialize, IntoParams)]
pub struct RulesQuery {
    /// `cursor`, `claude`, `agents` or `openclaw`; omitted: the file as written.
    pub format: Option<String>,
}

fn quoted(etag: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{etag}\"")).expect("hex is a valid header value")
}

// --- comments -------------------------------------------------------------------------------

/// The comments of a page, oldest first, each at the line its text is on now.
#[utoipa::path(get, path = "/comments", tag = "collaboration", params(PageQuery),
    responses((status = 200, body = [Comment]),
        (status = 400, body = ErrorBody, description = "invalid path"),
        (status = 404, body = ErrorBody, description = "no such page")))]
pub async fn list_comments(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PageQuery>,
) -> ApiResult<Json<Vec<Comment>>> {
    Ok(Json(
        blocking(move || space.comments().list(&q.path)).await?,
    ))
}

/// Comments on a line of a page (one commit of `.quire/comments/<page>.json`).
#[utoipa::path(post, path = "/comments", tag = "collaboration", params(PageQuery,
        ("X-Actor" = Option<String>, Header, description = "the author; default `api`")),
    request_body = NewComment,
    responses((status = 201, body = Comment),
        (status = 400, body = ErrorBody, description = "invalid path, empty body, line beyond the page, malformed JSON"),
        (status = 404, body = ErrorBody, description = "no such page"),
        (status = 413, body = ErrorBody, description = "a comment over 64 KiB")))]
pub async fn create_comment(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PageQuery>,
    headers: HeaderMap,
    JsonBody(new): JsonBody<NewComment>,
) -> ApiResult<Response> {
    let opts = write_options(&headers);
    let comment = blocking(move || space.comments().create(&q.path, &new, &opts)).await?;
    Ok((StatusCode::CREATED, Json(comment)).into_response())
}

/// Resolves a comment (or opens it again).
#[utoipa::path(patch, path = "/comments/{id}", tag = "collaboration",
    params(("id" = String, Path, description = "the comment's id"),
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = CommentPatch,
    responses((status = 200, body = Comment),
        (status = 400, body = ErrorBody, description = "malformed JSON"),
        (status = 404, body = ErrorBody, description = "no such comment")))]
pub async fn patch_comment(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    headers: HeaderMap,
    JsonBody(patch): JsonBody<CommentPatch>,
) -> ApiResult<Json<Comment>> {
    let id = path_param(&params, "id")?;
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.comments().set_resolved(&id, patch.resolved, &opts)).await?,
    ))
}

/// Deletes a comment.
#[utoipa::path(delete, path = "/comments/{id}", tag = "collaboration",
    params(("id" = String, Path, description = "the comment's id"),
        ("X-Actor" = Option<String>, Header, description = "commit author")),
    responses((status = 200, body = CommentDeleted),
        (status = 404, body = ErrorBody, description = "no such comment")))]
pub async fn delete_comment(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
    headers: HeaderMap,
) -> ApiResult<Json<CommentDeleted>> {
    let id = path_param(&params, "id")?;
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.comments().delete(&id, &opts)).await?,
    ))
}

// --- share links ----------------------------------------------------------------------------

/// Makes a share link; the token is in this answer only.
#[utoipa::path(post, path = "/share", tag = "collaboration",
    params(("X-Actor" = Option<String>, Header, description = "recorded as `createdBy`")),
    request_body = NewShare,
    responses((status = 201, body = ShareLink),
        (status = 400, body = ErrorBody, description = "invalid path, not a page, bad `expiresIn`, empty password, malformed JSON"),
        (status = 404, body = ErrorBody, description = "no such page")))]
pub async fn create_share(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(new): JsonBody<NewShare>,
) -> ApiResult<Response> {
    let opts = write_options_with(&headers, new.actor.clone(), None);
    let link = blocking(move || space.shares().create(&new, &opts)).await?;
    Ok((
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(link),
    )
        .into_response())
}

/// The active links of a page (without tokens).
#[utoipa::path(get, path = "/share", tag = "collaboration", params(PageQuery),
    responses((status = 200, body = ShareList),
        (status = 400, body = ErrorBody, description = "no or invalid `path`")))]
pub async fn list_shares(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<PageQuery>,
) -> ApiResult<Json<ShareList>> {
    let shares = blocking(move || space.shares().list(&q.path)).await?;
    Ok(Json(ShareList { shares }))
}

/// Revokes a share link by its id (not its token).
#[utoipa::path(delete, path = "/share/{id}", tag = "collaboration",
    params(("id" = String, Path, description = "the link's id")),
    responses((status = 200, body = ShareRevoked),
        (status = 404, body = ErrorBody, description = "no such link")))]
pub async fn revoke_share(
    SpaceCtx(space): SpaceCtx,
    params: RawPathParams,
) -> ApiResult<Json<ShareRevoked>> {
    let id = path_param(&params, "id")?;
    let revoked = blocking(move || space.shares().revoke(&id)).await?;
    Ok(Json(ShareRevoked { revoked }))
}

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
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The page behind a share link, without credentials: rendered HTML when the client asks for
/// HTML (a browser), the markdown otherwise. Unknown, revoked and expired links are one 404;
/// a missing or wrong password is one 401 with a `WWW-Authenticate` challenge.
#[utoipa::path(get, path = "/public/{token}", tag = "collaboration",
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

/// Publishes a page: frontmatter `published: true` and `published_at` (one commit); readable
/// at `{host}/p/{path}` without credentials.
#[utoipa::path(post, path = "/publish", tag = "collaboration",
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = PublishRequest,
    responses((status = 200, body = Publication),
        (status = 400, body = ErrorBody, description = "invalid path, not a markdown page, malformed JSON"),
        (status = 404, body = ErrorBody, description = "no such page")))]
pub async fn publish(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<PublishRequest>,
) -> ApiResult<Json<Publication>> {
    let opts = write_options_with(&headers, req.actor.clone(), None);
    Ok(Json(
        blocking(move || space.publishing().publish(&req.path, &opts)).await?,
    ))
}

/// Publishes several pages in one commit: all of them or none.
#[utoipa::path(post, path = "/publish/bulk", tag = "collaboration",
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = PublishBulkRequest,
    responses((status = 200, body = Publications),
        (status = 400, body = ErrorBody, description = "no paths, an invalid path or not a page, malformed JSON"),
        (status = 404, body = ErrorBody, description = "a page does not exist (nothing is published)")))]
pub async fn publish_bulk(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<PublishBulkRequest>,
) -> ApiResult<Json<Publications>> {
    let opts = write_options_with(&headers, req.actor.clone(), None);
    Ok(Json(
        blocking(move || space.publishing().publish_bulk(&req.paths, &opts)).await?,
    ))
}

/// Every published page.
#[utoipa::path(get, path = "/publish/list", tag = "collaboration",
    responses((status = 200, body = Publications)))]
pub async fn published(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Publications>> {
    Ok(Json(blocking(move || space.publishing().list()).await?))
}

/// Takes a page off `/p/`: `published: false`, `published_at` removed (one commit).
#[utoipa::path(post, path = "/unpublish", tag = "collaboration",
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = PublishRequest,
    responses((status = 200, body = Publication),
        (status = 400, body = ErrorBody, description = "invalid path, not a markdown page, malformed JSON"),
        (status = 404, body = ErrorBody, description = "no such page")))]
pub async fn unpublish(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(req): JsonBody<PublishRequest>,
) -> ApiResult<Json<Publication>> {
    let opts = write_options_with(&headers, req.actor.clone(), None);
    Ok(Json(
        blocking(move || space.publishing().unpublish(&req.path, &opts)).await?,
    ))
}

/// A published page rendered as HTML (with or without `.md`), or an asset a published page
/// uses; no credentials. `ETag` + `If-None-Match` give 304. Anything not published is 404.
#[utoipa::path(get, path = "/p/{*path}", tag = "collaboration",
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
    let served = blocking(move || space.publishing().serve(&path)).await;
    let served = match served {
        Ok(served) => served,
        Err(ApiError(e)) if e.code == ErrorCode::NotFound || e.code == ErrorCode::BadRequest => {
            return ApiError(Error::not_found(quire_service::NOT_PUBLISHED)).into_response()
        }
        Err(e) => return e.into_response(),
    };
    let (etag, content_type, body) = match served {
        Served::Page { html, etag } => (
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

// --- rules and theme ------------------------------------------------------------------------

/// The rules file for coding agents: as written, or wrapped as a tool's rules file; an empty
/// body when there are none.
#[utoipa::path(get, path = "/rules", tag = "collaboration", params(RulesQuery),
    responses((status = 200, content_type = "text/markdown", body = String),
        (status = 400, body = ErrorBody, description = "unknown format")))]
pub async fn rules(
    SpaceCtx(space): SpaceCtx,
    QueryParams(q): QueryParams<RulesQuery>,
) -> ApiResult<Response> {
    let format: RulesFormat = q.format.as_deref().unwrap_or("").parse()?;
    let text = blocking(move || space.rules().read(format)).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/markdown; charset=utf-8"),
        )],
        text,
    )
        .into_response())
}

/// Replaces the rules file `.quire/rules.md` (raw markdown, at most 256 KiB; one commit).
#[utoipa::path(put, path = "/rules", tag = "collaboration",
    params(("X-Actor" = Option<String>, Header, description = "commit author"),
        ("If-Match" = Option<String>, Header, description = "ETag last read; 409 when it no longer matches")),
    request_body(content = String, content_type = "text/markdown"),
    responses((status = 200, body = RulesWritten),
        (status = 400, body = ErrorBody, description = "not UTF-8"),
        (status = 409, body = ErrorBody, description = "If-Match no longer matches"),
        (status = 413, body = ErrorBody, description = "over 256 KiB")))]
pub async fn put_rules(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Json<RulesWritten>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.rules().write(&body, &opts)).await?,
    ))
}

/// The web UI's theme (the default when none was set).
#[utoipa::path(get, path = "/theme", tag = "collaboration",
    responses((status = 200, body = Theme)))]
pub async fn theme(SpaceCtx(space): SpaceCtx) -> ApiResult<Json<Theme>> {
    Ok(Json(blocking(move || space.theme().read()).await?))
}

/// Sets the web UI's theme (`.quire/theme.json`, one commit); 403 while `[ui] theme_locked`.
#[utoipa::path(put, path = "/theme", tag = "collaboration",
    params(("X-Actor" = Option<String>, Header, description = "commit author")),
    request_body = Theme,
    responses((status = 200, body = Theme),
        (status = 400, body = ErrorBody, description = "not a `#rrggbb` colour, mode not light/dark/system, malformed JSON"),
        (status = 403, body = ErrorBody, description = "the theme is locked")))]
pub async fn put_theme(
    SpaceCtx(space): SpaceCtx,
    headers: HeaderMap,
    JsonBody(theme): JsonBody<Theme>,
) -> ApiResult<Json<Theme>> {
    let opts = write_options(&headers);
    Ok(Json(
        blocking(move || space.theme().write(&theme, &opts)).await?,
    ))
}
