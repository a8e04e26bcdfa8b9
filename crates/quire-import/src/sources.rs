//! Sources → rows. Each reader turns one source into rows (`serde_json::Map`s), in source
//! order: the files `csv`, `json`, `jsonl`, `yaml`, `excel` (`crate::excel`), `sqlite`, the
//! folders (or zips) `markdown` and `obsidian` (`crate::folders`), the servers `postgres`,
//! `mysql`, `redis` (`crate::databases`), and the web services `notion`, `airtable`,
//! `elasticsearch`, `mongodb`, `firestore`, `gsheets`, `confluence`, `dynamodb` (`crate::web`;
//! `mongodb` over the wire protocol in `crate::mongo`).
//! Malformed input is an [`ImportError::BadRequest`] naming where it is; nothing here panics
//! on what a user sends.

use std::path::{Path, PathBuf};

use serde_json::{Map, Number, Value};

use crate::dsn::Dsn;
use crate::files::{missing, read_file, too_big};
pub use crate::kind::{is_built, Place, SourceKind, SOURCES};
pub use crate::rows::Cap;
use crate::rows::{column_names, is_table_name};
use crate::{ImportError, Limits, Row};

/// One source to read: what it is, where it is, for a database the SQL, table name or (Redis)
/// key pattern, and for `excel` the sheet.
#[derive(Debug, Clone)]
pub struct Source {
    pub kind: SourceKind,
    pub location: Location,
    pub query: Option<String>,
    pub sheet: Option<String>,
}

/// Where a source is.
#[derive(Debug, Clone)]
pub enum Location {
    /// A file, or a folder for `markdown`.
    Path(PathBuf),
    /// A database server.
    Server(Dsn),
    /// A web service (`notion`, `airtable`, `elasticsearch`, `mongodb` through the Data API,
    /// `firestore`, `gsheets`, `confluence`, `dynamodb`).
    Service(crate::web::Service),
    /// A MongoDB collection over the wire protocol (`mongodb://`, `mongodb+srv://`).
    Mongo(crate::mongo::Target),
}

/// Reads `source`: every row (more than `limits.max_rows` is [`ImportError::TooLarge`]), or
/// with `first`, the first rows only (a preview).
pub fn read(
    source: &Source,
    limits: &Limits,
    first: Option<usize>,
) -> Result<Vec<Row>, ImportError> {
    let cap = Cap {
        max: limits.max_rows,
        first,
    };
    let query = source.query.as_deref();
    let path = match &source.location {
        Location::Server(dsn) => return crate::databases::rows(source.kind, dsn, query, cap),
        Location::Service(service) => return crate::web::rows(source.kind, service, query, cap),
        Location::Mongo(target) => return crate::mongo::rows(target, query, cap),
        Location::Path(path) => path,
    };
    match source.kind {
        SourceKind::Sqlite => sqlite_rows(path, query, limits, cap),
        SourceKind::Markdown | SourceKind::Obsidian => markdown_rows(path, limits, cap),
        SourceKind::Excel => {
            let bytes = read_file(path, limits)?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            crate::excel::excel_rows(bytes, &name, source.sheet.as_deref(), cap)
        }
        kind => {
            let bytes = read_file(path, limits)?;
            rows_from_bytes(kind, &bytes, cap)
        }
    }
}

/// The rows of a file source's bytes (`csv`, `json`, `jsonl`, `yaml`).
pub fn rows_from_bytes(kind: SourceKind, bytes: &[u8], cap: Cap) -> Result<Vec<Row>, ImportError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match kind {
        SourceKind::Csv => csv_rows(bytes, cap),
        SourceKind::Json => {
            let value: Value = serde_json::from_slice(bytes)
                .map_err(|e| ImportError::BadRequest(format!("invalid JSON: {e}")))?;
            table_rows(value, "JSON", cap)
        }
        SourceKind::Jsonl => jsonl_rows(bytes, cap),
        SourceKind::Yaml => {
            let value: Value = serde_yaml_ng::from_slice(bytes)
                .map_err(|e| ImportError::BadRequest(format!("invalid YAML: {e}")))?;
            table_rows(value, "YAML", cap)
        }
        _ => Err(ImportError::BadRequest(format!(
            "source `{}` is not read from bytes",
            kind.id()
        ))),
    }
}

