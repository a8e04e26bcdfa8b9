//! `paths`: path normalisation (`quire_vault::PagePath`, relative link destinations joined to
//! a folder, link resolution) and percent-decoding (`quire_syntax::percent_decode`).
//!
//! The input's lines are paths, folders and link destinations. Properties: a `PagePath` never
//! leaves the root (no empty, `.` or `..` component, no leading `/`, no `\`, no NUL), is NFC,
//! and normalising it again gives it back; a joined relative destination is a valid path or
//! nothing, and joining it again from the root changes nothing; a link resolves only to a
//! file of the vault; percent-decoding inverts the link printer and never panics.

use std::sync::OnceLock;

use quire_syntax::{percent_decode, print_target, LinkKind};
use quire_vault::fuzzing::join_relative;
use quire_vault::{PagePath, Vault};
use unicode_normalization::is_nfc;

use crate::text::{lossy, tokens};
use crate::Target;

pub const TARGET: Target = Target {
    name: "paths",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "/",
        "//",
        "./",
        "../",
        "..",
        ".",
        "\\",
        "\\..\\",
        "%2e%2e/",
        "%2F",
        "%2f",
        "%00",
        "%",
        "%C3%A9",
        "%E2%80%A8",
        "%FF",
        "%c3",
        "\0",
        "a.md",
        "notes/",
        ".git/",
        ".quire/",
        ".quire/state/",
        "/etc/passwd",
        "C:\\",
        "file:///",
        "~",
        "e\u{301}",
        "é",
        "\u{212b}",
        "\u{fb01}",
        "\u{2024}",
        "\u{ff0e}\u{ff0e}/",
        " ",
        "\t",
        "#",
        "^",
        "|",
        "?",
        "\n",
    ])
}

fn vault() -> &'static Vault {
    static VAULT: OnceLock<Vault> = OnceLock::new();
    VAULT.get_or_init(|| {
        let mut vault = Vault::new();
        for path in [
            "index.md",
            "notes/a.md",
            "notes/sub/b.md",
            "notes/Café.md",
            "x y/z (1).md",
            "assets/pic.png",
            "b.md",
        ] {
            vault.upsert_page(PagePath::new(path).expect("a valid fixture path"), "# t\n");
        }
        vault
    })
}

/// The invariants of a valid path.
fn check_path(path: &PagePath, from: &str) {
    let text = path.as_str();
    assert!(!text.is_empty(), "an empty path from {from:?}");
    assert!(
        !text.starts_with('/') && !text.ends_with('/'),
        "{text:?} from {from:?}"
    );
    assert!(
        !text.contains('\\') && !text.contains('\0'),
        "{text:?} from {from:?}"
    );
    for segment in text.split('/') {
        assert!(
            !matches!(segment, "" | "." | ".."),
            "{text:?} (from {from:?}) has a {segment:?} component"
        );
    }
    assert!(is_nfc(text), "{text:?} from {from:?} is not NFC");
    assert_eq!(
        PagePath::new(text).as_ref(),
        Ok(path),
        "normalising {text:?} again"
    );
}

fn run(data: &[u8]) {
    let text = lossy(data);
    let lines: Vec<&str> = text.split('\n').take(16).collect();
    for line in &lines {
        if let Ok(path) = PagePath::new(line) {
            check_path(&path, line);
        }
        let decoded = percent_decode(line);
        if !line.contains('%') {
            assert_eq!(&decoded, line, "decoding text without escapes changed it");
        }
        for angle in [false, true] {
            let printed = print_target(LinkKind::Markdown, angle, line);
            assert_eq!(
                percent_decode(&printed),
                *line,
                "decoding the printed {printed:?}"
            );
        }
    }
    for pair in lines.windows(2) {
        let (folder, relative) = (pair[0], pair[1]);
        if let Ok(path) = PagePath::join(folder, relative) {
            check_path(&path, relative);
        }
        if let Some(joined) = join_relative(folder, relative) {
            // A folder that is a valid path stays inside the root.
            if PagePath::new(folder).is_ok() || folder.is_empty() {
                if let Ok(path) = PagePath::new(&joined) {
                    check_path(&path, relative);
                    assert_eq!(
                        join_relative("", path.as_str()).as_deref(),
                        Some(path.as_str()),
                        "joining {joined:?} again"
                    );
                }
                assert!(
                    !joined.split('/').any(|s| s == ".."),
                    "{relative:?} from {folder:?} joined to {joined:?}"
                );
            }
        }
        let vault = vault();
        let Ok(from) = PagePath::new(folder) else {
            continue;
        };
        for resolution in [
            vault.resolve_wiki(&from, relative),
            vault.resolve_markdown(&from, relative),
            vault.resolve_canvas(relative),
        ] {
            // An empty target is a link to the page it is written in.
            if let Some(path) = resolution.path().filter(|p| *p != &from) {
                assert!(
                    vault.contains(path),
                    "{relative:?} resolved to {path}, not in the vault"
                );
            }
        }
    }
}
