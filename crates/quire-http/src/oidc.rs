//! `[auth] type = "oidc"`: `Authorization: Bearer <JWT>` issued by an OpenID Connect provider.
//!
//! At start the issuer's discovery document (`{issuer}/.well-known/openid-configuration`) is
//! read, its `issuer` must equal the configured one, and the keys at its `jwks_uri` are
//! fetched and cached. A token is accepted when its signature verifies with the cached key its
//! header's `kid` names (RSA, RSA-PSS, ECDSA or EdDSA; never an HMAC), its `iss` is the issuer,
//! its `aud` contains `client_id`, and `exp`/`nbf` hold (30 s leeway). A `kid` not in the cache
//! refetches the key set once (the provider rotated its keys), at most once per
//! [`REFETCH_INTERVAL`] so that forged `kid`s cannot make the server hammer the provider.
//!
//! Fail closed: an issuer that cannot be reached at start, answers something else than a
//! discovery document, or is not `https` (loopback aside) stops the server from starting.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use quire_api::Scope;
use quire_config::AuthConfig;

use crate::credentials::{scope_of, Principal, Refused, SetupError};

/// Least time between two refetches of the key set for unknown `kid`s.
pub const REFETCH_INTERVAL: Duration = Duration::from_secs(10);
/// How long a request to the provider may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Oidc {
    issuer: String,
    audience: String,
    actor_claim: String,
    scope: Scope,
    jwks_uri: String,
    keys: RwLock<HashMap<String, DecodingKey>>,
    last_refetch: Mutex<Option<Instant>>,
}

impl Oidc {
    /// Reads the discovery document and the keys (blocking).
    pub fn discover(auth: &AuthConfig) -> Result<Oidc, SetupError> {
        let setup = |setting: &str, message: String| SetupError {
            setting: setting.to_string(),
            message,
        };
        let issuer = auth
            .issuer
            .clone()
            .ok_or_else(|| setup("auth.issuer", "auth type \"oidc\" needs an issuer".into()))?;
        let audience = auth.client_id.clone().ok_or_else(|| {
            setup(
                "auth.client_id",
                "auth type \"oidc\" needs a client_id".into(),
            )
        })?;
        let issuer = issuer.trim_end_matches('/').to_string();
        if !secure_url(&issuer) {
            return Err(setup(
                "auth.issuer",
                format!(
                    "{issuer:?} must be an https URL (plain http is accepted on loopback only)"
                ),
            ));
        }
        let url = format!("{issuer}/.well-known/openid-configuration");
        let document: serde_json::Value = fetch(&url).map_err(|e| {
            setup(
                "auth.issuer",
                format!("cannot read the discovery document {url}: {e} (the server does not start without it)"),
            )
        })?;
        let announced = document["issuer"].as_str().unwrap_or("");
        if announced.trim_end_matches('/') != issuer {
            return Err(setup(
                "auth.issuer",
                format!("the discovery document names the issuer {announced:?}, not {issuer:?}"),
            ));
        }
        let jwks_uri = document["jwks_uri"]
            .as_str()
            .filter(|u| secure_url(u))
            .ok_or_else(|| {
                setup(
                    "auth.issuer",
                    "the discovery document has no https `jwks_uri`".into(),
                )
            })?
            .to_string();
        let keys = fetch_keys(&jwks_uri).map_err(|e| {
            setup(
                "auth.issuer",
                format!("cannot read the keys at {jwks_uri}: {e}"),
            )
        })?;
        Ok(Oidc {
            issuer,
            audience,
            actor_claim: auth.actor_claim.clone().unwrap_or_else(|| "sub".into()),
            scope: auth.oidc_scope.map(scope_of).unwrap_or(Scope::Write),
            jwks_uri,
            keys: RwLock::new(keys),
            last_refetch: Mutex::new(None),
        })
    }

