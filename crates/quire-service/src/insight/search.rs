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
    /// search language rejects counts as a miss. With vector search on, the same for vector
    /// search (`semantic`) and hybrid search (`hybrid`). The questions are kept out of search
    /// analytics.
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
        let vectors = self.0.vectors.is_some();
        let mut per_query = Vec::with_capacity(request.queries.len());
        let (mut fts, mut semantic, mut hybrid) =
            (Tally::default(), Tally::default(), Tally::default());
        for q in &request.queries {
            let expected: HashSet<String> = q
                .expected_paths
                .iter()
                .map(|p| PagePath::new(p).map_or_else(|_| p.clone(), |p| p.to_string()))
                .collect();
            let fts_rank = fts.add(self.ranked(&q.question, "bm25")?, &expected);
            let (semantic_rank, hybrid_rank) = if vectors {
                let near = self
                    .find()
                    .semantic(&q.question, Some(EVAL_DEPTH))?
                    .results
                    .into_iter()
                    .map(|h| h.path)
                    .collect();
                (
                    semantic.add(near, &expected),
                    hybrid.add(self.ranked(&q.question, "hybrid")?, &expected),
                )
            } else {
                (None, None)
            };
            per_query.push(EvalQueryResult {
                question: q.question.clone(),
                fts_rank,
                semantic_rank,
                hybrid_rank,
            });
        }
        let n = request.queries.len();
        Ok(SearchEvaluation {
            fts: fts.scores(n),
            semantic: vectors.then(|| semantic.scores(n)),
            hybrid: vectors.then(|| hybrid.scores(n)),
            per_query,
        })
    }

    /// The paths of the first results of a search in `mode`; none for a question the search
    /// language rejects. Not a search anyone asked: kept out of the search analytics.
    fn ranked(&self, question: &str, mode: &str) -> Result<Vec<String>> {
        match self.find().search_unlogged(&SearchQuery {
            q: question.to_string(),
            limit: Some(EVAL_DEPTH),
            mode: Some(mode.to_string()),
            ..SearchQuery::default()
        }) {
            Ok(found) => Ok(found.results.into_iter().map(|h| h.path).collect()),
            Err(e) if e.code == ErrorCode::BadRequest => Ok(Vec::new()),
            Err(e) => Err(e),
        }
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

/// Hit rate, reciprocal ranks and precision at 5 of one ranking over the questions.
#[derive(Default)]
struct Tally {
    hits: usize,
    reciprocal: f64,
    precision: f64,
}

impl Tally {
    /// Counts one question's results; answers the rank of its first expected page.
    fn add(&mut self, found: Vec<String>, expected: &HashSet<String>) -> Option<usize> {
        let rank = found
            .iter()
            .position(|p| expected.contains(p))
            .map(|i| i + 1);
        if let Some(rank) = rank {
            self.hits += 1;
            self.reciprocal += 1.0 / rank as f64;
        }
        let relevant = found
            .iter()
            .take(5)
            .filter(|p| expected.contains(*p))
            .count();
        self.precision += relevant as f64 / 5.0;
        rank
    }

    fn scores(&self, questions: usize) -> EvalScores {
        let n = questions.max(1) as f64;
        EvalScores {
            hit_rate: self.hits as f64 / n,
            mrr: self.reciprocal / n,
            precision_at_5: self.precision / n,
        }
    }
}
