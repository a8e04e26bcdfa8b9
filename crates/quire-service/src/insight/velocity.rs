//! Velocity: who changed what how often, from the history.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Duration, Utc};
use quire_api::{Burst, ColdSpot, HotSpot, Velocity};

use crate::error::{Error, Result};

use super::rules;
use super::{folder_prefix, Insight};

/// Changes of one actor on one day from which the day is a burst.
const BURST_MIN_CHANGES: usize = 5;
/// The most changes velocity reads from the history, newest first.
const VELOCITY_SCAN: usize = 50_000;

/// What `/velocity` is asked.
#[derive(Debug, Clone, Default)]
pub struct VelocityQuery {
    /// `Nd`, `Nw` or `Nm` (default `30d`).
    pub period: Option<String>,
    /// At most this many entries per list (default 10, at most 1000).
    pub limit: Option<usize>,
    /// Only pages under this folder.
    pub path: Option<String>,
}

impl Insight<'_> {
    /// How fast the pages change, from the history: changes in the period, the pages changed
    /// most and least, days of bursts, pages only one actor ever changed. 501 without
    /// versioning; 400 for a period not written `Nd`, `Nw` or `Nm`.
    pub fn velocity(&self, query: &VelocityQuery) -> Result<Velocity> {
        let period = query
            .period
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .unwrap_or("30d");
        let days = rules::period_days(period).ok_or_else(|| {
            Error::bad_request(format!(
                "period {period:?} is not Nd, Nw or Nm (days, weeks, months of 30 days)"
            ))
        })?;
        let limit = query.limit.unwrap_or(10).clamp(1, 1000);
        let folder = folder_prefix(query.path.as_deref())?;
        // Pages only: not the context texts and definitions under `.quire/`.
        let under = |path: &str| {
            path.starts_with(&folder) && path.ends_with(".md") && !path.starts_with(".quire/")
        };
        let feed = self.0.history.changes(None, VELOCITY_SCAN)?;
        let now = Utc::now();
        let since = now - Duration::days(days);

        let mut in_period: BTreeMap<String, usize> = BTreeMap::new();
        let mut last_change: HashMap<String, DateTime<Utc>> = HashMap::new();
        let mut actors: HashMap<String, (BTreeSet<String>, usize)> = HashMap::new();
        let mut per_day: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut total_changes = 0;
        for change in &feed.changes {
            if !under(&change.path) {
                continue;
            }
            let Ok(at) = DateTime::parse_from_rfc3339(&change.timestamp) else {
                continue;
            };
            let at = at.with_timezone(&Utc);
            last_change
                .entry(change.path.clone())
                .and_modify(|t| *t = (*t).max(at))
                .or_insert(at);
            let entry = actors.entry(change.path.clone()).or_default();
            entry.0.insert(change.actor.clone());
            entry.1 += 1;
            if at >= since {
                total_changes += 1;
                *in_period.entry(change.path.clone()).or_default() += 1;
                let date = at.date_naive().format("%Y-%m-%d").to_string();
                *per_day.entry((date, change.actor.clone())).or_default() += 1;
            }
        }

        let existing: Vec<String> = {
            let vault = self.0.links.vault();
            vault
                .files()
                .filter(|p| p.is_page() && under(p.as_str()))
                .map(|p| p.to_string())
                .collect()
        };
        // A page the history read does not reach: the file's time, when the catalog has it.
        let mtimes: HashMap<String, DateTime<Utc>> = self
            .0
            .indexer
            .as_ref()
            .and_then(|i| i.catalog.snapshot(&self.0.links.vault()))
            .map(|pages| {
                pages
                    .iter()
                    .filter_map(|p| Some((p.path.clone(), p.mtime?.with_timezone(&Utc))))
                    .collect()
            })
            .unwrap_or_default();

        let mut hot: Vec<HotSpot> = in_period
            .iter()
            .map(|(path, &changes)| HotSpot {
                path: path.clone(),
                changes,
            })
            .collect();
        hot.sort_by(|a, b| b.changes.cmp(&a.changes).then_with(|| a.path.cmp(&b.path)));
        hot.truncate(limit);

        let mut cold: Vec<ColdSpot> = existing
            .iter()
            .map(|path| ColdSpot {
                path: path.clone(),
                changes: in_period.get(path).copied().unwrap_or(0),
                days_since_update: last_change
                    .get(path)
                    .or_else(|| mtimes.get(path))
                    .map(|t| (now - *t).num_days().max(0)),
            })
            .collect();
        cold.sort_by(|a, b| {
            a.changes
                .cmp(&b.changes)
                .then_with(|| {
                    b.days_since_update
                        .unwrap_or(i64::MAX)
                        .cmp(&a.days_since_update.unwrap_or(i64::MAX))
                })
                .then_with(|| a.path.cmp(&b.path))
        });
        cold.truncate(limit);

        let mut bursts: Vec<Burst> = per_day
            .into_iter()
            .filter(|(_, n)| *n >= BURST_MIN_CHANGES)
            .map(|((date, actor), changes)| Burst {
                date,
                changes,
                actor,
            })
            .collect();
        bursts.sort_by(|a, b| {
            b.changes
                .cmp(&a.changes)
                .then_with(|| b.date.cmp(&a.date))
                .then_with(|| a.actor.cmp(&b.actor))
        });
        bursts.truncate(limit);

        let mut single: Vec<(&String, usize)> = existing
            .iter()
            .filter_map(|path| {
                let (who, changes) = actors.get(path)?;
                (who.len() == 1).then_some((path, *changes))
            })
            .collect();
        single.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        Ok(Velocity {
            period: period.to_string(),
            total_changes,
            hot_spots: hot,
            cold_spots: cold,
            bursts,
            single_author_pages: single
                .into_iter()
                .take(limit)
                .map(|(p, _)| p.clone())
                .collect(),
        })
    }
}
