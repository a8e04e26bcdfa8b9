//! `manifest`: the manifest parser (`quire_restructure::parse_manifest`, YAML and JSON), and
//! the planner on what it accepts.
//!
//! Properties: a manifest accepted in one syntax reads back the same from its JSON and its
//! YAML serialisation (the two syntaxes agree); planning it over the fixture vault never
//! panics, and a plan without errors applies to that vault with every ETag matching.

use chrono::DateTime;
use quire_restructure::{parse_manifest, plan, Manifest, ManifestFormat, PlanOptions};

use crate::memory::MemoryRoot;
use crate::text::tokens;
use crate::Target;

pub const TARGET: Target = Target {
    name: "manifest",
    run,
    dictionary,
    seeds: crate::no_seeds,
};

fn dictionary() -> Vec<Vec<u8>> {
    tokens(&[
        "moves:\n",
        "merges:\n",
        "edits:\n",
        "rename_tags:\n",
        "relinks:\n",
        "split:\n",
        "  - from: ",
        "    to: ",
        "from_regex: ",
        "into: ",
        "select:\n",
        "    files: ",
        "folder: ",
        "glob: ",
        "query: ",
        "when: ",
        "set:\n",
        "unset: [",
        "add_tags: [",
        "remove_tags: [",
        "replace:\n",
        "move_to: ",
        "compute:\n",
        "on_conflict: ",
        "level: ",
        "delete_empty_dirs: true\n",
        "now: 2024-01-02T03:04:05Z\n",
        "force: true",
        "{\"moves\": [{\"from\": \"notes/a.md\", \"to\": \"x/\"}]}",
        "\"from\": ",
        "\"to\": ",
        "notes/a.md",
        "notes/",
        "projects/**",
        "*.md",
        "(.*)\\.md",
        "$1",
        "{{title}}",
        "{{ slug(title) }}",
        "fm.status = 'done'",
        "tags",
        "[[a]]",
        "../",
        "/abs",
        "~",
        "null",
        "true",
        "- ",
        ": ",
        "\n",
        "  ",
    ])
}

fn run(data: &[u8]) {
    for format in [
        ManifestFormat::Auto,
        ManifestFormat::Yaml,
        ManifestFormat::Json,
    ] {
        if let Ok(manifest) = parse_manifest(data, format) {
            check_round_trips(&manifest);
            check_plan(&manifest);
            // Planning is the expensive part: once per input is enough.
            return;
        }
    }
}

fn check_round_trips(manifest: &Manifest) {
    let json = serde_json::to_vec(manifest).expect("a manifest serialises as JSON");
    let from_json = parse_manifest(&json, ManifestFormat::Json);
    assert_eq!(
        from_json.as_ref(),
        Ok(manifest),
        "through JSON: {}",
        String::from_utf8_lossy(&json)
    );
    let yaml = serde_yaml_ng::to_string(manifest).expect("a manifest serialises as YAML");
    let from_yaml = parse_manifest(yaml.as_bytes(), ManifestFormat::Yaml);
    assert_eq!(from_yaml.as_ref(), Ok(manifest), "through YAML:\n{yaml}");
}

fn check_plan(manifest: &Manifest) {
    let (root, vault) = MemoryRoot::fixture();
    let ws = root.workspace(vault);
    let opts = PlanOptions {
        diffs: true,
        now: DateTime::parse_from_rfc3339("2024-06-01T12:00:00Z").ok(),
    };
    let planned = plan(&ws, manifest, &opts);
    if planned.plan.errors.is_empty() {
        let mut after = root.clone();
        if let Err(why) = after.apply(&planned.ops) {
            panic!("a plan without errors does not apply: {why}");
        }
    }
}
