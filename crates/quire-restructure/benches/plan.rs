//! Times planning on generated vaults (release, warm, best of 5 by default): renaming a hub page with
//! 500 backlinks and moving a folder holding about 10 % of the pages of a 10,000-page vault,
//! and moving a folder holding about 10 % of a 100,000-page vault. Prints the planner's peak
//! heap use (bytes allocated during `plan` above what was live before it) next to each time.
//! Run with `cargo bench -p quire-restructure --bench plan`; `QUIRE_BENCH=hub,folder,edits,large`
//! picks scenarios (default: all). Std only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use quire_restructure::{
    plan, Manifest, MoveEntry, Plan, PlanOptions, Source, SourceFile, Workspace,
};
use quire_testkit::{generate, VaultSpec};
use quire_vault::{PagePath, Vault};

/// Rounds per scenario; `QUIRE_BENCH_ROUNDS` overrides it (1 is handy under a profiler).
fn rounds() -> usize {
    std::env::var("QUIRE_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
}

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(size: usize) {
        let now = CURRENT.fetch_add(size, Ordering::Relaxed) + size;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }

    fn shrank(size: usize) {
        CURRENT.fetch_sub(size, Ordering::Relaxed);
    }

    /// Starts a new high-water mark at what is live now, and returns that.
    fn reset_peak() -> usize {
        let now = CURRENT.load(Ordering::Relaxed);
        PEAK.store(now, Ordering::Relaxed);
        now
    }

    fn peak() -> usize {
        PEAK.load(Ordering::Relaxed)
    }
}

// SAFETY: every call forwards to `System` with the caller's arguments unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if !ptr.is_null() {
            Counting::grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        if !ptr.is_null() {
            Counting::grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        Counting::shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if !new.is_null() {
            if new_size >= layout.size() {
                Counting::grew(new_size - layout.size());
            } else {
                Counting::shrank(layout.size() - new_size);
            }
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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

/// A generated vault as the service would hand it to the planner.
struct Fixture {
    vault: Vault,
    source: Files,
    hub: Option<PagePath>,
}

impl Fixture {
    fn new(spec: &VaultSpec) -> Fixture {
        let generated = generate(spec);
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
        let hub = generated
            .hub()
            .map(|hub| PagePath::new(hub).expect("valid hub"));
        Fixture {
            vault,
            source: Files(files),
            hub,
        }
    }

    fn workspace(&self) -> Workspace<'_> {
        let personal_files = self
            .source
            .0
            .keys()
            .filter(|p| p.as_str().starts_with(".quire/personal/"))
            .cloned()
            .collect();
        Workspace {
            vault: &self.vault,
            source: &self.source,
            personal_files,
            protect: Vec::new(),
            scope: None,
            claimed: BTreeMap::new(),
            base: None,
            actor: None,
            names: Default::default(),
        }
    }

    /// The folder whose page count is closest to a tenth of the pages, with that count.
    fn tenth_folder(&self) -> (String, usize) {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut pages = 0;
        for (path, _) in self.vault.pages() {
            pages += 1;
            let mut folder = path.folder();
            while !folder.is_empty() {
                *counts.entry(folder.to_owned()).or_default() += 1;
                folder = folder.rfind('/').map_or("", |i| &folder[..i]);
            }
        }
        counts
            .into_iter()
            .min_by_key(|(_, count)| count.abs_diff(pages / 10))
            .expect("generated vault has folders")
    }
}

/// Best time of [`rounds`] plans, the largest peak heap growth of one plan, and the plan.
fn best_of(ws: &Workspace, manifest: &Manifest) -> (Duration, usize, Plan) {
    let mut best = Duration::MAX;
    let mut peak = 0;
    let mut last = None;
    for _ in 0..rounds() {
        drop(last.take());
        let baseline = Counting::reset_peak();
        let start = Instant::now();
        let result = plan(ws, manifest, &PlanOptions::default()).plan;
        best = best.min(start.elapsed());
        peak = peak.max(Counting::peak() - baseline);
        last = Some(result);
    }
    (best, peak, last.expect("at least one round"))
}

fn report(name: &str, took: Duration, peak: usize, result: &Plan) {
    println!(
        "{name}: {:.1} ms, peak heap {:.1} MB  (moves {}, pages rewritten {}, links rewritten {}, vault links {}, errors {})",
        took.as_secs_f64() * 1000.0,
        peak as f64 / 1e6,
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

fn folder_move(fixture: &Fixture, label: &str) {
    let ws = fixture.workspace();
    let (folder, count) = fixture.tenth_folder();
    let (took, peak, result) = best_of(&ws, &one_move(format!("{folder}/"), "moved-away/".into()));
    report(
        &format!("{label}: move folder {folder}/ ({count} pages)"),
        took,
        peak,
        &result,
    );
}

fn main() {
    let wanted = std::env::var("QUIRE_BENCH").unwrap_or_else(|_| "hub,folder,edits,large".into());
    let wanted: Vec<&str> = wanted.split(',').map(str::trim).collect();
    if wanted.contains(&"hub") || wanted.contains(&"folder") || wanted.contains(&"edits") {
        let fixture = Fixture::new(&VaultSpec::new(42, 10_000).with_hub(500));
        if wanted.contains(&"hub") {
            let ws = fixture.workspace();
            let hub = fixture.hub.clone().expect("hub requested");
            let renamed = match hub.parent() {
                Some(folder) => format!("{folder}/renamed hub page.md"),
                None => "renamed hub page.md".to_owned(),
            };
            let (took, peak, result) = best_of(&ws, &one_move(hub.to_string(), renamed));
            report("10k pages: rename hub (500 backlinks)", took, peak, &result);
        }
        if wanted.contains(&"folder") {
            folder_move(&fixture, "10k pages");
        }
        if wanted.contains(&"edits") {
            let ws = fixture.workspace();
            let set: Manifest = serde_json::from_str(
                r#"{"now": "2025-01-01T00:00:00Z", "edits": [{"select": {"glob": "**"}, "set": {"reviewed": "2025-01-01"}}]}"#,
            )
            .expect("manifest");
            let (took, peak, result) = best_of(&ws, &set);
            report("10k pages: set a key on every page", took, peak, &result);
            let replace: Manifest = serde_json::from_str(
                r#"{"edits": [{"select": {"glob": "**"}, "replace": [{"find": "\b(note|page)s?\b", "with": "${1}-x", "regex": true}]}]}"#,
            )
            .expect("manifest");
            let (took, peak, result) = best_of(&ws, &replace);
            report(
                "10k pages: regex replace on every page",
                took,
                peak,
                &result,
            );
        }
    }
    if wanted.contains(&"large") {
        let start = Instant::now();
        let fixture = Fixture::new(&VaultSpec::new(42, 100_000));
        eprintln!(
            "(100k-page vault built in {:.1} s)",
            start.elapsed().as_secs_f64()
        );
        folder_move(&fixture, "100k pages");
    }
}
