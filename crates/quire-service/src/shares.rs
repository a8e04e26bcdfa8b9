//! Share links: a secret URL (`/public/{token}`) that shows one page to readers without an
//! account, optionally with a password and an expiry.
//!
//! Kept in `.quire/state/shares.json` (runtime state, never committed: it holds secrets),
//! written atomically with mode 0600. The token is 32 random bytes (64 hex digits) and only
//! its SHA-256 is stored; a view looks the link up by the digest of the token it was given,
//! so no comparison of secrets leaks their bytes through timing. Passwords are stored as
//! Argon2id PHC strings and never logged. A revoked or expired link is gone: it answers as an
//! unknown token does.
//!
//! A link names its page by path. A restructuring (apply, rename, folder rename) that moves
//! or merges the page moves the link with it ([`SpaceCore::shares_follow`]); a page deleted,
//! or moved outside quire, leaves the link pointing nowhere (404) until it is revoked.

use std::collections::BTreeMap;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use quire_api::{NewShare, ShareLink};
use quire_store::StoreError;
use quire_vault::PagePath;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::change::WriteOptions;
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};

/// Where share links live.
pub const SHARES_PATH: &str = ".quire/state/shares.json";

/// Longest password accepted (Argon2 hashes any length; this bounds the work of a request).
const MAX_PASSWORD_BYTES: usize = 1024;

/// The one answer for a token that names no active link: unknown, revoked, expired, or its
/// page gone. Nothing tells these apart.
pub const GONE: &str = "this shared link does not exist or is no longer active";

/// The one answer for a missing or wrong password.
pub const PASSWORD_NEEDED: &str = "this shared page needs its password";

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Stored {
    id: String,
    path: String,
    /// Hex SHA-256 of the token.
    token_sha256: String,
    /// Argon2id PHC string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    password: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<String>,
    created_by: String,
    created_at: String,
    #[serde(default)]
    view_count: u64,
}

impl Stored {
    fn expired(&self, now: &chrono::DateTime<chrono::Utc>) -> bool {
        self.expires_at.as_deref().is_some_and(|at| {
            chrono::DateTime::parse_from_rfc3339(at)
                .map(|at| at.with_timezone(&chrono::Utc) <= *now)
                .unwrap_or(true)
        })
    }

    fn link(&self) -> ShareLink {
        ShareLink {
            id: self.id.clone(),
            path: self.path.clone(),
            token: None,
            url: None,
            expires_at: self.expires_at.clone(),
            created_by: self.created_by.clone(),
            created_at: self.created_at.clone(),
            view_count: self.view_count,
            has_password: self.password.is_some(),
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    #[serde(default)]
    shares: Vec<Stored>,
}

/// A page opened through a share link.
#[derive(Debug, Clone)]
pub struct SharedPage {
    pub path: String,
    pub text: String,
    pub etag: String,
}

/// The share links of one space.
#[derive(Clone, Copy)]
pub struct Shares<'a>(pub(crate) &'a SpaceCore);

impl Shares<'_> {
    /// Makes a link to an existing page; the answer carries the token (shown this once).
    pub fn create(&self, new: &NewShare, opts: &WriteOptions) -> Result<ShareLink> {
        let page = PagePath::new(&new.path)?;
        if !page.is_page() || page.as_str().starts_with(".quire/") {
            return Err(Error::bad_request(format!(
                "{page} is not a page: only pages can be shared"
            )));
        }
        if self.0.root.kind(&page)?.is_none() {
            return Err(Error::not_found(format!("{page} does not exist")));
        }
        let now = chrono::Utc::now();
        let expires_at = match new.expires_in.as_deref() {
            None => None,
            Some(text) => {
                let duration: quire_config::Duration =
                    text.parse().map_err(|e: quire_config::UnitError| {
                        Error::bad_request(format!("expiresIn: {e}"))
                    })?;
                if duration.as_std().is_zero() {
                    return Err(Error::bad_request(
                        "expiresIn must be longer than 0; omit it for a link that never expires",
                    ));
                }
                let delta = chrono::Duration::from_std(duration.as_std())
                    .ok()
                    .and_then(|d| now.checked_add_signed(d))
                    .ok_or_else(|| Error::bad_request("expiresIn is too long"))?;
                Some(rfc3339(&delta))
            }
        };
        let password = match new.password.as_deref() {
            None => None,
            Some("") => {
                return Err(Error::bad_request(
                    "password must not be empty; omit it for a link without one",
                ))
            }
            Some(p) if p.len() > MAX_PASSWORD_BYTES => {
                return Err(Error::bad_request(format!(
                    "password is longer than {MAX_PASSWORD_BYTES} bytes"
                )))
            }
            Some(p) => Some(hash_password(p)?),
        };
        let mut opts = opts.clone();
        if opts.actor.is_none() {
            opts.actor = new.actor.clone();
        }
        let token = hex(&random::<32>()?);
        let stored = Stored {
            id: format!("s_{}", hex(&random::<8>()?)),
            path: page.to_string(),
            token_sha256: digest(&token),
            password,
            expires_at,
            created_by: opts.actor(),
            created_at: rfc3339(&now),
            view_count: 0,
        };
        let mut link = stored.link();
        self.0.with_shares(|store| store.shares.push(stored))?;
        link.url = Some(format!(
            "{}/api/quire/{}/public/{token}",
            self.0.public_url.as_deref().unwrap_or(""),
            self.0.name
        ));
        link.token = Some(token);
        Ok(link)
    }

