//! What a manifest can cost: globs and regexes tried on every file are bounded up front, and
//! overlapping selections make one error per entry, not one per file.

mod support;

use std::time::{Duration, Instant};

use quire_restructure::{parse_manifest, plan, ManifestFormat, PlanOptions, MAX_PATTERN_TESTS};
use support::MemoryRoot;

fn vault(files: usize) -> MemoryRoot {
    let mut root = MemoryRoot::default();
    for i in 0..files {
        root.insert(&format!("notes/page-{i}.md"), "# Page\n");
    }
    root
}

fn plan_of(root: &MemoryRoot, manifest: &str) -> quire_restructure::Plan {
    let vault = root.vault();
    let ws = root.workspace(&vault);
    let manifest = parse_manifest(manifest.as_bytes(), ManifestFormat::Yaml).unwrap();
    plan(&ws, &manifest, &PlanOptions::default()).plan
}

fn globs(count: usize) -> String {
    let mut manifest = String::from("moves:\n");
    for i in 0..count {
        manifest.push_str(&format!(
            "  - from: \"**/*{}\"\n    to: out/\n",
            "?".repeat(i % 3)
        ));
    }
    manifest
}

#[test]
fn globs_that_would_be_tried_on_too_many_paths_refuse_the_manifest_at_once() {
    let root = vault(2_000);
    let count = MAX_PATTERN_TESTS / 2_000 + 1;
    let started = Instant::now();
    let plan = plan_of(&root, &globs(count));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        plan.errors.len(),
        1,
        "{:?}",
        &plan.errors[..plan.errors.len().min(3)]
    );
    assert!(
        plan.errors[0].contains("use fewer patterns"),
        "{}",
        plan.errors[0]
    );
    assert!(plan.moves.is_empty());
}

#[test]
fn a_glob_repeated_over_the_same_files_makes_one_error_per_entry() {
    let root = vault(300);
    let plan = plan_of(&root, &globs(50));
    // The first entry selects every file; each later one repeats the selection.
    assert_eq!(plan.errors.len(), 49, "{:?}", &plan.errors[..3]);
    assert!(
        plan.errors[0]
            .contains("is selected by moves[0] and moves[1] (and 299 more files selected before)"),
        "{}",
        plan.errors[0]
    );
}
