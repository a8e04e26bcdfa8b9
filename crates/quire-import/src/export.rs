//! Export encoders: one page's row as a JSON line or a CSV record, written as it is read so
//! an export never holds more than one page. Parquet rows are encoded by the crate
//! `quire-parquet` (its build is heavy); this module only says which frontmatter columns it
//! types how ([`ColumnKind`]).

use serde_json::{Map, Value};

use crate::ImportError;

/// The formats of `GET /export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Csv,
    /// Apache Parquet, a typed schema (`quire-parquet`).
    Parquet,
}

impl Format {
    /// `format=`: `jsonl`, `csv` or `parquet`; anything else is a bad request.
    pub fn parse(format: &str) -> Result<Format, ImportError> {
        match format.trim() {
            "jsonl" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            "parquet" => Ok(Format::Parquet),
            other => Err(ImportError::BadRequest(format!(
                "unknown export format {other:?}: jsonl, csv or parquet"
            ))),
        }
    }

    /// The media type of the answer.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Jsonl => "application/x-ndjson",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Parquet => "application/vnd.apache.parquet",
        }
    }

    /// Whether the answer is text (JSON Lines, CSV) rather than bytes.
    pub fn is_text(self) -> bool {
        self != Format::Parquet
    }
}

/// The type a requested frontmatter column gets in a typed format (Parquet), from every
/// value the exported pages hold for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColumnKind {
    /// No page has a value: a text column of nulls.
    #[default]
    Empty,
    Bool,
    Int,
    /// Numbers, some not whole (whole ones join them).
    Float,
    /// Anything else, or a mix: strings as they are, other values as JSON.
    Text,
}

impl ColumnKind {
    /// This kind widened to hold `value` too.
    pub fn with(self, value: &Value) -> ColumnKind {
        let kind = match value {
            Value::Null => return self,
            Value::Bool(_) => ColumnKind::Bool,
            Value::Number(n) if n.is_i64() => ColumnKind::Int,
            Value::Number(_) => ColumnKind::Float,
            _ => ColumnKind::Text,
        };
        match (self, kind) {
            (ColumnKind::Empty, k) => k,
            (a, b) if a == b => a,
            (ColumnKind::Int, ColumnKind::Float) | (ColumnKind::Float, ColumnKind::Int) => {
                ColumnKind::Float
            }
            _ => ColumnKind::Text,
        }
    }
}

/// A frontmatter value as text: a string as it is, `null` as nothing, others as JSON.
pub fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// One exported page.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub path: String,
    /// Frontmatter `title`, else the first H1, else the file stem (Parquet's `title`).
    pub title: String,
    /// The page's tags without `#`, each once (Parquet's `tags`).
    pub tags: Vec<String>,
    /// Last modification, milliseconds since the epoch (Parquet's `modified`).
    pub modified_ms: Option<i64>,
    pub frontmatter: Map<String, Value>,
    pub content: Option<String>,
    pub links: Option<Vec<String>>,
    /// The page's chunk vectors in order (`include-embeddings`).
    pub embeddings: Option<Vec<Vec<f32>>>,
}

/// Writes rows in one format with one set of columns.
#[derive(Debug, Clone)]
pub struct Encoder {
    pub format: Format,
    /// Frontmatter keys to write; `None` (JSON Lines only) writes them all.
    pub columns: Option<Vec<String>>,
    pub content: bool,
    pub links: bool,
    /// The `embeddings` column: the page's chunk vectors, in chunk order.
    pub embeddings: bool,
    /// Parquet with `columns`: each column's type, in the order of `columns`.
    pub kinds: Option<Vec<ColumnKind>>,
}

impl Encoder {
    /// What comes before the first row: the CSV header (`path`, the columns, then `content`
    /// and `links` when asked for); nothing for JSON Lines.
    pub fn header(&self) -> Vec<u8> {
        match self.format {
            Format::Jsonl | Format::Parquet => Vec::new(),
            Format::Csv => {
                let mut cells: Vec<String> = vec!["path".to_string()];
                cells.extend(self.columns.iter().flatten().cloned());
                if self.content {
                    cells.push("content".to_string());
                }
                if self.links {
                    cells.push("links".to_string());
                }
                if self.embeddings {
                    cells.push("embeddings".to_string());
                }
                csv_record(&cells)
            }
        }
    }

