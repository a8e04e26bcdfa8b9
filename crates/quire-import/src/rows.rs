//! What every reader shares: the cap on rows, column names from a header, table names.

use crate::{ImportError, Row};

/// How many rows a reader may take.
#[derive(Debug, Clone, Copy)]
pub struct Cap {
    /// More rows than this refuse the import.
    pub max: usize,
    /// Stop after this many (a preview): no refusal.
    pub first: Option<usize>,
}

impl Cap {
    /// Every row up to `max`.
    pub fn all(max: usize) -> Cap {
        Cap { max, first: None }
    }

    /// Whether reading may stop with `len` rows read; an error when `len` is past the limit.
    pub(crate) fn full(&self, len: usize) -> Result<bool, ImportError> {
        if self.first.is_some_and(|n| len >= n) {
            return Ok(true);
        }
        if len > self.max {
            return Err(ImportError::TooLarge(format!(
                "the source has more than {} rows, the most one import takes",
                self.max
            )));
        }
        Ok(false)
    }

    pub(crate) fn push(&self, rows: &mut Vec<Row>, row: Row) -> Result<bool, ImportError> {
        rows.push(row);
        self.full(rows.len())
    }
}

/// The column names of a header line: trimmed; an empty cell is named `column_<n>`, a
/// repeated name `<name>_<n>`.
pub(crate) fn column_names<'a>(header: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (i, text) in header.into_iter().enumerate() {
        let text = text.trim();
        let mut name = if text.is_empty() {
            format!("column_{}", i + 1)
        } else {
            text.to_string()
        };
        if names.contains(&name) {
            let mut n = 2;
            while names.contains(&format!("{name}_{n}")) {
                n += 1;
            }
            name = format!("{name}_{n}");
        }
        names.push(name);
    }
    names
}

/// Whether `query` is a table name rather than SQL.
pub(crate) fn is_table_name(query: &str) -> bool {
    !query.is_empty()
        && query
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}
