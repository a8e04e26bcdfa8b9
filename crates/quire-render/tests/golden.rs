//! The HTML the renderer writes for each Obsidian-flavoured construct, checked against the
//! golden files in `tests/golden/` (`NAME.md` in, `NAME.html` out). `UPDATE_GOLDEN=1 cargo
//! test -p quire-render --test golden` writes them anew; review the diff before committing.

use std::collections::BTreeMap;
use std::path::Path;

use quire_render::{render, Embed, LinkRef, Resolver};

/// A small published site: pages by name and the assets beside them.
struct Site(BTreeMap<&'static str, &'static str>);

const ASSETS: [&str; 5] = [
    "diagram.png",
    "paper.pdf",
    "voice.mp3",
    "clip.mp4",
    "data.zip",
];

impl Resolver for Site {
    fn href(&mut self, _from: &str, link: LinkRef<'_>) -> Option<String> {
        let name = link.target.trim_end_matches(".md");
        if self.0.contains_key(name) || ASSETS.contains(&link.target) {
            Some(format!("/p/{name}"))
        } else {
            None
        }
    }

    fn embed(&mut self, _from: &str, link: LinkRef<'_>) -> Option<Embed> {
        if ASSETS.contains(&link.target) {
            return Some(Embed::Image {
                src: format!("/p/{}", link.target),
            });
        }
        let name = link.target.trim_end_matches(".md");
        let text = self.0.get(name)?;
        Some(Embed::Page {
            path: format!("{name}.md"),
            text: text.to_string(),
        })
    }
}

fn site() -> Site {
    Site(BTreeMap::from([
        (
            "source",
            "---\ntitle: Source\n---\n# Source\n\nOpening words.\n\nA sentence worth quoting\nacross two lines. ^quote-me\n\n## Method\n\nMix, then wait.\n\n### Detail\n\nStir gently.\n\n## Results\n\nNot embedded.\n\n- first point\n- second point ^point\n  - its child\n- third point\n",
        ),
        ("other", "# Other\n\nA plain page."),
    ]))
}

#[test]
fn every_construct_renders_as_its_golden_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "golden inputs missing: {inputs:?}");
    let mut failed = Vec::new();
    for input in inputs {
        let text = std::fs::read_to_string(&input).unwrap();
        let html = render("page.md", &text, &mut site());
        let golden = input.with_extension("html");
        if update {
            std::fs::write(&golden, &html).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if want != html {
            failed.push(format!(
                "{}:\n--- want\n{want}\n--- got\n{html}",
                golden.display()
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
