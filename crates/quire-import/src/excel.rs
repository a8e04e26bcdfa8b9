//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods) → rows, with `calamine`: the first sheet, or the
//! one named; its first row names the columns. Cells become JSON as they are typed: numbers
//! (a whole number as an integer), booleans, text, and dates as ISO 8601 text (`2024-03-01`,
//! `2024-03-01T09:30:00`, a time alone `09:30:00`). Empty and error cells are no value.

use std::io::{Cursor, Read};

use calamine::{Data, Reader};
use serde_json::{Map, Number, Value};

use crate::rows::{column_names, Cap};
use crate::{ImportError, Row};

/// The rows of the workbook `bytes` (named `name` in messages).
pub fn excel_rows(
    bytes: Vec<u8>,
    name: &str,
    sheet: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    check_unpacked(&bytes, name, &PackageLimits::default())?;
    let mut book = calamine::open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(|e| {
        ImportError::BadRequest(format!(
            "{name} is no spreadsheet calamine reads (xlsx, xlsm, xlsb, xls, ods): {e}"
        ))
    })?;
    let names = book.sheet_names();
    let chosen = match sheet.map(str::trim).filter(|s| !s.is_empty()) {
        Some(wanted) => names
            .iter()
            .find(|n| n.as_str() == wanted)
            .cloned()
            .ok_or_else(|| {
                ImportError::BadRequest(format!(
                    "{name} has no sheet {wanted:?}; its sheets are {}",
                    names
                        .iter()
                        .map(|n| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
        None => names
            .first()
            .cloned()
            .ok_or_else(|| ImportError::BadRequest(format!("{name} holds no sheet")))?,
    };
    let range = book.worksheet_range(&chosen).map_err(|e| {
        ImportError::BadRequest(format!("sheet {chosen:?} of {name} cannot be read: {e}"))
    })?;
    let mut lines = range.rows();
    let Some(header) = lines.next() else {
        return Ok(Vec::new());
    };
    let header: Vec<String> = header.iter().map(header_text).collect();
    let columns = column_names(header.iter().map(String::as_str));
    let mut rows = Vec::new();
    for line in lines {
        let mut row = Map::new();
        for (column, cell) in columns.iter().zip(line) {
            if let Some(value) = cell_value(cell) {
                row.insert(column.clone(), value);
            }
        }
        if row.is_empty() {
            continue;
        }
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

/// What a zip-packed workbook (xlsx, xlsm, xlsb, ods) may unpack to before calamine reads it.
#[derive(Debug, Clone, Copy)]
pub struct PackageLimits {
    /// Bytes one entry (a sheet's XML, say) may unpack to.
    pub entry_bytes: u64,
    /// Bytes all entries together may unpack to.
    pub total_bytes: u64,
    /// Entries at most.
    pub entries: usize,
}

impl Default for PackageLimits {
    fn default() -> Self {
        PackageLimits {
            entry_bytes: 512 << 20,
            total_bytes: 1 << 30,
            entries: 10_000,
        }
    }
}

/// Refuses a zip-packed workbook that unpacks past `limits` (a zip bomb), counting the bytes
/// each entry really inflates to, whatever its header declares: calamine would otherwise hold
/// them all in memory. Other files (the old binary `xls`) pass: calamine reads them as they are.
pub fn check_unpacked(bytes: &[u8], name: &str, limits: &PackageLimits) -> Result<(), ImportError> {
    if !bytes.starts_with(b"PK\x03\x04") {
        return Ok(());
    }
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ImportError::BadRequest(format!("{name} is no readable zip package: {e}")))?;
    if archive.len() > limits.entries {
        return Err(ImportError::TooLarge(format!(
            "{name} holds {} entries, more than the {} a workbook may",
            archive.len(),
            limits.entries
        )));
    }
    let mut total = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| {
            ImportError::BadRequest(format!("{name}: entry {i} cannot be read: {e}"))
        })?;
        inflate(&mut entry, name, i, limits, &mut total, &mut buffer, None)?;
    }
    Ok(())
}

/// Unpacks one zip entry through a counter: `total` (all entries of the archive so far) and
/// the entry's own size are counted as the bytes inflate, whatever the header declares, and
/// past `limits` the entry is [`ImportError::TooLarge`] (a zip bomb). With `keep`, the bytes
/// are appended there; without, they are dropped. `buffer` is scratch space.
pub(crate) fn inflate(
    entry: &mut impl Read,
    name: &str,
    i: usize,
    limits: &PackageLimits,
    total: &mut u64,
    buffer: &mut [u8],
    mut keep: Option<&mut Vec<u8>>,
) -> Result<(), ImportError> {
    let mut size = 0u64;
    loop {
        let n = entry.read(buffer).map_err(|e| {
            ImportError::BadRequest(format!("{name}: entry {i} cannot be unpacked: {e}"))
        })?;
        if n == 0 {
            return Ok(());
        }
        size += n as u64;
        *total += n as u64;
        if size > limits.entry_bytes || *total > limits.total_bytes {
            return Err(ImportError::TooLarge(format!(
                "{name} unpacks to more than {} MiB ({} MiB an entry): refused as a zip bomb",
                limits.total_bytes >> 20,
                limits.entry_bytes >> 20
            )));
        }
        if let Some(keep) = keep.as_deref_mut() {
            keep.extend_from_slice(&buffer[..n]);
        }
    }
}

fn header_text(cell: &Data) -> String {
    match cell_value(cell) {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// One cell as JSON; `None` for an empty or error cell.
pub fn cell_value(cell: &Data) -> Option<Value> {
    match cell {
        Data::Empty | Data::Error(_) => None,
        Data::String(s) if s.is_empty() => None,
        Data::String(s) => Some(Value::String(s.clone())),
        Data::Bool(b) => Some(Value::Bool(*b)),
        Data::Int(n) => Some(Value::Number((*n).into())),
        Data::Float(x) => number(*x),
        Data::DateTimeIso(s) | Data::DurationIso(s) => Some(Value::String(s.clone())),
        Data::DateTime(dt) if dt.is_duration() => Some(Value::String(duration(dt.as_f64()))),
        Data::DateTime(dt) => {
            let (y, mo, d, h, mi, s, ms) = dt.to_ymd_hms_milli();
            let time = if ms > 0 {
                format!("{h:02}:{mi:02}:{s:02}.{ms:03}")
            } else {
                format!("{h:02}:{mi:02}:{s:02}")
            };
            let text = if dt.as_f64() < 1.0 && dt.as_f64() >= 0.0 {
                time
            } else if (h, mi, s, ms) == (0, 0, 0, 0) {
                format!("{y:04}-{mo:02}-{d:02}")
            } else {
                format!("{y:04}-{mo:02}-{d:02}T{time}")
            };
            Some(Value::String(text))
        }
    }
}

/// A float as JSON: a whole number within ±2^53 as an integer (spreadsheets store every
/// number as a float); NaN and infinities are no value.
fn number(x: f64) -> Option<Value> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() <= EXACT {
        return Some(Value::Number((x as i64).into()));
    }
    Number::from_f64(x).map(Value::Number)
}

/// A duration in days as `[h]:mm:ss`.
fn duration(days: f64) -> String {
    let total = (days * 86_400.0).round() as i64;
    let sign = if total < 0 { "-" } else { "" };
    let total = total.abs();
    format!(
        "{sign}{}:{:02}:{:02}",
        total / 3600,
        total / 60 % 60,
        total % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{ExcelDateTime, ExcelDateTimeType};
    use serde_json::json;

    fn date(x: f64) -> Data {
        Data::DateTime(ExcelDateTime::new(x, ExcelDateTimeType::DateTime, false))
    }

    #[test]
    fn cells_become_typed_json() {
        assert_eq!(cell_value(&Data::Float(3.0)), Some(json!(3)));
        assert_eq!(cell_value(&Data::Float(2.5)), Some(json!(2.5)));
        assert_eq!(cell_value(&Data::Bool(true)), Some(json!(true)));
        assert_eq!(cell_value(&Data::Empty), None);
        assert_eq!(cell_value(&Data::String(String::new())), None);
        assert_eq!(cell_value(&date(45352.0)), Some(json!("2024-03-01")));
        assert_eq!(
            cell_value(&date(45352.5)),
            Some(json!("2024-03-01T12:00:00"))
        );
        assert_eq!(cell_value(&date(0.25)), Some(json!("06:00:00")));
        let long = Data::DateTime(ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false));
        assert_eq!(cell_value(&long), Some(json!("36:00:00")));
    }
}

#[cfg(test)]
mod package_tests {
    use std::io::Write;

    use super::*;

    fn package(entries: &[(&str, usize)]) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut out);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, size) in entries {
                zip.start_file(*name, options).unwrap();
                zip.write_all(&vec![b'a'; *size]).unwrap();
            }
            zip.finish().unwrap();
        }
        out.into_inner()
    }

    #[test]
    fn a_package_that_unpacks_past_the_caps_is_refused_before_calamine_reads_it() {
        let limits = PackageLimits {
            entry_bytes: 1 << 20,
            total_bytes: 3 << 20,
            entries: 8,
        };
        // A megabyte of one letter packs to about a kilobyte: the caps count what it unpacks to.
        let bomb = package(&[("xl/worksheets/sheet1.xml", (1 << 20) + 1)]);
        assert!(bomb.len() < 16 * 1024);
        assert!(matches!(
            check_unpacked(&bomb, "bomb.xlsx", &limits),
            Err(ImportError::TooLarge(_))
        ));
        let many = package(&[
            ("a", 900 << 10),
            ("b", 900 << 10),
            ("c", 900 << 10),
            ("d", 900 << 10),
        ]);
        assert!(matches!(
            check_unpacked(&many, "many.xlsx", &limits),
            Err(ImportError::TooLarge(_))
        ));
        let names: Vec<String> = (0..9).map(|i| format!("e{i}")).collect();
        let entries: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 1)).collect();
        assert!(matches!(
            check_unpacked(&package(&entries), "entries.xlsx", &limits),
            Err(ImportError::TooLarge(_))
        ));
        assert!(check_unpacked(&package(&[("a", 1000)]), "ok.xlsx", &limits).is_ok());
        // Not a zip (an old binary xls): left to calamine.
        assert!(check_unpacked(b"\xD0\xCF\x11\xE0", "old.xls", &limits).is_ok());
    }
}
