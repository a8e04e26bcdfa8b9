//! Destinations against names on disk that are not NFC, and the integrity note about shadowed
//! files (names that differ from another's only by Unicode normalization).

mod support;

use quire_restructure::{
    parse_manifest, plan, ConflictCode, ManifestFormat, Plan, PlanOptions, Planned,
};
use quire_vault::{DiskNames, PagePath, Shadowed};
use support::MemoryRoot;

const NFC: &str = "caf\u{e9}.md";
const NFD: &str = "cafe\u{301}.md";

fn p(s: &str) -> PagePath {
    PagePath::new(s).unwrap()
}

fn root() -> MemoryRoot {
    let mut root = MemoryRoot::default();
    root.insert(NFC, "# Café\n");
    root.insert("other.md", "# Other\n");
    root.insert("x.md", "See [[other]].\n");
    root
}

fn planned_with(root: &MemoryRoot, names: DiskNames, manifest: &str) -> Planned {
    let vault = root.vault();
    let mut ws = root.workspace(&vault);
    ws.names = names;
    let manifest = parse_manifest(manifest.as_bytes(), ManifestFormat::Json).unwrap();
    plan(&ws, &manifest, &PlanOptions::default())
}

fn plan_with(root: &MemoryRoot, names: DiskNames, manifest: &str) -> Plan {
    planned_with(root, names, manifest).plan
}

fn named_in_nfd() -> DiskNames {
    let mut names = DiskNames::default();
    names.non_nfc.insert(p(NFC), NFD.to_owned());
    names
}

fn shadowing() -> DiskNames {
    DiskNames {
        non_nfc: Default::default(),
        shadowed: vec![Shadowed {
            path: p(NFC),
            disk: NFD.to_owned(),
            by: NFC.to_owned(),
        }],
    }
}

fn codes(plan: &Plan) -> Vec<ConflictCode> {
    plan.conflicts.iter().map(|c| c.code).collect()
}

#[test]
fn a_destination_naming_a_page_stored_under_a_non_nfc_name_is_a_normalization_conflict() {
    let manifest = r#"{"moves": [{"from": "other.md", "to": "café.md"}]}"#;
    let Planned { plan, ops } = planned_with(&root(), named_in_nfd(), manifest);
    assert_eq!(codes(&plan), [ConflictCode::CaseOrNormalization]);
    assert!(
        plan.conflicts[0].detail.contains("cafe\\u{301}.md"),
        "{plan:?}"
    );
    assert!(ops.is_empty());
    // Without the disk names it is the plain `exists`.
    let plan = plan_with(&root(), DiskNames::default(), manifest);
    assert_eq!(codes(&plan), [ConflictCode::Exists]);
}

#[test]
fn a_non_nfc_named_destination_that_the_manifest_vacates_is_free() {
    let manifest = r#"{"moves": [{"from": "café.md", "to": "archive/café.md"},
                                  {"from": "other.md", "to": "café.md"}]}"#;
    let plan = plan_with(&root(), named_in_nfd(), manifest);
    assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
    assert_eq!(plan.moves.len(), 2);
}

#[test]
fn a_destination_on_a_shadowed_name_is_refused_even_when_vacated() {
    let manifest = r#"{"moves": [{"from": "café.md", "to": "archive/café.md"},
                                  {"from": "other.md", "to": "café.md"}]}"#;
    let plan = plan_with(&root(), shadowing(), manifest);
    assert_eq!(codes(&plan), [ConflictCode::CaseOrNormalization]);
    assert_eq!(plan.conflicts[0].with.as_deref(), Some(NFD));
}

#[test]
fn every_plan_notes_the_shadowed_files_and_its_digest_depends_on_them() {
    let manifest = r#"{"moves": [{"from": "other.md", "to": "archive/other.md"}]}"#;
    let noted = plan_with(&root(), shadowing(), manifest);
    assert_eq!(noted.integrity.normalization.len(), 1);
    assert!(noted.integrity.normalization[0].contains("cafe\\u{301}.md"));
    assert_eq!(
        noted.digest,
        plan_with(&root(), shadowing(), manifest).digest
    );

    let plain = plan_with(&root(), DiskNames::default(), manifest);
    assert!(plain.integrity.normalization.is_empty());
    assert_ne!(plain.digest, noted.digest);
    let json = serde_json::to_value(&plain).unwrap();
    assert!(json["integrity"].get("normalization").is_none());
}
