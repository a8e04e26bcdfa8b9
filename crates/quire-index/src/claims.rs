//! The `claims` table: advisory leases on exact paths, each held by one actor until it expires.
//!
//! Nothing here reads a clock: every call takes `now`, so expiry is decided by the caller's
//! time and tests need no sleeping. Expired rows count as absent everywhere and are deleted by
//! the next write.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior};
use serde::{Serialize, Serializer};

use crate::{Index, IndexError};

/// An active claim: `actor` holds `path` from `claimed_at` until `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    pub path: String,
    pub actor: String,
    /// When the actor first claimed the path; renewing keeps it.
    #[serde(serialize_with = "rfc3339")]
    pub claimed_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339")]
    pub expires_at: DateTime<Utc>,
    /// The lease last asked for, written as a Go duration (`"30m"`) in JSON.
    #[serde(serialize_with = "go_duration")]
    pub lease_duration: Duration,
}

/// Why a claim was not granted.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("{} is claimed by {} until {}", .0.path, .0.actor, .0.expires_at.to_rfc3339())]
    Held(Claim),
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// Why a release did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// Nobody holds the path, or the claim has expired.
    #[error("the path is not claimed")]
    NotHeld,
    #[error("{} is claimed by {}, not by the caller", .0.path, .0.actor)]
    HeldByOther(Claim),
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// The claims of one index; see [`Index::claims`].
#[derive(Debug, Clone, Copy)]
pub struct Claims<'a> {
    index: &'a Index,
}

const COLUMNS: &str = "path, actor, claimed_at, expires_at, lease_ms";

impl<'a> Claims<'a> {
    pub(crate) fn new(index: &'a Index) -> Claims<'a> {
        Claims { index }
    }

    /// Gives `actor` the claim on `path` for `lease` from `now`. The holder claiming again
    /// renews the lease (expiry moves to `now + lease`); anyone else gets
    /// [`ClaimError::Held`] with the active claim.
    pub fn claim(
        &self,
        path: &str,
        actor: &str,
        lease: Duration,
        now: DateTime<Utc>,
    ) -> Result<Claim, ClaimError> {
        let now = millis(now);
        let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
        let expires_at = now.saturating_add(lease_ms).min(LATEST_MS);
        let mut connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        // IMMEDIATE takes the write lock before reading, so check-then-write is atomic even
        // against another process holding the same database.
        let tx = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        purge_expired(&tx, now).map_err(sql)?;
        let claimed_at = match active_on(&tx, path, now).map_err(sql)? {
            Some(held) if held.actor != actor => return Err(ClaimError::Held(held)),
            Some(renewed) => renewed.claimed_at.timestamp_millis(),
            None => now,
        };
        tx.execute(
            "INSERT INTO claims (path, actor, claimed_at, expires_at, lease_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (path) DO UPDATE SET actor = excluded.actor,
                 claimed_at = excluded.claimed_at, expires_at = excluded.expires_at,
                 lease_ms = excluded.lease_ms",
            rusqlite::params![path, actor, claimed_at, expires_at, lease_ms],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(Claim {
            path: path.to_string(),
            actor: actor.to_string(),
            claimed_at: from_millis(claimed_at),
            expires_at: from_millis(expires_at),
            lease_duration: Duration::from_millis(lease_ms.unsigned_abs()),
        })
    }

    /// Ends `actor`'s claim on `path`.
    pub fn release(&self, path: &str, actor: &str, now: DateTime<Utc>) -> Result<(), ReleaseError> {
        let now = millis(now);
        let mut connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        let tx = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        purge_expired(&tx, now).map_err(sql)?;
        match active_on(&tx, path, now).map_err(sql)? {
            None => return Err(ReleaseError::NotHeld),
            Some(held) if held.actor != actor => return Err(ReleaseError::HeldByOther(held)),
            Some(_) => {}
        }
        tx.execute("DELETE FROM claims WHERE path = ?1", [path])
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(())
    }

    /// Every claim active at `now`, by path.
    pub fn active(&self, now: DateTime<Utc>) -> Result<Vec<Claim>, IndexError> {
        let connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        let mut statement = connection
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM claims WHERE expires_at > ?1 ORDER BY path"
            ))
            .map_err(sql)?;
        let rows = statement
            .query_map([millis(now)], claim_from_row)
            .map_err(sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql)
    }

    /// The claim active on exactly `path` at `now`, if any.
    pub fn holder(&self, path: &str, now: DateTime<Utc>) -> Result<Option<Claim>, IndexError> {
        let connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        active_on(&connection, path, millis(now)).map_err(sql)
    }
}

/// The largest instant `chrono` can represent, so a huge lease saturates instead of failing.
const LATEST_MS: i64 = DateTime::<Utc>::MAX_UTC.timestamp_millis();

