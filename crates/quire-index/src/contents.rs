//! Everything the index derived from the pages, as one deterministic text: two indexes hold
//! the same pages exactly when their contents are equal. Tests compare an index kept up to
//! date change by change with a fresh rebuild this way.

use crate::{Index, IndexError};

/// Each query lists one table in a fixed order, every column but internal ids as text.
const TABLES: &[(&str, &str)] = &[
    (
        "pages",
        "SELECT path, title, size, mtime_ms, word_count, frontmatter, trusted FROM pages
         ORDER BY path",
    ),
    (
        "frontmatter",
        "SELECT path, key, value_text, value_num, value_date FROM frontmatter
         ORDER BY path, key, value_text, value_num, value_date",
    ),
    (
        "links",
        "SELECT source, line, target_text, resolved_path, kind FROM links
         ORDER BY source, line, target_text, resolved_path, kind",
    ),
    ("tags", "SELECT path, tag FROM tags ORDER BY path, tag"),
    (
        "headings",
        "SELECT path, line, level, text, slug FROM headings ORDER BY path, line, level, text",
    ),
    (
        "fts",
        "SELECT path, title, headings, body FROM fts ORDER BY path",
    ),
];

impl Index {
    /// Every row derived from pages, table by table, in a stable order.
    pub fn contents(&self) -> Result<String, IndexError> {
        let connection = self.connection();
        let mut out = String::new();
        for (table, sql) in TABLES {
            out.push_str(&format!("# {table}\n"));
            let mut statement = connection.prepare(sql).map_err(|e| self.sqlite_error(e))?;
            let columns = statement.column_count();
            let mut rows = statement.query([]).map_err(|e| self.sqlite_error(e))?;
            while let Some(row) = rows.next().map_err(|e| self.sqlite_error(e))? {
                let mut fields = Vec::with_capacity(columns);
                for i in 0..columns {
                    let value: rusqlite::types::Value =
                        row.get(i).map_err(|e| self.sqlite_error(e))?;
                    fields.push(format!("{value:?}"));
                }
                out.push_str(&fields.join(" | "));
                out.push('\n');
            }
        }
        Ok(out)
    }
}
