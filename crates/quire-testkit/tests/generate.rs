//! Behaviour of the public generator API: determinism, counts, link styles, sidecars.

use std::collections::HashSet;
use std::fs;

use quire_testkit::{generate, seed_from_env, GeneratedVault, LinkStyle, VaultSpec};

fn vault(pages: usize) -> GeneratedVault {
    generate(&VaultSpec::new(seed_from_env(20_240_101), pages))
}

fn page_texts(vault: &GeneratedVault) -> Vec<(&str, &str)> {
    vault
        .pages()
        .map(|page| (page.path.as_str(), page.text().expect("pages are UTF-8")))
        .collect()
}

#[test]
fn same_seed_gives_byte_identical_vault() {
    let spec = VaultSpec::new(seed_from_env(11), 150).with_hub(20);
    assert_eq!(generate(&spec), generate(&spec));
}

#[test]
fn different_seeds_give_different_vaults() {
    let seed = seed_from_env(11);
    let a = generate(&VaultSpec::new(seed, 150));
    let b = generate(&VaultSpec::new(seed.wrapping_add(1), 150));
    assert_ne!(a.files, b.files);
}

#[test]
fn page_count_equals_spec_for_any_size_and_depth() {
    let seed = seed_from_env(3);
    for pages in [0, 1, 2, 7, 8, 60, 250] {
        for depth in [0, 1, 3, 6] {
            for hub in [0, 5] {
                let mut spec = VaultSpec::new(seed, pages).with_hub(hub);
                spec.folders_depth = depth;
                let vault = generate(&spec);
                assert_eq!(vault.pages().count(), pages, "pages {pages} depth {depth}");
                assert_eq!(vault.page_paths().len(), pages);
                let deepest = vault
                    .page_paths()
                    .iter()
                    .map(|path| path.matches('/').count())
                    .max()
                    .unwrap_or(0);
                assert!(deepest <= depth, "depth {deepest} > {depth}");
            }
        }
    }
}

#[test]
fn paths_are_sorted_unique_root_relative_and_precomposed() {
    let vault = generate(&VaultSpec::new(seed_from_env(5), 400).with_hub(30));
    let paths: Vec<&str> = vault.files.iter().map(|file| file.path.as_str()).collect();
    assert!(
        paths.windows(2).all(|pair| pair[0] < pair[1]),
        "sorted, unique"
    );
    let mut folded = HashSet::new();
    for path in &paths {
        assert!(!path.starts_with('/') && !path.contains('\\'), "{path}");
        assert!(path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != ".."));
        // Combining marks (U+0300–U+036F) would mean a decomposed (NFD) name.
        assert!(
            !path.chars().any(|c| ('\u{300}'..='\u{36f}').contains(&c)),
            "{path}"
        );
        assert!(
            folded.insert(path.to_lowercase()),
            "case-only clash: {path}"
        );
    }
    assert!(
        paths.iter().any(|path| !path.is_ascii()),
        "some Unicode names"
    );
    assert!(
        paths.iter().any(|path| path.contains(' ')),
        "some names with spaces"
    );
}

#[test]
fn links_per_page_are_near_the_average() {
    let seed = seed_from_env(8);
    for average in [4, 10, 25] {
        let mut spec = VaultSpec::new(seed, 300);
        spec.links_per_page = average;
        let vault = generate(&spec);
        // Rough count of link openers; decoys in code add a few, autolinks miss a few.
        let openers: usize = page_texts(&vault)
            .iter()
            .map(|(_, text)| text.matches("[[").count() + text.matches("](").count())
            .sum();
        let per_page = openers as f64 / 300.0;
        let expected = average as f64;
        assert!(
            per_page > expected * 0.7 && per_page < expected * 1.2 + 2.0,
            "average {average}: {per_page:.2} openers per page"
        );
        let counted: usize = LinkStyle::ALL.iter().map(|s| vault.link_count(*s)).sum();
        let written = (counted - vault.link_count(LinkStyle::Canvas)) as f64 / 300.0;
        assert!(
            (written - expected).abs() < expected * 0.08,
            "average {average}: {written:.2} links written per page"
        );
    }
}

#[test]
fn duplicate_page_names_live_in_different_folders() {
    let vault = vault(200);
    for name in ["index.md", "notes.md"] {
        let holders: Vec<&str> = vault
            .page_paths()
            .into_iter()
            .filter(|path| path.rsplit('/').next() == Some(name))
            .collect();
        assert!(holders.len() >= 2, "{name}: {holders:?}");
    }
}