/// Claims are stored with millisecond precision; `now` is cut to the same so that what
/// `claim` returns equals what `holder` reads back.
fn millis(now: DateTime<Utc>) -> i64 {
    now.timestamp_millis()
}

fn from_millis(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

fn purge_expired(tx: &Transaction<'_>, now: i64) -> rusqlite::Result<usize> {
    tx.execute("DELETE FROM claims WHERE expires_at <= ?1", [now])
}

fn active_on(connection: &Connection, path: &str, now: i64) -> rusqlite::Result<Option<Claim>> {
    connection
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM claims WHERE path = ?1 AND expires_at > ?2"
        ))?
        .query_row(rusqlite::params![path, now], claim_from_row)
        .optional()
}

fn claim_from_row(row: &Row<'_>) -> rusqlite::Result<Claim> {
    let instant = |column: usize| -> rusqlite::Result<DateTime<Utc>> {
        let ms: i64 = row.get(column)?;
        DateTime::from_timestamp_millis(ms)
            .ok_or(rusqlite::Error::IntegralValueOutOfRange(column, ms))
    };
    let lease_ms: i64 = row.get(4)?;
    Ok(Claim {
        path: row.get(0)?,
        actor: row.get(1)?,
        claimed_at: instant(2)?,
        expires_at: instant(3)?,
        lease_duration: Duration::from_millis(
            u64::try_from(lease_ms)
                .map_err(|_| rusqlite::Error::IntegralValueOutOfRange(4, lease_ms))?,
        ),
    })
}

