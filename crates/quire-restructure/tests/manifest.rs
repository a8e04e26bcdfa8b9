//! Manifest parsing: every refusal names its problem.

use quire_restructure::{parse_manifest, ManifestFormat, MAX_MANIFEST_BYTES};

#[test]
fn manifest_errors_name_the_problem() {
    let cases: &[(&str, ManifestFormat, &str)] = &[
        ("mvoes: []\n", ManifestFormat::Yaml, "unknown key `mvoes`"),
        (
            "edit: []\n",
            ManifestFormat::Yaml,
            "unknown key `edit` at line 1; expected one of `moves`, `merges`, `edits`",
        ),
        (
            "{\"moves\": [{\"form\": \"a.md\", \"to\": \"b/\"}]}",
            ManifestFormat::Auto,
            "unknown key `form`",
        ),
        (
            "{}",
            ManifestFormat::Json,
            "a manifest needs at least one of moves, merges, edits, rename_tags, relinks, split",
        ),
        (
            "",
            ManifestFormat::Auto,
            "missing `manifest`: the body is empty",
        ),
        (
            "moves: []\n",
            ManifestFormat::Yaml,
            "a manifest needs at least one of",
        ),
        (
            "moves:\n  - from: a.md\n    to: [\n",
            ManifestFormat::Yaml,
            "YAML syntax error at line",
        ),
        (
            "{\"moves\": [",
            ManifestFormat::Json,
            "JSON syntax error at line 1",
        ),
        (
            "moves:\n  - from: a.md\n    from_regex: a\n    to: b/\n",
            ManifestFormat::Yaml,
            "exclude each other",
        ),
        (
            "moves:\n  - from_regex: '('\n    to: b/\n",
            ManifestFormat::Yaml,
            "not a valid regex",
        ),
        (
            "split:\n  from: a.md\n  level: 9\n",
            ManifestFormat::Yaml,
            "heading level",
        ),
        (
            "moves:\n  - from: a.md\n    to: b/\nnow: yesterday\n",
            ManifestFormat::Yaml,
            "RFC 3339",
        ),
        (
            "edits:\n  - select: {}\n",
            ManifestFormat::Yaml,
            "select needs at least one of",
        ),
        (
            "edits:\n  - select: {glob: '**'}\n    on_conflict: rename\n",
            ManifestFormat::Yaml,
            "on_conflict",
        ),
    ];
    for (body, format, want) in cases {
        let err = parse_manifest(body.as_bytes(), *format).expect_err(body);
        assert!(err.to_string().contains(want), "{body:?}: {err}");
    }
}

#[test]
fn manifest_over_one_megabyte_is_refused() {
    let body = vec![b' '; MAX_MANIFEST_BYTES + 1];
    let err = parse_manifest(&body, ManifestFormat::Auto).unwrap_err();
    assert!(err.to_string().contains("limit"), "{err}");
}

#[test]
fn every_key_of_the_spec_parses() {
    let body = r#"
moves:
  - {from: a.md, to: b/}
  - {from_regex: 'x/(.*)', to: 'y/$1'}
merges: [{from: c.md, into: d.md}]
edits:
  - select: {paths: [a.md], glob: "**", query: "fm.status = 'x'"}
    when: "fm.draft"
    set: {status: done}
    compute: {slug: "slug(title)"}
    unset: [old]
    add_tags: [t1]
    remove_tags: [t2]
    replace: [{find: "a(.)", with: "$1", regex: true}]
    move_to: "archive/{{year}}/{{slug}}.md"
    on_conflict: 'suffix("-%d")'
    force: true
rename_tags: [{from: a, to: b}]
relinks: [{from: old/, to: new/}]
split: {from: long.md, into: parts/, confirm: true}
delete_empty_dirs: true
now: "2024-05-01T12:00:00Z"
"#;
    let manifest = parse_manifest(body.as_bytes(), ManifestFormat::Yaml).expect("valid");
    assert_eq!(manifest.moves.len(), 2);
    assert_eq!(manifest.split.as_ref().map(|s| s.level), Some(2));
    assert!(manifest.delete_empty_dirs);
    let json = serde_json::to_vec(&manifest).unwrap();
    assert_eq!(
        parse_manifest(&json, ManifestFormat::Json).unwrap(),
        manifest
    );
}

#[test]
fn manifests_nested_100000_deep_are_refused_at_once() {
    let depth = 100_000;
    let cases = [
        (
            format!("{}1{}", "{a: ".repeat(depth), "}".repeat(depth)),
            ManifestFormat::Yaml,
        ),
        (
            format!("moves: {}1{}", "[".repeat(depth), "]".repeat(depth)),
            ManifestFormat::Yaml,
        ),
        (
            format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)),
            ManifestFormat::Json,
        ),
    ];
    for (text, format) in cases {
        let started = std::time::Instant::now();
        let err = parse_manifest(text.as_bytes(), format).unwrap_err();
        // The YAML reader took minutes over this in a debug build: its flow parser is
        // quadratic in the depth.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{:?}: {err}",
            started.elapsed()
        );
        assert!(!err.to_string().is_empty());
    }
}
