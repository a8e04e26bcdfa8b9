//! Property tests of content edits on generated vaults: `replace` never touches frontmatter,
//! code or link targets; `move_to` and `split` keep every link that worked.

mod support;

use std::collections::BTreeMap;

use proptest::prelude::*;
use quire_restructure::{
    plan, EditEntry, Manifest, PlanOptions, Planned, Replace, Select, SplitEntry,
};
use quire_syntax::{parse, Link};
use quire_testkit::VaultSpec;
use quire_vault::{PagePath, Resolution, Step, Vault};

use support::{links_of, MemoryRoot};

fn root_of(seed: u64, pages: usize) -> MemoryRoot {
    support::generated(&VaultSpec::new(seed, pages))
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// The pieces `replace` must leave alone, in order.
fn untouchable(text: &str) -> (String, Vec<String>, Vec<String>) {
    let parsed = parse(text);
    let frontmatter = text[..parsed.body_start].to_owned();
    let code = parsed
        .code
        .iter()
        .map(|r| text[r.clone()].to_owned())
        .collect();
    let targets = parsed
        .links
        .iter()
        .map(|l| text[l.target_span.clone()].to_owned())
        .collect();
    (frontmatter, code, targets)
}

fn check_replace(seed: u64, pages: usize, word: usize, regex: bool) -> Result<(), TestCaseError> {
    let root = root_of(seed, pages);
    let vault = root.vault();
    let ws = root.workspace(&vault);
    // A word that occurs in the vault: some page's nth word.
    let words: Vec<String> = root
        .files
        .values()
        .flat_map(|t| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .filter(|w| w.chars().all(char::is_alphanumeric) && w.len() > 2)
        .collect();
    prop_assume!(!words.is_empty());
    let find = words[word % words.len()].clone();
    let replace = if regex {
        Replace {
            find: format!(r"\b({})\b", regex_escape(&find)),
            with: "<$1>".into(),
            regex: true,
        }
    } else {
        Replace {
            find: find.clone(),
            with: "REPLACED".into(),
            regex: false,
        }
    };
    let manifest = Manifest {
        edits: vec![EditEntry {
            select: Select {
                glob: Some("**".into()),
                ..Select::default()
            },
            replace: vec![replace],
            ..EditEntry::default()
        }],
        ..Manifest::default()
    };
    let Planned { plan: p, ops } = plan(&ws, &manifest, &PlanOptions::default());
    prop_assert!(p.errors.is_empty(), "{:?}", p.errors);
    let mut after = root.clone();
    after.apply(&ops).map_err(TestCaseError::fail)?;
    for (path, old) in &root.files {
        if !path.is_page() || path.is_canvas() {
            continue;
        }
        let new = &after.files[path];
        prop_assert_eq!(untouchable(old), untouchable(new), "{}", path);
    }
    Ok(())
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

/// Where a link resolved before, followed through the plan's moves.
fn resolved(vault: &Vault, source: &PagePath, link: &Link) -> Option<PagePath> {
    match vault.resolve(source, link) {
        Resolution::Resolved { path, step, .. } if step != Step::SamePage => Some(path),
        _ => None,
    }
}

fn check_move_to(seed: u64, pages: usize, pick: usize) -> Result<(), TestCaseError> {
    let root = root_of(seed, pages);
    let vault = root.vault();
    let ws = root.workspace(&vault);
    let folders: Vec<String> = vault
        .files()
        .map(|f| f.folder().to_owned())
        .filter(|f| !f.is_empty())
        .collect();
    prop_assume!(!folders.is_empty());
    let folder = &folders[pick % folders.len()];
    let manifest = Manifest {
        edits: vec![EditEntry {
            select: Select {
                glob: Some(format!("{folder}/*.md")),
                ..Select::default()
            },
            set: [("moved".to_owned(), serde_json::json!(true))].into(),
            move_to: Some("filed/{{stem}}".into()),
            on_conflict: Some("suffix(\"-%d\")".into()),
            ..EditEntry::default()
        }],
        now: Some("2025-01-01T00:00:00Z".into()),
        ..Manifest::default()
    };
    let Planned { plan: p, ops } = plan(&ws, &manifest, &PlanOptions::default());
    if !p.errors.is_empty() {
        return Ok(());
    }
    let mut after_root = root.clone();
    after_root.apply(&ops).map_err(TestCaseError::fail)?;
    let after = after_root.vault();
    let moves: BTreeMap<PagePath, PagePath> = p
        .moves
        .iter()
        .map(|m| (m.from.clone(), m.to.clone()))
        .collect();
    let image = |p: &PagePath| moves.get(p).cloned().unwrap_or_else(|| p.clone());
    for (source, _) in vault.pages() {
        let now_at = image(source);
        let old_links = links_of(source, &root.files[source]);
        let new_links = links_of(&now_at, &after_root.files[&now_at]);
        prop_assert_eq!(old_links.len(), new_links.len(), "{}", source);
        for (old, new) in old_links.iter().zip(&new_links) {
            if let Some(target) = resolved(&vault, source, old) {
                let now = after.resolve(&now_at, new);
                prop_assert_eq!(
                    now.path(),
                    Some(&image(&target)),
                    "{} {:?}",
                    source,
                    old.target
                );
            }
        }
    }
    Ok(())
}

fn check_split(seed: u64, pages: usize, pick: usize) -> Result<(), TestCaseError> {
    let root = root_of(seed, pages);
    let vault = root.vault();
    let ws = root.workspace(&vault);
    let candidates: Vec<&PagePath> = vault
        .pages()
        .filter(|(_, s)| s.headings.iter().any(|h| h.level == 2))
        .map(|(p, _)| p)
        .collect();
    prop_assume!(!candidates.is_empty());
    let page = candidates[pick % candidates.len()].clone();
    let manifest = Manifest {
        split: Some(SplitEntry {
            from: page.to_string(),
            level: 2,
            into: None,
            confirm: true,
        }),
        ..Manifest::default()
    };
    let Planned { plan: p, ops } = plan(&ws, &manifest, &PlanOptions::default());
    prop_assert!(p.errors.is_empty(), "{:?}", p.errors);
    let mut after_root = root.clone();
    after_root.apply(&ops).map_err(TestCaseError::fail)?;
    let after = after_root.vault();
    // Every other page keeps its links; a link into a section reaches its section's page,
    // every other link the same page as before.
    let sections = &p.splits[0].pages;
    for (source, _) in vault.pages() {
        if source == &page {
            continue;
        }
        let old_links = links_of(source, &root.files[source]);
        let new_links = links_of(source, &after_root.files[source]);
        prop_assert_eq!(old_links.len(), new_links.len(), "{}", source);
        for (old, new) in old_links.iter().zip(&new_links) {
            let Some(target) = resolved(&vault, source, old) else {
                continue;
            };
            let now = after.resolve(source, new).path().cloned();
            if target == page && old.fragment.is_some() {
                let ok = now.as_ref() == Some(&page)
                    || now.as_ref().is_some_and(|n| sections.contains(n));
                prop_assert!(ok, "{} {:?} now {:?}", source, old.target, now);
            } else {
                prop_assert_eq!(now, Some(target), "{} {:?}", source, old.target);
            }
        }
    }
    // The split page's own links that reached another page still do, from wherever their
    // text went.
    let mut before: Vec<PagePath> = links_of(&page, &root.files[&page])
        .iter()
        .filter_map(|l| resolved(&vault, &page, l))
        .collect();
    let mut now: Vec<PagePath> = Vec::new();
    for path in std::iter::once(&page).chain(sections.iter()) {
        for link in links_of(path, &after_root.files[path]) {
            // Links to the page and its sections are the list and moved fragments.
            if let Some(target) = resolved(&after, path, &link) {
                if !sections.contains(&target) {
                    now.push(target);
                }
            }
        }
    }
    before.retain(|t| t != &page);
    now.retain(|t| t != &page);
    before.sort();
    now.sort();
    prop_assert_eq!(before, now);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn replace_never_touches_frontmatter_code_or_link_targets(
        seed in 0u64..10_000,
        pages in 20usize..50,
        word in 0usize..100_000,
        regex in any::<bool>(),
    ) {
        check_replace(seed, pages, word, regex)?;
    }

    #[test]
    fn move_to_keeps_every_link(
        seed in 0u64..10_000,
        pages in 20usize..60,
        pick in 0usize..10_000,
    ) {
        check_move_to(seed, pages, pick)?;
    }

    #[test]
    fn split_keeps_every_link(
        seed in 0u64..10_000,
        pages in 20usize..60,
        pick in 0usize..10_000,
    ) {
        check_split(seed, pages, pick)?;
    }
}
