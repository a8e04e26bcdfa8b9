//! Authentication of API requests: `[auth] type = "apikey"`, `"perspace"` and `"oidc"`, and
//! the scopes of `[[auth.api_keys]]` entries (`quire token create`).
//!
//! Keys written in clear are kept only as SHA-256 digests and a presented key is compared
//! against every one of them in constant time. Tokens made by `quire token create` are stored
//! as Argon2id hashes (`key_hash`) named by a public id that the token carries
//! (`quire_<id>_<secret>`); a token verified once is remembered by its SHA-256 digest for
//! the life of this policy (a reload forgets it, so a revoked token stops at once). A Bearer
//! value shaped like a JWT goes to the OIDC validator when `type = "oidc"`.
//!
//! Public routes (health, readiness, metrics, the API description and the spec's public
//! pages) need no credentials; every other route answers 401 without valid ones. A per-space
//! key opens its own space only (403 elsewhere); [`required_scope`] is the one table of what
//! each route needs (403 below it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use axum::http::Method;
use quire_api::Scope;
use quire_config::{AuthConfig, AuthType};
use sha2::{Digest, Sha256};

use crate::credentials::{scope_of, SetupError};
pub use crate::credentials::{Principal, Refused};
use crate::oidc::Oidc;

/// Who may call the API, as the configuration says.
pub struct AuthPolicy {
    /// `None`: authentication is off (`[auth] type = "none"`).
    keys: Option<Vec<Key>>,
    /// The validator of `type = "oidc"`.
    oidc: Option<Arc<Oidc>>,
    /// The space a request addresses when it names none.
    default_space: String,
    /// Tokens whose Argon2 hash was verified: SHA-256 of the token → index into `keys`.
    verified: Mutex<HashMap<[u8; 32], usize>>,
}

#[derive(Clone)]
enum Stored {
    /// SHA-256 of a key written in clear (or from the environment).
    Digest([u8; 32]),
    /// A token of `quire token create`: its public id and Argon2id hash (PHC string).
    Hashed { id: String, phc: String },
}

#[derive(Clone)]
struct Key {
    stored: Stored,
    /// The only space this key opens; `None` opens every space.
    space: Option<String>,
    /// Attribution of writes that send no `X-Actor`.
    actor: Option<String>,
    scope: Scope,
}

/// The live policy, replaced as a whole when the configuration is reloaded (SIGHUP):
/// requests already admitted keep the policy they were checked with, the next request sees
/// the new one, and no connection is dropped.
#[derive(Clone)]
pub struct AuthHandle(Arc<RwLock<Arc<AuthPolicy>>>);

impl AuthHandle {
    pub fn new(policy: AuthPolicy) -> AuthHandle {
        AuthHandle(Arc::new(RwLock::new(Arc::new(policy))))
    }

    pub fn current(&self) -> Arc<AuthPolicy> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn replace(&self, policy: AuthPolicy) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(policy);
    }
}

impl AuthPolicy {
    /// No authentication: every request passes.
    pub fn open(default_space: &str) -> AuthPolicy {
        AuthPolicy {
            keys: None,
            oidc: None,
            default_space: default_space.to_string(),
            verified: Mutex::default(),
        }
    }