/// CSV with a header line: one row per record, keyed by the header. Quoted fields, CRLF
/// line ends and a UTF-8 BOM are handled; an empty cell is no value (left out of the row);
/// a record shorter than the header lacks the last fields, cells past the header are
/// dropped. An empty header cell is named `column_<n>`; a repeated one `<name>_<n>`.
fn csv_rows(bytes: &[u8], cap: Cap) -> Result<Vec<Row>, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    let header = reader
        .byte_headers()
        .map_err(|e| ImportError::BadRequest(format!("invalid CSV header: {e}")))?
        .clone();
    let mut texts = Vec::with_capacity(header.len());
    for cell in header.iter() {
        texts.push(
            std::str::from_utf8(cell)
                .map_err(|_| ImportError::BadRequest("the CSV header is not UTF-8".to_string()))?,
        );
    }
    let names = column_names(texts);
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut rows = Vec::new();
    let mut record = csv::ByteRecord::new();
    let mut number = 0usize;
    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            ImportError::BadRequest(format!("invalid CSV at record {}: {e}", number + 1))
        })?;
        if !more {
            break;
        }
        number += 1;
        if record.iter().all(|cell| cell.is_empty()) {
            continue;
        }
        let mut row = Map::new();
        for (name, cell) in names.iter().zip(record.iter()) {
            if cell.is_empty() {
                continue;
            }
            let text = std::str::from_utf8(cell).map_err(|_| {
                ImportError::BadRequest(format!("CSV record {number} is not UTF-8"))
            })?;
            row.insert(name.clone(), Value::String(text.to_string()));
        }
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

/// A JSON or YAML document as rows: a list of objects, or an object holding one list.
fn table_rows(value: Value, what: &str, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(map) => {
            let mut lists = map.into_iter().filter(|(_, v)| v.is_array());
            match (lists.next(), lists.next()) {
                (Some((_, Value::Array(items))), None) => items,
                _ => {
                    return Err(ImportError::BadRequest(format!(
                        "the {what} document is an object without exactly one list of records; \
send a list of objects, or an object holding one"
                    )))
                }
            }
        }
        _ => {
            return Err(ImportError::BadRequest(format!(
                "the {what} document is not a list of objects"
            )))
        }
    };
    let mut rows = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(row) = item else {
            return Err(ImportError::BadRequest(format!(
                "{what} record {} is not an object",
                i + 1
            )));
        };
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

