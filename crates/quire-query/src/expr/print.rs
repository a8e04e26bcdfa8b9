//! Expressions back to source text: `Display` for [`Expr`] writes text that parses to the same
//! tree (spans aside), with the parentheses precedence needs and no others.
//!
//! Canonical spellings: `!` for a negation of a tight operand, `not` before a comparison,
//! symbols for `=`/`!=`/`<`…, words for `and`, `or`, `in` and `not in`, lowercase function
//! names, double-quoted strings, `fm["key-with-dash"]` for a field that is no identifier.

use std::fmt::{self, Write as _};

use super::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::value::Value;

/// How tightly a printed node binds, as the parser's binding powers: an operand that binds
/// less tightly than its place needs is put in parentheses.
const OR: u8 = 1;
const AND: u8 = 3;
/// `not x` (the keyword form): looser than comparisons, tighter than `and`.
const NOT_WORD: u8 = 5;
const COMPARE: u8 = 7;
const SUM: u8 = 9;
const PRODUCT: u8 = 11;
/// `-x` and `!x`.
const PREFIX: u8 = 13;
/// Literals, variables, calls, lists, links, member and index access.
const ATOM: u8 = 15;

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
}

fn binary_level(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => OR,
        BinaryOp::And => AND,
        BinaryOp::Eq
        | BinaryOp::NotEq
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::In
        | BinaryOp::NotIn => COMPARE,
        BinaryOp::Add | BinaryOp::Sub => SUM,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => PRODUCT,
    }
}

/// The level of `expr` as printed on its own (without parentheses around it).
fn level(expr: &Expr) -> u8 {
    match &expr.kind {
        ExprKind::Binary(op, _, _) => binary_level(*op),
        ExprKind::Unary(UnaryOp::Not, operand) if level(operand) < PREFIX => NOT_WORD,
        ExprKind::Unary(_, _) => PREFIX,
        _ => ATOM,
    }
}

/// Writes `expr` where the parser reads an operand binding at least `min` tightly.
fn write_expr(f: &mut fmt::Formatter<'_>, expr: &Expr, min: u8) -> fmt::Result {
    if level(expr) < min {
        // `!(…)` rather than `(not …)` when a negation needs parentheses anyway, unless a
        // member or index access follows: `!(a).b` would negate `(a).b`.
        if let (ExprKind::Unary(UnaryOp::Not, operand), true) = (&expr.kind, min <= PREFIX) {
            f.write_str("!(")?;
            write_expr(f, operand, 0)?;
            return f.write_str(")");
        }
        f.write_char('(')?;
        write_expr(f, expr, 0)?;
        return f.write_char(')');
    }
    match &expr.kind {
        ExprKind::Literal(value) => write_literal(f, value),
        ExprKind::List(items) => {
            f.write_char('[')?;
            write_items(f, items)?;
            f.write_char(']')
        }
        ExprKind::Path(path) => {
            let (first, rest) = path.split_first().map_or(("", &[][..]), |(a, b)| (a, b));
            f.write_str(first)?;
            rest.iter().try_for_each(|field| write_field(f, field))
        }
        ExprKind::Member(base, field) => {
            write_expr(f, base, ATOM)?;
            write_field(f, field)
        }
        ExprKind::Index(base, index) => {
            write_expr(f, base, ATOM)?;
            f.write_char('[')?;
            write_bracketed(f, index)?;
            f.write_char(']')
        }
        ExprKind::Link(text) => write_link(f, text),
        ExprKind::Unary(UnaryOp::Neg, operand) => {
            f.write_char('-')?;
            write_expr(f, operand, PREFIX)
        }
        ExprKind::Unary(UnaryOp::Not, operand) if level(operand) >= PREFIX => {
            f.write_char('!')?;
            write_expr(f, operand, PREFIX)
        }
        ExprKind::Unary(UnaryOp::Not, operand) => {
            f.write_str("not ")?;
            write_expr(f, operand, NOT_WORD)
        }
        ExprKind::Binary(op, lhs, rhs) => {
            let at = binary_level(*op);
            // Left-associative: the left operand may be of the same level, the right not.
            write_expr(f, lhs, at)?;
            write!(f, " {op} ")?;
            write_expr(f, rhs, at + 1)
        }
        ExprKind::Call(call) => {
            f.write_str(call.func.name())?;
            f.write_char('(')?;
            write_items(f, &call.args)?;
            f.write_char(')')
        }
    }
}

/// Comma-separated expressions inside `[…]` or `(…)`.
fn write_items(f: &mut fmt::Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i == 0 {
            write_bracketed(f, item)?;
        } else {
            f.write_str(", ")?;
            write_expr(f, item, 0)?;
        }
    }
    Ok(())
}

/// An expression right after a `[`: a space keeps `[` `[` from reading as a link's `[[`.
fn write_bracketed(f: &mut fmt::Formatter<'_>, expr: &Expr) -> fmt::Result {
    let text = expr.to_string();
    if text.starts_with('[') {
        f.write_char(' ')?;
    }
    f.write_str(&text)
}

/// `.field`, or `["field"]` for a field that is no identifier (`review-by`).
fn write_field(f: &mut fmt::Formatter<'_>, field: &str) -> fmt::Result {
    if is_identifier(field) {
        f.write_char('.')?;
        f.write_str(field)
    } else {
        f.write_char('[')?;
        write_string(f, field)?;
        f.write_char(']')
    }
}

