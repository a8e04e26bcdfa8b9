//! Markdown destinations whose parentheses the target and the fragment share.

mod support;

use quire_restructure::{parse_manifest, plan, ManifestFormat, PlanOptions, Planned};
use quire_vault::PagePath;
use support::MemoryRoot;

/// A page named `a(b.md` with a heading `c)`: in `[t](a(b.md#c))` the fragment's `)` is
/// balanced by the target's `(`. Renamed to a name without parentheses, the link used to lose
/// its fragment's `)` (the destination ended there and a stray `)` followed); every link keeps
/// its page and its fragment.
#[test]
fn a_fragment_whose_parenthesis_the_old_target_balanced_is_kept_when_the_page_moves() {
    let mut root = MemoryRoot::default();
    root.insert("a(b.md", "# A\n\n## c)\n\nText.\n");
    let source = "See [t](a(b.md#c)) and [u](<a(b.md#c)>) and [r].\n\n[r]: a(b.md#c)\n";
    root.insert("x.md", source);
    let before = support::links_of(&PagePath::new("x.md").unwrap(), source);
    assert_eq!(before.len(), 3, "{before:?}");

    let manifest = r#"{"moves": [{"from": "a(b.md", "to": "notes/n.md"}]}"#;
    let manifest = parse_manifest(manifest.as_bytes(), ManifestFormat::Json).unwrap();
    let vault = root.vault();
    let Planned { plan, ops } = plan(&root.workspace(&vault), &manifest, &PlanOptions::default());
    assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
    root.apply(&ops).unwrap();

    let x = PagePath::new("x.md").unwrap();
    let text = root.files[&x].clone();
    let after = support::links_of(&x, &text);
    assert_eq!(after.len(), 3, "{text}");
    for link in &after {
        assert_eq!(link.target, "notes/n.md", "{text}");
        assert_eq!(link.fragment.as_deref(), Some("c)"), "{text}");
    }
    assert!(
        text.ends_with(" and [r].\n\n[r]: notes/n.md#c\\)\n"),
        "{text}"
    );
}

/// A rename whose printed target would turn the text around a link into another link (taking
/// out the `<` that kept an angle destination from closing) is refused for that page, with
/// the reason, and nothing is written.
#[test]
fn a_rename_that_would_turn_text_around_a_link_into_a_link_is_refused() {
    let mut root = MemoryRoot::default();
    root.insert("x<.png", "png");
    root.insert("y.png", "png");
    root.insert(
        "p.md",
        "[t](<\") ![i](x<.png) [t](aa b.md>) and [[other]]\n",
    );
    root.insert("other.md", "# Other\n");
    let manifest = r#"{"moves": [{"from": "x<.png", "to": "img/x.png"}]}"#;
    let manifest = parse_manifest(manifest.as_bytes(), ManifestFormat::Json).unwrap();
    let vault = root.vault();
    let Planned { plan, .. } = plan(&root.workspace(&vault), &manifest, &PlanOptions::default());
    assert!(
        plan.errors
            .iter()
            .any(|e| e.contains("`p.md`") && e.contains("would")),
        "{:?}",
        plan.errors
    );
    assert!(
        plan.rejected.iter().any(|r| r.path == "p.md"),
        "{:?}",
        plan.rejected
    );
}
