//! Times planning on a generated 10,000-page vault (release, warm, best of 5):
//! renaming a hub page with 500 backlinks, and moving a folder holding about 10 % of
//! the pages. Run with `cargo bench -p quire-restructure --bench plan`. Std only.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use quire_restructure::{
    plan, Manifest, MoveEntry, Plan, PlanOptions, Source, SourceFile, Workspace,
};
use quire_testkit::{generate, VaultSpec};
use quire_vault::{PagePath, Vault};

const PAGES: usize = 10_000;
const ROUNDS: usize = 5;

/// Files with precomputed ETags, so timing measures the planner, not hashing.
struct Files(BTreeMap<PagePath, SourceFile>);

impl Source for Files {
    fn read(&self, path: &PagePath) -> Option<SourceFile> {
        self.0.get(path).cloned()
    }
}

fn etag(text: &str) -> String {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

fn best_of(ws: &Workspace, manifest: &Manifest) -> (Duration, Plan) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let result = plan(ws, manifest, &PlanOptions::default());
        best = best.min(start.elapsed());
        last = Some(result);
    }
    (best, last.expect("at least one round"))
}

fn report(name: &str, took: Duration, result: &Plan) {
    println!(
        "{name}: {:.1} ms  (moves {}, pages rewritten {}, links rewritten {}, vault links {}, errors {})",
        took.as_secs_f64() * 1000.0,
        result.moves.len(),
        result.edits.len(),
        result.stats.rewritten,
        result.stats.links,
        result.errors.len(),
    );
}

fn one_move(from: String, to: String) -> Manifest {
    Manifest {
        moves: vec![MoveEntry {
            from: Some(from),
            from_regex: None,
            to,
        }],
        ..Manifest::default()
    }
}

fn main() {
    let generated = generate(&VaultSpec::new(42, PAGES).with_hub(500));
    let mut files = BTreeMap::new();
    let mut vault = Vault::new();
    for file in &generated.files {
        let path = PagePath::new(&file.path).expect("generated paths are valid");
        if let Some(text) = file.text() {
            files.insert(
                path.clone(),
                SourceFile {
                    text: text.to_owned(),
                    etag: etag(text),
                },
            );
            if path.as_str().starts_with(".quire/") {
                continue;
            }
            if path.is_page() {
                vault.upsert_page(path, text);
            } else if path.is_canvas() {
                vault.upsert_canvas(path, text);
            } else {
                vault.insert_file(path);
            }
        } else {
            vault.insert_file(path);
        }
    }
    let source = Files(files);
    let personal_files = source
        .0
        .keys()
        .filter(|p| p.as_str().starts_with(".quire/personal/"))
        .cloned()
        .collect();
    let ws = Workspace {
        vault: &vault,
        source: &source,
        personal_files,
        protect: Vec::new(),
        scope: None,
        claimed: BTreeMap::new(),
        base: None,
    };

    let hub = PagePath::new(generated.hub().expect("hub requested")).expect("valid hub");
    let renamed = match hub.parent() {
        Some(folder) => format!("{folder}/renamed hub page.md"),
        None => "renamed hub page.md".to_owned(),
    };
    let (took, result) = best_of(&ws, &one_move(hub.to_string(), renamed));
    report("rename hub (500 backlinks)", took, &result);

    // The folder whose page count is closest to 10 % of the vault.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (path, _) in vault.pages() {
        let mut folder = path.folder();
        while !folder.is_empty() {
            *counts.entry(folder.to_owned()).or_default() += 1;
            folder = folder.rfind('/').map_or("", |i| &folder[..i]);
        }
    }
    let (folder, count) = counts
        .iter()
        .min_by_key(|(_, count)| count.abs_diff(PAGES / 10))
        .expect("generated vault has folders");
    let (took, result) = best_of(&ws, &one_move(format!("{folder}/"), "moved-away/".into()));
    report(
        &format!("move folder {folder}/ ({count} pages)"),
        took,
        &result,
    );
}