/// Whether the lexer reads `text` as one identifier.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// `[[text]]`. A text ending in `]` gets an empty alias (`[[a]|]]`), or its `]` would close
/// the link early.
pub(crate) fn write_link(f: &mut impl fmt::Write, text: &str) -> fmt::Result {
    f.write_str("[[")?;
    f.write_str(text)?;
    if text.ends_with(']') {
        f.write_char('|')?;
    }
    f.write_str("]]")
}

/// A double-quoted string literal.
pub(crate) fn write_string(f: &mut impl fmt::Write, text: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// Literals as the parser builds them (null, booleans, numbers of at least zero, strings);
/// values only a caller can put into a tree are written as the expression computing them.
fn write_literal(f: &mut fmt::Formatter<'_>, value: &Value) -> fmt::Result {
    match value {
        Value::Null => f.write_str("null"),
        Value::Bool(b) => write!(f, "{b}"),
        Value::Number(n) => write_number(f, *n),
        Value::String(s) => write_string(f, s),
        Value::Link(text) => write_link(f, text),
        Value::Date(date) => {
            f.write_str("date(")?;
            write_string(f, &date.to_rfc3339())?;
            f.write_char(')')
        }
        Value::Duration(_) => {
            f.write_str("dur(")?;
            write_string(f, &value.to_string())?;
            f.write_char(')')
        }
        Value::List(items) => {
            f.write_str("list(")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_literal(f, item)?;
            }
            f.write_char(')')
        }
        // No literal or function builds an object.
        Value::Object(_) => f.write_str("null"),
    }
}

/// A number as the lexer reads one: digits, an optional fraction, no exponent. Rust writes
/// the shortest digits that read back as the same `f64`.
fn write_number(f: &mut fmt::Formatter<'_>, n: f64) -> fmt::Result {
    if n.is_nan() {
        return f.write_str("number(\"NaN\")");
    }
    if n < 0.0 || (n == 0.0 && n.is_sign_negative()) {
        f.write_str("-")?;
        return write_number(f, -n);
    }
    if n.is_infinite() {
        // More digits than any finite f64 has reads as infinity.
        f.write_char('1')?;
        return f.write_str(&"0".repeat(400));
    }
    write!(f, "{n}")
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    /// `src` printed, and the printed text parsing back to the same text.
    fn printed(src: &str) -> String {
        let text = parse(src).unwrap().to_string();
        let again = parse(&text).unwrap_or_else(|e| panic!("{text:?} does not parse: {e}"));
        assert_eq!(again.to_string(), text, "{src:?}");
        text
    }

    #[test]
    fn precedence_keeps_only_the_parentheses_it_needs() {
        let cases = [
            (
                "a = 1 or b and not c > 2 + 3 * 4",
                "a = 1 or b and not c > 2 + 3 * 4",
            ),
            ("(a or b) and c", "(a or b) and c"),
            ("a - (b - c)", "a - (b - c)"),
            ("((a - b)) - c", "a - b - c"),
            ("!a = b", "!a = b"),
            ("not (a = b) = c", "not a = b = c"),
            ("(not a = b) = c", "!(a = b) = c"),
            ("-(x + 1)", "-(x + 1)"),
            ("- -1", "--1"),
            ("not not a", "!!a"),
            ("not (a and b)", "not (a and b)"),
            ("(-x).y", "(-x).y"),
            ("(not a = b).md", "(not a = b).md"),
            ("(!a)[0]", "(!a)[0]"),
            ("(a + b)[0]", "(a + b)[0]"),
            ("x NOT IN [1, 2,]", "x not in [1, 2]"),
            ("a && b || c", "a and b or c"),
        ];
        for (src, want) in cases {
            assert_eq!(printed(src), want, "{src:?}");
        }
    }

    /// Found by the `expr` fuzz target: `not a = not a = …` 99 levels deep parsed, but its
    /// printed form `!(a = !(a = …))` has parentheses the source had not and was refused as
    /// nesting too deeply. Whatever tree parses, its printed text parses too.
    #[test]
    fn the_deepest_expressions_accepted_print_to_text_that_parses() {
        let shapes: [(&str, &str, &str); 5] = [
            ("not a = ", "a", ""),
            ("-(a + ", "a", ")"),
            ("!(a or ", "a", ")"),
            ("lower(not ", "a", ")"),
            ("[1, (a - ", "b", ")]"),
        ];
        for (open, leaf, close) in shapes {
            let mut accepted = 0;
            for depth in 1..=260 {
                let src = format!("{}{leaf}{}", open.repeat(depth), close.repeat(depth));
                if parse(&src).is_ok() {
                    printed(&src);
                    accepted = depth;
                }
            }
            assert!(accepted >= 40, "{open:?} nests only {accepted} deep");
        }
    }

    #[test]
    fn literals_links_and_fields_read_back() {
        let cases = [
            (r#"'it\'s' + "a\"b\\c\n""#, r#""it's" + "a\"b\\c\n""#),
            ("0.5 + 10 + 1.25", "0.5 + 10 + 1.25"),
            ("[[Page|alias]] = [[a] ]]", "[[Page]] = [[a]|]]"),
            ("[ [[a]], [ [1]] ]", "[ [[a]], [ [1]]]"),
            ("x[ [1] ]", "x[ [1]]"),
            (r#"fm["review-by"].x"#, r#"fm["review-by"].x"#),
            (r#"fm["plain"]"#, "fm.plain"),
            ("LOWER(x).y", "lower(x).y"),
            ("1.x", "1.x"),
            ("in = and", "in = and"),
        ];
        for (src, want) in cases {
            assert_eq!(printed(src), want, "{src:?}");
        }
    }
}
