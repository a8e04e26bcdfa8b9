//! An incrementally updated vault answers exactly like one built from scratch.

use proptest::prelude::*;
use quire_vault::{PagePath, Vault};

const POOL: &[&str] = &[
    "a.md",
    "a",
    "b/a.md",
    "b/A.md",
    "c/b/a.md",
    "b/a",
    "my-note.md",
    "x/My Note.md",
    "x/my_note.md",
    "x/y/z.md",
    "img.png",
    "b/img.png",
    "caf\u{e9}.md",
    "x/b/a.md",
];

const WIKI_TARGETS: &[&str] = &[
    "a",
    "a.md",
    "b/a",
    "/b/a",
    "./a",
    "../a",
    "A",
    "my note",
    "My-Note",
    "x/my note",
    "z",
    "y/z",
    "img.png",
    "cafe\u{301}",
    "",
];

const MARKDOWN_TARGETS: &[&str] = &["a", "a.md", "../a.md", "/b/a", "img.png", "y/z.md", "A.md"];

fn path(text: &str) -> PagePath {
    PagePath::new(text).unwrap()
}

/// Every answer the vault gives for the pool, as comparable text.
fn answers(vault: &Vault) -> Vec<String> {
    let mut out: Vec<String> = vault.files().map(|p| p.to_string()).collect();
    for from in POOL {
        let from = path(from);
        for target in WIKI_TARGETS {
            out.push(format!("{:?}", vault.resolve_wiki(&from, target)));
        }
        for dest in MARKDOWN_TARGETS {
            out.push(format!("{:?}", vault.resolve_markdown(&from, dest)));
        }
        out.push(format!("{:?}", vault.title(&from)));
    }
    out
}

/// Insert (true) or remove (false) one pool entry.
fn ops() -> impl Strategy<Value = Vec<(bool, usize)>> {
    proptest::collection::vec((any::<bool>(), 0..POOL.len()), 0..60)
}

proptest! {
    #[test]
    fn incremental_updates_answer_like_a_fresh_build(ops in ops()) {
        let mut incremental = Vault::new();
        let mut present = std::collections::BTreeSet::new();
        for (insert, i) in ops {
            let p = path(POOL[i]);
            if insert {
                incremental.insert_file(p);
                present.insert(i);
            } else {
                incremental.remove(&p);
                present.remove(&i);
            }
        }
        let fresh: Vault = present.iter().map(|&i| path(POOL[i])).collect();
        prop_assert_eq!(incremental.len(), fresh.len());
        prop_assert_eq!(answers(&incremental), answers(&fresh));
    }
}

#[test]
fn removing_every_file_leaves_nothing_resolvable() {
    let mut vault: Vault = POOL.iter().map(|p| path(p)).collect();
    for p in POOL {
        assert!(vault.remove(&path(p)), "{p}");
    }
    assert!(vault.is_empty());
    let from = path("a.md");
    for target in WIKI_TARGETS.iter().filter(|t| !t.is_empty()) {
        assert!(!vault.resolve_wiki(&from, target).is_resolved(), "{target}");
    }
}