    /// The policy `[auth]` asks for over these spaces (the first is the default). A setting
    /// this build cannot enforce is an error, never a weaker policy. With `type = "oidc"` this
    /// fetches the issuer's discovery document and keys (blocking): an issuer that cannot be
    /// reached is an error too.
    pub fn from_config(auth: &AuthConfig, spaces: &[&str]) -> Result<AuthPolicy, SetupError> {
        let default_space = spaces.first().copied().unwrap_or("default").to_string();
        let setup = |setting: &str, message: String| SetupError {
            setting: setting.to_string(),
            message,
        };
        let mut keys = Vec::new();
        let mut oidc = None;
        match auth.kind {
            AuthType::None => return Ok(AuthPolicy::open(&default_space)),
            AuthType::Oidc => {
                oidc = Some(Arc::new(Oidc::discover(auth)?));
            }
            AuthType::Apikey => {
                let key = auth
                    .api_key
                    .as_ref()
                    .filter(|k| !k.expose().trim().is_empty())
                    .ok_or_else(|| {
                        setup(
                            "auth.api_key",
                            "auth type \"apikey\" needs a non-empty key".into(),
                        )
                    })?;
                keys.push(Key {
                    stored: Stored::Digest(digest(key.expose().trim())),
                    space: None,
                    actor: None,
                    scope: Scope::Admin,
                });
            }
            AuthType::Perspace => {
                if auth.api_keys.is_empty() {
                    return Err(setup(
                        "auth.api_keys",
                        "auth type \"perspace\" needs at least one [[auth.api_keys]] entry".into(),
                    ));
                }
            }
        }
        for (index, entry) in auth.api_keys.iter().enumerate() {
            let stored = match (&entry.key, &entry.key_hash, &entry.id) {
                (Some(key), None, _) if !key.expose().trim().is_empty() => {
                    Stored::Digest(digest(key.expose().trim()))
                }
                (None, Some(phc), Some(id)) => {
                    PasswordHash::new(phc).map_err(|e| {
                        setup(
                            &format!("auth.api_keys[{index}].key_hash"),
                            format!("not an Argon2 hash in PHC form ({e})"),
                        )
                    })?;
                    Stored::Hashed {
                        id: id.clone(),
                        phc: phc.clone(),
                    }
                }
                _ => {
                    return Err(setup(
                        &format!("auth.api_keys[{index}].key"),
                        "a key needs a non-empty `key`, or `id` and `key_hash`".into(),
                    ))
                }
            };
            if let Some(space) = &entry.space {
                if !spaces.contains(&space.as_str()) {
                    return Err(setup(
                        &format!("auth.api_keys[{index}].space"),
                        format!(
                            "no space is named {space:?} (spaces: {})",
                            spaces.join(", ")
                        ),
                    ));
                }
            } else if auth.kind == AuthType::Perspace {
                return Err(setup(
                    &format!("auth.api_keys[{index}].space"),
                    "auth type \"perspace\" needs a space for every key".into(),
                ));
            }
            keys.push(Key {
                stored,
                space: entry.space.clone(),
                actor: entry.actor.clone(),
                scope: scope_of(entry.scope),
            });
        }
        Ok(AuthPolicy {
            keys: Some(keys),
            oidc,
            default_space,
            verified: Mutex::default(),
        })
    }

    /// Whether requests pass without credentials.
    pub fn is_open(&self) -> bool {
        self.keys.is_none()
    }

    pub fn default_space(&self) -> &str {
        &self.default_space
    }

    /// Who `presented` (a Bearer value) is, or why it is refused.
    pub async fn authenticate(&self, presented: &str) -> Result<Principal, Refused> {
        if let Some(oidc) = &self.oidc {
            if looks_like_jwt(presented) {
                return oidc.validate(presented).await;
            }
        }
        let index = match self.find_digest(presented) {
            Some(index) => Some(index),
            None => self.find_hashed(presented).await,
        };
        let Some(key) = index.and_then(|i| self.keys.as_ref()?.get(i)) else {
            return Err(Refused(if self.oidc.is_some() {
                "invalid credentials: send a valid token of the identity provider or an API key"
                    .into()
            } else {
                "invalid API key".into()
            }));
        };
        Ok(Principal {
            scope: key.scope,
            actor: key.actor.clone(),
            space: key.space.clone(),
        })
    }

    /// The key written in clear matching `presented`, compared with every such key in
    /// constant time; or a token verified before.
    fn find_digest(&self, presented: &str) -> Option<usize> {
        let wanted = digest(presented);
        let mut found = None;
        for (index, key) in self.keys.iter().flatten().enumerate() {
            if let Stored::Digest(d) = &key.stored {
                // No early exit: the time taken does not depend on which key matched.
                if constant_time_eq(d, &wanted) && found.is_none() {
                    found = Some(index);
                }
            }
        }
        found.or_else(|| {
            self.verified
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&wanted)
                .copied()
        })
    }

    /// A token of `quire token create`: the entry its id names, verified against the Argon2
    /// hash on a blocking thread (it is slow on purpose), then remembered.
    async fn find_hashed(&self, presented: &str) -> Option<usize> {
        let (id, _) = split_token(presented)?;
        let (index, phc) =
            self.keys
                .iter()
                .flatten()
                .enumerate()
                .find_map(|(i, k)| match &k.stored {
                    Stored::Hashed { id: kid, phc } if kid == id => Some((i, phc.clone())),
                    _ => None,
                })?;
        let token = presented.to_string();
        let ok = tokio::task::spawn_blocking(move || verify_token(&token, &phc))
            .await
            .unwrap_or(false);
        if !ok {
            return None;
        }
        self.verified
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(digest(presented), index);
        Some(index)
    }
}