/// JSON Lines: one object per line; blank lines are skipped.
fn jsonl_rows(bytes: &[u8], cap: Cap) -> Result<Vec<Row>, ImportError> {
    let mut rows = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value: Value = serde_json::from_slice(line)
            .map_err(|e| ImportError::BadRequest(format!("invalid JSON on line {}: {e}", i + 1)))?;
        let Value::Object(row) = value else {
            return Err(ImportError::BadRequest(format!(
                "line {} is not a JSON object",
                i + 1
            )));
        };
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

/// The rows of `query` (one `SELECT`/`WITH`/`VALUES` statement, or a table name) over the
/// SQLite database at `path`, opened read-only. NULL and BLOB values are left out of rows.
fn sqlite_rows(
    path: &Path,
    query: Option<&str>,
    limits: &Limits,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    use rusqlite::types::ValueRef;
    use rusqlite::OpenFlags;

    let meta = std::fs::metadata(path).map_err(|e| missing(path, &e))?;
    if meta.len() > limits.max_bytes {
        return Err(too_big(meta.len(), limits));
    }
    let query = query
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .ok_or_else(|| {
            ImportError::BadRequest(
                "a sqlite import needs `query`: SQL or a table name".to_string(),
            )
        })?;
    let sql = if is_table_name(query) {
        format!("SELECT * FROM \"{}\"", query.replace('"', "\"\""))
    } else {
        let first = query
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if !matches!(first.as_str(), "SELECT" | "WITH" | "VALUES") {
            return Err(ImportError::BadRequest(
                "`query` is a table name or one SELECT statement".to_string(),
            ));
        }
        query.trim_end_matches(';').to_string()
    };
    let db = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| {
        ImportError::BadRequest(format!("{} is no SQLite database: {e}", path.display()))
    })?;
    let mut stmt = db
        .prepare(&sql)
        .map_err(|e| ImportError::BadRequest(format!("the query failed: {e}")))?;
    if !stmt.readonly() {
        return Err(ImportError::BadRequest(
            "`query` must only read".to_string(),
        ));
    }
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let mut result = stmt
        .query([])
        .map_err(|e| ImportError::BadRequest(format!("the query failed: {e}")))?;
    let mut rows = Vec::new();
    loop {
        let next = result
            .next()
            .map_err(|e| ImportError::BadRequest(format!("the query failed: {e}")))?;
        let Some(record) = next else { break };
        let mut row = Map::new();
        for (i, name) in names.iter().enumerate() {
            let cell = record
                .get_ref(i)
                .map_err(|e| ImportError::BadRequest(format!("the query failed: {e}")))?;
            let value = match cell {
                ValueRef::Null | ValueRef::Blob(_) => continue,
                ValueRef::Integer(n) => Value::Number(n.into()),
                ValueRef::Real(x) => match Number::from_f64(x) {
                    Some(n) => Value::Number(n),
                    None => continue,
                },
                ValueRef::Text(bytes) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
            };
            row.insert(name.clone(), value);
        }
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

/// The tables and views of the SQLite database at `path`, sorted (SQLite's own left out).
pub fn sqlite_tables(path: &Path) -> Result<Vec<String>, ImportError> {
    std::fs::metadata(path).map_err(|e| missing(path, &e))?;
    let db = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| {
        ImportError::BadRequest(format!("{} is no SQLite database: {e}", path.display()))
    })?;
    let listed = || -> rusqlite::Result<Vec<String>> {
        let mut stmt = db.prepare(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )?;
        let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
        names.collect()
    };
    listed().map_err(|e| {
        ImportError::BadRequest(format!("{} is no SQLite database: {e}", path.display()))
    })
}

/// Every `.md` file below `folder`, or in a zip of one (`crate::folders`: hidden files and
/// folders skipped, symbolic links not followed, hostile zip entries left out), in path
/// order: its frontmatter fields, `content` (the body) and `path` (from the folder, with `/`).
fn markdown_rows(folder: &Path, limits: &Limits, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let want = crate::folders::Want {
        attachments: false,
        first: cap.first,
    };
    let tree = crate::folders::read_tree(folder, want, limits)?;
    let mut rows = Vec::new();
    for note in tree.notes {
        let text = String::from_utf8_lossy(&note.bytes);
        rows.push(markdown_row(&note.path, &text));
        if cap.full(rows.len())? {
            break;
        }
    }
    Ok(rows)
}

/// One markdown page as a row.
pub fn markdown_row(relative: &str, text: &str) -> Row {
    let mut row = Map::new();
    if let Some(fm) = quire_syntax::parse_frontmatter(text) {
        if let Value::Object(map) = fm.value {
            row.extend(map);
        }
    }
    let body = &text[quire_syntax::body_start(text).min(text.len())..];
    row.insert("content".to_string(), Value::String(body.to_string()));
    row.insert("path".to_string(), Value::String(relative.to_string()));
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all() -> Cap {
        Cap::all(100)
    }

    fn csv(text: &str) -> Vec<Value> {
        rows_from_bytes(SourceKind::Csv, text.as_bytes(), all())
            .unwrap()
            .into_iter()
            .map(Value::Object)
            .collect()
    }

    #[test]
    fn csv_reads_quotes_commas_and_newlines_inside_fields() {
        let rows = csv("name,note\n\"Smith, Ann\",\"said \"\"hi\"\"\nthen left\"\n");
        assert_eq!(
            rows,
            vec![json!({"name": "Smith, Ann", "note": "said \"hi\"\nthen left"})]
        );
    }

    #[test]
    fn csv_with_crlf_and_a_bom_reads_like_plain_csv() {
        let rows = csv("\u{FEFF}id,name\r\n1,Ann\r\n2,Bob\r\n");
        assert_eq!(
            rows,
            vec![
                json!({"id": "1", "name": "Ann"}),
                json!({"id": "2", "name": "Bob"})
            ]
        );
    }

    #[test]
    fn csv_empty_cells_are_no_value_and_blank_records_are_skipped() {
        let rows = csv("a,b,c\n1,,3\n,,\n4\n");
        assert_eq!(rows, vec![json!({"a": "1", "c": "3"}), json!({"a": "4"})]);
    }

    #[test]
    fn csv_unicode_and_odd_headers() {
        let rows = csv("名前,,名前\nZoë 🦀,x,y\n");
        assert_eq!(
            rows,
            vec![json!({"名前": "Zoë 🦀", "column_2": "x", "名前_2": "y"})]
        );
    }

    #[test]
    fn csv_that_is_not_utf8_is_a_bad_request() {
        let err = rows_from_bytes(SourceKind::Csv, b"a\n\xff\xfe\n", all()).unwrap_err();
        assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
    }

    #[test]
    fn json_takes_a_list_or_an_object_holding_one() {
        let list = rows_from_bytes(SourceKind::Json, br#"[{"a":1},{"a":2}]"#, all()).unwrap();
        assert_eq!(list.len(), 2);
        let held = rows_from_bytes(
            SourceKind::Json,
            br#"{"meta":{"n":1},"data":[{"a":1}]}"#,
            all(),
        )
        .unwrap();
        assert_eq!(Value::Object(held[0].clone()), json!({"a": 1}));
        for bad in [&br#"{"a":[1],"b":[2]}"#[..], b"42", br#"[1]"#, b"[{"] {
            let err = rows_from_bytes(SourceKind::Json, bad, all()).unwrap_err();
            assert!(matches!(err, ImportError::BadRequest(_)), "{err:?}");
        }
    }

    #[test]
    fn jsonl_reads_one_object_a_line_and_names_the_bad_line() {
        let rows = rows_from_bytes(
            SourceKind::Jsonl,
            b"{\"a\":1}\r\n\n{\"a\":\"\xc3\xa9\"}\n",
            all(),
        )
        .unwrap();
        assert_eq!(Value::Object(rows[1].clone()), json!({"a": "é"}));
        let err = rows_from_bytes(SourceKind::Jsonl, b"{\"a\":1}\n{oops\n", all()).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn yaml_reads_a_sequence_of_mappings_with_nesting() {
        let rows = rows_from_bytes(
            SourceKind::Yaml,
            b"- title: A\n  tags: [x, y]\n  author: {name: Ann}\n- title: B\n",
            all(),
        )
        .unwrap();
        assert_eq!(
            Value::Object(rows[0].clone()),
            json!({"title": "A", "tags": ["x", "y"], "author": {"name": "Ann"}})
        );
        let err = rows_from_bytes(SourceKind::Yaml, b"just text", all()).unwrap_err();
        assert!(matches!(err, ImportError::BadRequest(_)));
    }

    #[test]
    fn more_rows_than_the_limit_is_too_large_and_a_preview_stops_early() {
        let text = "a\n1\n2\n3\n";
        let err = rows_from_bytes(SourceKind::Csv, text.as_bytes(), Cap::all(2)).unwrap_err();
        assert!(matches!(err, ImportError::TooLarge(_)));
        let first = Cap {
            max: 2,
            first: Some(1),
        };
        assert_eq!(
            rows_from_bytes(SourceKind::Csv, text.as_bytes(), first)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn source_names_split_into_built_and_unknown() {
        assert_eq!(SourceKind::parse("csv").unwrap(), SourceKind::Csv);
        assert_eq!(SourceKind::parse("excel").unwrap(), SourceKind::Excel);
        assert_eq!(SourceKind::parse("dynamodb").unwrap(), SourceKind::Dynamodb);
        // Every identifier of the spec is built now.
        assert!(SOURCES.iter().all(|s| is_built(s)));
        assert!(matches!(
            SourceKind::parse("floppy"),
            Err(ImportError::BadRequest(_))
        ));
        assert!(SOURCES.iter().filter(|s| is_built(s)).count() == SourceKind::BUILT.len());
    }

    #[test]
    fn sqlite_reads_a_table_or_a_select_and_refuses_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.db");
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE items (id INTEGER, name TEXT, price REAL, note TEXT, data BLOB);
             INSERT INTO items VALUES (1, 'Tea', 2.5, NULL, x'00');
             INSERT INTO items VALUES (2, 'Café', 3.0, 'hot', NULL);",
        )
        .unwrap();
        drop(db);
        let limits = Limits::default();
        let source = |q: &str| Source {
            kind: SourceKind::Sqlite,
            location: Location::Path(path.clone()),
            query: Some(q.to_string()),
            sheet: None,
        };
        let rows = read(&source("items"), &limits, None).unwrap();
        assert_eq!(
            Value::Object(rows[0].clone()),
            json!({"id": 1, "name": "Tea", "price": 2.5})
        );
        let rows = read(
            &source("SELECT name FROM items WHERE id = 2;"),
            &limits,
            None,
        )
        .unwrap();
        assert_eq!(Value::Object(rows[0].clone()), json!({"name": "Café"}));
        for bad in [
            "DELETE FROM items",
            "ATTACH 'x.db' AS x",
            "SELECT * FROM nope",
            "",
        ] {
            let err = read(&source(bad), &limits, None).unwrap_err();
            assert!(matches!(err, ImportError::BadRequest(_)), "{bad}: {err:?}");
        }
        let rows = read(&source("items"), &limits, None).unwrap();
        assert_eq!(rows.len(), 2, "nothing was deleted");
    }

    #[test]
    fn markdown_rows_carry_frontmatter_content_and_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        std::fs::create_dir_all(dir.path().join(".hidden")).unwrap();
        std::fs::write(
            dir.path().join("a.md"),
            "---\ntitle: A\ntags: [x]\n---\nBody A\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("sub/b.md"), "No frontmatter\n").unwrap();
        std::fs::write(dir.path().join(".hidden/c.md"), "hidden").unwrap();
        std::fs::write(dir.path().join("d.txt"), "not markdown").unwrap();
        let source = Source {
            kind: SourceKind::Markdown,
            location: Location::Path(dir.path().to_path_buf()),
            query: None,
            sheet: None,
        };
        let rows = read(&source, &Limits::default(), None).unwrap();
        assert_eq!(
            rows.into_iter().map(Value::Object).collect::<Vec<_>>(),
            vec![
                json!({"title": "A", "tags": ["x"], "content": "Body A\n", "path": "a.md"}),
                json!({"content": "No frontmatter\n", "path": "sub/b.md"}),
            ]
        );
    }

    #[test]
    fn a_missing_file_is_not_found_and_a_big_one_too_large() {
        let dir = tempfile::tempdir().unwrap();
        let source = Source {
            kind: SourceKind::Csv,
            location: Location::Path(dir.path().join("nope.csv")),
            query: None,
            sheet: None,
        };
        let err = read(&source, &Limits::default(), None).unwrap_err();
        assert!(matches!(err, ImportError::NotFound(_)));
        std::fs::write(dir.path().join("nope.csv"), "a\n1\n").unwrap();
        let small = Limits {
            max_bytes: 2,
            max_rows: 10,
        };
        let err = read(&source, &small, None).unwrap_err();
        assert!(matches!(err, ImportError::TooLarge(_)));
    }
}