    /// The active links of a page, oldest first, without tokens.
    pub fn list(&self, path: &str) -> Result<Vec<ShareLink>> {
        let page = PagePath::new(path)?;
        let now = chrono::Utc::now();
        let store = self.0.read_shares()?;
        Ok(store
            .shares
            .iter()
            .filter(|s| s.path == page.as_str() && !s.expired(&now))
            .map(Stored::link)
            .collect())
    }

    /// Revokes a link by its id (not its token); an unknown id is not found.
    pub fn revoke(&self, id: &str) -> Result<String> {
        let removed = self.0.with_shares(|store| {
            let before = store.shares.len();
            store.shares.retain(|s| s.id != id);
            store.shares.len() != before
        })?;
        if !removed {
            return Err(Error::not_found(format!("no share link with id {id:?}")));
        }
        Ok(id.to_string())
    }

    /// The page behind a token, counting the view. Unknown, revoked and expired tokens and
    /// links whose page is gone are all the same not-found ([`GONE`]); a missing or wrong
    /// password is unauthorized ([`PASSWORD_NEEDED`]) whichever it was.
    pub fn open(&self, token: &str, password: Option<&str>) -> Result<SharedPage> {
        let gone = || Error::not_found(GONE);
        let token = token.trim();
        if token.is_empty() || token.len() > 256 {
            return Err(gone());
        }
        let wanted = digest(token);
        let now = chrono::Utc::now();
        let found = self
            .0
            .read_shares()?
            .shares
            .into_iter()
            .find(|s| s.token_sha256 == wanted && !s.expired(&now))
            .ok_or_else(gone)?;
        if let Some(phc) = &found.password {
            let given = password.filter(|p| !p.is_empty() && p.len() <= MAX_PASSWORD_BYTES);
            if !given.is_some_and(|p| verify_password(p, phc)) {
                return Err(Error::new(ErrorCode::Unauthorized, PASSWORD_NEEDED));
            }
        }
        let page = PagePath::new(&found.path).map_err(|_| gone())?;
        let bytes = match self.0.root.read(&page) {
            Ok(bytes) => bytes,
            Err(StoreError::NotFound { .. }) | Err(StoreError::IsFolder { .. }) => {
                return Err(gone())
            }
            Err(e) => return Err(e.into()),
        };
        // The count is bookkeeping: a failure to store it does not refuse the view.
        let counted = self.0.with_shares(|store| {
            if let Some(s) = store.shares.iter_mut().find(|s| s.id == found.id) {
                s.view_count += 1;
            }
        });
        if let Err(e) = counted {
            tracing::warn!("counting a view of share {} failed: {e}", found.id);
        }
        Ok(SharedPage {
            path: page.to_string(),
            etag: quire_store::etag(&bytes),
            text: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }
}

impl SpaceCore {
    /// Moves share links along with their pages after a restructuring: `moves` are
    /// (old path, new path), merges included (a merged page's links show the page it went
    /// into). Bookkeeping: a failure is logged, never fails the restructuring.
    pub(crate) fn shares_follow(&self, moves: &[(String, String)]) {
        if moves.is_empty() {
            return;
        }
        let map: BTreeMap<&str, &str> = moves
            .iter()
            .map(|(from, to)| (from.as_str(), to.as_str()))
            .collect();
        let result = self.with_shares(|store| {
            for share in &mut store.shares {
                if let Some(to) = map.get(share.path.as_str()) {
                    share.path = (*to).to_string();
                }
            }
        });
        if let Err(e) = result {
            tracing::error!("moving share links with their pages failed: {e}");
        }
    }

    fn read_shares(&self) -> Result<Store> {
        let _guard = self.state_lock.lock().unwrap_or_else(|p| p.into_inner());
        self.load_shares()
    }

    fn load_shares(&self) -> Result<Store> {
        let path = PagePath::new(SHARES_PATH).expect("constant path is valid");
        match self.root.read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| Error::internal(format!("{SHARES_PATH} is not a share list: {e}"))),
            Err(StoreError::NotFound { .. }) => Ok(Store::default()),
            Err(e) => Err(e.into()),
        }
    }

    /// Read-modify-write of the share list under the state lock; expired links are dropped
    /// on the way. Written atomically, owner-only.
    fn with_shares<T>(&self, change: impl FnOnce(&mut Store) -> T) -> Result<T> {
        let _guard = self.state_lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut store = self.load_shares()?;
        let out = change(&mut store);
        let now = chrono::Utc::now();
        store.shares.retain(|s| !s.expired(&now));
        let bytes = serde_json::to_vec_pretty(&store).map_err(Error::internal)?;
        let path = PagePath::new(SHARES_PATH).expect("constant path is valid");
        self.root.write_private(&path, &bytes)?;
        Ok(out)
    }
}

fn rfc3339(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn random<const N: usize>() -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::internal(format!("no randomness from the system: {e}")))?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn digest(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hash_password(password: &str) -> Result<String> {
    let salt = SaltString::encode_b64(&random::<16>()?).map_err(Error::internal)?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(Error::internal)?
        .to_string())
}

fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}
