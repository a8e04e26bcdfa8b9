//! Apache Parquet for `GET /export?format=parquet`: the export's rows as a file with a typed
//! schema, written a row group at a time so that memory holds one row group whatever the
//! number of pages.
//!
//! The schema (every list is the standard three-level `LIST`):
//!
//! | column | type |
//! | - | - |
//! | `path`, `title` | `binary (STRING)`, required |
//! | `tags` | `list<string>`, required (empty when none) |
//! | `modified` | `int64 TIMESTAMP(MILLIS, UTC)`, optional |
//! | `frontmatter` | `binary (STRING)`: the frontmatter as a JSON object (without `columns`) |
//! | each of `columns` | optional; boolean, int64 or double when every value is one, else a string (other values as JSON) |
//! | `content` | `binary (STRING)` (`include-content`) |
//! | `links` | `list<string>` (`include-links`) |
//! | `embeddings` | `list<list<float>>`, a vector per chunk (`include-embeddings`) |
//!
//! The file is written to memory that [`ParquetWriter::push`] and [`ParquetWriter::finish`]
//! hand back and empty: Parquet's writer needs no seek (its footer holds the offsets it
//! counted), so each row group goes to the client as soon as it is full.

use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, FloatType, Int64Type};
pub use parquet::errors::ParquetError as Error;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::{Type, TypePtr};
use quire_import::export::{text_of, ColumnKind, Encoder, Row};
use serde_json::Value;

/// Rows in a row group at most…
pub const ROW_GROUP_ROWS: usize = 8192;
/// …and about this many bytes of text (content, frontmatter, vectors) at most.
pub const ROW_GROUP_BYTES: usize = 32 * 1024 * 1024;

/// Names the export's own columns take; a frontmatter column of one of these names gives way.
const OWN: [&str; 8] = [
    "path",
    "title",
    "tags",
    "modified",
    "frontmatter",
    "content",
    "links",
    "embeddings",
];

/// One column of the file, in schema order.
#[derive(Debug, Clone)]
enum Field {
    Path,
    Title,
    Tags,
    Modified,
    Frontmatter,
    Column { name: String, kind: ColumnKind },
    Content,
    Links,
    Embeddings,
}

/// The columns an export's encoder asks for.
fn fields(encoder: &Encoder) -> Vec<Field> {
    let mut fields = vec![Field::Path, Field::Title, Field::Tags, Field::Modified];
    match &encoder.columns {
        None => fields.push(Field::Frontmatter),
        Some(columns) => {
            let mut seen: Vec<&str> = Vec::new();
            for (i, name) in columns.iter().enumerate() {
                if OWN.contains(&name.as_str()) || seen.contains(&name.as_str()) {
                    continue;
                }
                seen.push(name);
                let kind = encoder
                    .kinds
                    .as_ref()
                    .and_then(|k| k.get(i).copied())
                    .unwrap_or(ColumnKind::Text);
                fields.push(Field::Column {
                    name: name.clone(),
                    kind,
                });
            }
        }
    }
    if encoder.content {
        fields.push(Field::Content);
    }
    if encoder.links {
        fields.push(Field::Links);
    }
    if encoder.embeddings {
        fields.push(Field::Embeddings);
    }
    fields
}

fn primitive(
    name: &str,
    physical: Physical,
    repetition: Repetition,
    logical: Option<LogicalType>,
) -> Result<TypePtr, Error> {
    Ok(Arc::new(
        Type::primitive_type_builder(name, physical)
            .with_repetition(repetition)
            .with_logical_type(logical)
            .build()?,
    ))
}

/// `required group <name> (LIST) { repeated group list { <element> } }`.
fn list(name: &str, element: TypePtr) -> Result<TypePtr, Error> {
    let repeated = Type::group_type_builder("list")
        .with_repetition(Repetition::REPEATED)
        .with_fields(vec![element])
        .build()?;
    Ok(Arc::new(
        Type::group_type_builder(name)
            .with_repetition(Repetition::REQUIRED)
            .with_logical_type(Some(LogicalType::List))
            .with_fields(vec![Arc::new(repeated)])
            .build()?,
    ))
}

fn string(name: &str, repetition: Repetition) -> Result<TypePtr, Error> {
    primitive(
        name,
        Physical::BYTE_ARRAY,
        repetition,
        Some(LogicalType::String),
    )
}