#[test]
fn every_link_style_appears_in_a_200_page_vault() {
    let vault = vault(200);
    for style in LinkStyle::ALL {
        assert!(vault.link_count(style) > 0, "{style:?} missing");
    }
    let all: String = page_texts(&vault).iter().map(|(_, text)| *text).collect();
    let expected = [
        ("wiki relative ./", "[[./"),
        ("wiki relative ../", "[[../"),
        ("wiki rooted path", "[[/"),
        ("wiki path with .md", ".md]]"),
        ("wiki block", "#^"),
        ("wiki local heading", "[[#"),
        ("embed", "![["),
        ("image embed", ".png]]"),
        ("sized image embed", ".png|320]]"),
        ("pdf embed", ".pdf]]"),
        ("markdown rooted", "](/"),
        ("markdown relative up", "](../"),
        ("markdown relative dot", "](./"),
        ("markdown angle", "](<"),
        ("percent-encoded space", "%20"),
        ("markdown title", ".md \""),
        ("reference use", "]["),
        ("reference definition", "\n["),
        ("markdown image", ".png)"),
        ("external", "](https://"),
        ("autolink", "<https://"),
        ("mailto", "](mailto:"),
        ("broken", "issing"),
        ("escaped pipe in table", "\\|"),
        ("frontmatter up", "up: \"[["),
        ("frontmatter related", "related:"),
        ("frontmatter comment", "\n# metadata"),
        ("table", "| :--- |"),
        ("setext title", "\n==="),
        ("ATX level 3", "\n### "),
        ("inline tag", " #"),
        ("task list", "- [ ] "),
        ("fenced code", "```"),
        ("tilde fence", "~~~"),
        ("inline code link", "`[["),
        ("html comment link", "<!-- moved from [["),
        ("multi-line html comment", "<!--\nTODO: merge [["),
    ];
    for (what, needle) in expected {
        assert!(all.contains(needle), "{what}: {needle:?} not found");
    }
    let utf8_escape = all
        .match_indices('%')
        .any(|(at, _)| all[at + 1..].starts_with(['8', '9', 'A', 'B', 'C', 'D', 'E', 'F']));
    assert!(utf8_escape, "percent-encoded UTF-8 byte");
    let definitions = all
        .lines()
        .filter(|line| line.starts_with('[') && line.contains("]: "));
    assert!(definitions.count() > 0, "reference definitions");
}

#[test]
fn block_ids_and_headings_that_links_name_exist() {
    let vault = vault(200);
    let texts = page_texts(&vault);
    let block_links = texts
        .iter()
        .flat_map(|(_, text)| text.match_indices("#^"))
        .count();
    assert!(block_links > 0);
    for (_, text) in &texts {
        for (at, _) in text.match_indices("#^") {
            let id: String = text[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let anchor = format!(" ^{id}\n");
            assert!(
                texts.iter().any(|(_, other)| other.contains(&anchor)),
                "block id {id} exists somewhere"
            );
        }
    }
}

#[test]
fn most_pages_have_frontmatter_and_some_do_not() {
    let vault = vault(200);
    let with = page_texts(&vault)
        .iter()
        .filter(|(_, text)| text.starts_with("---\n"))
        .count();
    assert!((140..200).contains(&with), "{with} of 200 with frontmatter");
}

#[test]
fn about_five_percent_of_body_links_are_broken() {
    let vault = vault(1000);
    let body: usize = LinkStyle::ALL
        .iter()
        .filter(|style| !matches!(style, LinkStyle::Frontmatter | LinkStyle::Canvas))
        .map(|style| vault.link_count(*style))
        .sum();
    let broken = vault.link_count(LinkStyle::Broken) as f64 / body as f64;
    assert!((0.03..0.07).contains(&broken), "{broken:.3} broken");
}

#[test]
fn hub_has_the_requested_backlinks_and_no_others() {
    let cases = [(300, 50, 50), (40, 500, 39), (10, 1, 1)];
    for (pages, asked, expected) in cases {
        let vault = generate(&VaultSpec::new(seed_from_env(9), pages).with_hub(asked));
        let hub = vault.hub().expect("hub requested");
        assert!(hub.ends_with("Knowledge Hub.md"), "{hub}");
        // Every style of hub link spells the name with "knowledge" in some case.
        let linking = page_texts(&vault)
            .iter()
            .filter(|(path, text)| *path != hub && text.to_lowercase().contains("knowledge"))
            .count();
        assert_eq!(linking, expected, "{pages} pages, {asked} asked");
        let canvases_and_state = vault
            .files
            .iter()
            .filter(|file| file.path.ends_with(".canvas.json"))
            .filter(|file| {
                file.text()
                    .is_some_and(|text| text.contains("Knowledge Hub"))
            })
            .count();
        assert_eq!(canvases_and_state, 0);
    }
    assert_eq!(vault(50).hub(), None);
}

#[test]
fn assets_are_png_images_and_one_pdf() {
    let vault = vault(200);
    let assets: Vec<_> = vault
        .files
        .iter()
        .filter(|f| f.path.starts_with("assets/"))
        .collect();
    assert_eq!(assets.len(), 10);
    let pdfs = assets.iter().filter(|f| f.path.ends_with(".pdf")).count();
    assert_eq!(pdfs, 1);
    for asset in assets.iter().filter(|f| f.path.ends_with(".png")) {
        assert!(
            asset.content.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{}",
            asset.path
        );
        assert!(
            asset.content.ends_with(b"IEND\xae\x42\x60\x82"),
            "{}",
            asset.path
        );
    }
}

/// The string values of `"key": "value"` pairs in a JSON text (enough for paths here).
fn json_strings<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    let needle = format!("\"{key}\": \"");
    text.match_indices(&needle)
        .map(|(at, _)| {
            let start = at + needle.len();
            &text[start..start + text[start..].find('"').expect("closing quote")]
        })
        .collect()
}