fn looks_like_jwt(value: &str) -> bool {
    value.split('.').count() == 3 && value.starts_with("eyJ")
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The first 16 hex digits of a Bearer token's SHA-256: what the audit log and the rate
/// limiter key on, never the token.
pub fn token_hash(token: &str) -> String {
    digest(token)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Prefix of every token made by `quire token create`.
pub const TOKEN_PREFIX: &str = "quire_";

/// `quire_<id>_<secret>` → `(id, secret)`.
fn split_token(token: &str) -> Option<(&str, &str)> {
    let rest = token.strip_prefix(TOKEN_PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    (!id.is_empty() && !secret.is_empty()).then_some((id, secret))
}

/// A new scoped token: `(id, token, Argon2id hash)`. The token is shown once and never
/// stored; the configuration keeps the id and the hash.
pub fn new_token() -> Result<(String, String, String), String> {
    let mut id = [0u8; 6];
    let mut secret = [0u8; 32];
    let mut salt = [0u8; 16];
    for buf in [&mut id[..], &mut secret[..], &mut salt[..]] {
        getrandom::fill(buf).map_err(|e| format!("no randomness from the system: {e}"))?;
    }
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let id = hex(&id);
    let token = format!("{TOKEN_PREFIX}{id}_{}", hex(&secret));
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    let phc = Argon2::default()
        .hash_password(token.as_bytes(), &salt)
        .map_err(|e| e.to_string())?
        .to_string();
    Ok((id, token, phc))
}

fn verify_token(token: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|hash| {
            Argon2::default()
                .verify_password(token.as_bytes(), &hash)
                .is_ok()
        })
        .unwrap_or(false)
}

/// Routes that need no credentials (DECISIONS §1 host routes for probes and the API
/// description, and the spec's public routes), by the route template that matched.
pub fn is_public(route: &str) -> bool {
    let in_space = space_relative(route);
    matches!(
        route,
        "/health" | "/healthz" | "/readyz" | "/metrics" | "/api/openapi.json" | "/api/docs"
    ) || route.starts_with("/api/docs/")
        || route.starts_with("/p/")
        || in_space.is_some_and(|rest| rest.starts_with("/public/") || rest == "/public")
}

/// The host routes of the spaces API (`GET`/`POST /api/spaces`, `GET`/`DELETE
/// /api/spaces/{name}`).
pub fn is_spaces_route(route: &str) -> bool {
    route == crate::SPACES_PATH
        || route
            .strip_prefix(crate::SPACES_PATH)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Routes that answer callers without credentials too, with less: `GET /api/spaces` lists
/// the public spaces to them, `GET /api/spaces/{name}` describes a public or unlisted space.
/// Credentials that are sent are checked as on every other route (401 when invalid).
pub fn credentials_optional(method: &Method, route: &str) -> bool {
    matches!(*method, Method::GET | Method::HEAD) && is_spaces_route(route)
}

/// Probes that neither count against the rate limit nor go to the audit log.
pub fn is_probe(route: &str) -> bool {
    matches!(route, "/health" | "/healthz" | "/readyz" | "/metrics")
}

/// A route under the API of a space without its `/api/quire` or `/api/quire/{space}` prefix.
fn space_relative(route: &str) -> Option<&str> {
    route
        .strip_prefix(crate::BASE_PATH)
        .map(|rest| rest.strip_prefix("/{space}").unwrap_or(rest))
}

/// Routes only an admin may call: a person approving an agent's plan, the audit log, who
/// may browse the space, where changes are sent (webhooks, listing them too: their URLs may
/// carry credentials; the backup status, which names where the history goes).
const ADMIN_ONLY: &[&str] = &[
    "/audit",
    "/backup",
    "/webhooks",
    "/webhooks/{id}",
    "/webhooks/{id}/deliveries",
];

/// The one table of what each route needs (README "Operating quire for a team"):
///
/// * `admin`: `POST /refactor/approve`, `GET /audit`, `GET /backup`, `PUT /space/visibility`, every
///   `/webhooks` route, adding and removing spaces (`POST /api/spaces`,
///   `DELETE /api/spaces/{name}`);
/// * operations of the table (`quire-ops`): the scope each declares (planning, linting and
///   evaluating search are `read` though they are `POST`s);
/// * `read`: every other `GET`/`HEAD`/`OPTIONS`, and
///   `/mcp` (whose tools check the scope themselves: a read scope calls read-only tools only);
/// * `write`: everything else (every route that changes a file or the service's state).
pub fn required_scope(method: &Method, route: &str) -> Scope {
    let rest = space_relative(route);
    // An operation of the table declares its scope.
    if let Some(declared) = rest.and_then(|r| operation_scope(method, r)) {
        return declared;
    }
    let reads = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if rest.is_some_and(|r| ADMIN_ONLY.contains(&r)) || (is_spaces_route(route) && !reads) {
        return Scope::Admin;
    }
    if reads || route == "/mcp" || route.starts_with("/mcp/") {
        return Scope::Read;
    }
    Scope::Write
}

/// The scope the operation bound to `method` and `route` (below `{base_url}`) declares.
fn operation_scope(method: &Method, route: &str) -> Option<Scope> {
    quire_ops::table().iter().find_map(|entry| {
        let rest = entry.meta.rest?;
        (rest.path == route && rest.method.as_str() == method.as_str()).then_some(entry.meta.scope)
    })
}

/// The scope a file protocol's request needs: reading methods read, every other writes.
pub fn file_protocol_scope(method: &Method) -> Scope {
    match method.as_str() {
        "GET" | "HEAD" | "OPTIONS" | "PROPFIND" => Scope::Read,
        _ => Scope::Write,
    }
}

/// The password of an `Authorization: Basic <base64(user:password)>` header: the API key
/// for the file protocols (the user name is the key's actor, and informative only).
pub fn basic_password(value: &str) -> Option<String> {
    use base64::Engine as _;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (_, password) = text.split_once(':')?;
    (!password.is_empty()).then(|| password.to_string())
}

/// The key of an `Authorization: Bearer <key>` header (the scheme is case-insensitive).
pub fn bearer(value: &str) -> Option<&str> {
    let (scheme, key) = value.trim().split_once(' ')?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_config::KeyScope;

    #[test]
    fn bearer_takes_the_key_of_a_bearer_header_only() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer   abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        // "alice:k-123" and ":" in base64.
        assert_eq!(
            basic_password("Basic YWxpY2U6ay0xMjM=").as_deref(),
            Some("k-123")
        );
        assert_eq!(basic_password("basic Og=="), None);
        assert_eq!(basic_password("Bearer YWxpY2U6ay0xMjM="), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer("abc"), None);
    }

    #[test]
    fn public_routes_are_the_probes_the_description_and_public_pages() {
        for route in [
            "/health",
            "/healthz",
            "/readyz",
            "/metrics",
            "/api/openapi.json",
            "/api/docs",
            "/api/docs/swagger-ui.css",
            "/p/{*path}",
            "/api/quire/public/file",
            "/api/quire/{space}/public/tree",
        ] {
            assert!(is_public(route), "{route}");
        }
        for route in [
            "/api/quire/file",
            "/api/quire/{space}/file",
            "/api/quire/events",
            "/api/quire/publicity",
        ] {
            assert!(!is_public(route), "{route}");
        }
    }

    #[test]
    fn keys_match_only_themselves() {
        let auth = AuthConfig {
            kind: AuthType::Apikey,
            api_key: Some(quire_config::Secret::new("s3cret")),
            ..AuthConfig::default()
        };
        let policy = AuthPolicy::from_config(&auth, &["default"]).unwrap();
        assert!(policy.find_digest("s3cret").is_some());
        assert!(policy.find_digest("s3cre").is_none());
        assert!(policy.find_digest("s3cret ").is_none());
    }

    #[tokio::test]
    async fn a_created_token_verifies_against_its_hash_only() {
        let (id, token, phc) = new_token().unwrap();
        assert!(token.starts_with(&format!("quire_{id}_")));
        assert!(phc.starts_with("$argon2id$"));
        assert!(!phc.contains(&token[TOKEN_PREFIX.len() + id.len() + 1..]));
        let auth = AuthConfig {
            kind: AuthType::Apikey,
            api_key: Some(quire_config::Secret::new("admin-key")),
            api_keys: vec![quire_config::ApiKeyEntry {
                key: None,
                id: Some(id.clone()),
                key_hash: Some(phc),
                created: None,
                space: None,
                actor: Some("reader".into()),
                scope: KeyScope::Read,
            }],
            ..AuthConfig::default()
        };
        let policy = AuthPolicy::from_config(&auth, &["default"]).unwrap();
        let who = policy.authenticate(&token).await.unwrap();
        assert_eq!(who.scope, Scope::Read);
        assert_eq!(who.actor.as_deref(), Some("reader"));
        // Remembered: the second time needs no Argon2 run.
        assert!(policy.find_digest(&token).is_some());
        let mut wrong = token.clone();
        wrong.pop();
        wrong.push('x');
        assert!(policy.authenticate(&wrong).await.is_err());
        assert!(policy.authenticate(&format!("quire_{id}")).await.is_err());
    }

    #[test]
    fn scopes_of_routes() {
        let get = Method::GET;
        let post = Method::POST;
        assert_eq!(required_scope(&get, "/api/quire/file"), Scope::Read);
        assert_eq!(
            required_scope(&Method::PUT, "/api/quire/file"),
            Scope::Write
        );
        assert_eq!(
            required_scope(&post, "/api/quire/{space}/refactor/plan"),
            Scope::Read
        );
        assert_eq!(
            required_scope(&post, "/api/quire/refactor/apply"),
            Scope::Write
        );
        assert_eq!(
            required_scope(&post, "/api/quire/refactor/approve"),
            Scope::Admin
        );
        assert_eq!(required_scope(&get, "/api/quire/audit"), Scope::Admin);
        assert_eq!(required_scope(&post, "/mcp"), Scope::Read);
        assert_eq!(required_scope(&get, "/api/spaces"), Scope::Read);
        assert_eq!(required_scope(&get, "/api/spaces/{name}"), Scope::Read);
        assert_eq!(required_scope(&post, "/api/spaces"), Scope::Admin);
        assert_eq!(
            required_scope(&Method::DELETE, "/api/spaces/{name}"),
            Scope::Admin
        );
        assert!(credentials_optional(&get, "/api/spaces"));
        assert!(!credentials_optional(&post, "/api/spaces"));
        assert!(!credentials_optional(&get, "/api/spacesx"));
    }

    #[test]
    fn operations_of_the_table_need_the_scope_they_declare() {
        let post = Method::POST;
        for space in ["", "/{space}"] {
            let route = |r: &str| format!("/api/quire{space}{r}");
            assert_eq!(required_scope(&post, &route("/lint")), Scope::Read);
            assert_eq!(required_scope(&post, &route("/reindex")), Scope::Write);
            assert_eq!(required_scope(&post, &route("/eval")), Scope::Read);
            let dismiss = route("/analytics/content-gaps/dismiss");
            assert_eq!(required_scope(&post, &dismiss), Scope::Write);
            assert_eq!(required_scope(&Method::GET, &route("/search")), Scope::Read);
        }
    }

    #[test]
    fn oidc_with_an_unreachable_issuer_refuses_to_start() {
        let auth = AuthConfig {
            kind: AuthType::Oidc,
            issuer: Some("http://127.0.0.1:9".into()),
            client_id: Some("quire".into()),
            ..AuthConfig::default()
        };
        let err = AuthPolicy::from_config(&auth, &["default"])
            .err()
            .expect("refused");
        assert_eq!(err.setting, "auth.issuer");
    }
}
