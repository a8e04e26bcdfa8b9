//! Resolution rules of DECISIONS §3, one table row per rule and tie-break.

use quire_vault::{PagePath, Resolution, Vault};

/// Which resolver a row exercises.
#[derive(Debug, Clone, Copy)]
enum Family {
    Wiki,
    Markdown,
    Canvas,
}

fn path(text: &str) -> PagePath {
    PagePath::new(text).unwrap_or_else(|e| panic!("{e}"))
}

fn vault(files: &str) -> Vault {
    files.split(',').map(|f| path(f.trim())).collect()
}

/// `path Step` or `path Step | candidate candidate`, or `unresolved`.
fn render(resolution: &Resolution) -> String {
    match resolution {
        Resolution::Unresolved => "unresolved".to_owned(),
        Resolution::Resolved {
            path,
            step,
            candidates,
        } => {
            let mut out = format!("{path} {step:?}");
            if !candidates.is_empty() {
                out.push_str(" |");
                for c in candidates {
                    out.push(' ');
                    out.push_str(c.as_str());
                }
            }
            out
        }
    }
}

/// Row: (what it shows, files separated by commas, from, target, expected rendering).
type Row<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

fn check(family: Family, rows: &[Row]) {
    let mut failures = Vec::new();
    for (what, files, from, target, expected) in rows {
        let vault = vault(files);
        let from = path(from);
        let got = match family {
            Family::Wiki => vault.resolve_wiki(&from, target),
            Family::Markdown => vault.resolve_markdown(&from, target),
            Family::Canvas => vault.resolve_canvas(target),
        };
        let got = render(&got);
        if got != *expected {
            failures.push(format!(
                "{what}: {target:?} from {from}\n  expected {expected}\n  got      {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
#[rustfmt::skip] // one table row per line
fn wiki_path_targets_try_exact_then_relative_then_suffix() {
    check(
        Family::Wiki,
        &[
            ("exact path without .md", "a/b.md, x/a/b.md", "r.md", "a/b", "a/b.md ExactPath"),
            ("exact path with .md", "a/b.md, x/a/b.md", "r.md", "a/b.md", "a/b.md ExactPath"),
            ("exact path of a non-page file", "img/p.png", "r.md", "img/p.png", "img/p.png ExactPath"),
            ("exact path beats suffix from a deeper folder", "a/b.md, x/a/b.md", "x/y.md", "a/b", "a/b.md ExactPath"),
            ("file and page of one stem tie at exact path", "a/b, a/b.md", "r.md", "a/b", "a/b ExactPath | a/b.md"),
            ("leading slash marks the root", "a/b.md, x/a/b.md", "x/y.md", "/a/b", "a/b.md ExactPath"),
            ("leading slash on a root file", "top.md", "x/y.md", "/top", "top.md ExactPath"),
            ("leading slash never matches a suffix", "x/a/b.md", "r.md", "/a/b", "unresolved"),
            ("dot slash is relative to the source folder", "x/c.md, c.md", "x/y.md", "./c", "x/c.md Relative"),
            ("dot slash with .md", "x/c.md", "x/y.md", "./c.md", "x/c.md Relative"),
            ("dot dot climbs one folder", "c.md, x/c.md", "x/y.md", "../c", "c.md Relative"),
            ("dot dot then down", "s/c.md", "x/y/z.md", "../../s/c", "s/c.md Relative"),
            ("dot dot above the root is unresolved", "c.md", "y.md", "../c", "unresolved"),
            ("relative target missing is unresolved", "c.md", "x/y.md", "./c", "unresolved"),
            ("path suffix", "deep/a/b.md", "r.md", "a/b", "deep/a/b.md PathSuffix"),
            ("path suffix with .md", "deep/a/b.md", "r.md", "a/b.md", "deep/a/b.md PathSuffix"),
            ("path suffix of a non-page file", "img/x/pic.png", "r.md", "x/pic.png", "img/x/pic.png PathSuffix"),
            ("suffix must start at a folder boundary", "xa/b.md", "r.md", "a/b", "unresolved"),
            ("suffix ties: fewest segments first", "q/r/a/b.md, p/a/b.md", "z.md", "a/b", "p/a/b.md PathSuffix | q/r/a/b.md"),
            ("suffix ties: same folder first", "p/a/b.md, q/r/a/b.md", "q/r/a/n.md", "a/b", "q/r/a/b.md PathSuffix | p/a/b.md"),
            ("trailing slash names a folder, not a file", "a/b.md", "r.md", "a/", "unresolved"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn wiki_bare_names_match_name_or_page_stem() {
    check(
        Family::Wiki,
        &[
            ("bare name matches a page stem", "n/note.md", "r.md", "note", "n/note.md Name"),
            ("bare name with .md matches the page name", "n/note.md", "r.md", "note.md", "n/note.md Name"),
            ("image keeps its extension", "assets/image.png", "r.md", "image.png", "assets/image.png Name"),
            ("pdf keeps its extension", "doc.pdf", "x/r.md", "doc.pdf", "doc.pdf Name"),
            ("non-page file has no stem key", "assets/image.png", "r.md", "image", "unresolved"),
            ("canvas is matched by its full name", "b/plan.canvas.json", "r.md", "plan.canvas.json", "b/plan.canvas.json Name"),
            ("dots inside a page stem", "v/v1.2 notes.md", "r.md", "v1.2 notes", "v/v1.2 notes.md Name"),
            ("file without extension matches its name", "LICENSE", "r.md", "LICENSE", "LICENSE Name"),
            ("spaces around the target are layout", "note.md", "r.md", "  note ", "note.md Name"),
            ("missing name is unresolved", "note.md", "r.md", "missing", "unresolved"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn wiki_fuzzy_fallbacks_apply_only_when_exact_finds_nothing() {
    check(
        Family::Wiki,
        &[
            ("case-insensitive name", "Notes/My Note.md", "r.md", "my note", "Notes/My Note.md CaseInsensitive"),
            ("case-insensitive non-ascii", "Ärger.md", "r.md", "ärger", "Ärger.md CaseInsensitive"),
            ("case-insensitive exact path", "Projects/Alpha.md", "r.md", "projects/alpha", "Projects/Alpha.md CaseInsensitive"),
            ("case-insensitive suffix", "x/Projects/Alpha.md", "r.md", "projects/alpha", "x/Projects/Alpha.md CaseInsensitive"),
            ("case-insensitive relative", "x/Alpha.md", "x/y.md", "./alpha", "x/Alpha.md CaseInsensitive"),
            ("spaces find hyphens", "my-note.md", "r.md", "My Note", "my-note.md Separators"),
            ("underscores find hyphens", "my-note.md", "r.md", "my_note", "my-note.md Separators"),
            ("hyphens find spaces", "x/my note.md", "r.md", "my-note", "x/my note.md Separators"),
            ("runs count as one separator", "my-note.md", "r.md", "my - _note", "my-note.md Separators"),
            ("separators in a path", "projects/my-plan.md", "r.md", "Projects/My Plan", "projects/my-plan.md Separators"),
            ("separators in a relative path", "x/My-Note.md", "x/y.md", "./my note", "x/My-Note.md Separators"),
            ("exact case beats folded, even from another folder", "a/Note.md, b/note.md", "a/x.md", "note", "b/note.md Name"),
            ("case fallback beats separator fallback", "My_Note.md, my note.md", "r.md", "MY NOTE", "my note.md CaseInsensitive"),
            ("case ties are ambiguous", "a/NOTE.md, b/Note.md", "r.md", "note", "a/NOTE.md CaseInsensitive | b/Note.md"),
            ("a separator never appears from nothing", "mynote.md", "r.md", "my note", "unresolved"),
            ("dot dot above root stays unresolved when folded", "C.md", "y.md", "../c", "unresolved"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn wiki_ties_break_by_folder_then_segments_then_bytes() {
    check(
        Family::Wiki,
        &[
            ("same folder beats fewer segments", "note.md, a/b/note.md", "a/b/x.md", "note", "a/b/note.md Name | note.md"),
            ("same folder at the root", "note.md, a/note.md", "y.md", "note", "note.md Name | a/note.md"),
            ("fewer segments beats byte order", "a/b/note.md, z/note.md", "r.md", "note", "z/note.md Name | a/b/note.md"),
            ("byte order last", "b/note.md, a/note.md", "r.md", "note", "a/note.md Name | b/note.md"),
            ("byte order is not case-insensitive", "a/note.md, B/note.md", "r.md", "note", "B/note.md Name | a/note.md"),
            ("every candidate listed in tie-break order", "c/d/note.md, b/note.md, note.md, a/note.md", "a/r.md", "note", "a/note.md Name | note.md b/note.md c/d/note.md"),
            ("a page and an asset of one name tie", "x/note.md, y/note", "r.md", "note", "x/note.md Name | y/note"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn wiki_targets_are_compared_in_nfc() {
    let nfd = "cafe\u{301}";
    let nfc = "caf\u{e9}";
    check(
        Family::Wiki,
        &[
            ("nfd target finds nfc file", "caf\u{e9}.md", "r.md", nfd, "caf\u{e9}.md Name"),
            ("nfc target finds file given in nfd", "cafe\u{301}.md", "r.md", nfc, "caf\u{e9}.md Name"),
            ("nfd path target", "x/caf\u{e9}.md", "r.md", "x/cafe\u{301}", "x/caf\u{e9}.md ExactPath"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn wiki_empty_target_is_the_same_page() {
    check(
        Family::Wiki,
        &[
            ("empty target", "a.md", "x/y.md", "", "x/y.md SamePage"),
            ("blank target", "a.md", "x/y.md", "  ", "x/y.md SamePage"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn markdown_destinations_match_paths_exactly() {
    check(
        Family::Markdown,
        &[
            ("relative to the source folder", "x/a.md, a.md", "x/y.md", "a.md", "x/a.md Relative"),
            ("dest.md when dest names no file", "x/a.md", "x/y.md", "a", "x/a.md ImpliedMd"),
            ("dest itself beats dest.md", "x/a, x/a.md", "x/y.md", "a", "x/a Relative"),
            ("dest ending in .md gets no second .md", "x/a.md.md", "x/y.md", "a.md", "unresolved"),
            ("rooted", "a.md, x/a.md", "x/y.md", "/a.md", "a.md ExactPath"),
            ("rooted with implied .md", "a.md, x/a.md", "x/y.md", "/a", "a.md ImpliedMd"),
            ("dot segments are normalised", "x/a.md", "x/y.md", "./sub/../a.md", "x/a.md Relative"),
            ("dot dot climbs", "a.md, x/a.md", "x/y.md", "../a.md", "a.md Relative"),
            ("doubled slashes are one", "x/s/a.md", "x/y.md", "s//a.md", "x/s/a.md Relative"),
            ("image relative", "x/img/p.png", "x/y.md", "img/p.png", "x/img/p.png Relative"),
            ("dot dot above the root", "a.md", "y.md", "../a.md", "unresolved"),
            ("rooted dot dot above the root", "a.md", "y.md", "/../a.md", "unresolved"),
            ("no search by name", "x/a.md", "y.md", "a.md", "unresolved"),
            ("no case fallback", "x/A.md", "x/y.md", "a.md", "unresolved"),
            ("no separator fallback", "x/my-note.md", "x/y.md", "my note.md", "unresolved"),
            ("trailing slash names a folder", "x/a.md", "x/y.md", "a/", "unresolved"),
            ("nfd destination", "x/caf\u{e9}.md", "x/y.md", "cafe\u{301}.md", "x/caf\u{e9}.md Relative"),
            ("empty destination is the same page", "a.md", "x/y.md", "", "x/y.md SamePage"),
        ],
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn canvas_references_are_exact_root_relative_paths() {
    check(
        Family::Canvas,
        &[
            ("exact", "a/b.md", "c.canvas.json", "a/b.md", "a/b.md ExactPath"),
            ("leading slash accepted", "a/b.md", "c.canvas.json", "/a/b.md", "a/b.md ExactPath"),
            ("no implied .md", "a/b.md", "c.canvas.json", "a/b", "unresolved"),
            ("no name search", "a/b.md", "c.canvas.json", "b.md", "unresolved"),
        ],
    );
}