    /// One row, with its line end. JSON Lines: `{path, <frontmatter fields>, content?,
    /// links?, embeddings?}` (a frontmatter field named like one of those gives way). CSV:
    /// scalars as text, lists and objects as JSON, a missing field empty. Parquet: nothing
    /// (`quire-parquet` encodes its rows a row group at a time).
    pub fn row(&self, row: &Row) -> Vec<u8> {
        match self.format {
            Format::Parquet => Vec::new(),
            Format::Jsonl => {
                let mut object = Map::new();
                object.insert("path".to_string(), Value::String(row.path.clone()));
                for (key, value) in &row.frontmatter {
                    let wanted = self.columns.as_ref().is_none_or(|c| c.contains(key));
                    let ours = matches!(key.as_str(), "path" | "content" | "links" | "embeddings");
                    if wanted && !ours {
                        object.insert(key.clone(), value.clone());
                    }
                }
                if self.content {
                    let content = row.content.clone().unwrap_or_default();
                    object.insert("content".to_string(), Value::String(content));
                }
                if self.links {
                    let links = row.links.clone().unwrap_or_default();
                    object.insert(
                        "links".to_string(),
                        Value::Array(links.into_iter().map(Value::String).collect()),
                    );
                }
                if self.embeddings {
                    let vectors = row.embeddings.clone().unwrap_or_default();
                    object.insert("embeddings".to_string(), serde_json::json!(vectors));
                }
                let mut line = serde_json::to_vec(&Value::Object(object)).unwrap_or_default();
                line.push(b'\n');
                line
            }
            Format::Csv => {
                let mut cells = vec![row.path.clone()];
                for column in self.columns.iter().flatten() {
                    cells.push(row.frontmatter.get(column).map(cell).unwrap_or_default());
                }
                if self.content {
                    cells.push(row.content.clone().unwrap_or_default());
                }
                if self.links {
                    let links = row.links.clone().unwrap_or_default();
                    cells.push(serde_json::to_string(&links).unwrap_or_default());
                }
                if self.embeddings {
                    let vectors = row.embeddings.clone().unwrap_or_default();
                    cells.push(serde_json::to_string(&vectors).unwrap_or_default());
                }
                csv_record(&cells)
            }
        }
    }
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) => value.to_string(),
        other => other.to_string(),
    }
}

fn csv_record(cells: &[String]) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    // Writing to memory cannot fail.
    let _ = writer.write_record(cells);
    writer.into_inner().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page() -> Row {
        Row {
            path: "a/b.md".into(),
            frontmatter:
                json!({"title": "Quote \"q\", comma", "tags": ["x", "y"], "n": 3, "path": "fake"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            content: Some("Line 1\nLine 2\n".into()),
            links: Some(vec!["c.md".into()]),
            embeddings: Some(vec![vec![0.5, -0.25]]),
            ..Row::default()
        }
    }

    #[test]
    fn embeddings_are_a_list_of_vectors_in_both_formats() {
        let e = Encoder {
            format: Format::Jsonl,
            columns: Some(vec![]),
            content: false,
            links: false,
            embeddings: true,
            kinds: None,
        };
        let value: Value = serde_json::from_slice(&e.row(&page())).unwrap();
        assert_eq!(
            value,
            json!({"path": "a/b.md", "embeddings": [[0.5, -0.25]]})
        );
        let csv = Encoder {
            format: Format::Csv,
            ..e
        };
        let mut out = csv.header();
        out.extend(csv.row(&page()));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "path,embeddings\r\na/b.md,\"[[0.5,-0.25]]\"\r\n"
        );
    }

    #[test]
    fn jsonl_rows_hold_path_frontmatter_content_and_links() {
        let e = Encoder {
            format: Format::Jsonl,
            columns: None,
            content: true,
            links: true,
            embeddings: false,
            kinds: None,
        };
        assert!(e.header().is_empty());
        let line = e.row(&page());
        assert_eq!(line.last(), Some(&b'\n'));
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            value,
            json!({"path": "a/b.md", "title": "Quote \"q\", comma", "tags": ["x", "y"], "n": 3,
                "content": "Line 1\nLine 2\n", "links": ["c.md"]})
        );
        let only = Encoder {
            columns: Some(vec!["n".into()]),
            content: false,
            links: false,
            embeddings: false,
            ..e
        };
        let value: Value = serde_json::from_slice(&only.row(&page())).unwrap();
        assert_eq!(value, json!({"path": "a/b.md", "n": 3}));
    }

    #[test]
    fn csv_rows_follow_the_header_and_quote_what_needs_it() {
        let e = Encoder {
            format: Format::Csv,
            columns: Some(vec!["title".into(), "tags".into(), "missing".into()]),
            content: true,
            links: false,
            embeddings: false,
            kinds: None,
        };
        let mut out = e.header();
        out.extend(e.row(&page()));
        let mut reader = csv::Reader::from_reader(out.as_slice());
        assert_eq!(
            reader.headers().unwrap(),
            vec!["path", "title", "tags", "missing", "content"]
        );
        let record = reader.records().next().unwrap().unwrap();
        assert_eq!(
            record.iter().collect::<Vec<_>>(),
            vec![
                "a/b.md",
                "Quote \"q\", comma",
                "[\"x\",\"y\"]",
                "",
                "Line 1\nLine 2\n"
            ]
        );
    }

    #[test]
    fn column_kinds_widen_to_hold_every_value() {
        let kind = |values: Value| {
            values
                .as_array()
                .unwrap()
                .iter()
                .fold(ColumnKind::Empty, |k, v| k.with(v))
        };
        assert_eq!(kind(json!([null])), ColumnKind::Empty);
        assert_eq!(kind(json!([1, null, 2])), ColumnKind::Int);
        assert_eq!(kind(json!([1, 2.5])), ColumnKind::Float);
        assert_eq!(kind(json!([true, false])), ColumnKind::Bool);
        assert_eq!(kind(json!([true, 1])), ColumnKind::Text);
        assert_eq!(kind(json!(["a", ["b"]])), ColumnKind::Text);
    }

    #[test]
    fn formats_parse() {
        assert_eq!(Format::parse("csv").unwrap(), Format::Csv);
        assert_eq!(Format::parse("parquet").unwrap(), Format::Parquet);
        assert!(matches!(
            Format::parse("xml"),
            Err(ImportError::BadRequest(_))
        ));
    }
}