#[test]
fn comments_cover_five_percent_of_pages_and_name_their_page() {
    let vault = vault(200);
    let pages: HashSet<&str> = vault.page_paths().into_iter().collect();
    let comment_files: Vec<_> = vault
        .files
        .iter()
        .filter(|f| f.path.starts_with(".quire/comments/"))
        .collect();
    assert_eq!(comment_files.len(), 10);
    for file in comment_files {
        let page = file.path["/.quire/comments".len()..]
            .strip_suffix(".json")
            .unwrap();
        assert!(pages.contains(page), "{page}");
        let text = file.text().unwrap();
        assert!(text.starts_with("[\n") && text.ends_with("]\n"));
        for key in [
            "\"id\"",
            "\"line\"",
            "\"author\"",
            "\"body\"",
            "\"resolved\"",
            "\"created\"",
        ] {
            assert!(text.contains(key), "{key} in {}", file.path);
        }
        assert!(json_strings(text, "path").iter().all(|path| *path == page));
    }
}

#[test]
fn personal_state_of_two_actors_names_existing_pages() {
    let vault = vault(200);
    let pages: HashSet<&str> = vault.page_paths().into_iter().collect();
    for actor in ["alice", "bob"] {
        let file = vault
            .file(&format!(".quire/personal/{actor}.json"))
            .expect("state file");
        let text = file.text().unwrap();
        assert!(text.contains("\"pages\": {") && text.contains("\"recent\": ["));
        assert!(text.contains("{\"starred\": true"));
        let quoted: Vec<&str> = text
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|s| s.ends_with(".md"))
            .collect();
        assert!(quoted.len() >= 8);
        assert!(quoted.iter().all(|path| pages.contains(path)), "{quoted:?}");
    }
}

#[test]
fn canvases_reference_existing_pages() {
    let vault = vault(200);
    let pages: HashSet<&str> = vault.page_paths().into_iter().collect();
    let canvases: Vec<_> = vault
        .files
        .iter()
        .filter(|f| f.path.ends_with(".canvas.json"))
        .collect();
    assert!(!canvases.is_empty() && canvases.len() <= 2);
    for canvas in canvases {
        let text = canvas.text().unwrap();
        assert!(text.contains("\"nodes\": [") && text.contains("\"edges\": ["));
        let files = json_strings(text, "file");
        assert!(!files.is_empty());
        assert!(files.iter().all(|path| pages.contains(path)), "{files:?}");
    }
}

#[test]
fn write_to_writes_every_file() {
    let vault = generate(&VaultSpec::new(seed_from_env(4), 60));
    let dir = std::env::temp_dir().join(format!("quire-testkit-write-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    vault.write_to(&dir).unwrap();
    for file in &vault.files {
        assert_eq!(
            fs::read(dir.join(&file.path)).unwrap(),
            file.content,
            "{}",
            file.path
        );
    }
    let mut on_disk = 0;
    let mut stack = vec![dir.clone()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(folder).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                on_disk += 1;
            }
        }
    }
    assert_eq!(on_disk, vault.files.len());
    assert_eq!(
        vault.total_bytes(),
        vault.files.iter().map(|f| f.content.len()).sum::<usize>()
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn file_lookup_finds_generated_paths_only() {
    let vault = vault(50);
    for path in vault.page_paths() {
        assert_eq!(vault.file(path).map(|f| f.path.as_str()), Some(path));
    }
    assert!(vault.file("no/such/page.md").is_none());
}

#[test]
fn seed_from_env_falls_back_to_default() {
    let expected = match std::env::var("QUIRE_TEST_SEED") {
        Ok(text) if !text.trim().is_empty() => seed_from_env(0),
        _ => 1234,
    };
    assert_eq!(seed_from_env(1234), expected);
}