fn rfc3339<S: Serializer>(instant: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&instant.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

fn go_duration<S: Serializer>(lease: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&quire_config::Duration::from_std(*lease))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_700_000_000 + minute * 60, 0).unwrap()
    }

    fn index() -> (tempfile::TempDir, Index) {
        let root = tempfile::tempdir().unwrap();
        let index = Index::open(root.path()).unwrap();
        (root, index)
    }

    #[test]
    fn claim_grants_the_lease_from_now() {
        let (_root, index) = index();
        let claim = index
            .claims()
            .claim("notes/a.md", "alice", 30 * MINUTE, at(0))
            .unwrap();
        assert_eq!(
            claim,
            Claim {
                path: "notes/a.md".into(),
                actor: "alice".into(),
                claimed_at: at(0),
                expires_at: at(30),
                lease_duration: 30 * MINUTE,
            }
        );
        assert_eq!(
            index.claims().holder("notes/a.md", at(1)).unwrap(),
            Some(claim)
        );
    }

    #[test]
    fn the_holder_claiming_again_renews_and_keeps_claimed_at() {
        let (_root, index) = index();
        let claims = index.claims();
        claims.claim("a.md", "alice", 30 * MINUTE, at(0)).unwrap();
        let renewed = claims.claim("a.md", "alice", 10 * MINUTE, at(25)).unwrap();
        assert_eq!(renewed.claimed_at, at(0));
        assert_eq!(renewed.expires_at, at(35));
        assert_eq!(renewed.lease_duration, 10 * MINUTE);
        assert_eq!(claims.holder("a.md", at(34)).unwrap(), Some(renewed));
    }

    #[test]
    fn another_actor_is_refused_with_the_active_claim() {
        let (_root, index) = index();
        let claims = index.claims();
        let alice = claims.claim("a.md", "alice", 30 * MINUTE, at(0)).unwrap();
        match claims.claim("a.md", "bob", 5 * MINUTE, at(10)) {
            Err(ClaimError::Held(held)) => assert_eq!(held, alice),
            other => panic!("expected Held, got {other:?}"),
        }
        assert_eq!(claims.holder("a.md", at(10)).unwrap(), Some(alice));
    }

    #[test]
    fn an_expired_claim_is_absent_and_free_for_anyone() {
        let (_root, index) = index();
        let claims = index.claims();
        claims.claim("a.md", "alice", 30 * MINUTE, at(0)).unwrap();
        // The lease ends at minute 30 exactly: from then on nobody holds the path.
        let cases = [(29, true), (30, false), (31, false)];
        for (minute, held) in cases {
            assert_eq!(
                claims.holder("a.md", at(minute)).unwrap().is_some(),
                held,
                "minute {minute}"
            );
            assert_eq!(
                claims.active(at(minute)).unwrap().len(),
                usize::from(held),
                "minute {minute}"
            );
        }
        let bob = claims.claim("a.md", "bob", 5 * MINUTE, at(30)).unwrap();
        assert_eq!(bob.actor, "bob");
        assert_eq!(bob.claimed_at, at(30), "a fresh claim, not a renewal");
    }

    #[test]
    fn release_rules() {
        enum Expect {
            Released,
            NotHeld,
            HeldByOther(&'static str),
        }
        // (who releases, at minute, expected); alice claimed a.md at 0 for 30 minutes.
        let cases = [
            ("alice", 5, Expect::Released),
            ("bob", 5, Expect::HeldByOther("alice")),
            ("alice", 30, Expect::NotHeld),
            ("bob", 45, Expect::NotHeld),
        ];
        for (releaser, minute, expect) in cases {
            let (_root, index) = index();
            let claims = index.claims();
            claims.claim("a.md", "alice", 30 * MINUTE, at(0)).unwrap();
            let result = claims.release("a.md", releaser, at(minute));
            match (expect, result) {
                (Expect::Released, Ok(())) => {
                    assert_eq!(claims.holder("a.md", at(minute)).unwrap(), None)
                }
                (Expect::NotHeld, Err(ReleaseError::NotHeld)) => {}
                (Expect::HeldByOther(holder), Err(ReleaseError::HeldByOther(claim))) => {
                    assert_eq!(claim.actor, holder);
                    assert!(claims.holder("a.md", at(minute)).unwrap().is_some());
                }
                (_, result) => panic!("{releaser} at {minute}: unexpected {result:?}"),
            }
        }
    }

    #[test]
    fn releasing_an_unclaimed_path_is_not_held() {
        let (_root, index) = index();
        assert!(matches!(
            index.claims().release("never.md", "alice", at(0)),
            Err(ReleaseError::NotHeld)
        ));
    }

    #[test]
    fn claims_are_on_exact_paths() {
        let (_root, index) = index();
        let claims = index.claims();
        claims.claim("notes/a.md", "alice", MINUTE, at(0)).unwrap();
        for other in [
            "notes/A.md",
            "a.md",
            "notes",
            "notes/a.md/x",
            "other/notes/a.md",
        ] {
            assert_eq!(claims.holder(other, at(0)).unwrap(), None, "{other}");
            claims.claim(other, "bob", MINUTE, at(0)).unwrap();
        }
        let paths: Vec<String> = claims
            .active(at(0))
            .unwrap()
            .into_iter()
            .map(|c| c.path)
            .collect();
        assert_eq!(
            paths,
            [
                "a.md",
                "notes",
                "notes/A.md",
                "notes/a.md",
                "notes/a.md/x",
                "other/notes/a.md"
            ]
        );
    }

    #[test]
    fn expired_rows_are_purged_by_the_next_write() {
        let (_root, index) = index();
        let claims = index.claims();
        claims.claim("old.md", "alice", MINUTE, at(0)).unwrap();
        claims.claim("new.md", "bob", MINUTE, at(10)).unwrap();
        let rows: i64 = index
            .connection()
            .query_row("SELECT count(*) FROM claims", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rows, 1);
    }

    #[test]
    fn claims_survive_reopening_the_index() {
        let root = tempfile::tempdir().unwrap();
        let claim = Index::open(root.path())
            .unwrap()
            .claims()
            .claim("a.md", "alice", 30 * MINUTE, at(0))
            .unwrap();
        let index = Index::open(root.path()).unwrap();
        assert_eq!(index.claims().active(at(1)).unwrap(), [claim]);
    }

    #[test]
    fn now_is_cut_to_milliseconds() {
        let (_root, index) = index();
        let now = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
        let claim = index.claims().claim("a.md", "alice", MINUTE, now).unwrap();
        assert_eq!(claim.claimed_at.timestamp_subsec_nanos(), 123_000_000);
        assert_eq!(index.claims().holder("a.md", now).unwrap(), Some(claim));
    }

    #[test]
    fn a_claim_serialises_with_rfc3339_times_and_a_go_lease() {
        let (_root, index) = index();
        let claim = index
            .claims()
            .claim("a.md", "alice", 90 * MINUTE, at(0))
            .unwrap();
        assert_eq!(
            serde_json::to_value(&claim).unwrap(),
            serde_json::json!({
                "path": "a.md",
                "actor": "alice",
                "claimed_at": "2023-11-14T22:13:20Z",
                "expires_at": "2023-11-14T23:43:20Z",
                "lease_duration": "1h30m",
            })
        );
    }

    #[test]
    fn of_many_threads_claiming_one_path_exactly_one_wins() {
        let (_root, index) = index();
        let winners = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..8)
                .map(|n| {
                    let index = &index;
                    scope.spawn(move || {
                        index
                            .claims()
                            .claim("a.md", &format!("actor-{n}"), MINUTE, at(0))
                            .is_ok()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("worker panicked"))
                .filter(|won| *won)
                .count()
        });
        assert_eq!(winners, 1);
    }
}
