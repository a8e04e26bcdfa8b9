//! Page health: the dashboard, a page's health, stale pages, the janitor report and
//! contradictions, from one scan of the pages and their links.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use quire_api::{
    BrokenLink, Contradiction, HealthDashboard, HealthOverview, IssueType, JanitorReport,
    PageHealth, PageIssue, RecentPage, StaleEntry,
};
use quire_query::dql::PageData;
use quire_syntax::LinkKind;
use quire_vault::PagePath;

use crate::error::{Error, Result};

use super::rules;
use super::{sample, Insight};

/// Pages listed by `recently_updated`.
const RECENT: usize = 10;

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
    fn scan(&self) -> Result<Scan> {
        let (vault, pages) = self.catalog()?;
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
        let (vault, pages) = self.catalog()?;
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
}
