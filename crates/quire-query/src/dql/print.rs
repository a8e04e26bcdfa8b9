//! Queries back to text: `Display` for [`Query`] writes a query that parses to the same query
//! (spans aside). Keywords are uppercase, one clause per line, and every field, `FLATTEN` and
//! `GROUP BY` carries its name as `AS "…"`, so headers survive whatever the expression's
//! spelling was.

use std::fmt::{self, Write as _};

use super::{Clause, Field, IdColumn, Query, QueryKind, SortOrder, Source};
use crate::expr::print::{write_link, write_string};

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            QueryKind::Table { id, fields } => {
                f.write_str("TABLE")?;
                if *id == IdColumn::Hidden {
                    f.write_str(" WITHOUT ID")?;
                }
                for (i, field) in fields.iter().enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    // `TABLE without …` would read as the start of `WITHOUT ID`.
                    let guard = i == 0 && *id == IdColumn::Shown;
                    write_field(f, field, guard)?;
                }
            }
            QueryKind::List { expr } => {
                f.write_str("LIST")?;
                if let Some(field) = expr {
                    f.write_char(' ')?;
                    write_field(f, field, false)?;
                }
            }
            QueryKind::Count => f.write_str("COUNT")?,
            QueryKind::Distinct { expr } => {
                f.write_str("DISTINCT ")?;
                write_field(f, expr, false)?;
            }
        }
        for clause in &self.clauses {
            f.write_char('\n')?;
            write_clause(f, clause)?;
        }
        Ok(())
    }
}

fn write_field(f: &mut fmt::Formatter<'_>, field: &Field, guard_without: bool) -> fmt::Result {
    let text = field.expr.to_string();
    if guard_without && starts_with_word(&text, "without") {
        write!(f, "({text})")?;
    } else {
        f.write_str(&text)?;
    }
    f.write_str(" AS ")?;
    write_string(f, &field.header)
}

/// Whether `text` starts with the identifier `word` (any case) and not a longer one.
fn starts_with_word(text: &str, word: &str) -> bool {
    text.get(..word.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(word))
        && !text[word.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn write_clause(f: &mut fmt::Formatter<'_>, clause: &Clause) -> fmt::Result {
    match clause {
        Clause::From(source) => {
            f.write_str("FROM ")?;
            write_source(f, source, 0)
        }
        Clause::Where(expr) => write!(f, "WHERE {expr}"),
        Clause::Sort(keys) => {
            f.write_str("SORT ")?;
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                let order = match key.order {
                    SortOrder::Asc => "ASC",
                    SortOrder::Desc => "DESC",
                };
                write!(f, "{} {order}", key.expr)?;
            }
            Ok(())
        }
        Clause::GroupBy { expr, name } => {
            write!(f, "GROUP BY {expr}")?;
            if let Some(name) = name {
                f.write_str(" AS ")?;
                write_string(f, name)?;
            }
            Ok(())
        }
        Clause::Flatten { expr, name } => {
            write!(f, "FLATTEN {expr} AS ")?;
            write_string(f, name)
        }
        Clause::Limit(n) => write!(f, "LIMIT {n}"),
    }
}

/// Levels of `FROM` sources, loosest first: `or`, `and`, then negations and atoms.
const SOURCE_OR: u8 = 0;
const SOURCE_AND: u8 = 1;
const SOURCE_ATOM: u8 = 2;

fn source_level(source: &Source) -> u8 {
    match source {
        Source::Or(_, _) => SOURCE_OR,
        Source::And(_, _) => SOURCE_AND,
        _ => SOURCE_ATOM,
    }
}

fn write_source(f: &mut fmt::Formatter<'_>, source: &Source, min: u8) -> fmt::Result {
    if source_level(source) < min {
        f.write_char('(')?;
        write_source(f, source, 0)?;
        return f.write_char(')');
    }
    match source {
        Source::Folder(folder) => write_string(f, folder),
        Source::Tag(tag) => write!(f, "#{tag}"),
        Source::LinksTo(target) => write_link(f, target),
        Source::LinkedFrom(target) => {
            f.write_str("outgoing(")?;
            write_link(f, target)?;
            f.write_char(')')
        }
        Source::Not(inner) => {
            f.write_char('-')?;
            // `-(-x)` is two negations; `--x` would be none.
            if matches!(**inner, Source::Not(_)) {
                f.write_char('(')?;
                write_source(f, inner, 0)?;
                return f.write_char(')');
            }
            write_source(f, inner, SOURCE_ATOM)
        }
        Source::And(lhs, rhs) => {
            write_source(f, lhs, SOURCE_AND)?;
            f.write_str(" and ")?;
            write_source(f, rhs, SOURCE_ATOM)
        }
        Source::Or(lhs, rhs) => {
            write_source(f, lhs, SOURCE_OR)?;
            f.write_str(" or ")?;
            write_source(f, rhs, SOURCE_AND)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_query;

    fn printed(src: &str) -> String {
        let text = parse_query(src).unwrap().to_string();
        let again = parse_query(&text).unwrap_or_else(|e| panic!("{text:?} does not parse: {e}"));
        assert_eq!(again.to_string(), text, "{src:?}");
        text
    }

    #[test]
    fn queries_print_one_clause_a_line_with_every_name() {
        assert_eq!(
            printed("table file.name, status as \"S\" from \"notes\" where x > 1 sort file.mtime desc, a limit 5"),
            "TABLE file.name AS \"file.name\", status AS \"S\"\nFROM \"notes\"\nWHERE x > 1\nSORT file.mtime DESC, a ASC\nLIMIT 5"
        );
        assert_eq!(
            printed("LIST WITHOUT_x FLATTEN file.tags GROUP BY key as k"),
            "LIST WITHOUT_x AS \"WITHOUT_x\"\nFLATTEN file.tags AS \"file.tags\"\nGROUP BY key AS \"k\""
        );
        assert_eq!(printed("count"), "COUNT");
        assert_eq!(
            printed("distinct lower(x)"),
            "DISTINCT lower(x) AS \"lower(x)\""
        );
        assert_eq!(printed("TABLE WITHOUT ID"), "TABLE WITHOUT ID");
    }

    #[test]
    fn a_first_field_named_without_keeps_its_parentheses() {
        assert_eq!(
            printed("TABLE (without) + 1"),
            "TABLE (without + 1) AS \"(without) + 1\""
        );
        assert_eq!(
            printed("TABLE WITHOUT ID without"),
            "TABLE WITHOUT ID without AS \"without\""
        );
    }

    #[test]
    fn sources_keep_their_grouping_and_negations() {
        let cases = [
            (
                "LIST FROM #a or #b and -\"c\"",
                "LIST\nFROM #a or #b and -\"c\"",
            ),
            (
                "LIST FROM (#a or #b) and [[x]]",
                "LIST\nFROM (#a or #b) and [[x]]",
            ),
            ("LIST FROM -(-#a)", "LIST\nFROM -(-#a)"),
            ("LIST FROM - - #a", "LIST\nFROM #a"),
            ("LIST FROM not (#a and #b)", "LIST\nFROM -(#a and #b)"),
            (
                "LIST FROM outgoing([[p] ]])",
                "LIST\nFROM outgoing([[p]|]])",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(printed(src), want, "{src:?}");
        }
    }
}
