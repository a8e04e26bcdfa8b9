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
    "quire-webdav",
    "quire-nfs",
    "quire-fuse",
    "quire-s3",
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
    "quire-import",
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
        for path in rust_files(&crates.join(pure).join("src")) {
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
    assert!(
        faults.is_empty(),
        "pure crates that read the clock or the filesystem:\n{}",
        faults.join("\n")
    );
}

/// The modules of each crate depend on one another in one order: no module reaches, through
/// the paths it names, a module that reaches it back (ARCHITECTURE.md, "Inside a crate").
/// An edge is a `crate::…` or `super::…` path in a module's code (comments and the unit-test
/// module left out), to the deepest module file the path names.
#[test]
fn no_crate_has_an_import_circle() {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut faults = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&crates)
        .expect("the crates folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    names.sort();
    for krate in names {
        let src = krate.join("src");
        if !src.is_dir() {
            continue;
        }
        let modules = modules_of(&src);
        let edges: BTreeMap<&Vec<String>, BTreeSet<&Vec<String>>> = modules
            .iter()
            .map(|(module, text)| {
                let to = named_paths(module, text)
                    .into_iter()
                    .filter_map(|path| {
                        (1..=path.len())
                            .rev()
                            .find_map(|n| modules.get_key_value(&path[..n]))
                            .map(|(m, _)| m)
                    })
                    .filter(|m| *m != module && !m.is_empty())
                    .collect();
                (module, to)
            })
            .collect();
        let reach = |from: &Vec<String>| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from];
            while let Some(m) = stack.pop() {
                for next in edges.get(m).into_iter().flatten() {
                    if seen.insert(*next) {
                        stack.push(next);
                    }
                }
            }
            seen
        };
        let mut reported = BTreeSet::new();
        for module in edges.keys() {
            if reported.contains(module) {
                continue;
            }
            let circle: BTreeSet<_> = reach(module)
                .into_iter()
                .filter(|other| reach(other).contains(module))
                .collect();
            if !circle.is_empty() {
                let shown: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
                faults.push(format!(
                    "{}: {}",
                    krate.file_name().unwrap().to_string_lossy(),
                    shown.join(", ")
                ));
                reported.extend(circle);
            }
        }
    }
    assert!(
        faults.is_empty(),
        "modules that reach themselves through others:\n{}",
        faults.join("\n")
    );
}

/// Every `.rs` file below `src` by its module path (`lib.rs`/`main.rs` is the empty path,
/// `a/mod.rs` is `a`), with its code: comments and the unit-test module removed.
fn modules_of(src: &std::path::Path) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    for path in rust_files(src) {
        let rel = path.strip_prefix(src).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        let text = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect();
        out.insert(module, code.join("\n"));
    }
    out
}

/// The module paths `text` (the code of `module`) names through `crate::` and `super::`,
/// each brace group's members as paths of their own.
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (at, _) in text.match_indices("::") {
        let before = &text[..at];
        let head_start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_word(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let head = &text[head_start..at];
        let preceded = text[..head_start]
            .chars()
            .next_back()
            .is_some_and(|c| is_word(c) || c == ':');
        if preceded || !(head == "crate" || head == "super") {
            continue;
        }
        let mut base: Vec<String> = if head == "crate" {
            Vec::new()
        } else {
            module[..module.len().saturating_sub(1)].to_vec()
        };
        let mut rest = &text[at + 2..];
        loop {
            let word: String = rest.chars().take_while(|c| is_word(*c)).collect();
            if word.is_empty() {
                break;
            }
            rest = &rest[word.len()..];
            if word == "super" {
                base.pop();
            } else {
                base.push(word);
            }
            match rest.strip_prefix("::") {
                Some(after) => rest = after,
                None => break,
            }
        }
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for member in inner.split(',') {
                let first: String = member.trim().chars().take_while(|c| is_word(*c)).collect();
                if !first.is_empty() && first != "self" {
                    let mut path = base.clone();
                    path.push(first);
                    out.push(path);
                }
            }
        }
        out.push(base);
    }
    out
}

/// The service reaches files only through `quire-store` (a root's files through `Root`, the
/// folders around roots through `quire_store::folders`): its code names no `std::fs`.
#[test]
fn the_service_reaches_files_only_through_the_store() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../quire-service/src");
    let faults: Vec<String> = modules_of(&src)
        .iter()
        .filter(|(_, code)| {
            [
                "std::fs",
                "fs::read",
                "fs::write",
                "File::open",
                "File::create",
            ]
            .iter()
            .any(|word| code.contains(word))
        })
        .map(|(module, _)| module.join("::"))
        .collect();
    assert!(
        faults.is_empty(),
        "quire-service modules that touch the filesystem themselves: {faults:?}"
    );
}

/// Every `.rs` file below `src`.
fn rust_files(src: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}
