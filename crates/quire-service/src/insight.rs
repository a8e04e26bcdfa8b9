//! Analytics and health of a space: the dashboard, page health, stale pages, the janitor
//! report, contradictions, velocity (from the history), the memory report, the context texts,
//! eligible tasks, search evaluation, and search analytics (the `searches` table of the
//! index).
//!
//! Everything here reads: the catalog the index thread keeps (frontmatter, word counts,
//! times, links), the in-memory vault (link resolution), the history, and the index. Only
//! dismissing a content gap writes, and only to the derived index. The rules themselves are
//! pure functions in [`rules`].

mod rules;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, SecondsFormat, Utc};
use quire_api::{
    BrokenLink, Burst, ColdSpot, ContentGaps, Context, Contradiction, Eligible, EligibleTask,
    EvalQueryResult, EvalRequest, EvalScores, FailedSearches, GapDismissed, HealthDashboard,
    HealthOverview, HotSpot, IssueType, JanitorReport, MemoryReport, PageHealth, PageIssue,
    QueryCount, RecentPage, SearchAnalytics, SearchEvaluation, SearchLogEntry, SearchTrends,
    SourceCount, Sources, StaleEntry, TrendDay, Velocity,
};
use quire_index::Index;
use quire_query::dql::PageData;
use quire_syntax::LinkKind;
use quire_vault::{PagePath, Resolution, Vault};

use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::find::{Find, SearchQuery};

/// Pages listed by `recently_updated`.
const RECENT: usize = 10;
/// Changes of one actor on one day from which the day is a burst.
const BURST_MIN_CHANGES: usize = 5;
/// The most changes velocity reads from the history, newest first.
const VELOCITY_SCAN: usize = 50_000;
/// Results of each evaluation question considered.
const EVAL_DEPTH: usize = 10;
/// Questions one evaluation takes.
const EVAL_MAX_QUERIES: usize = 500;
/// The context texts, by field.
const CONTEXT_FILES: [&str; 3] = [".quire/playbook.md", ".quire/SCHEMA.md", ".quire/index.md"];

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

/// Analytics and health: views over the catalog, the vault, the history and the index.
pub struct Insight<'a>(pub(crate) &'a SpaceCore);

/// One pass over the pages and their links that the health views share.
struct Scan {
    pages: Arc<Vec<PageData>>,
    /// Unresolved wiki and markdown links of pages, by page path then line.
    broken: Vec<BrokenLink>,
    wiki_links: usize,
    wiki_resolved: usize,
    now: DateTime<Utc>,
    /// `[analytics] stale_days` (0: only `review-by` makes a page stale).
    stale_days: i64,
}

impl Scan {
    fn today(&self) -> NaiveDate {
        self.now.date_naive()
    }

    fn page(&self, path: &str) -> Option<&PageData> {
        let at = self
            .pages
            .binary_search_by(|p| p.path.as_str().cmp(path))
            .ok()?;
        self.pages.get(at)
    }

    fn days_since_update(&self, page: &PageData) -> Option<i64> {
        page.mtime
            .map(|t| (self.now - t.with_timezone(&Utc)).num_days().max(0))
    }

    /// Days the page was not modified, when that makes it stale for the dashboard: at least
    /// `[analytics] stale_days` (and that setting is not 0).
    fn untouched_too_long(&self, page: &PageData) -> Option<i64> {
        let days = self.days_since_update(page)?;
        (self.stale_days > 0 && days >= self.stale_days).then_some(days)
    }

    /// Stale for the dashboard: past `review-by`, or not modified for `[analytics]
    /// stale_days` days.
    fn is_stale(&self, page: &PageData) -> bool {
        rules::days_overdue(page, self.today()).is_some() || self.untouched_too_long(page).is_some()
    }