fn schema(fields: &[Field]) -> Result<TypePtr, Error> {
    let mut columns = Vec::with_capacity(fields.len());
    for field in fields {
        columns.push(match field {
            Field::Path => string("path", Repetition::REQUIRED)?,
            Field::Title => string("title", Repetition::REQUIRED)?,
            Field::Tags => list("tags", string("element", Repetition::REQUIRED)?)?,
            Field::Modified => primitive(
                "modified",
                Physical::INT64,
                Repetition::OPTIONAL,
                Some(LogicalType::timestamp(true, TimeUnit::MILLIS)),
            )?,
            Field::Frontmatter => string("frontmatter", Repetition::REQUIRED)?,
            Field::Column { name, kind } => match kind {
                ColumnKind::Bool => primitive(name, Physical::BOOLEAN, Repetition::OPTIONAL, None)?,
                ColumnKind::Int => primitive(name, Physical::INT64, Repetition::OPTIONAL, None)?,
                ColumnKind::Float => primitive(name, Physical::DOUBLE, Repetition::OPTIONAL, None)?,
                ColumnKind::Empty | ColumnKind::Text => string(name, Repetition::OPTIONAL)?,
            },
            Field::Content => string("content", Repetition::REQUIRED)?,
            Field::Links => list("links", string("element", Repetition::REQUIRED)?)?,
            Field::Embeddings => {
                let float = primitive("element", Physical::FLOAT, Repetition::REQUIRED, None)?;
                list("embeddings", list("element", float)?)?
            }
        });
    }
    Ok(Arc::new(
        Type::group_type_builder("page")
            .with_fields(columns)
            .build()?,
    ))
}

/// Writes an export's rows as one Parquet file, a row group at a time.
pub struct ParquetWriter {
    file: SerializedFileWriter<Vec<u8>>,
    fields: Vec<Field>,
    rows: Vec<Row>,
    /// About how many bytes the buffered rows hold.
    bytes: usize,
}

impl ParquetWriter {
    /// A writer of the columns `encoder` asks for (its format is not looked at).
    pub fn new(encoder: &Encoder) -> Result<ParquetWriter, Error> {
        let fields = fields(encoder);
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by("quire".to_string())
            .build();
        let file = SerializedFileWriter::new(Vec::new(), schema(&fields)?, Arc::new(properties))?;
        Ok(ParquetWriter {
            file,
            fields,
            rows: Vec::new(),
            bytes: 0,
        })
    }

    /// Takes one row; answers the bytes of the file that are ready (a row group when one
    /// filled up, else nothing).
    pub fn push(&mut self, row: Row) -> Result<Vec<u8>, Error> {
        self.bytes += row.path.len()
            + row.title.len()
            + row.content.as_ref().map_or(0, String::len)
            + row.frontmatter.len() * 32
            + row
                .embeddings
                .as_ref()
                .map_or(0, |v| v.iter().map(|c| c.len() * 4).sum());
        self.rows.push(row);
        if self.rows.len() >= ROW_GROUP_ROWS || self.bytes >= ROW_GROUP_BYTES {
            self.flush()?;
        }
        self.take()
    }

    /// Writes the last row group and the footer; answers the rest of the file.
    pub fn finish(mut self) -> Result<Vec<u8>, Error> {
        self.flush()?;
        self.file.finish()?;
        self.take()
    }

    /// The bytes written so far that were not handed back yet.
    fn take(&mut self) -> Result<Vec<u8>, Error> {
        self.file.flush()?;
        Ok(std::mem::take(self.file.inner_mut()))
    }

    /// Writes the buffered rows as a row group.
    fn flush(&mut self) -> Result<(), Error> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.rows);
        self.bytes = 0;
        let mut group = self.file.next_row_group()?;
        for field in &self.fields {
            let Some(mut column) = group.next_column()? else {
                return Err(Error::General("fewer columns than fields".to_string()));
            };
            write_column(&mut column, field, &rows)?;
            column.close()?;
        }
        group.close()?;
        Ok(())
    }
}

/// Writes every row, then the footer: the whole file in memory (tests, small exports).
pub fn write_all(encoder: &Encoder, rows: impl IntoIterator<Item = Row>) -> Result<Vec<u8>, Error> {
    let mut writer = ParquetWriter::new(encoder)?;
    let mut out = Vec::new();
    for row in rows {
        out.extend(writer.push(row)?);
    }
    out.extend(writer.finish()?);
    Ok(out)
}

fn bytes(text: &str) -> ByteArray {
    ByteArray::from(text.as_bytes().to_vec())
}

