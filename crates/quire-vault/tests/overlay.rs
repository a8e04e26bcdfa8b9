//! An overlay answers exactly like a vault rebuilt with its changes, and a memo exactly
//! like the vault or overlay it asks.

use proptest::prelude::*;
use quire_syntax::LinkKind;
use quire_vault::{Answer, Memo, Overlay, PagePath, Vault};

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
    "x/a.md",
    "x/y/a.md",
];

const TARGETS: &[(LinkKind, &str)] = &[
    (LinkKind::Wiki, "a"),
    (LinkKind::Wiki, " a "),
    (LinkKind::Wiki, "a.md"),
    (LinkKind::Wiki, "b/a"),
    (LinkKind::Wiki, "/b/a"),
    (LinkKind::Wiki, "./a"),
    (LinkKind::Wiki, "../a"),
    (LinkKind::Wiki, "A"),
    (LinkKind::Wiki, "my note"),
    (LinkKind::Wiki, "My-Note"),
    (LinkKind::Wiki, "x/my note"),
    (LinkKind::Wiki, "y/z"),
    (LinkKind::Wiki, "img.png"),
    (LinkKind::Wiki, "cafe\u{301}"),
    (LinkKind::Wiki, ""),
    (LinkKind::Markdown, "a"),
    (LinkKind::Markdown, "a.md"),
    (LinkKind::Markdown, "../a.md"),
    (LinkKind::Markdown, "/b/a"),
    (LinkKind::Markdown, "img.png"),
    (LinkKind::Markdown, ""),
    (LinkKind::Canvas, "x/y/z.md"),
    (LinkKind::Canvas, "/b/img.png"),
];

fn path(text: &str) -> PagePath {
    PagePath::new(text).unwrap()
}

fn pool(indices: &[usize]) -> Vec<PagePath> {
    indices.iter().map(|&i| path(POOL[i])).collect()
}

fn subset() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0..POOL.len(), 0..POOL.len())
}

proptest! {
    #[test]
    fn overlay_answers_like_a_rebuilt_vault(
        before in subset(),
        removed in subset(),
        added in subset(),
    ) {
        let base: Vault = pool(&before).into_iter().collect();
        let overlay = Overlay::new(&base, pool(&removed), pool(&added));
        let mut rebuilt = base.clone();
        for gone in pool(&removed) {
            rebuilt.remove(&gone);
        }
        rebuilt.extend(pool(&added));
        let memo = Memo::of_overlay(&overlay);
        for from in POOL.iter().map(|p| path(p)) {
            prop_assert_eq!(overlay.contains(&from), rebuilt.contains(&from), "{}", from);
            for &(kind, target) in TARGETS {
                let want = rebuilt.resolve_target(&from, kind, target);
                prop_assert_eq!(
                    &overlay.resolve_target(&from, kind, target),
                    &want,
                    "{} {:?} {:?}",
                    from,
                    kind,
                    target
                );
                prop_assert_eq!(memo.answer(&from, kind, target), Answer::from(want));
            }
        }
    }
}

#[test]
fn memo_answers_many_hit_targets_like_the_vault_from_every_folder() {
    let mut vault = Vault::new();
    for i in 0..40 {
        vault.insert_file(path(&format!("f{}/g{}/index.md", i % 7, i)));
    }
    vault.insert_file(path("index.md"));
    vault.insert_file(path("f3/index.md"));
    vault.insert_file(path("f3 b/index.md"));
    let removed = [path("index.md"), path("f3/g3/index.md")];
    let added = [path("f5/index.md"), path("f3/g3/index.md")];
    let overlay = Overlay::new(&vault, removed.clone(), added.clone());
    let mut rebuilt = vault.clone();
    for gone in &removed {
        rebuilt.remove(gone);
    }
    rebuilt.extend(added);
    let before = Memo::of_vault(&vault);
    let after = Memo::of_overlay(&overlay);
    // Twice: the first round fills the memo, the second answers from it.
    for _ in 0..2 {
        for from in [
            "f3/g3/a.md",
            "f5/a.md",
            "a.md",
            "f3/a.md",
            "f1/g8/a.md",
            "f3 b/a.md",
        ] {
            let from = path(from);
            for target in ["index", "Index", "index.md", "g3/index", "INDEX"] {
                let kind = LinkKind::Wiki;
                assert_eq!(
                    before.answer(&from, kind, target),
                    Answer::from(vault.resolve_wiki(&from, target)),
                    "before {from} {target}"
                );
                assert_eq!(
                    after.answer(&from, kind, target),
                    Answer::from(rebuilt.resolve_wiki(&from, target)),
                    "after {from} {target}"
                );
            }
        }
    }
}

#[test]
fn a_file_moved_onto_a_vacated_path_is_there() {
    let vault: Vault = ["a.md", "b.md"].map(path).into_iter().collect();
    let overlay = Overlay::new(&vault, [path("a.md"), path("b.md")], [path("a.md")]);
    assert!(overlay.contains(&path("a.md")));
    assert!(!overlay.contains(&path("b.md")));
    let from = path("x.md");
    assert_eq!(overlay.resolve_wiki(&from, "a").path(), Some(&path("a.md")));
    assert!(!overlay.resolve_wiki(&from, "b").is_resolved());
    assert_eq!(overlay.base().len(), 2);
}
