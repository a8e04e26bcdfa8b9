//! The rules of analytics and health as pure functions over page data: what counts as stale,
//! empty, actionable or contradictory, how priorities rank, how a period is written. No I/O
//! and no clock: callers pass `today`.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use quire_query::dql::PageData;
use serde_json::Value;

/// Frontmatter keys whose differing values across pages of one subject are contradictions.
pub(crate) const CLAIM_KEYS: [&str; 5] = ["status", "date", "due", "owner", "version"];

/// Statuses of pages that need no action: finished work and reference pages.
const SETTLED: [&str; 7] = [
    "done",
    "closed",
    "archived",
    "cancelled",
    "canceled",
    "completed",
    "verified",
];

/// A frontmatter value, `key` or the same key written with `_` for `-` (and back).
pub(crate) fn field<'a>(page: &'a PageData, key: &str) -> Option<&'a Value> {
    let map = page.frontmatter.as_object()?;
    map.get(key)
        .or_else(|| map.get(&key.replace('-', "_")))
        .or_else(|| map.get(&key.replace('_', "-")))
        .filter(|v| !v.is_null())
}

/// A scalar value as text (strings trimmed); `None` for empty strings, lists and maps.
pub(crate) fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A date written `YYYY-MM-DD`, possibly followed by a time (`2026-03-01T09:00`).
pub(crate) fn date(value: &Value) -> Option<NaiveDate> {
    let text = text(value)?;
    NaiveDate::parse_from_str(text.get(..10)?, "%Y-%m-%d").ok()
}

/// The page's `review-by` date as written and parsed, when it parses.
pub(crate) fn review_by(page: &PageData) -> Option<(String, NaiveDate)> {
    let value = field(page, "review-by")?;
    Some((text(value)?, date(value)?))
}

/// Whole days `review-by` lies before `today`; `None` when it has not passed (or is absent).
pub(crate) fn days_overdue(page: &PageData, today: NaiveDate) -> Option<i64> {
    let (_, due) = review_by(page)?;
    let days = (today - due).num_days();
    (days > 0).then_some(days)
}

/// A page with frontmatter that holds at least one key.
pub(crate) fn has_frontmatter(page: &PageData) -> bool {
    page.frontmatter.as_object().is_some_and(|m| !m.is_empty())
}

/// A page is actionable when its `status` is set and not settled, or, without a `status`,
/// when it has a `priority` or a `due` date.
pub(crate) fn is_actionable(page: &PageData) -> bool {
    match field(page, "status").and_then(text) {
        Some(status) => !SETTLED.contains(&status.to_lowercase().as_str()),
        None => field(page, "priority").is_some() || field(page, "due").is_some(),
    }
}

/// The urgency of a `priority` value, smaller first: numbers are levels with 1 the most
/// urgent (as `P1`); `critical`/`urgent`/`highest` 0, `high` 1, `medium`/`normal` 2, `low` 3,
/// `lowest`/`someday` 4; `None` for anything else.
pub(crate) fn priority_rank(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_f64() {
        return (n >= 0.0).then_some(n as u64);
    }
    let text = text(value)?.to_lowercase();
    let rank = match text.as_str() {
        "critical" | "urgent" | "highest" | "blocker" => 0,
        "high" => 1,
        "medium" | "normal" | "mid" => 2,
        "low" => 3,
        "lowest" | "someday" => 4,
        other => other.strip_prefix('p').unwrap_or(other).parse().ok()?,
    };
    Some(rank)
}

/// How long a period written `Nd`, `Nw` or `Nm` is, in days (a month counts 30 days).
pub(crate) fn period_days(period: &str) -> Option<i64> {
    let period = period.trim();
    let unit = period.chars().last()?;
    let n: i64 = period[..period.len() - unit.len_utf8()].parse().ok()?;
    let days = match unit {
        'd' => n,
        'w' => n.checked_mul(7)?,
        'm' => n.checked_mul(30)?,
        _ => return None,
    };
    (1..=36_500).contains(&days).then_some(days)
}

/// The key that makes two titles or aliases the same subject: lowercased, whitespace runs
/// as one space.
pub(crate) fn subject_key(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The subjects a page speaks about: its frontmatter `title` and every `aliases`/`alias`
/// entry, by key, with the text as written.
pub(crate) fn subjects(page: &PageData) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |value: &Value| {
        if let Some(text) = text(value) {
            let key = subject_key(&text);
            if !out.iter().any(|(k, _)| *k == key) {
                out.push((key, text));
            }
        }
    };
    if let Some(title) = field(page, "title") {
        add(title);
    }
    for key in ["aliases", "alias"] {
        match field(page, key) {
            Some(Value::Array(items)) => items.iter().for_each(&mut add),
            Some(value) => add(value),
            None => {}
        }
    }
    out
}

/// One subject on which pages disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Disagreement {
    /// The subject as the first page (by path) writes it.
    pub subject: String,
    pub key: &'static str,
    /// Each page holding the key, by path, with its value as text.
    pub values: Vec<(String, String)>,
}

