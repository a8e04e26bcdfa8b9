//! Frontmatter edited line by line through a manifest: on real-world frontmatter shapes
//! (comments, anchors and aliases, multi-line strings, flow and block lists, nested maps,
//! CRLF line endings, odd alignment) every byte outside the changed key's line survives.

mod support;

use quire_restructure::{plan, EditEntry, Manifest, PlanOptions, Select};
use quire_vault::PagePath;

use support::MemoryRoot;

const SHAPES: &[(&str, &str)] = &[
    (
        "comments",
        "---\n# leading comment\ntitle:   Aligned   # trailing comment\nstatus: draft # keep me\n\n# between keys\ntags: [a, b]\n---\nBody\n",
    ),
    (
        "anchors",
        "---\nbase: &base\n  owner: alice\n  team: core\nstatus: draft\nderived:\n  <<: *base\n  team: docs\n---\n# Page\n",
    ),
    (
        "multiline",
        "---\nsummary: |\n  First line\n    indented line\n  last line\nstatus: draft\nnote: >-\n  folded\n  text\n---\nBody text\n",
    ),
    (
        "flow",
        "---\n{title: Flow style, status: draft}\n---\nBody\n",
    ),
    (
        "lists",
        "---\nstatus: draft\naliases:\n  - One\n  - \"Two: quoted\"\ntags:\n- x\n- y\n---\nBody\n",
    ),
    (
        "crlf",
        "---\r\ntitle: Windows\r\nstatus: draft\r\nother: 'single quoted'\r\n---\r\nBody\r\n",
    ),
    (
        "quoted",
        "---\n\"title\": \"Quoted key\"\nstatus: 'draft'\nempty:\nnumber: 0012\ndate: 2024-01-02\n---\n",
    ),
];

fn edit(text: &str, entry: EditEntry) -> String {
    let mut root = MemoryRoot::default();
    root.insert("page.md", text);
    let vault = root.vault();
    let ws = root.workspace(&vault);
    let manifest = Manifest {
        edits: vec![entry],
        ..Manifest::default()
    };
    let planned = plan(&ws, &manifest, &PlanOptions::default());
    assert!(planned.plan.errors.is_empty(), "{:?}", planned.plan.errors);
    let mut after = root.clone();
    after.apply(&planned.ops).expect("apply");
    after.files[&PagePath::new("page.md").unwrap()].clone()
}

fn select() -> Select {
    Select {
        paths: vec!["page.md".into()],
        ..Select::default()
    }
}

/// The line of `key` (a single-line top-level key) in `text`, with its line ending.
fn key_line<'t>(text: &'t str, key: &str) -> &'t str {
    text.split_inclusive('\n')
        .find(|line| line.starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no `{key}` line"))
}

#[test]
fn setting_a_key_rewrites_only_its_line() {
    for (name, text) in SHAPES {
        if *name == "flow" {
            continue;
        }
        let out = edit(
            text,
            EditEntry {
                select: select(),
                set: [("status".to_owned(), serde_json::json!("done"))].into(),
                ..EditEntry::default()
            },
        );
        let old = key_line(text, "status");
        let newline = if old.ends_with("\r\n") { "\r\n" } else { "\n" };
        let keep_comment = old.find(" #").map(|i| old[i..].trim_end()).unwrap_or("");
        let new = key_line(&out, "status");
        assert!(new.starts_with("status: done"), "{name}: {new:?}");
        assert!(new.ends_with(newline), "{name}: line ending kept");
        if !keep_comment.is_empty() {
            assert!(new.contains(keep_comment), "{name}: comment kept: {new:?}");
        }
        assert_eq!(
            out.replacen(new, old, 1),
            *text,
            "{name}: other bytes changed"
        );
    }
}

#[test]
fn adding_a_key_inserts_one_line_before_the_fence() {
    for (name, text) in SHAPES {
        if *name == "flow" {
            continue;
        }
        let out = edit(
            text,
            EditEntry {
                select: select(),
                set: [("reviewed".to_owned(), serde_json::json!(true))].into(),
                ..EditEntry::default()
            },
        );
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let added = format!("reviewed: true{newline}");
        assert!(out.contains(&added), "{name}: {out:?}");
        assert_eq!(
            out.replacen(&added, "", 1),
            *text,
            "{name}: other bytes changed"
        );
    }
}

#[test]
fn unsetting_a_key_removes_only_its_lines() {
    for (name, text) in SHAPES {
        if *name == "flow" {
            continue;
        }
        let out = edit(
            text,
            EditEntry {
                select: select(),
                unset: vec!["status".into()],
                ..EditEntry::default()
            },
        );
        let old = key_line(text, "status");
        assert_eq!(out, text.replacen(old, "", 1), "{name}");
    }
}

#[test]
fn flow_mapping_frontmatter_is_rewritten_only_when_a_key_changes() {
    let text = SHAPES.iter().find(|(n, _)| *n == "flow").unwrap().1;
    let out = edit(
        text,
        EditEntry {
            select: select(),
            set: [("status".to_owned(), serde_json::json!("draft"))].into(),
            ..EditEntry::default()
        },
    );
    assert_eq!(out, text, "setting an equal value changes nothing");
}

/// Found by the `frontmatter_edit` fuzz target: unsetting a key whose anchor an alias still
/// names cannot be done in YAML; the page is refused (nothing written) rather than left with
/// unreadable frontmatter.
#[test]
fn unsetting_an_anchored_key_that_an_alias_names_refuses_the_page() {
    let text = SHAPES.iter().find(|(n, _)| *n == "anchors").unwrap().1;
    let mut root = MemoryRoot::default();
    root.insert("page.md", text);
    let vault = root.vault();
    let ws = root.workspace(&vault);
    let manifest = Manifest {
        edits: vec![EditEntry {
            select: select(),
            unset: vec!["base".to_owned()],
            ..EditEntry::default()
        }],
        ..Manifest::default()
    };
    let planned = plan(&ws, &manifest, &PlanOptions::default());
    assert!(planned.ops.is_empty(), "{:?}", planned.ops);
    let rejected: Vec<_> = planned
        .plan
        .rejected
        .iter()
        .map(|r| format!("{r:?}"))
        .collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(rejected[0].contains("unreadable"), "{rejected:?}");
}
