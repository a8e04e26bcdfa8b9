//! Rows → pages: the mapping templates (`path`, `title`, `content`, `frontmatter`), their
//! defaults, the path rules that keep every page inside the space, and the page text.
//!
//! Defaults, each taken when its mapping key is absent: the path is `prefix` + the slug of
//! the row's `title`, else `name`, else its `id_column` value, else `row-<n>` (a `markdown`
//! row keeps its own `path`); the content is the `content` field, else `body`; the
//! frontmatter is every other field (but a field the `path` or `content` template takes whole,
//! and the `links` of a row of quire's own export). `_source` and `_source_id` are always set
//! last.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use crate::template::{lookup, text_of, Template};
use crate::{ImportError, Row, SourceKind};

/// Frontmatter key naming the source a page was imported from.
pub const SOURCE_KEY: &str = "_source";
/// Frontmatter key naming the row a page was imported from.
pub const SOURCE_ID_KEY: &str = "_source_id";
/// Frontmatter key of a page whose row was gone at a full sync.
pub const ARCHIVED_KEY: &str = "_archived_at";

/// Longest slug a default path takes from a field.
const SLUG_MAX: usize = 80;

/// The caller's mapping, templates as sent.
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    pub path: Option<String>,
    pub title: Option<String>,
    pub content: Option<String>,
    /// Frontmatter key → template, in the order given.
    pub frontmatter: Option<Vec<(String, String)>>,
}

/// How every row of one import becomes a page: templates parsed, prefix checked.
#[derive(Debug, Clone)]
pub struct Plan {
    kind: SourceKind,
    source_id: String,
    prefix: String,
    id_column: Option<String>,
    path: Option<Template>,
    title: Option<Template>,
    content: Option<Template>,
    frontmatter: Option<Vec<(String, Template)>>,
}

/// One rendered page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Root-relative, `/`-separated, ending in `.md`.
    pub path: String,
    /// In order: the mapped (or the row's) fields, then `_source`, `_source_id`.
    pub frontmatter: Vec<(String, Value)>,
    pub body: String,
}

impl Page {
    /// The page's text: a frontmatter block, then the body (ending in a newline).
    pub fn text(&self) -> String {
        let mut editor = quire_syntax::FrontmatterEditor::new("");
        for (key, value) in &self.frontmatter {
            editor.set(key, value);
        }
        let mut text = editor.finish();
        text.push_str(&self.body);
        if !self.body.is_empty() && !self.body.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// The frontmatter as a JSON object.
    pub fn frontmatter_map(&self) -> Map<String, Value> {
        self.frontmatter.iter().cloned().collect()
    }
}

/// A row that did not become a page: its number (1-based, in source order) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    pub row: usize,
    pub error: String,
}

/// Every row of an import rendered.
#[derive(Debug, Clone, Default)]
pub struct Rendering {
    /// Pages in row order, each with its row number.
    pub pages: Vec<(usize, Page)>,
    pub errors: Vec<RowError>,
    /// The `_source_id` of every row read, rendered or not: a full sync archives only pages
    /// whose id is not here.
    pub ids: BTreeSet<String>,
}

