//! What the full-text row of a page holds: besides its title, headings and text, the words
//! of its tags and aliases, of its property values (frontmatter) and of its path, and one
//! exact token per tag for `tag:` (see [`super::query`]). One place builds them for the index;
//! the grep tier matches a page's path and tags by the same rules ([`place`], [`file_name`],
//! [`tag_and_parents`]).

use std::borrow::Cow;

use serde_json::Value;

use super::text::{space_cjk, tag_token};
use crate::PageRecord;

/// Frontmatter keys whose values are labels of the page (ranked like its title) rather than
/// properties. Tags reach the index through [`PageRecord::tags`], which the service fills
/// from the frontmatter and the text alike.
const TAG_KEYS: [&str; 2] = ["tags", "tag"];
const ALIAS_KEYS: [&str; 2] = ["aliases", "alias"];

/// The FTS5 columns of a page, in the table's order after `path`, CJK spaced.
pub(crate) struct SearchRow<'a> {
    pub(crate) title: Cow<'a, str>,
    pub(crate) headings: String,
    pub(crate) body: Cow<'a, str>,
    /// Tags (`project/alpha` as its words) and aliases, one a line.
    pub(crate) labels: String,
    /// Every other scalar value and list item of the frontmatter, one a line.
    pub(crate) properties: String,
    /// The path without `.md`.
    pub(crate) place: String,
    /// The file name without `.md`.
    pub(crate) file: String,
    /// One [`tag_token`] per tag and per parent of a nested tag.
    pub(crate) tagged: String,
}

impl SearchRow<'_> {
    pub(crate) fn of(page: &PageRecord) -> SearchRow<'_> {
        let headings: String = page
            .headings
            .iter()
            .flat_map(|heading| [heading.text.as_str(), "\n"])
            .collect();
        let (labels, properties) = labels_and_properties(page);
        let mut tagged = String::new();
        let mut seen: Vec<&str> = Vec::new();
        for tag in &page.tags {
            for name in tag_and_parents(tag) {
                if !seen.contains(&name) {
                    seen.push(name);
                    if !tagged.is_empty() {
                        tagged.push(' ');
                    }
                    tagged.push_str(&tag_token(name));
                }
            }
        }
        SearchRow {
            title: space_cjk(&page.title),
            headings: space_cjk(&headings).into_owned(),
            body: space_cjk(&page.body),
            labels: space_cjk(&labels).into_owned(),
            properties: space_cjk(&properties).into_owned(),
            place: space_cjk(place(&page.path)).into_owned(),
            file: space_cjk(file_name(&page.path)).into_owned(),
            tagged,
        }
    }
}

/// The text of a page's labels (tags, then aliases) and of its other property values, as
/// [`SearchRow`] holds them before CJK spacing.
pub(crate) fn labels_and_properties(page: &PageRecord) -> (String, String) {
    let mut labels = String::new();
    for tag in &page.tags {
        push_line(&mut labels, tag.trim_start_matches('#'));
    }
    let mut properties = String::new();
    if let Value::Object(map) = &page.frontmatter {
        for (key, value) in map {
            let key = key.to_ascii_lowercase();
            if TAG_KEYS.contains(&key.as_str()) {
                continue;
            }
            let into = if ALIAS_KEYS.contains(&key.as_str()) {
                &mut labels
            } else {
                &mut properties
            };
            scalars(value, into);
        }
    }
    (labels, properties)
}

/// Appends `text` as a line of its own.
fn push_line(out: &mut String, text: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
}

/// Every scalar of a frontmatter value as text, one a line: strings, numbers and booleans,
/// the items of lists and the values of maps (not their keys); nulls give nothing.
fn scalars(value: &Value, out: &mut String) {
    match value {
        Value::Null => {}
        Value::Bool(b) => push_line(out, if *b { "true" } else { "false" }),
        Value::Number(n) => push_line(out, &n.to_string()),
        Value::String(s) => push_line(out, s),
        Value::Array(items) => items.iter().for_each(|item| scalars(item, out)),
        Value::Object(map) => map.values().for_each(|item| scalars(item, out)),
    }
}

/// The path without its `.md` extension: what `path:` matches (`notes/daily/2024-01-05`).
pub(crate) fn place(path: &str) -> &str {
    path.strip_suffix(".md").unwrap_or(path)
}

/// The file name without `.md`: what `file:` matches.
pub(crate) fn file_name(path: &str) -> &str {
    let place = place(path);
    place.rsplit_once('/').map_or(place, |(_, name)| name)
}

/// A tag without `#` and every parent of it, outermost first: `a/b/c` gives `a`, `a/b`,
/// `a/b/c`. `tag:` matches any of them.
pub(crate) fn tag_and_parents(tag: &str) -> impl Iterator<Item = &str> {
    let tag = tag.trim_start_matches('#').trim_end_matches('/');
    tag.match_indices('/')
        .map(move |(i, _)| &tag[..i])
        .chain(std::iter::once(tag))
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_properties_and_the_path_become_searchable_text() {
        let page = PageRecord {
            path: "notes/daily/2024-01-05 Stand-up.md".into(),
            title: "Stand-up".into(),
            tags: vec!["sprint".into(), "project/alpha".into()],
            frontmatter: json!({
                "tags": ["sprint", "project/alpha"],
                "Aliases": ["Daily sync"],
                "derived-from": "run:test-abc12345",
                "points": 3,
                "done": false,
                "empty": null,
                "links": {"up": "[[Index]]"},
            }),
            ..PageRecord::default()
        };
        let row = SearchRow::of(&page);
        assert_eq!(row.labels, "sprint\nproject/alpha\nDaily sync");
        assert_eq!(row.properties, "run:test-abc12345\nfalse\n[[Index]]\n3");
        assert_eq!(row.place, "notes/daily/2024-01-05 Stand-up");
        assert_eq!(row.file, "2024-01-05 Stand-up");
        assert_eq!(
            row.tagged,
            [
                tag_token("sprint"),
                tag_token("project"),
                tag_token("project/alpha")
            ]
            .join(" ")
        );
    }

    #[test]
    fn a_nested_tag_stands_for_itself_and_each_parent() {
        let all: Vec<&str> = tag_and_parents("#a/b/c").collect();
        assert_eq!(all, ["a", "a/b", "a/b/c"]);
        assert_eq!(tag_and_parents("solo/").collect::<Vec<_>>(), ["solo"]);
        assert_eq!(tag_and_parents("").count(), 0);
    }

    #[test]
    fn a_non_markdown_path_keeps_its_extension() {
        assert_eq!(place("pics/cat.png"), "pics/cat.png");
        assert_eq!(file_name("pics/cat.png"), "cat.png");
        assert_eq!(file_name("top.md"), "top");
    }
}
