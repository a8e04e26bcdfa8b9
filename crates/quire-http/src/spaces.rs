//! The spaces API (host routes): `GET /api/spaces`, `GET /api/spaces/{name}`,
//! `POST /api/spaces` and `DELETE /api/spaces/{name}`.
//!
//! Who sees what: without authentication (`[auth] type = "none"`) every caller sees every
//! space. With authentication, a credential bound to a space sees that space only (the gate
//! answers 403 for another by name); an unbound one sees every space; a caller without
//! credentials sees the `public` spaces in the list and may look up a `public` or
//! `unlisted` one by name (401 otherwise). Adding and removing spaces needs an admin
//! credential that is not bound to a space. Removing never deletes files.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Extension;
use axum::Json;
use quire_api::{Grant, NewSpace, Scope, SpaceList, SpaceRemoved, SpaceSummary};
use quire_config::Visibility;
use quire_service::{Error, ErrorCode, SpaceEntry, SpaceOrigin};

use crate::context::write_options;
use crate::error::{blocking, ApiError, ApiResult, ErrorBody, JsonBody};
use crate::gate::Anonymous;
use crate::AppState;

/// Who asks, as far as the spaces API cares.
enum Viewer {
    /// Authentication is off: everyone sees everything.
    Open,
    /// A caller without credentials while authentication is on.
    Anonymous,
    /// An authenticated caller.
    Key(Grant),
}

impl Viewer {
    fn of(grant: Option<Extension<Grant>>, anonymous: Option<Extension<Anonymous>>) -> Viewer {
        match (grant, anonymous) {
            (Some(Extension(grant)), _) => Viewer::Key(grant),
            (None, Some(_)) => Viewer::Anonymous,
            (None, None) => Viewer::Open,
        }
    }

    /// Whether the list shows this space to the caller.
    fn lists(&self, name: &str, visibility: Visibility) -> bool {
        match self {
            Viewer::Open => true,
            Viewer::Anonymous => visibility == Visibility::Public,
            Viewer::Key(grant) => grant.space.as_deref().is_none_or(|only| only == name),
        }
    }

    /// Whether the caller may look the space up by name (the gate already refused a key
    /// bound to another space).
    fn reaches(&self, visibility: Visibility) -> bool {
        match self {
            Viewer::Anonymous => visibility != Visibility::Private,
            _ => true,
        }
    }

    /// Whether the caller manages the server's spaces: sees roots, adds and removes.
    fn manages(&self) -> bool {
        match self {
            Viewer::Open => true,
            Viewer::Anonymous => false,
            Viewer::Key(grant) => grant.scope == Scope::Admin && grant.space.is_none(),
        }
    }
}

fn kind(origin: &SpaceOrigin) -> &'static str {
    match origin {
        SpaceOrigin::Main => "default",
        SpaceOrigin::Config => "config",
        SpaceOrigin::Added(_) => "dynamic",
    }
}

fn summary(state: &AppState, entry: &SpaceEntry, viewer: &Viewer) -> SpaceSummary {
    let space = &entry.space;
    let name = space.name().to_string();
    let visibility = state.visibility.get(&name);
    let mut out = SpaceSummary {
        api: format!("{}/{name}", crate::BASE_PATH),
        kind: kind(&entry.origin).to_string(),
        visibility: visibility.to_string(),
        name,
        root: None,
        files: None,
        ready: None,
        added: None,
        added_by: None,
        created_root: None,
    };
    if matches!(viewer, Viewer::Anonymous) {
        return out;
    }
    out.files = Some(space.file_count() as u64);
    out.ready = Some(space.is_ready());
    if let SpaceOrigin::Added(r) = &entry.origin {
        out.added = Some(r.added.clone()).filter(|s| !s.is_empty());
        out.added_by = Some(r.added_by.clone()).filter(|s| !s.is_empty());
    }
    if viewer.manages() {
        out.root = Some(space.root_dir().display().to_string());
    }
    out
}

fn unknown(name: &str) -> ApiError {
    ApiError(Error::not_found(format!("unknown space {name:?}")))
}

fn needs_credentials() -> ApiError {
    ApiError(Error::new(
        ErrorCode::Unauthorized,
        "missing credentials: send `Authorization: Bearer <API key or token>`",
    ))
}

fn managing_refused() -> ApiError {
    ApiError(Error::new(
        ErrorCode::Forbidden,
        "adding and removing spaces needs an admin key that is not bound to a space",
    ))
}

/// The spaces the caller may see, the default first: every space without authentication;
/// the space of a space-bound key; every space for other keys; the public spaces for a
/// caller without credentials.
#[utoipa::path(get, path = "/api/spaces", tag = "spaces", operation_id = "space_list",
    responses((status = 200, body = SpaceList),
        (status = 401, body = ErrorBody, description = "invalid credentials")))]
pub async fn list(
    State(state): State<AppState>,
    grant: Option<Extension<Grant>>,
    anonymous: Option<Extension<Anonymous>>,
) -> Json<SpaceList> {
    let viewer = Viewer::of(grant, anonymous);
    let spaces = state
        .service
        .entries()
        .iter()
        .filter(|e| viewer.lists(e.space.name(), state.visibility.get(e.space.name())))
        .map(|e| summary(&state, e, &viewer))
        .collect();
    Json(SpaceList { spaces })
}

