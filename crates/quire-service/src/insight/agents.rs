//! What agents read to get their bearings: the memory report, the context texts, the tasks
//! they may take.

use std::collections::HashSet;

use chrono::NaiveDate;
use quire_api::{Context, Eligible, EligibleTask, MemoryReport};
use quire_query::dql::PageData;
use quire_vault::{PagePath, Resolution};

use crate::error::Result;

use super::rules;
use super::{folder_prefix, Insight};

/// The context texts, by field.
const CONTEXT_FILES: [&str; 3] = [".quire/playbook.md", ".quire/SCHEMA.md", ".quire/index.md"];

impl Insight<'_> {
    /// Episodic pages (those under `prefix`, default `[memory] episodes_path_prefix`) and
    /// whether they have been consolidated: a page is merged when some page's `merged-from`
    /// or `derived-from` frontmatter names it (a path or a wiki link, or a list of them).
    pub fn memory_report(&self, prefix: Option<&str>) -> Result<MemoryReport> {
        let prefix = prefix
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .unwrap_or(&self.0.find.insight.episodes_prefix);
        let folder = folder_prefix(Some(prefix))?;
        let (vault, pages) = self.catalog()?;
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
        let (vault, pages) = self.catalog()?;
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
}