/// Pages that share a subject (same `title` or alias, up to case and spacing) and hold
/// different values for one of [`CLAIM_KEYS`]. Pages lacking the key do not take part.
/// Ordered by subject key, then by the order of [`CLAIM_KEYS`]; each page set and key once.
pub(crate) fn disagreements(pages: &[PageData]) -> Vec<Disagreement> {
    let mut by_subject: BTreeMap<String, Vec<(&PageData, String)>> = BTreeMap::new();
    for page in pages {
        for (key, written) in subjects(page) {
            by_subject.entry(key).or_default().push((page, written));
        }
    }
    let mut out: Vec<Disagreement> = Vec::new();
    for group in by_subject.values() {
        if group.len() < 2 {
            continue;
        }
        for key in CLAIM_KEYS {
            let values: Vec<(String, String)> = group
                .iter()
                .filter_map(|(page, _)| {
                    let value = field(page, key)?;
                    let text = text(value).unwrap_or_else(|| value.to_string());
                    Some((page.path.clone(), text))
                })
                .collect();
            let differ = values.windows(2).any(|w| w[0].1 != w[1].1);
            let seen = out
                .iter()
                .any(|d| d.key == key && same_pages(&d.values, &values));
            if differ && !seen {
                out.push(Disagreement {
                    subject: group[0].1.clone(),
                    key,
                    values,
                });
            }
        }
    }
    out
}

fn same_pages(a: &[(String, String)], b: &[(String, String)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0)
}

/// A wiki link or path as written in a frontmatter reference (`"[[a|A]]"`, `a.md#x`): the
/// target alone.
pub(crate) fn reference_target(text: &str) -> &str {
    let text = text.trim();
    let text = text
        .strip_prefix("[[")
        .and_then(|t| t.strip_suffix("]]"))
        .unwrap_or(text);
    let text = text.split('|').next().unwrap_or(text);
    text.split('#').next().unwrap_or(text).trim()
}

/// The texts of a frontmatter value that is one string or a list of them.
pub(crate) fn texts(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().filter_map(text).collect(),
        other => text(other).into_iter().collect(),
    }
}

/// A link target that names something outside the space (`https://…`, `mailto:…`).
pub(crate) fn is_external(target: &str) -> bool {
    let Some((scheme, _)) = target.split_once(':') else {
        return false;
    };
    scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(path: &str, fm: Value) -> PageData {
        PageData {
            path: path.into(),
            title: path.into(),
            tags: vec![],
            frontmatter: fm,
            outlinks: vec![],
            inlinks: vec![],
            size: 0,
            ctime: None,
            mtime: None,
            word_count: 0,
        }
    }

    #[test]
    fn periods_are_days_weeks_or_thirty_day_months() {
        assert_eq!(period_days("30d"), Some(30));
        assert_eq!(period_days("2w"), Some(14));
        assert_eq!(period_days("3m"), Some(90));
        for bad in [
            "",
            "d",
            "0d",
            "-3d",
            "3y",
            "3",
            "1.5w",
            "99999999999999999999d",
        ] {
            assert_eq!(period_days(bad), None, "{bad}");
        }
    }

    #[test]
    fn priorities_rank_words_and_numbers_alike() {
        assert_eq!(priority_rank(&json!("urgent")), Some(0));
        assert_eq!(priority_rank(&json!("High")), Some(1));
        assert_eq!(priority_rank(&json!(1)), Some(1));
        assert_eq!(priority_rank(&json!("P2")), Some(2));
        assert_eq!(priority_rank(&json!("low")), Some(3));
        assert_eq!(priority_rank(&json!("whenever")), None);
    }

    #[test]
    fn review_by_passed_is_overdue_by_whole_days() {
        let today = NaiveDate::from_ymd_opt(2026, 3, 10).unwrap();
        let p = page("a.md", json!({"review-by": "2026-03-01"}));
        assert_eq!(days_overdue(&p, today), Some(9));
        let p = page("a.md", json!({"review_by": "2026-03-10T08:00"}));
        assert_eq!(days_overdue(&p, today), None, "due today is not overdue");
        let p = page("a.md", json!({"review-by": "soon"}));
        assert_eq!(days_overdue(&p, today), None);
    }

    #[test]
    fn settled_statuses_are_not_actionable() {
        assert!(is_actionable(&page("a.md", json!({"status": "open"}))));
        assert!(!is_actionable(&page("a.md", json!({"status": "Done"}))));
        assert!(is_actionable(&page("a.md", json!({"priority": "high"}))));
        assert!(!is_actionable(&page("a.md", json!({"title": "x"}))));
        assert!(!is_actionable(&page("a.md", Value::Null)));
    }

    #[test]
    fn pages_of_one_title_or_alias_with_different_values_disagree() {
        let pages = vec![
            page("a.md", json!({"title": "Project X", "status": "open"})),
            page("b.md", json!({"aliases": ["project  x"], "status": "done"})),
            page("c.md", json!({"title": "Project X"})),
            page("d.md", json!({"title": "Other", "status": "open"})),
            page("e.md", json!({"title": "other", "status": "open"})),
        ];
        let found = disagreements(&pages);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].subject, "Project X");
        assert_eq!(found[0].key, "status");
        assert_eq!(
            found[0].values,
            [
                ("a.md".into(), "open".into()),
                ("b.md".into(), "done".into())
            ]
        );
    }

    #[test]
    fn references_lose_brackets_aliases_and_fragments() {
        assert_eq!(reference_target("[[episodes/a|A]]"), "episodes/a");
        assert_eq!(reference_target(" memory/e.md#top "), "memory/e.md");
        assert!(is_external("https://example.com"));
        assert!(is_external("mailto:a@b"));
        assert!(!is_external("notes/a.md"));
        assert!(
            !is_external("C:notes"),
            "one letter is a drive, not a scheme"
        );
    }
}
