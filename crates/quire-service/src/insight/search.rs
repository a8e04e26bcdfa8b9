//! Search quality and use: the evaluation of questions with known answers, and the
//! analytics of the `searches` table (top and failed queries, trends, content gaps,
//! sources).

use std::collections::{BTreeMap, HashSet};

use chrono::{Duration, Utc};
use quire_api::{
    ContentGaps, EvalQueryResult, EvalRequest, EvalScores, FailedSearches, GapDismissed,
    SearchAnalytics, SearchEvaluation, SearchLogEntry, SearchTrends, SourceCount, Sources,
    TrendDay,
};
use quire_vault::PagePath;

use crate::error::{Error, ErrorCode, Result};
use crate::find::SearchQuery;

use super::rules;
use super::{counts, Insight};

/// Results of each evaluation question considered.
const EVAL_DEPTH: usize = 10;
/// Questions one evaluation takes.
const EVAL_MAX_QUERIES: usize = 500;

impl Insight<'_> {
    /// Runs each question through full-text search (first 10 results) and scores the ranks
    /// of the expected pages: hit rate, mean reciprocal rank, precision at 5. A question the
    /// search language rejects counts as a miss. `semantic` is null: vector search is not
    /// built. The questions are recorded in search analytics like any search.
    pub fn evaluate(&self, request: &EvalRequest) -> Result<SearchEvaluation> {
        if request.queries.is_empty() {
            return Err(Error::bad_request("`queries` is empty"));
        }
        if request.queries.len() > EVAL_MAX_QUERIES {
            return Err(Error::bad_request(format!(
                "at most {EVAL_MAX_QUERIES} queries per evaluation"
            )));
        }
        if let Some(i) = request
            .queries
            .iter()
            .position(|q| q.question.trim().is_empty())
        {
            return Err(Error::bad_request(format!(
                "query {i} has an empty question"
            )));
        }
        let mut per_query = Vec::with_capacity(request.queries.len());
        let (mut hits, mut reciprocal, mut precision) = (0usize, 0.0, 0.0);
        for q in &request.queries {
            let expected: HashSet<String> = q
                .expected_paths
                .iter()
                .map(|p| PagePath::new(p).map_or_else(|_| p.clone(), |p| p.to_string()))
                .collect();
            // Not a search anyone asked: kept out of the search analytics.
            let found = match self.find().search_unlogged(&SearchQuery {
                q: q.question.clone(),
                limit: Some(EVAL_DEPTH),
                ..SearchQuery::default()
            }) {
                Ok(found) => found.results,
                Err(e) if e.code == ErrorCode::BadRequest => Vec::new(),
                Err(e) => return Err(e),
            };
            let rank = found
                .iter()
                .position(|h| expected.contains(&h.path))
                .map(|i| i + 1);
            if let Some(rank) = rank {
                hits += 1;
                reciprocal += 1.0 / rank as f64;
            }
            let relevant = found
                .iter()
                .take(5)
                .filter(|h| expected.contains(&h.path))
                .count();
            precision += relevant as f64 / 5.0;
            per_query.push(EvalQueryResult {
                question: q.question.clone(),
                fts_rank: rank,
                semantic_rank: None,
            });
        }
        let n = request.queries.len() as f64;
        Ok(SearchEvaluation {
            fts: EvalScores {
                hit_rate: hits as f64 / n,
                mrr: reciprocal / n,
                precision_at_5: precision / n,
            },
            semantic: None,
            per_query,
        })
    }

    /// The newest searches and the most asked queries, `limit` each (default 20, at most
    /// 500).
    pub fn searches(&self, limit: Option<usize>) -> Result<SearchAnalytics> {
        let limit = limit.unwrap_or(20).clamp(1, 500);
        let searches = self.index()?.searches();
        Ok(SearchAnalytics {
            total: searches.total().map_err(Error::internal)?,
            recent: searches
                .recent(limit)
                .map_err(Error::internal)?
                .into_iter()
                .map(|r| SearchLogEntry {
                    query: r.query,
                    results: r.results,
                    timestamp: r.timestamp,
                })
                .collect(),
            top: counts(searches.top(limit))?,
        })
    }

    /// Queries that found nothing, most often first.
    pub fn failed_searches(&self, limit: Option<usize>) -> Result<FailedSearches> {
        let limit = limit.unwrap_or(20).clamp(1, 500);
        Ok(FailedSearches {
            queries: counts(self.index()?.searches().failed(limit))?,
        })
    }

    /// Searches per day over the last `days` (default 30, 1 to 366).
    pub fn trends(&self, days: Option<u32>) -> Result<SearchTrends> {
        let days = days.unwrap_or(30);
        if !(1..=366).contains(&days) {
            return Err(Error::bad_request("`days` must be between 1 and 366"));
        }
        let since = (Utc::now() - Duration::days(i64::from(days) - 1))
            .date_naive()
            .and_hms_opt(0, 0, 0)
            .map_or_else(Utc::now, |t| t.and_utc());
        let trend = self
            .index()?
            .searches()
            .per_day(since)
            .map_err(Error::internal)?
            .into_iter()
            .map(|d| TrendDay {
                date: d.date,
                searches: d.searches,
                failed: d.failed,
            })
            .collect();
        Ok(SearchTrends { days, trend })
    }

    /// Failed queries not dismissed, or failed again since their dismissal.
    pub fn content_gaps(&self, limit: Option<usize>) -> Result<ContentGaps> {
        let limit = limit.unwrap_or(20).clamp(1, 500);
        Ok(ContentGaps {
            gaps: counts(self.index()?.searches().gaps(limit))?,
        })
    }

    /// Dismisses a content gap until the query fails again; 404 when the query never failed.
    pub fn dismiss_gap(&self, query: &str) -> Result<GapDismissed> {
        if query.trim().is_empty() {
            return Err(Error::bad_request("missing `query`"));
        }
        let dismissed = self
            .index()?
            .searches()
            .dismiss(query, Utc::now())
            .map_err(Error::internal)?;
        if !dismissed {
            return Err(Error::not_found(format!(
                "no failed search for {:?}",
                query.trim()
            )));
        }
        Ok(GapDismissed {
            dismissed: query.trim().to_string(),
        })
    }

    /// Pages grouped by their `_source` frontmatter, most pages first.
    pub fn sources(&self) -> Result<Sources> {
        let (vault, pages) = self.catalog()?;
        drop(vault);
        let mut by_source: BTreeMap<String, usize> = BTreeMap::new();
        let mut unsourced = 0;
        for page in pages.iter() {
            match rules::field(page, "_source").and_then(rules::text) {
                Some(source) => *by_source.entry(source).or_default() += 1,
                None => unsourced += 1,
            }
        }
        let mut sources: Vec<SourceCount> = by_source
            .into_iter()
            .map(|(source, pages)| SourceCount { source, pages })
            .collect();
        sources.sort_by(|a, b| b.pages.cmp(&a.pages).then_with(|| a.source.cmp(&b.source)));
        Ok(Sources { sources, unsourced })
    }
}
