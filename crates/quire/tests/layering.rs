//! The layers of ARCHITECTURE.md, checked on the dependency graph `cargo metadata` reports:
//! pure crates reach no I/O crate (directly or through anything they depend on), adapters
//! reach the knowledge root only through `quire-service` (never the store or the index
//! directly) and never through another adapter (only the binary wires them together), and
//! only `quire-script` (and the binary through it) links the Starlark interpreter. The pure
//! crates' source reads no clock and opens no file.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Crates that do no I/O: parsing, resolution, planning, wire types, graph analysis.
const PURE: &[&str] = &[
    "quire-syntax",
    "quire-vault",
    "quire-restructure",
    "quire-api",
    "quire-graph",
    "quire-layout",
    "quire-query",
    "quire-script",
    "quire-render",
];

/// Crates that speak a protocol over `quire-service` (webhooks: outgoing HTTP).
const ADAPTERS: &[&str] = &[
    "quire-http",
    "quire-mcp",
    "quire-lsp",
    "quire-webhooks",
    "quire",
];

/// Crates a pure crate must never reach: disk, git, databases, sockets, runtimes, HTTP.
const IO: &[&str] = &[
    "git2",
    "libgit2-sys",
    "rusqlite",
    "libsqlite3-sys",
    "tokio",
    "mio",
    "axum",
    "hyper",
    "ureq",
    "notify",
    "tempfile",
    "quire-store",
    "quire-index",
    "quire-service",
];

/// Crates only `quire-service` may use on behalf of adapters.
const BELOW_SERVICE: &[&str] = &["quire-store", "quire-index"];

struct Graph {
    /// Package name → names of its normal (not dev, not build) dependencies.
    deps: BTreeMap<String, BTreeSet<String>>,
}

fn graph() -> Graph {
    let host = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let host = String::from_utf8_lossy(&host.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--filter-platform",
            &host,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut deps = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let name = name_of[node["id"].as_str().unwrap()].to_string();
        let normal: BTreeSet<String> = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null())
            })
            .map(|d| name_of[d["pkg"].as_str().unwrap()].to_string())
            .collect();
        deps.entry(name)
            .or_insert_with(BTreeSet::new)
            .extend(normal);
    }
    Graph { deps }
}

impl Graph {
    /// Every crate `from` reaches through normal dependencies, with the path to it.
    fn reach(&self, from: &str) -> BTreeMap<String, Vec<String>> {
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut stack = vec![vec![from.to_string()]];
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for dep in self.deps.get(last).into_iter().flatten() {
                if !seen.contains_key(dep) {
                    let mut next = path.clone();
                    next.push(dep.clone());
                    seen.insert(dep.clone(), next.clone());
                    stack.push(next);
                }
            }
        }
        seen
    }
}

#[test]
fn pure_crates_reach_no_io_crate() {
    let graph = graph();
    let mut faults = Vec::new();
    for pure in PURE {
        assert!(
            graph.deps.contains_key(*pure),
            "{pure} is not in the workspace"
        );
        for (dep, path) in graph.reach(pure) {
            if IO.contains(&dep.as_str()) {
                faults.push(path.join(" -> "));
            }
        }
    }
    assert!(
        faults.is_empty(),
        "pure crates reach I/O:\n{}",
        faults.join("\n")
    );
}

#[test]
fn adapters_reach_the_root_only_through_the_service() {
    let graph = graph();
    let mut faults = Vec::new();
    for adapter in ADAPTERS {
        for dep in graph.deps.get(*adapter).expect("adapter in the workspace") {
            if BELOW_SERVICE.contains(&dep.as_str()) {
                faults.push(format!("{adapter} -> {dep}"));
            }
        }
        assert!(
            graph.deps[*adapter].contains("quire-service"),
            "{adapter} goes through quire-service"
        );
    }
    assert!(
        faults.is_empty(),
        "adapters depend on the store or the index directly:\n{}",
        faults.join("\n")
    );
}

/// The Starlark interpreter is large: `quire-script` alone links it, and the binary through
/// it (the service runs scripts in a child process of the binary, never in-process).
#[test]
fn only_quire_script_links_starlark() {
    let graph = graph();
    let mut faults = Vec::new();
    for krate in graph.deps.keys() {
        if !krate.starts_with("quire") || krate == "quire-script" || krate == "quire" {
            continue;
        }
        if let Some(path) = graph.reach(krate).get("starlark") {
            faults.push(path.join(" -> "));
        }
    }
    assert!(
        faults.is_empty(),
        "crates other than quire-script link starlark:\n{}",
        faults.join("\n")
    );
    assert!(graph.reach("quire-script").contains_key("starlark"));
}

/// Each adapter stands on `quire-service` (and the operation table) alone: one that needs
/// another's state sees it through a trait of the service (`WebhookRegistry`), so adding a
/// protocol never pulls in another. Only the binary wires adapters together.
#[test]
fn adapters_do_not_depend_on_each_other() {
    let graph = graph();
    let mut faults = Vec::new();
    for adapter in ADAPTERS.iter().filter(|a| **a != "quire") {
        for (dep, path) in graph.reach(adapter) {
            if ADAPTERS.contains(&dep.as_str()) {
                faults.push(path.join(" -> "));
            }
        }
    }
    assert!(
        faults.is_empty(),
        "adapters that depend on other adapters:\n{}",
        faults.join("\n")
    );
}

/// What a pure crate computes depends on its inputs alone: its source never reads the system
/// clock (the caller passes the time: `EvalContext`, `PlanOptions::now`) nor touches the
/// filesystem or the environment. The one clock allowed is the DQL budget's `Instant`, which
/// can stop a query but never changes the answer of one that finishes.
#[test]
fn pure_crates_read_no_clock_and_no_file() {
    const FORBIDDEN: &[&str] = &[
        "Utc::now",
        "Local::now",
        "SystemTime::now",
        "Instant::now",
        "std::fs",
        "File::open",
        "File::create",
        "std::env::var",
    ];
    const ALLOWED: &[(&str, &str)] = &[("quire-query/src/dql/exec.rs", "Instant::now")];
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut faults = Vec::new();
    for pure in PURE {
        let mut dirs = vec![crates.join(pure).join("src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("a source folder") {
                let path = entry.expect("a folder entry").path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("a source file");
                let shown = path
                    .strip_prefix(&crates)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or_default();
                    for word in FORBIDDEN.iter().filter(|w| code.contains(**w)) {
                        if !ALLOWED.contains(&(shown.as_str(), *word)) {
                            faults.push(format!("{shown}:{}: {word}", n + 1));
                        }
                    }
                }
            }
        }
    }
    assert!(
        faults.is_empty(),
        "pure crates that read the clock or the filesystem:\n{}",
        faults.join("\n")
    );
}