impl Plan {
    /// Parses the templates of `mapping` and checks `prefix` (a folder inside the space).
    pub fn new(
        kind: SourceKind,
        source_id: &str,
        mapping: &Mapping,
        prefix: Option<&str>,
        id_column: Option<&str>,
    ) -> Result<Plan, ImportError> {
        let parse = |what: &str, t: &Option<String>| -> Result<Option<Template>, ImportError> {
            t.as_deref()
                .map(|t| {
                    Template::parse(t)
                        .map_err(|e| ImportError::BadRequest(format!("mapping.{what}: {e}")))
                })
                .transpose()
        };
        let frontmatter = match &mapping.frontmatter {
            None => None,
            Some(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (key, template) in entries {
                    if key.trim().is_empty() {
                        return Err(ImportError::BadRequest(
                            "mapping.frontmatter: an empty key".to_string(),
                        ));
                    }
                    let t = Template::parse(template).map_err(|e| {
                        ImportError::BadRequest(format!("mapping.frontmatter.{key}: {e}"))
                    })?;
                    out.push((key.clone(), t));
                }
                Some(out)
            }
        };
        let prefix = match prefix.map(str::trim).filter(|p| !p.is_empty()) {
            None => String::new(),
            Some(p) => folder(p).map_err(|e| ImportError::BadRequest(format!("prefix: {e}")))?,
        };
        Ok(Plan {
            kind,
            source_id: source_id.to_string(),
            prefix,
            id_column: id_column
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string),
            path: parse("path", &mapping.path)?,
            title: parse("title", &mapping.title)?,
            content: parse("content", &mapping.content)?,
            frontmatter,
        })
    }

    pub fn source_id(&self) -> &str {
        &self.source_id
    }

    /// The folder pages land in, normalised; empty for the root.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The `_source_id` of row `number`: its `id_column` value, else (markdown) its path,
    /// else the row number.
    pub fn row_id(&self, row: &Row, number: usize) -> Result<String, String> {
        if let Some(column) = &self.id_column {
            return match lookup(row, column).map(text_of) {
                Some(id) if !id.trim().is_empty() => Ok(id.trim().to_string()),
                _ => Err(format!("no value in the id column `{column}`")),
            };
        }
        if self.kind.is_folder() {
            if let Some(path) = row.get("path").map(text_of) {
                return Ok(path);
            }
        }
        Ok(number.to_string())
    }

    /// Row `number` as a page.
    pub fn render(&self, row: &Row, number: usize) -> Result<Page, String> {
        let id = self.row_id(row, number)?;
        let path = self.path_of(row, number)?;
        let (body, content_field) = match &self.content {
            Some(t) => (t.render(row).text, None),
            None => match ["content", "body"]
                .into_iter()
                .find_map(|f| lookup(row, f).map(|v| (text_of(v), f)))
            {
                Some((text, field)) => (text, Some(field)),
                None => (String::new(), None),
            },
        };
        let mut frontmatter: Vec<(String, Value)> = Vec::new();
        if let Some(title) = &self.title {
            let text = title.render(row).text;
            if !text.trim().is_empty() {
                frontmatter.push(("title".to_string(), Value::String(text)));
            }
        }
        match &self.frontmatter {
            Some(entries) => {
                for (key, template) in entries {
                    let value = match template.sole_field() {
                        Some(field) => lookup(row, field).cloned(),
                        None => {
                            let r = template.render(row);
                            Some(Value::String(r.text))
                        }
                    };
                    if let Some(value) = value {
                        set(&mut frontmatter, key, value);
                    }
                }
            }
            None => {
                // A field the path or content template takes whole is not repeated.
                let consumed: Vec<&str> = [&self.path, &self.content]
                    .into_iter()
                    .filter_map(|t| t.as_ref()?.sole_field())
                    .collect();
                let export = is_quire_export(row);
                for (key, value) in row {
                    let skipped = Some(key.as_str()) == content_field
                        || consumed.contains(&key.as_str())
                        || (export && key == "links")
                        || (self.kind.is_folder() && (key == "path" || key == "content"))
                        || key.starts_with('_') && is_reserved(key)
                        || value.is_null();
                    if !skipped {
                        set(&mut frontmatter, key, value.clone());
                    }
                }
            }
        }
        frontmatter.retain(|(k, _)| !is_reserved(k));
        frontmatter.push((
            SOURCE_KEY.to_string(),
            Value::String(self.source_id.clone()),
        ));
        frontmatter.push((SOURCE_ID_KEY.to_string(), Value::String(id)));
        Ok(Page {
            path,
            frontmatter,
            body,
        })
    }

    /// Every row rendered: pages, row errors (two rows on one path: the later one), ids.
    pub fn render_all(&self, rows: &[Row]) -> Rendering {
        let mut out = Rendering::default();
        let mut taken: HashMap<String, usize> = HashMap::new();
        for (i, row) in rows.iter().enumerate() {
            let number = i + 1;
            if let Ok(id) = self.row_id(row, number) {
                out.ids.insert(id);
            }
            match self.render(row, number) {
                Ok(page) => match taken.get(&page.path) {
                    Some(first) => out.errors.push(RowError {
                        row: number,
                        error: format!("path {} is also the path of row {first}", page.path),
                    }),
                    None => {
                        taken.insert(page.path.clone(), number);
                        out.pages.push((number, page));
                    }
                },
                Err(error) => out.errors.push(RowError { row: number, error }),
            }
        }
        out
    }

    fn path_of(&self, row: &Row, number: usize) -> Result<String, String> {
        let relative = match &self.path {
            Some(template) => {
                let r = template.render(row);
                if r.text.trim().is_empty() {
                    return Err(if r.missing.is_empty() {
                        "the path template renders an empty path".to_string()
                    } else {
                        format!(
                            "the path is empty: the row has no {}",
                            r.missing
                                .iter()
                                .map(|m| format!("`{m}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    });
                }
                r.text
            }
            None => self.default_path(row, number),
        };
        let path = page_path(&relative)?;
        Ok(if self.prefix.is_empty() {
            path
        } else {
            format!("{}/{path}", self.prefix)
        })
    }

    fn default_path(&self, row: &Row, number: usize) -> String {
        if self.kind.is_folder() {
            if let Some(path) = row.get("path").map(text_of) {
                return path;
            }
        }
        let mut fields = vec!["title", "name"];
        if let Some(column) = &self.id_column {
            fields.push(column);
        }
        fields
            .into_iter()
            .filter_map(|f| lookup(row, f).map(text_of))
            .map(|text| slug(&text))
            .find(|s| !s.is_empty())
            .unwrap_or_else(|| format!("row-{number}"))
    }
}

fn is_reserved(key: &str) -> bool {
    matches!(key, SOURCE_KEY | SOURCE_ID_KEY | ARCHIVED_KEY)
}

/// A row of quire's own export (`GET /export` with `include-content` and `include-links`):
/// `path`, `content` and a list `links` — the paths the content's links resolved to, which the
/// content itself carries, so not frontmatter.
fn is_quire_export(row: &Row) -> bool {
    row.get("path").is_some_and(Value::is_string)
        && row.get("content").is_some_and(Value::is_string)
        && row
            .get("links")
            .and_then(Value::as_array)
            .is_some_and(|links| links.iter().all(Value::is_string))
}

fn set(frontmatter: &mut Vec<(String, Value)>, key: &str, value: Value) {
    match frontmatter.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value,
        None => frontmatter.push((key.to_string(), value)),
    }
}

/// `text` as a file name: letters and digits (any script) lowercased, every other run of
/// characters one `-`, at most 80 characters.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
        if out.chars().count() >= SLUG_MAX {
            break;
        }
    }
    out
}

/// A rendered path as a page path inside the space: `\` read as `/`, empty and `.`
/// segments dropped, a leading `/` meaning the root; `..`, hidden segments (`.git`,
/// `.quire`) and control characters refused; `.md` added when missing.
pub fn page_path(rendered: &str) -> Result<String, String> {
    let path = folder(rendered)?;
    Ok(if path.ends_with(".md") {
        path
    } else {
        format!("{path}.md")
    })
}

/// A folder or path inside the space, normalised (see [`page_path`]), without `.md` added.
fn folder(rendered: &str) -> Result<String, String> {
    let text = rendered.trim().replace('\\', "/");
    let mut segments = Vec::new();
    for segment in text.split('/') {
        let segment = segment.trim();
        match segment {
            "" | "." => continue,
            ".." => return Err(format!("path {rendered:?} leaves the space (`..`)")),
            s if s.starts_with('.') => {
                return Err(format!("path {rendered:?} names a hidden file or folder"))
            }
            s if s.chars().any(char::is_control) => {
                return Err(format!("path {rendered:?} holds a control character"))
            }
            s if segments.is_empty() && s.len() == 2 && s.ends_with(':') => {
                return Err(format!("path {rendered:?} is an absolute path"))
            }
            s => segments.push(s),
        }
    }
    if segments.is_empty() {
        return Err("the path is empty".to_string());
    }
    Ok(segments.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(v: Value) -> Row {
        v.as_object().cloned().unwrap()
    }

    fn plan(mapping: Mapping, prefix: Option<&str>, id: Option<&str>) -> Plan {
        Plan::new(SourceKind::Csv, "csv:people.csv", &mapping, prefix, id).unwrap()
    }

    #[test]
    fn defaults_slug_the_title_and_keep_other_fields() {
        let p = plan(Mapping::default(), Some("people"), None);
        let page = p
            .render(
                &row(json!({"title": "Ann Smith!", "role": "dev", "content": "Hi"})),
                1,
            )
            .unwrap();
        assert_eq!(page.path, "people/ann-smith.md");
        assert_eq!(page.body, "Hi");
        let text = page.text();
        assert!(text.starts_with("---\n"), "{text}");
        assert!(
            text.ends_with("_source: csv:people.csv\n_source_id: \"1\"\n---\nHi\n"),
            "{text}"
        );
        let fm = quire_syntax::parse_frontmatter(&text).unwrap().value;
        assert_eq!(
            fm,
            json!({"title": "Ann Smith!", "role": "dev", "_source": "csv:people.csv", "_source_id": "1"})
        );
    }

    #[test]
    fn fields_taken_whole_by_path_or_content_and_an_exports_links_are_not_frontmatter() {
        let mapping = Mapping {
            path: Some("{{path}}".into()),
            content: Some("{{text}}".into()),
            ..Mapping::default()
        };
        let p = Plan::new(SourceKind::Jsonl, "jsonl:x.jsonl", &mapping, None, None).unwrap();
        let page = p
            .render(
                &row(json!({"path": "a/b.md", "text": "Body", "tags": ["x"], "links": ["c.md"]})),
                1,
            )
            .unwrap();
        assert_eq!(page.path, "a/b.md");
        let fm = page.frontmatter_map();
        assert!(
            fm.get("path").is_none() && fm.get("text").is_none(),
            "{fm:?}"
        );
        assert_eq!(
            fm["links"],
            json!(["c.md"]),
            "not an export row: `links` is data"
        );
        assert_eq!(fm["tags"], json!(["x"]));
        // quire's own export: path, content, and the list of paths its links reach.
        let mapping = Mapping {
            path: Some("{{path}}".into()),
            ..Mapping::default()
        };
        let p = Plan::new(SourceKind::Jsonl, "jsonl:x.jsonl", &mapping, None, None).unwrap();
        let page = p
            .render(
                &row(json!({"path": "a/b.md", "content": "See [[c]].\n", "title": "B", "links": ["c.md"]})),
                1,
            )
            .unwrap();
        assert_eq!(
            page.frontmatter_map(),
            json!({"title": "B", "_source": "jsonl:x.jsonl", "_source_id": "1"})
                .as_object()
                .cloned()
                .unwrap()
        );
    }

    #[test]
    fn default_path_falls_back_to_name_then_id_then_row_number() {
        let p = plan(Mapping::default(), None, Some("code"));
        assert_eq!(
            p.render(&row(json!({"name": "Zoë"})), 1).map(|p| p.path),
            Err("no value in the id column `code`".into())
        );
        let page = p.render(&row(json!({"code": "X 1"})), 2).unwrap();
        assert_eq!(page.path, "x-1.md");
        assert_eq!(page.frontmatter_map()["_source_id"], json!("X 1"));
        let p = plan(Mapping::default(), None, None);
        assert_eq!(
            p.render(&row(json!({"name": "Zoë Ünal"})), 1).unwrap().path,
            "zoë-ünal.md"
        );
        assert_eq!(
            p.render(&row(json!({"other": "?"})), 7).unwrap().path,
            "row-7.md"
        );
        assert_eq!(
            p.render(&row(json!({"title": "!!!"})), 3).unwrap().path,
            "row-3.md"
        );
    }

    #[test]
    fn templates_fill_path_title_content_and_frontmatter() {
        let mapping = Mapping {
            path: Some("{{ team }}/{{name}}".into()),
            title: Some("{{name}} ({{team}})".into()),
            content: Some("# {{name}}\n\n{{bio}}".into()),
            frontmatter: Some(vec![
                ("age".into(), "{{age}}".into()),
                ("label".into(), "age {{age}}".into()),
                ("city".into(), "{{address.city}}".into()),
                ("gone".into(), "{{nope}}".into()),
            ]),
        };
        let p = plan(mapping, None, Some("id"));
        let page = p
            .render(
                &row(
                    json!({"id": 7, "name": "Ann", "team": "core", "bio": "Writes.", "age": 41,
                    "address": {"city": "Oslo"}}),
                ),
                1,
            )
            .unwrap();
        assert_eq!(page.path, "core/Ann.md");
        assert_eq!(page.body, "# Ann\n\nWrites.");
        assert_eq!(
            Value::Object(page.frontmatter_map()),
            json!({"title": "Ann (core)", "age": 41, "label": "age 41", "city": "Oslo",
                "_source": "csv:people.csv", "_source_id": "7"})
        );
    }

    #[test]
    fn a_missing_field_is_an_error_only_when_it_empties_the_path() {
        let mapping = Mapping {
            path: Some("{{slug}}".into()),
            ..Mapping::default()
        };
        let p = plan(mapping, None, None);
        let err = p.render(&row(json!({"title": "x"})), 4).unwrap_err();
        assert!(err.contains("`slug`"), "{err}");
        let mapping = Mapping {
            path: Some("notes/{{slug}}x".into()),
            ..Mapping::default()
        };
        let p = plan(mapping, None, None);
        assert_eq!(p.render(&row(json!({})), 1).unwrap().path, "notes/x.md");
    }

    #[test]
    fn paths_stay_inside_the_space() {
        for bad in [
            "../etc/passwd",
            "a/../../b",
            "..",
            ".git/config",
            ".quire/state/x",
            "C:/x",
            "a/\u{7}b",
        ] {
            assert!(page_path(bad).is_err(), "{bad}");
        }
        assert_eq!(page_path("/abs/x").unwrap(), "abs/x.md");
        assert_eq!(page_path("a\\b\\c.md").unwrap(), "a/b/c.md");
        assert_eq!(page_path("./a//b/").unwrap(), "a/b.md");
        assert!(Plan::new(
            SourceKind::Csv,
            "s",
            &Mapping::default(),
            Some("../up"),
            None
        )
        .is_err());
        let mapping = Mapping {
            path: Some("{{p}}".into()),
            ..Mapping::default()
        };
        let p = plan(mapping, Some("in"), None);
        assert!(p.render(&row(json!({"p": "../../out"})), 1).is_err());
        assert_eq!(
            p.render(&row(json!({"p": "/x"})), 1).unwrap().path,
            "in/x.md"
        );
    }

    #[test]
    fn a_bad_template_refuses_the_plan() {
        let mapping = Mapping {
            frontmatter: Some(vec![("k".into(), "{{open".into())]),
            ..Mapping::default()
        };
        let err = Plan::new(SourceKind::Csv, "s", &mapping, None, None).unwrap_err();
        assert!(err.to_string().contains("mapping.frontmatter.k"), "{err}");
    }

    #[test]
    fn two_rows_on_one_path_keep_the_first_and_report_the_second() {
        let p = plan(Mapping::default(), None, Some("id"));
        let rows = vec![
            row(json!({"id": "1", "title": "Same"})),
            row(json!({"id": "2", "title": "Same"})),
            row(json!({"title": "No id"})),
        ];
        let r = p.render_all(&rows);
        assert_eq!(r.pages.len(), 1);
        assert_eq!(r.errors.len(), 2);
        assert_eq!(r.errors[0].row, 2);
        assert_eq!(
            r.ids,
            ["1".to_string(), "2".to_string()].into_iter().collect()
        );
    }

    #[test]
    fn reserved_keys_from_rows_are_replaced_and_text_is_stable() {
        let p = plan(Mapping::default(), None, None);
        let r = row(json!({"title": "T", "_source": "forged", "_archived_at": "x", "body": "B\n"}));
        let a = p.render(&r, 1).unwrap();
        assert_eq!(a.frontmatter_map()["_source"], json!("csv:people.csv"));
        assert!(!a.frontmatter_map().contains_key("_archived_at"));
        assert!(!a.frontmatter_map().contains_key("body"));
        assert_eq!(a.text(), p.render(&r, 1).unwrap().text());
        assert!(a.text().ends_with("---\nB\n"));
    }

    #[test]
    fn markdown_rows_keep_their_path_and_id() {
        let p = Plan::new(
            SourceKind::Markdown,
            "markdown:notes",
            &Mapping::default(),
            Some("imported"),
            None,
        )
        .unwrap();
        let page = p
            .render(
                &row(json!({"title": "A", "content": "Body\n", "path": "sub/a.md"})),
                1,
            )
            .unwrap();
        assert_eq!(page.path, "imported/sub/a.md");
        assert_eq!(page.body, "Body\n");
        assert_eq!(
            Value::Object(page.frontmatter_map()),
            json!({"title": "A", "_source": "markdown:notes", "_source_id": "sub/a.md"})
        );
    }
}
