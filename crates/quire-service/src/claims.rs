//! Claims: an actor leases an exact page path for 1 minute to 24 hours; while the lease runs
//! nobody else can claim the path and plans refuse to move it.
//!
//! The leases live in the space's index database (`quire-index`); a space without one answers
//! every claim request with 503 `claims not enabled`.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::Utc;
use quire_config::ClaimsConfig;
use quire_index::{ClaimError, Index, ReleaseError};
use quire_vault::PagePath;

use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Payload, Result};

pub use quire_api::Claim;

/// The lease of a claim that names none when `[claims] default_lease` is not set (spec,
/// Limits: "default 30 minutes").
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30 * 60);

/// The claims of one space.
#[derive(Clone, Copy)]
pub struct Claims<'a>(pub(crate) &'a SpaceCore);

impl Claims<'_> {
    /// The claim store, or 503 when this space has none.
    fn store(&self) -> Result<&Index> {
        self.0
            .claims
            .as_deref()
            .ok_or_else(|| Error::new(ErrorCode::Unavailable, "claims not enabled"))
    }

    /// `actor` claims `path` for `lease` (a Go duration, 1m to 24h; default `[claims]
    /// default_lease`, 30m unless configured). The holder
    /// claiming again renews its lease. Another actor's claim is a conflict carrying that
    /// claim.
    pub fn claim(&self, path: &str, actor: Option<&str>, lease: Option<&str>) -> Result<Claim> {
        let store = self.store()?;
        let actor = required_actor(actor, "claim")?;
        let path = PagePath::new(path)?;
        let lease = lease_of(lease, self.0.default_lease)?;
        match store
            .claims()
            .claim(path.as_str(), actor, lease, Utc::now())
        {
            Ok(claim) => Ok(wire(claim)),
            Err(ClaimError::Held(claim)) => Err(Error {
                payload: Some(Payload::ActiveClaim(Box::new(wire(claim)))),
                ..Error::conflict("already claimed")
            }),
            Err(ClaimError::Index(e)) => Err(Error::internal(e)),
        }
    }

    /// Ends `actor`'s claim on `path`; returns the released path. Forbidden when another
    /// actor holds it, not found when nobody does (or the lease ran out).
    pub fn release(&self, path: &str, actor: Option<&str>) -> Result<PagePath> {
        let store = self.store()?;
        let actor = required_actor(actor, "release a claim")?;
        let path = PagePath::new(path)?;
        match store.claims().release(path.as_str(), actor, Utc::now()) {
            Ok(()) => Ok(path),
            Err(ReleaseError::NotHeld) => Err(Error::not_found(format!("{path} is not claimed"))),
            Err(ReleaseError::HeldByOther(claim)) => Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "{path} is claimed by {}; only the holder can release it",
                    claim.actor
                ),
            )),
            Err(ReleaseError::Index(e)) => Err(Error::internal(e)),
        }
    }

    /// Every active claim, by path.
    pub fn list(&self) -> Result<Vec<Claim>> {
        Ok(self
            .store()?
            .claims()
            .active(Utc::now())
            .map_err(Error::internal)?
            .into_iter()
            .map(wire)
            .collect())
    }

    /// Pages that actors other than `actor` hold, with their holder: the planner refuses to
    /// move them. Empty when claims are disabled, since then nobody can hold anything.
    pub fn claimed_by_others(&self, actor: &str) -> Result<BTreeMap<PagePath, String>> {
        let Some(store) = self.0.claims.as_deref() else {
            return Ok(BTreeMap::new());
        };
        let active = store.claims().active(Utc::now()).map_err(Error::internal)?;
        Ok(active
            .into_iter()
            .filter(|claim| claim.actor != actor)
            // Only validated paths are ever stored; anything else cannot name a page anyway.
            .filter_map(|claim| Some((PagePath::new(&claim.path).ok()?, claim.actor)))
            .collect())
    }
}

/// A claim as it goes on the wire.
fn wire(claim: quire_index::Claim) -> Claim {
    Claim {
        path: claim.path,
        actor: claim.actor,
        claimed_at: claim
            .claimed_at
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        expires_at: claim
            .expires_at
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        lease_duration: quire_config::Duration::from(claim.lease_duration).to_string(),
    }
}

/// An actor is mandatory for claims: a lease needs someone to hold it.
fn required_actor<'a>(actor: Option<&'a str>, to: &str) -> Result<&'a str> {
    actor
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| Error::bad_request(format!("an actor (X-Actor) is required to {to}")))
}

/// The requested lease, checked against the spec's limits (1 minute to 24 hours); none
/// requested takes `default` (checked against the same limits when the configuration was read).
fn lease_of(requested: Option<&str>, default: Duration) -> Result<Duration> {
    let Some(text) = requested else {
        return Ok(default);
    };
    let lease: quire_config::Duration = text
        .parse()
        .map_err(|e| Error::bad_request(format!("lease_duration: {e}")))?;
    if (ClaimsConfig::MIN_LEASE..=ClaimsConfig::MAX_LEASE).contains(&lease) {
        Ok(lease.as_std())
    } else {
        Err(Error::bad_request(format!(
            "lease_duration must be between {} and {}, not {text}",
            ClaimsConfig::MIN_LEASE,
            ClaimsConfig::MAX_LEASE,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_of_accepts_go_durations_within_one_minute_and_a_day() {
        let cases = [
            (None, Some(DEFAULT_LEASE)),
            (Some("30m"), Some(Duration::from_secs(1800))),
            (Some("1m"), Some(Duration::from_secs(60))),
            (Some("24h"), Some(Duration::from_secs(86_400))),
            (Some("1h30m0s"), Some(Duration::from_secs(5400))),
            (Some("59s"), None),
            (Some("24h1s"), None),
            (Some("0"), None),
            (Some(""), None),
            (Some("ten minutes"), None),
            (Some("-5m"), None),
        ];
        for (requested, expected) in cases {
            let got = lease_of(requested, DEFAULT_LEASE);
            match expected {
                Some(lease) => assert_eq!(got.unwrap(), lease, "{requested:?}"),
                None => assert_eq!(
                    got.unwrap_err().code,
                    ErrorCode::BadRequest,
                    "{requested:?}"
                ),
            }
        }
    }

    #[test]
    fn required_actor_refuses_missing_and_blank_actors() {
        assert_eq!(required_actor(Some(" alice "), "claim").unwrap(), "alice");
        for missing in [None, Some(""), Some("   ")] {
            assert_eq!(
                required_actor(missing, "claim").unwrap_err().code,
                ErrorCode::BadRequest
            );
        }
    }
}
