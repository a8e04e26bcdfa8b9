//! The planner never reads the system clock: the manifest or the caller gives the time.

mod support;

use quire_restructure::{parse_manifest, plan, ManifestFormat, PlanOptions};
use support::MemoryRoot;

fn root() -> MemoryRoot {
    let mut root = MemoryRoot::default();
    root.insert("a.md", "---\nstatus: draft\n---\n# A\n");
    root
}

const READS_THE_CLOCK: &str =
    r#"{"edits": [{"select": {"glob": "*.md"}, "compute": {"seen": "now()"}}]}"#;

#[test]
fn a_manifest_that_reads_the_clock_without_a_time_is_an_error_of_the_plan() {
    let root = root();
    let vault = root.vault();
    let manifest = parse_manifest(READS_THE_CLOCK.as_bytes(), ManifestFormat::Json).unwrap();
    let planned = plan(&root.workspace(&vault), &manifest, &PlanOptions::default());
    assert!(planned.ops.is_empty());
    assert!(
        planned
            .plan
            .errors
            .iter()
            .any(|e| e.contains("no time was given")),
        "{:?}",
        planned.plan.errors
    );
}

#[test]
fn the_time_given_is_the_one_expressions_read_and_the_plan_reports() {
    let root = root();
    let vault = root.vault();
    let manifest = parse_manifest(READS_THE_CLOCK.as_bytes(), ManifestFormat::Json).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339("2025-01-02T03:04:05Z").ok();
    let planned = plan(
        &root.workspace(&vault),
        &manifest,
        &PlanOptions { diffs: false, now },
    );
    assert!(planned.plan.errors.is_empty(), "{:?}", planned.plan.errors);
    assert_eq!(planned.plan.now.as_deref(), Some("2025-01-02T03:04:05Z"));
    let mut after = root.clone();
    after.apply(&planned.ops).unwrap();
    let text = &after.files[&quire_vault::PagePath::new("a.md").unwrap()];
    assert!(text.contains("seen: 2025-01-02T03:04:05"), "{text}");

    // Moves alone read no clock and need none.
    let moves = parse_manifest(
        br#"{"moves": [{"from": "a.md", "to": "b.md"}]}"#,
        ManifestFormat::Json,
    )
    .unwrap();
    let planned = plan(&root.workspace(&vault), &moves, &PlanOptions::default());
    assert!(planned.plan.errors.is_empty(), "{:?}", planned.plan.errors);
    assert_eq!(planned.plan.now, None);
}