    /// The caller a token names, or why it is refused.
    pub async fn validate(&self, token: &str) -> Result<Principal, Refused> {
        let refuse = |why: &str| Refused(format!("invalid token: {why}"));
        let header = jsonwebtoken::decode_header(token).map_err(|_| refuse("malformed"))?;
        if matches!(
            header.alg,
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
        ) {
            return Err(refuse("HMAC-signed tokens are not accepted"));
        }
        let kid = header.kid.ok_or_else(|| refuse("no `kid` in its header"))?;
        let mut key = self.key(&kid);
        if key.is_none() && self.may_refetch() {
            let uri = self.jwks_uri.clone();
            if let Ok(Ok(fresh)) = tokio::task::spawn_blocking(move || fetch_keys(&uri)).await {
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = fresh;
            } else {
                tracing::warn!("cannot refetch the identity provider's keys");
            }
            key = self.key(&kid);
        }
        let key = key.ok_or_else(|| refuse("signed with an unknown key"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer, &format!("{}/", self.issuer)]);
        validation.set_audience(&[&self.audience]);
        validation.validate_nbf = true;
        validation.leeway = 30;
        let data = jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(
            token,
            &key,
            &validation,
        )
        .map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            refuse(match e.kind() {
                ErrorKind::ExpiredSignature => "expired",
                ErrorKind::ImmatureSignature => "not valid yet",
                ErrorKind::InvalidAudience => "issued for another audience",
                ErrorKind::InvalidIssuer => "issued by another issuer",
                ErrorKind::InvalidSignature => "bad signature",
                _ => "rejected",
            })
        })?;
        let actor = data
            .claims
            .get(&self.actor_claim)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| refuse(&format!("no `{}` claim", self.actor_claim)))?;
        Ok(Principal {
            scope: self.scope,
            actor: Some(actor),
            space: None,
        })
    }

    fn key(&self, kid: &str) -> Option<DecodingKey> {
        self.keys
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(kid)
            .cloned()
    }

    fn may_refetch(&self) -> bool {
        let mut last = self.last_refetch.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| t.elapsed() < REFETCH_INTERVAL) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }
}

/// `https://…`, or `http://` to a loopback host.
fn secure_url(url: &str) -> bool {
    if url.starts_with("https://") {
        return true;
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    };
    matches!(host, "localhost" | "[::1]")
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn fetch(url: &str) -> Result<serde_json::Value, String> {
    ureq::AgentBuilder::new()
        .timeout(FETCH_TIMEOUT)
        .redirects(0)
        .build()
        .get(url)
        .call()
        .map_err(|e| e.to_string())?
        .into_json()
        .map_err(|e| format!("not JSON ({e})"))
}

/// The signing keys of a JWKS document, by `kid` (keys without a `kid` or of another use are
/// skipped).
fn fetch_keys(url: &str) -> Result<HashMap<String, DecodingKey>, String> {
    let set: JwkSet =
        serde_json::from_value(fetch(url)?).map_err(|e| format!("not a JWK set ({e})"))?;
    let mut keys = HashMap::new();
    for jwk in &set.keys {
        if let Some((kid, key)) = decoding_key(jwk) {
            keys.insert(kid, key);
        }
    }
    if keys.is_empty() {
        return Err("the key set has no usable signing key".into());
    }
    Ok(keys)
}

fn decoding_key(jwk: &Jwk) -> Option<(String, DecodingKey)> {
    use jsonwebtoken::jwk::{AlgorithmParameters, PublicKeyUse};
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
        return None;
    }
    let kid = jwk.common.key_id.clone()?;
    DecodingKey::from_jwk(jwk).ok().map(|key| (kid, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(secure_url("https://id.example.com"));
        assert!(secure_url("http://127.0.0.1:8080/realms/x"));
        assert!(secure_url("http://localhost:9"));
        assert!(!secure_url("http://id.example.com"));
        assert!(!secure_url("http://127.0.0.1.evil.com/"));
        assert!(!secure_url("ftp://x"));
    }
}
