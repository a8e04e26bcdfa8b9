//! Page views (`[analytics] track_views`): a read of a page by a person or a program counts
//! one view of it — `GET /file`, `quire_read`, a published page, a share link — recorded by
//! the process writing the space; `/analytics/views` answers the counts and
//! `/analytics/views/v2` each page's engagement. With tracking off nothing is recorded and
//! both answer empty lists with `tracking: false`.

use chrono::{Duration as Days, Utc};
use quire_api::{DayViews, PageEngagement, PageEngagementEntry, PageViewCount, PageViews};
use quire_index::page_views::View;

use crate::core::SpaceCore;
use crate::error::{Error, Result};
use crate::insight::Insight;

/// The period when none is asked, and the longest.
const DEFAULT_DAYS: u32 = 30;
const MAX_DAYS: u32 = 3650;
/// Pages answered when no limit is asked, and the most.
const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 1000;

/// What `/analytics/views` asks.
#[derive(Debug, Clone, Default)]
pub struct PageViewsQuery {
    pub path: Option<String>,
    pub days: Option<u32>,
    pub limit: Option<usize>,
}

/// Counts a read of `path` by `viewer` through `client` when views are tracked and `path` is
/// a page. A failure to count is logged and never fails the read.
pub(crate) fn record(core: &SpaceCore, path: &str, client: Option<&str>, viewer: Option<&str>) {
    {
        let Some(store) = &core.page_views else {
            return;
        };
        if !path.to_ascii_lowercase().ends_with(".md") {
            return;
        }
        let now = Utc::now();
        let day = now.format("%Y-%m-%d").to_string();
        let at = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let name = |v: Option<&str>, default: &'static str| {
            v.map(str::trim)
                .filter(|v| !v.is_empty())
                .map(|v| v.chars().take(200).collect::<String>())
                .unwrap_or_else(|| default.to_string())
        };
        let (client, viewer) = (name(client, "api"), name(viewer, "anonymous"));
        let view = View {
            path,
            day: &day,
            at: &at,
            client: &client,
            viewer: &viewer,
        };
        if let Err(e) = store.record(view) {
            tracing::warn!(space = %core.name, "a page view was not counted: {e}");
        }
    }
}

/// The first day of the period and its length.
fn period(query: &PageViewsQuery) -> Result<(String, u32, usize)> {
    let days = query.days.unwrap_or(DEFAULT_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(Error::bad_request(format!(
            "`days` must be from 1 to {MAX_DAYS}, not {days}"
        )));
    }
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::bad_request(format!(
            "`limit` must be from 1 to {MAX_LIMIT}, not {limit}"
        )));
    }
    let since = (Utc::now() - Days::days(i64::from(days) - 1))
        .format("%Y-%m-%d")
        .to_string();
    Ok((since, days, limit))
}

impl Insight<'_> {
    /// `GET /analytics/views`.
    pub fn page_views(&self, query: &PageViewsQuery) -> Result<PageViews> {
        let (since, days, limit) = period(query)?;
        let Some(store) = &self.0.page_views else {
            return Ok(PageViews {
                tracking: false,
                since,
                days,
                total: 0,
                pages: Vec::new(),
            });
        };
        let (pages, total) = store
            .counts(&since, query.path.as_deref(), limit)
            .map_err(Error::internal)?;
        Ok(PageViews {
            tracking: true,
            since,
            days,
            total,
            pages: pages
                .into_iter()
                .map(|p| PageViewCount {
                    path: p.path,
                    views: p.views,
                })
                .collect(),
        })
    }

    /// `GET /analytics/views/v2`.
    pub fn page_engagement(&self, query: &PageViewsQuery) -> Result<PageEngagement> {
        let (since, days, limit) = period(query)?;
        let Some(store) = &self.0.page_views else {
            return Ok(PageEngagement {
                tracking: false,
                since,
                days,
                pages: Vec::new(),
            });
        };
        let pages = store
            .engagement(&since, query.path.as_deref(), limit)
            .map_err(Error::internal)?;
        Ok(PageEngagement {
            tracking: true,
            since,
            days,
            pages: pages
                .into_iter()
                .map(|p| PageEngagementEntry {
                    path: p.path,
                    views: p.views,
                    viewers: p.viewers,
                    first_viewed: p.first,
                    last_viewed: p.last,
                    by_day: p
                        .by_day
                        .into_iter()
                        .map(|(day, views)| DayViews { day, views })
                        .collect(),
                    by_client: p.by_client.into_iter().collect(),
                })
                .collect(),
        })
    }
}
