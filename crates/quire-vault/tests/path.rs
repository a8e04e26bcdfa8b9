//! `PagePath` validation, normalisation and the name helpers.

use quire_vault::{PagePath, PathError};

#[test]
fn page_path_accepts_and_normalises_valid_input() {
    let cases = [
        ("a.md", "a.md"),
        ("/a/b.md", "a/b.md"),
        ("a b/c d.md", "a b/c d.md"),
        ("cafe\u{301}.md", "caf\u{e9}.md"),
        ("/x/cafe\u{301}/y", "x/caf\u{e9}/y"),
        ("LICENSE", "LICENSE"),
        ("..a/b..", "..a/b.."),
        (".quire/config.toml", ".quire/config.toml"),
        ("a/...", "a/..."),
    ];
    for (input, expected) in cases {
        let path = PagePath::new(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(path.as_str(), expected, "{input:?}");
    }
}

#[test]
fn page_path_rejects_what_could_escape_or_confuse() {
    let cases = [
        ("", "empty"),
        ("/", "empty"),
        ("//a", "empty component"),
        ("a//b", "empty component"),
        ("a/", "ends with '/'"),
        ("./a", "'.' component"),
        ("a/./b", "'.' component"),
        ("../a", "'..' component"),
        ("a/../b", "'..' component"),
        ("a/..", "'..' component"),
        ("/../a", "'..' component"),
        ("a\\b.md", "backslash"),
        ("a\0b", "NUL"),
    ];
    for (input, says) in cases {
        let error = PagePath::new(input).expect_err(input);
        let text = error.to_string();
        assert!(
            text.contains(says),
            "{input:?}: {text:?} should say {says:?}"
        );
    }
}

#[test]
fn page_path_errors_name_the_problem() {
    assert_eq!(PagePath::new(""), Err(PathError::Empty));
    assert_eq!(
        PagePath::new("a/../b"),
        Err(PathError::ParentDir("a/../b".into()))
    );
    assert_eq!(
        PagePath::new("a/../b").unwrap_err().to_string(),
        "path \"a/../b\" contains a '..' component; paths may not leave the root"
    );
}

#[test]
#[rustfmt::skip] // one table row per line
fn page_path_helpers_split_name_stem_folder_and_extension() {
    // path, name, stem, folder, extension, page, canvas
    let cases = [
        ("a/b/note.md", "note.md", "note", "a/b", Some("md"), true, false),
        ("note.md", "note.md", "note", "", Some("md"), true, false),
        ("img/p.png", "p.png", "p", "img", Some("png"), false, false),
        ("b/plan.canvas.json", "plan.canvas.json", "plan.canvas", "b", Some("json"), false, true),
        ("w/board.excalidraw.md", "board.excalidraw.md", "board.excalidraw", "w", Some("md"), true, false),
        ("LICENSE", "LICENSE", "LICENSE", "", None, false, false),
        ("x/.gitignore", ".gitignore", ".gitignore", "x", None, false, false),
        ("v/v1.2 notes.md", "v1.2 notes.md", "v1.2 notes", "v", Some("md"), true, false),
    ];
    for (input, name, stem, folder, extension, page, canvas) in cases {
        let path = PagePath::new(input).unwrap();
        assert_eq!(path.name(), name, "{input}");
        assert_eq!(path.stem(), stem, "{input}");
        assert_eq!(path.folder(), folder, "{input}");
        let parent = (!folder.is_empty()).then_some(folder);
        assert_eq!(path.parent(), parent, "{input}");
        assert_eq!(path.extension(), extension, "{input}");
        assert_eq!(path.is_page(), page, "{input}");
        assert_eq!(path.is_canvas(), canvas, "{input}");
        assert_eq!(path.segments().collect::<Vec<_>>().join("/"), input);
        assert_eq!(path.depth(), input.split('/').count(), "{input}");
    }
}

#[test]
fn page_path_join_puts_root_files_without_slash() {
    let cases = [
        ("", "a.md", Ok("a.md")),
        ("x/y", "a.md", Ok("x/y/a.md")),
        ("/x", "a.md", Ok("x/a.md")),
        ("x", "", Err(())),
        ("x", "..", Err(())),
        ("x", "a/b.md", Ok("x/a/b.md")),
    ];
    for (folder, name, expected) in cases {
        let got = PagePath::join(folder, name);
        assert_eq!(
            got.as_ref().map(PagePath::as_str).map_err(|_| ()),
            expected,
            "{folder:?} + {name:?}"
        );
    }
}

#[test]
fn page_path_orders_by_bytes_and_serializes_as_string() {
    let mut paths: Vec<PagePath> = ["b.md", "B.md", "a/z.md", "a.md", "\u{e9}.md"]
        .into_iter()
        .map(|p| PagePath::new(p).unwrap())
        .collect();
    paths.sort();
    let sorted: Vec<&str> = paths.iter().map(PagePath::as_str).collect();
    assert_eq!(sorted, ["B.md", "a.md", "a/z.md", "b.md", "\u{e9}.md"]);

    let path = PagePath::new("a/b.md").unwrap();
    assert_eq!(serde_json::to_string(&path).unwrap(), "\"a/b.md\"");
    assert_eq!(path.to_string(), "a/b.md");
    let back: PagePath = serde_json::from_str("\"/a/b.md\"").unwrap();
    assert_eq!(back, path);
    assert!(serde_json::from_str::<PagePath>("\"../x\"").is_err());
}