/// One column of a row group, its values and levels made from the rows.
fn write_column(
    column: &mut SerializedColumnWriter<'_>,
    field: &Field,
    rows: &[Row],
) -> Result<(), Error> {
    match field {
        Field::Path | Field::Title | Field::Content | Field::Frontmatter => {
            let values: Vec<ByteArray> = rows
                .iter()
                .map(|row| match field {
                    Field::Path => bytes(&row.path),
                    Field::Title => bytes(&row.title),
                    Field::Content => bytes(row.content.as_deref().unwrap_or("")),
                    _ => bytes(&Value::Object(row.frontmatter.clone()).to_string()),
                })
                .collect();
            column
                .typed::<ByteArrayType>()
                .write_batch(&values, None, None)?;
        }
        Field::Modified => {
            let values: Vec<i64> = rows.iter().filter_map(|r| r.modified_ms).collect();
            let defs: Vec<i16> = rows
                .iter()
                .map(|r| r.modified_ms.is_some() as i16)
                .collect();
            column
                .typed::<Int64Type>()
                .write_batch(&values, Some(&defs), None)?;
        }
        Field::Tags | Field::Links => {
            let (mut values, mut defs, mut reps) = (Vec::new(), Vec::new(), Vec::new());
            for row in rows {
                let list: &[String] = match field {
                    Field::Tags => &row.tags,
                    _ => row.links.as_deref().unwrap_or(&[]),
                };
                if list.is_empty() {
                    defs.push(0);
                    reps.push(0);
                }
                for (i, item) in list.iter().enumerate() {
                    values.push(bytes(item));
                    defs.push(1);
                    reps.push((i > 0) as i16);
                }
            }
            column
                .typed::<ByteArrayType>()
                .write_batch(&values, Some(&defs), Some(&reps))?;
        }
        Field::Embeddings => {
            let (mut values, mut defs, mut reps) = (Vec::new(), Vec::new(), Vec::new());
            for row in rows {
                let vectors = row.embeddings.as_deref().unwrap_or(&[]);
                if vectors.is_empty() {
                    defs.push(0);
                    reps.push(0);
                }
                for (i, vector) in vectors.iter().enumerate() {
                    let first = if i == 0 { 0 } else { 1 };
                    if vector.is_empty() {
                        defs.push(1);
                        reps.push(first);
                    }
                    for (j, value) in vector.iter().enumerate() {
                        values.push(*value);
                        defs.push(2);
                        reps.push(if j == 0 { first } else { 2 });
                    }
                }
            }
            column
                .typed::<FloatType>()
                .write_batch(&values, Some(&defs), Some(&reps))?;
        }
        Field::Column { name, kind } => {
            let cells: Vec<Option<&Value>> = rows
                .iter()
                .map(|r| r.frontmatter.get(name).filter(|v| !v.is_null()))
                .collect();
            let defs: Vec<i16> = cells.iter().map(|c| c.is_some() as i16).collect();
            let present = cells.iter().flatten();
            match kind {
                ColumnKind::Bool => {
                    let values: Vec<bool> =
                        present.map(|v| v.as_bool().unwrap_or_default()).collect();
                    column
                        .typed::<BoolType>()
                        .write_batch(&values, Some(&defs), None)?;
                }
                ColumnKind::Int => {
                    let values: Vec<i64> =
                        present.map(|v| v.as_i64().unwrap_or_default()).collect();
                    column
                        .typed::<Int64Type>()
                        .write_batch(&values, Some(&defs), None)?;
                }
                ColumnKind::Float => {
                    let values: Vec<f64> =
                        present.map(|v| v.as_f64().unwrap_or_default()).collect();
                    column
                        .typed::<DoubleType>()
                        .write_batch(&values, Some(&defs), None)?;
                }
                ColumnKind::Empty | ColumnKind::Text => {
                    let values: Vec<ByteArray> = present
                        .map(|v| bytes(&text_of(v).unwrap_or_default()))
                        .collect();
                    column
                        .typed::<ByteArrayType>()
                        .write_batch(&values, Some(&defs), None)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_import::export::Format;
    use serde_json::json;

    fn encoder(columns: Option<Vec<&str>>, kinds: Option<Vec<ColumnKind>>) -> Encoder {
        Encoder {
            format: Format::Parquet,
            columns: columns.map(|c| c.into_iter().map(str::to_string).collect()),
            content: true,
            links: true,
            embeddings: true,
            kinds,
        }
    }

    fn row(n: usize) -> Row {
        Row {
            path: format!("p/{n}.md"),
            title: format!("Page {n}"),
            tags: (0..n % 3).map(|t| format!("t{t}")).collect(),
            modified_ms: (n.is_multiple_of(2)).then_some(1_700_000_000_000),
            frontmatter: json!({"n": n, "ok": n.is_multiple_of(2)})
                .as_object()
                .cloned()
                .unwrap(),
            content: Some(format!("body {n}\n")),
            links: Some(vec![]),
            embeddings: Some(vec![vec![0.5; n % 3], vec![]]),
        }
    }

    #[test]
    fn a_file_starts_and_ends_with_the_magic_and_holds_every_row_group() {
        let rows = (0..ROW_GROUP_ROWS * 2 + 5).map(row);
        let file = write_all(&encoder(None, None), rows).unwrap();
        assert_eq!(&file[..4], b"PAR1");
        assert_eq!(&file[file.len() - 4..], b"PAR1");
    }

    #[test]
    fn row_groups_are_handed_back_as_they_fill() {
        let mut writer = ParquetWriter::new(&encoder(
            Some(vec!["n", "ok", "path", "n"]),
            Some(vec![
                ColumnKind::Int,
                ColumnKind::Bool,
                ColumnKind::Text,
                ColumnKind::Int,
            ]),
        ))
        .unwrap();
        let mut sizes = Vec::new();
        for n in 0..ROW_GROUP_ROWS + 1 {
            sizes.push(writer.push(row(n)).unwrap().len());
        }
        // The first row group went out when it filled, long before the last row.
        assert!(
            sizes[ROW_GROUP_ROWS - 1] > 1000,
            "{:?}",
            &sizes[ROW_GROUP_ROWS - 2..]
        );
        assert_eq!(sizes[ROW_GROUP_ROWS], 0);
        let rest = writer.finish().unwrap();
        assert_eq!(&rest[rest.len() - 4..], b"PAR1");
    }
}