/// One space. Without credentials, only a public or unlisted space answers (401 otherwise).
#[utoipa::path(get, path = "/api/spaces/{name}", tag = "spaces", operation_id = "space_get",
    params(("name" = String, Path, description = "Space name")),
    responses((status = 200, body = SpaceSummary),
        (status = 401, body = ErrorBody, description = "no or invalid credentials, and the space is private or unknown"),
        (status = 403, body = ErrorBody, description = "the key is bound to another space"),
        (status = 404, body = ErrorBody, description = "no such space")))]
pub async fn get(
    State(state): State<AppState>,
    Path(name): Path<String>,
    grant: Option<Extension<Grant>>,
    anonymous: Option<Extension<Anonymous>>,
) -> ApiResult<Json<SpaceSummary>> {
    let viewer = Viewer::of(grant, anonymous);
    let entry = state.service.entry(&name);
    match entry {
        Some(entry) if viewer.reaches(state.visibility.get(&name)) => {
            Ok(Json(summary(&state, &entry, &viewer)))
        }
        // Without credentials, an unknown space and a private one look alike.
        _ if matches!(viewer, Viewer::Anonymous) => Err(needs_credentials()),
        _ => Err(unknown(&name)),
    }
}

/// Adds a space while the server runs (admin, not bound to a space). The root is created
/// and initialised when missing; an existing folder is served as it is. The space is recorded
/// in `.quire/spaces.json` of the default space (one commit by `X-Actor`) and comes back
/// after a restart.
#[utoipa::path(post, path = "/api/spaces", tag = "spaces", operation_id = "space_add",
    request_body = NewSpace,
    responses((status = 201, body = SpaceSummary),
        (status = 400, body = ErrorBody, description = "a name that is not a plain slug or is taken by a route, a root that is not an absolute path or is a file, or a malformed body"),
        (status = 403, body = ErrorBody, description = "not an admin key, or a key bound to a space"),
        (status = 409, body = ErrorBody, description = "the name is taken, the root overlaps another space's root, or another process writes the root (the message names it)")))]
pub async fn add(
    State(state): State<AppState>,
    headers: HeaderMap,
    grant: Option<Extension<Grant>>,
    anonymous: Option<Extension<Anonymous>>,
    JsonBody(body): JsonBody<NewSpace>,
) -> ApiResult<(StatusCode, Json<SpaceSummary>)> {
    let viewer = Viewer::of(grant, anonymous);
    if !viewer.manages() {
        return Err(managing_refused());
    }
    let actor = write_options(&headers).actor;
    let service = state.service.clone();
    let name = body.name.trim().to_string();
    let added = blocking(move || {
        service.add_space(
            &name,
            std::path::Path::new(&body.root),
            actor.as_deref(),
            &crate::reserved_space_names(),
        )
    })
    .await?;
    let space = &added.entry.space;
    state.visibility.set(
        space.name(),
        crate::visibility::configured(space.root_dir()),
    );
    if let Some(webhooks) = &state.webhooks {
        // Its webhooks work at once, like the spaces opened at start.
        if let Err(e) = webhooks.attach(space) {
            tracing::error!(space = %space.name(), "the space's webhooks are off: {e}");
        }
    }
    let mut out = summary(&state, &added.entry, &viewer);
    out.created_root = Some(added.created_root);
    tracing::info!(space = %space.name(), root = %space.root_dir().display(), "space added");
    Ok((StatusCode::CREATED, Json(out)))
}

/// Removes a space added through the API (admin, not bound to a space): it is no longer
/// served nor opened at start, its pending commits are made and its writer lock released.
/// Its files, git history and state stay on disk untouched. The default space and
/// `[[spaces]]` of the configuration cannot be removed (409).
#[utoipa::path(delete, path = "/api/spaces/{name}", tag = "spaces", operation_id = "space_remove",
    params(("name" = String, Path, description = "Space name")),
    responses((status = 200, body = SpaceRemoved),
        (status = 403, body = ErrorBody, description = "not an admin key, or a key bound to a space"),
        (status = 404, body = ErrorBody, description = "no such space"),
        (status = 409, body = ErrorBody, description = "the default space or a space of the configuration")))]
pub async fn remove(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    grant: Option<Extension<Grant>>,
    anonymous: Option<Extension<Anonymous>>,
) -> ApiResult<Json<SpaceRemoved>> {
    let viewer = Viewer::of(grant, anonymous);
    if !viewer.manages() {
        return Err(managing_refused());
    }
    let actor = write_options(&headers).actor;
    let service = state.service.clone();
    let removing = name.clone();
    let removed = blocking(move || service.remove_space(&removing, actor.as_deref())).await?;
    state.visibility.remove(&name);
    if let Some(webhooks) = state.webhooks.clone() {
        // Its dispatchers stop (a delivery in flight gets a moment); the queue stays on disk.
        let detaching = name.clone();
        let _ = tokio::task::spawn_blocking(move || {
            webhooks.detach(&detaching, std::time::Duration::from_secs(5))
        })
        .await;
    }
    tracing::info!(space = %name, root = %removed.root.display(), released = removed.released, "space removed; its files stay on disk");
    Ok(Json(SpaceRemoved {
        name: removed.name,
        root: removed.root.display().to_string(),
        files_deleted: false,
        released: removed.released,
    }))
}
