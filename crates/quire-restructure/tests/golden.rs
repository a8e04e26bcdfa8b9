//! Golden tests: every manifest under `tests/fixtures/manifests/` planned over the fixture
//! vault, compared with `tests/fixtures/expected/<name>.txt` (the human summary) and
//! `<name>.json` (the plan). `UPDATE_GOLDEN=1 cargo test` rewrites the expected files.
//!
//! Comment lines at the top of a manifest set up the workspace:
//! `# protect: GLOB`, `# scope: FOLDER`, `# claimed: PATH=ACTOR`.

mod support;

use std::path::{Path, PathBuf};

use quire_restructure::{parse_manifest, plan, render_text, ManifestFormat, PlanOptions, Planned};
use quire_vault::PagePath;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn run(name: &str, body: &str) -> (String, Option<String>) {
    let root = support::load_dir(&fixtures().join("vault"));
    let vault = root.vault();
    let mut ws = root.workspace(&vault);
    for line in body.lines().take_while(|l| l.starts_with('#')) {
        let line = line.trim_start_matches('#').trim();
        if let Some(glob) = line.strip_prefix("protect:") {
            ws.protect.push(glob.trim().to_owned());
        } else if let Some(folder) = line.strip_prefix("scope:") {
            ws.scope = Some(folder.trim().to_owned());
        } else if let Some(claim) = line.strip_prefix("claimed:") {
            let (path, actor) = claim.trim().split_once('=').expect("PATH=ACTOR");
            ws.claimed
                .insert(PagePath::new(path).unwrap(), actor.to_owned());
        }
    }
    let manifest = match parse_manifest(body.as_bytes(), ManifestFormat::Auto) {
        Ok(manifest) => manifest,
        Err(err) => return (format!("manifest error: {err}\n"), None),
    };
    // The clock of manifests that pin none.
    let now = chrono::DateTime::parse_from_rfc3339("2025-01-02T03:04:05Z").ok();
    let Planned {
        plan: first,
        ops: first_ops,
    } = plan(&ws, &manifest, &PlanOptions { diffs: true, now });
    let again = plan(&ws, &manifest, &PlanOptions { diffs: false, now }).plan;
    assert_eq!(first.digest, again.digest, "{name}: digest is not stable");
    // Applying must succeed whenever the plan has no errors.
    if first.errors.is_empty() {
        let mut applied = root.clone();
        applied
            .apply(&first_ops)
            .unwrap_or_else(|err| panic!("{name}: apply failed: {err}"));
    }
    let json = serde_json::to_string_pretty(&first).expect("plan serialises") + "\n";
    (render_text(&first), Some(json))
}

fn compare(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected != actual {
        failures.push(format!(
            "{} differs:\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        ));
    }
}

#[test]
fn manifests_plan_as_recorded() {
    let dir = fixtures().join("manifests");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("manifests folder")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    assert!(!names.is_empty());
    let expected = fixtures().join("expected");
    std::fs::create_dir_all(&expected).expect("expected folder");
    let mut failures = Vec::new();
    for path in names {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let body = std::fs::read_to_string(&path).expect("manifest");
        let (text, json) = run(&name, &body);
        compare(&expected.join(format!("{name}.txt")), &text, &mut failures);
        if let Some(json) = json {
            compare(&expected.join(format!("{name}.json")), &json, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
