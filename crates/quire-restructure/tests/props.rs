//! Property tests over generated vaults: random file, folder and glob moves never break a
//! link, change only link-target bytes, and plan to the same digest twice.

mod support;

use std::collections::BTreeMap;

use proptest::prelude::*;
use quire_restructure::{plan, Manifest, MoveEntry, PlanOptions, Planned};
use quire_syntax::replace_spans;
use quire_testkit::VaultSpec;
use quire_vault::{PagePath, Resolution, Step};

use support::{links_of, MemoryRoot};

fn root_of(spec: &VaultSpec) -> MemoryRoot {
    support::generated(spec)
}

/// One move entry drawn from numbers: a file to a folder, a folder to a new folder, or a
/// glob of one folder's pages to a new folder.
fn entry(files: &[PagePath], kind: u8, pick: usize, dest: usize) -> MoveEntry {
    let file = &files[pick % files.len()];
    let folders: Vec<&str> = files
        .iter()
        .map(|f| f.folder())
        .filter(|f| !f.is_empty())
        .collect();
    let folder = folders
        .get(dest % folders.len().max(1))
        .copied()
        .unwrap_or("");
    match kind % 3 {
        0 => MoveEntry {
            from: Some(file.to_string()),
            from_regex: None,
            to: if folder.is_empty() {
                "moved/".into()
            } else {
                format!("{folder}/")
            },
        },
        1 if !file.folder().is_empty() => MoveEntry {
            from: Some(format!("{}/", file.folder())),
            from_regex: None,
            to: format!("renamed{dest}/"),
        },
        _ => MoveEntry {
            from: Some(if file.folder().is_empty() {
                "*.md".into()
            } else {
                format!("{}/*.md", file.folder())
            }),
            from_regex: None,
            to: format!("globbed{dest}/"),
        },
    }
}

fn check_case(
    seed: u64,
    pages: usize,
    draws: Vec<(u8, usize, usize)>,
) -> Result<(), TestCaseError> {
    let root = root_of(&VaultSpec::new(seed, pages));
    let vault = root.vault();
    let ws = root.workspace(&vault);
    let files: Vec<PagePath> = vault.files().cloned().collect();
    let manifest = Manifest {
        moves: draws
            .iter()
            .map(|&(kind, pick, dest)| entry(&files, kind, pick, dest))
            .collect(),
        ..Manifest::default()
    };
    let Planned {
        plan: first,
        ops: first_ops,
    } = plan(&ws, &manifest, &PlanOptions::default());
    let again = plan(&ws, &manifest, &PlanOptions::default()).plan;
    prop_assert_eq!(&first.digest, &again.digest);
    if !first.errors.is_empty() {
        // Overlapping random selections and taken destinations are refused; nothing to apply.
        return Ok(());
    }
    let mut after_root = root.clone();
    after_root.apply(&first_ops).map_err(TestCaseError::fail)?;
    let after = after_root.vault();
    let moves: BTreeMap<PagePath, PagePath> = first
        .moves
        .iter()
        .map(|m| (m.from.clone(), m.to.clone()))
        .collect();
    let image = |p: &PagePath| moves.get(p).cloned().unwrap_or_else(|| p.clone());
    for (source, _) in vault.pages() {
        let moved_to = image(source);
        let old_text = &root.files[source];
        let new_text = &after_root.files[&moved_to];
        let old_links = links_of(source, old_text);
        let new_links = links_of(&moved_to, new_text);
        prop_assert_eq!(
            old_links.len(),
            new_links.len(),
            "{}: link count changed",
            source
        );
        let mut edits = Vec::new();
        for (old, new) in old_links.iter().zip(&new_links) {
            let old_bytes = &old_text[old.target_span.clone()];
            let new_bytes = &new_text[new.target_span.clone()];
            if old_bytes != new_bytes {
                edits.push((old.target_span.clone(), new_bytes.to_owned()));
            }
            match vault.resolve(source, old) {
                Resolution::Resolved { path, step, .. } if step != Step::SamePage => {
                    let now = after.resolve(&moved_to, new);
                    prop_assert_eq!(
                        now.path(),
                        Some(&image(&path)),
                        "{} link {:?} (now {:?}) lost {}",
                        source,
                        old.target,
                        new.target,
                        path
                    );
                }
                Resolution::Resolved { .. } => {}
                Resolution::Unresolved => {
                    prop_assert_eq!(old_bytes, new_bytes, "{}: unresolved link touched", source);
                }
            }
        }
        // Only target bytes differ: replaying the target edits on the old text gives the new.
        prop_assert_eq!(&replace_spans(old_text, &edits), new_text, "{}", source);
    }
    Ok(())
}

/// Thousands of generated vaults and manifests in CI; `PROPTEST_CASES` overrides.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_moves_keep_every_link_and_touch_only_targets(
        seed in 0u64..10_000,
        pages in 30usize..80,
        draws in proptest::collection::vec((0u8..3, 0usize..10_000, 0usize..10_000), 1..4),
    ) {
        check_case(seed, pages, draws)?;
    }
}