    fn overview(&self) -> HealthOverview {
        let pages = self.pages.iter();
        HealthOverview {
            total_pages: self.pages.len(),
            stale_pages: pages.clone().filter(|p| self.is_stale(p)).count(),
            orphan_pages: pages.clone().filter(|p| p.inlinks.is_empty()).count(),
            broken_links: self.broken.len(),
            empty_pages: pages.clone().filter(|p| p.word_count == 0).count(),
            pages_without_frontmatter: pages.filter(|p| !rules::has_frontmatter(p)).count(),
            link_coverage_pct: if self.wiki_links == 0 {
                100.0
            } else {
                let pct = self.wiki_resolved as f64 * 100.0 / self.wiki_links as f64;
                (pct * 10.0).round() / 10.0
            },
        }
    }
}

impl Insight<'_> {
    /// The last scheduled janitor scan (`[janitor] interval`), if one ran.
    pub fn last_janitor_scan(&self) -> Result<Option<crate::janitor::JanitorScan>> {
        crate::janitor::last(self.0)
    }

    fn find(&self) -> Find<'_> {
        Find(self.0)
    }

    /// The catalog snapshot; 503 while the index thread has not read every page (or when
    /// this process keeps no index), as for DQL.
    fn catalog(&self, vault: &Vault) -> Result<Arc<Vec<PageData>>> {
        self.find()
            .indexer()?
            .catalog
            .snapshot(vault)
            .ok_or_else(|| Error::unavailable("the catalog is being built; try again shortly"))
    }

    /// The index holding the searches table; 503 when this process keeps none.
    fn index(&self) -> Result<&Index> {
        let indexer = self.0.indexer.as_ref().ok_or_else(|| {
            Error::unavailable("the search index is not kept by this process (read-only)")
        })?;
        // Searches are logged by the index thread: what was answered so far is in.
        indexer.flush();
        Ok(&indexer.index)
    }

    fn scan(&self) -> Result<Scan> {
        let vault = self.0.links.vault();
        let pages = self.catalog(&vault)?;
        let mut broken = Vec::new();
        let (mut wiki_links, mut wiki_resolved) = (0, 0);
        for (source, link, resolution) in vault.resolved_links() {
            if !source.is_page() || link.target.is_empty() || rules::is_external(&link.target) {
                continue;
            }
            let resolved = resolution.is_resolved();
            match link.kind {
                LinkKind::Wiki => {
                    wiki_links += 1;
                    wiki_resolved += usize::from(resolved);
                }
                LinkKind::Markdown | LinkKind::MarkdownReference => {}
                LinkKind::Canvas => continue,
            }
            if !resolved {
                broken.push(BrokenLink {
                    path: source.to_string(),
                    target: link.target.clone(),
                    line: link.line,
                });
            }
        }
        broken.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        Ok(Scan {
            pages,
            broken,
            wiki_links,
            wiki_resolved,
            now: Utc::now(),
            stale_days: i64::from(self.0.find.insight.analytics_stale_days),
        })
    }

    /// The health dashboard: counts of stale, orphaned, empty and frontmatter-less pages and
    /// broken links, the share of wiki links that resolve, the ten pages changed last.
    pub fn dashboard(&self) -> Result<HealthDashboard> {
        let scan = self.scan()?;
        let o = scan.overview();
        let mut recent: Vec<&PageData> = scan.pages.iter().filter(|p| p.mtime.is_some()).collect();
        recent.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
        Ok(HealthDashboard {
            total_pages: o.total_pages,
            stale_pages: o.stale_pages,
            orphan_pages: o.orphan_pages,
            broken_links: o.broken_links,
            empty_pages: o.empty_pages,
            pages_without_frontmatter: o.pages_without_frontmatter,
            link_coverage_pct: o.link_coverage_pct,
            recently_updated: recent
                .into_iter()
                .take(RECENT)
                .filter_map(|p| {
                    Some(RecentPage {
                        path: p.path.clone(),
                        updated: p.mtime?.to_rfc3339_opts(SecondsFormat::Secs, true),
                    })
                })
                .collect(),
        })
    }

    /// The dashboard's counts alone.
    pub fn overview(&self) -> Result<HealthOverview> {
        Ok(self.scan()?.overview())
    }

    /// The health of one page: its sizes, links, backlinks, age and issues. 400 for a path
    /// that is no path, 404 for one that is no page.
    pub fn page_health(&self, path: &str) -> Result<PageHealth> {
        if path.trim().is_empty() {
            return Err(Error::bad_request("missing `path`"));
        }
        let target = PagePath::new(path).map_err(|e| Error::bad_request(e.to_string()))?;
        let scan = self.scan()?;
        let page = scan
            .page(target.as_str())
            .ok_or_else(|| Error::not_found(format!("no such page: {target}")))?;
        let (link_count, backlink_count) = {
            let vault = self.0.links.vault();
            (
                vault.page(&target).map_or(0, |s| s.links.len()),
                vault.backlinks(&target).len(),
            )
        };
        let mut issues = Vec::new();
        for link in scan.broken.iter().filter(|b| b.path == page.path) {
            issues.push(PageIssue {
                kind: IssueType::BrokenLink,
                message: format!(
                    "the link to {:?} on line {} resolves to no file",
                    link.target, link.line
                ),
            });
        }
        if let (Some(days), Some((written, _))) = (
            rules::days_overdue(page, scan.today()),
            rules::review_by(page),
        ) {
            issues.push(PageIssue {
                kind: IssueType::Stale,
                message: format!("review-by {written} passed {days} days ago"),
            });
        } else if let Some(days) = scan.untouched_too_long(page) {
            issues.push(PageIssue {
                kind: IssueType::Stale,
                message: format!(
                    "not modified for {days} days ([analytics] stale_days is {})",
                    scan.stale_days
                ),
            });
        }
        if !rules::has_frontmatter(page) {
            issues.push(PageIssue {
                kind: IssueType::NoFrontmatter,
                message: "the page has no frontmatter".into(),
            });
        }
        if page.word_count == 0 {
            issues.push(PageIssue {
                kind: IssueType::Empty,
                message: "the page body has no words".into(),
            });
        }
        if page.inlinks.is_empty() {
            issues.push(PageIssue {
                kind: IssueType::Orphan,
                message: "no other page links here".into(),
            });
        }
        Ok(PageHealth {
            path: page.path.clone(),
            word_count: page.word_count,
            link_count,
            backlink_count,
            days_since_update: scan.days_since_update(page),
            issues,
        })
    }

    /// Pages past their `review-by` date, most overdue first (then by path).
    pub fn stale(&self) -> Result<Vec<StaleEntry>> {
        let scan = self.scan()?;
        let today = scan.today();
        let mut out: Vec<StaleEntry> = scan
            .pages
            .iter()
            .filter_map(|p| {
                let days_overdue = rules::days_overdue(p, today)?;
                Some(StaleEntry {
                    path: p.path.clone(),
                    title: p.title.clone(),
                    review_by: rules::review_by(p)?.0,
                    days_overdue,
                })
            })
            .collect();
        out.sort_by(|a, b| {
            b.days_overdue
                .cmp(&a.days_overdue)
                .then_with(|| a.path.cmp(&b.path))
        });
        Ok(out)
    }

    /// What the janitor would clean up. Stale means past `review-by`, or not modified for
    /// `[janitor] stale_days` days (0 turns the second rule off).
    pub fn janitor(&self) -> Result<JanitorReport> {
        self.janitor_with(self.0.find.insight.stale_days)
    }

    /// [`Insight::janitor`] with another stale threshold (`quire janitor` asks 90 days).
    pub fn janitor_with(&self, stale_days: u32) -> Result<JanitorReport> {
        let scan = self.scan()?;
        let today = scan.today();
        let stale_days = i64::from(stale_days);
        let paths = |keep: &dyn Fn(&PageData) -> bool| -> Vec<String> {
            scan.pages
                .iter()
                .filter(|p| keep(p))
                .map(|p| p.path.clone())
                .collect()
        };
        let stale = paths(&|p| {
            rules::days_overdue(p, today).is_some()
                || (stale_days > 0 && scan.days_since_update(p).is_some_and(|d| d >= stale_days))
        });
        let orphans = paths(&|p| p.inlinks.is_empty());
        let empty = paths(&|p| p.word_count == 0);
        let missing_frontmatter = paths(&|p| !rules::has_frontmatter(p));
        let broken_links = scan.broken.clone();
        let mut recommendations = Vec::new();
        let mut say = |n: usize, text: String| {
            if n > 0 {
                recommendations.push(text);
            }
        };
        say(
            stale.len(),
            format!(
                "Review {} stale page(s) and update their review-by date: {}",
                stale.len(),
                sample(&stale)
            ),
        );
        say(
            broken_links.len(),
            format!(
                "Fix {} broken link(s): create the missing pages or correct the targets ({})",
                broken_links.len(),
                sample(
                    &broken_links
                        .iter()
                        .map(|b| format!("{} → {}", b.path, b.target))
                        .collect::<Vec<_>>()
                )
            ),
        );
        say(
            orphans.len(),
            format!(
                "Link {} orphan page(s) from an index or hub page, or archive them: {}",
                orphans.len(),
                sample(&orphans)
            ),
        );
        say(
            empty.len(),
            format!(
                "Write or delete {} empty page(s): {}",
                empty.len(),
                sample(&empty)
            ),
        );
        say(
            missing_frontmatter.len(),
            format!(
                "Add frontmatter (title, tags, status) to {} page(s): {}",
                missing_frontmatter.len(),
                sample(&missing_frontmatter)
            ),
        );
        Ok(JanitorReport {
            stale,
            orphans,
            broken_links,
            empty,
            missing_frontmatter,
            recommendations,
        })
    }

    /// Pages that share a subject (frontmatter `title` or an alias, up to case and spacing)
    /// and hold different values for `status`, `date`, `due`, `owner` or `version`.
    pub fn contradictions(&self) -> Result<Vec<Contradiction>> {
        let vault = self.0.links.vault();
        let pages = self.catalog(&vault)?;
        drop(vault);
        Ok(rules::disagreements(&pages)
            .into_iter()
            .map(|d| Contradiction {
                pages: d.values.iter().map(|(p, _)| p.clone()).collect(),
                claim: format!("{} of {:?}", d.key, d.subject),
                details: d
                    .values
                    .iter()
                    .map(|(p, v)| format!("{p}: {} = {v}", d.key))
                    .collect::<Vec<_>>()
                    .join("; "),
            })
            .collect())
    }

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

    /// Episodic pages (those under `prefix`, default `[memory] episodes_path_prefix`) and
    /// whether they have been consolidated: a page is merged when some page's `merged-from`
    /// or `derived-from` frontmatter names it (a path or a wiki link, or a list of them).
    pub fn memory_report(&self, prefix: Option<&str>) -> Result<MemoryReport> {
        let prefix = prefix
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .unwrap_or(&self.0.find.insight.episodes_prefix);
        let folder = folder_prefix(Some(prefix))?;
        let vault = self.0.links.vault();
        let pages = self.catalog(&vault)?;
        let episodic: Vec<&PageData> = pages
            .iter()
            .filter(|p| p.path.starts_with(&folder))
            .collect();
        let episodic_paths: HashSet<&str> = episodic.iter().map(|p| p.path.as_str()).collect();
        let mut merged: HashSet<String> = HashSet::new();
        let mut merged_from_refs = 0;
        let mut warnings = Vec::new();
        for page in pages.iter() {
            let Ok(from) = PagePath::new(&page.path) else {
                continue;
            };
            for key in ["merged-from", "derived-from"] {
                let Some(value) = rules::field(page, key) else {
                    continue;
                };
                for written in rules::texts(value) {
                    let target = rules::reference_target(&written);
                    if target.is_empty() || rules::is_external(target) {
                        continue;
                    }
                    match vault.resolve_wiki(&from, target) {
                        Resolution::Resolved { path, .. } => {
                            if episodic_paths.contains(path.as_str()) {
                                merged_from_refs += 1;
                                merged.insert(path.to_string());
                            }
                        }
                        Resolution::Unresolved if key == "merged-from" => warnings.push(format!(
                            "{}: merged-from names {written:?}, which is no file",
                            page.path
                        )),
                        Resolution::Unresolved => {}
                    }
                }
            }
        }
        if episodic.is_empty() {
            warnings.push(format!(
                "no page under {:?}: is the episodes prefix right?",
                if folder.is_empty() { "/" } else { &folder }
            ));
        }
        let episodic_files: Vec<String> = episodic.iter().map(|p| p.path.clone()).collect();
        let unmerged = episodic_files
            .iter()
            .filter(|p| !merged.contains(*p))
            .cloned()
            .collect();
        Ok(MemoryReport {
            episodic_count: episodic_files.len(),
            merged_from_refs,
            episodic_files,
            unmerged,
            warnings,
        })
    }

    /// The texts of `.quire/playbook.md`, `.quire/SCHEMA.md` and `.quire/index.md`; a missing
    /// file is an empty string.
    pub fn context(&self) -> Result<Context> {
        let read = |path: &str| -> Result<String> {
            let path = PagePath::new(path)?;
            match self.0.root.read(&path) {
                Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
                Err(quire_store::StoreError::NotFound { .. }) => Ok(String::new()),
                Err(e) => Err(e.into()),
            }
        };
        let [playbook, schema, index] = CONTEXT_FILES;
        Ok(Context {
            playbook: read(playbook)?,
            schema: read(schema)?,
            index: read(index)?,
        })
    }

    /// Actionable pages (a `status` that is not done, closed, archived, cancelled, completed
    /// or verified; or no status but a `priority` or `due`), most urgent priority first, then
    /// the soonest `due`, then by path; at most `limit` (default 20, at most 500).
    pub fn eligible(&self, limit: Option<usize>) -> Result<Eligible> {
        let limit = limit.unwrap_or(20).clamp(1, 500);
        let vault = self.0.links.vault();
        let pages = self.catalog(&vault)?;
        drop(vault);
        let mut tasks: Vec<(u64, Option<NaiveDate>, &PageData)> = pages
            .iter()
            .filter(|p| rules::is_actionable(p))
            .map(|p| {
                let rank = rules::field(p, "priority")
                    .and_then(rules::priority_rank)
                    .unwrap_or(u64::MAX);
                let due = rules::field(p, "due").and_then(rules::date);
                (rank, due, p)
            })
            .collect();
        tasks.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| match (a.1, b.1) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                })
                .then_with(|| a.2.path.cmp(&b.2.path))
        });
        let text = |p: &PageData, key: &str| rules::field(p, key).and_then(rules::text);
        Ok(Eligible {
            tasks: tasks
                .into_iter()
                .take(limit)
                .map(|(_, _, p)| EligibleTask {
                    path: p.path.clone(),
                    title: p.title.clone(),
                    status: text(p, "status"),
                    priority: text(p, "priority"),
                    due: text(p, "due"),
                })
                .collect(),
        })
    }

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
        let vault = self.0.links.vault();
        let pages = self.catalog(&vault)?;
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

fn counts(
    found: std::result::Result<Vec<quire_index::QueryCount>, quire_index::IndexError>,
) -> Result<Vec<QueryCount>> {
    Ok(found
        .map_err(Error::internal)?
        .into_iter()
        .map(|c| QueryCount {
            query: c.query,
            count: c.count,
            last_seen: c.last_seen,
        })
        .collect())
}

/// A folder restriction as a path prefix: `""` for the whole space, else `folder/`. 400 for a
/// folder that is no valid path.
fn folder_prefix(folder: Option<&str>) -> Result<String> {
    let folder = folder.map(str::trim).unwrap_or("");
    let folder = folder.trim_start_matches('/').trim_end_matches('/');
    if folder.is_empty() {
        return Ok(String::new());
    }
    let path = PagePath::new(folder).map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(format!("{path}/"))
}

/// Up to five items of a list, then how many more.
fn sample(items: &[String]) -> String {
    let shown = items.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    match items.len() {
        n if n > 5 => format!("{shown} and {} more", n - 5),
        _ => shown,
    }
}
