//! The full-text query language (DECISIONS §5): parsing what a user types into a [`Query`],
//! and rendering a query as an FTS5 `MATCH` expression. Pure: no database, no I/O.
//!
//! ```text
//! query   := or
//! or      := and ("OR" and)*
//! and     := unary (["AND"] unary)*        words side by side must all match
//! unary   := ("NOT" | "-") primary | primary
//! primary := term | field ":" term | "(" or ")"
//! term    := word ["*"] | '"' phrase '"' ["*"]
//! field   := "tag" | "path" | "file"       any case
//! ```
//!
//! A word or phrase matches a page's title, headings, text, tags, aliases, property values
//! (frontmatter) and the folder and file names of its path. The fields are the operators of
//! Obsidian's search: `tag:project` matches pages tagged `#project` or a tag nested below it
//! (`#project/alpha`), ignoring case, `#` optional; `path:notes/daily` matches pages whose path
//! (without `.md`) holds those words in that order, as folder or file names; `file:meeting`
//! matches pages whose file name (without `.md`) holds the words. A field takes a word or a
//! quoted phrase (`path:"daily notes"`) and `*`. `tag:`, `path:` or `file:` with nothing
//! after it is a [`SearchSyntaxError`].
//!
//! `AND`, `OR` and `NOT` are operators only in capitals; `and` is a word. `-` negates when it
//! starts a word, a phrase or a group (`-draft`, `-"old plan"`, `-(a b)`). A trailing `*` makes
//! the last word a prefix. Words and phrases are cut into tokens like the indexed text is
//! (letters and digits; punctuation separates), so `e-mail` is the phrase `e mail`; a word with
//! no letter or digit at all (`&`, `--`) is ignored like punctuation.
//!
//! FTS5's `NOT` is binary (`a NOT b`), so a negation must stand in a group (the whole query, or
//! parentheses) that also has a positive term: `a -b` and `(a OR b) NOT c` are fine, `-b` and
//! `a OR -b` are [`SearchSyntaxError`]s with a message saying so.
//!
//! *Architecture Invariant*: [`Query::to_fts5`] quotes every term, so nothing a user types can
//! reach FTS5 as syntax; a parsed query never makes SQLite report a syntax error.

use super::text::{is_token_char, space_cjk, tag_token};

/// A fault in a query, at a character (not byte) offset into it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {position})")]
pub struct SearchSyntaxError {
    /// Offset in characters from the start of the query.
    pub position: usize,
    pub message: String,
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// A word or phrase: its text (tokenized later, like the indexed text) and whether its last
    /// token is a prefix.
    Term(Term),
    /// A term that must match in one field of the page (`tag:`, `path:`, `file:`).
    Field(Field, Term),
    /// Every part must match; [`Query::Not`] parts must not.
    And(Vec<Query>),
    /// At least one part must match.
    Or(Vec<Query>),
    /// Excludes pages; only ever a part of an [`Query::And`] that has a positive part.
    Not(Box<Query>),
}

/// A word or a quoted phrase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The text as typed, without quotes or trailing `*`.
    pub text: String,
    pub prefix: Prefix,
}

/// Whether a term's last token matches as a prefix (`plan*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    Exact,
    Prefix,
}

/// The part of a page a [`Query::Field`] term must match in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// A tag or a tag nested below it; the term is the tag without `#`.
    Tag,
    /// The page's path without `.md`: folder names and the file name, in order.
    Path,
    /// The file name without `.md`.
    File,
}

impl Field {
    /// The field an operator word names (`tag`, `path`, `file`, any case).
    fn named(name: &str) -> Option<Field> {
        match name.to_ascii_lowercase().as_str() {
            "tag" => Some(Field::Tag),
            "path" => Some(Field::Path),
            "file" => Some(Field::File),
            _ => None,
        }
    }

    /// The operator as typed in a query.
    pub fn operator(self) -> &'static str {
        match self {
            Field::Tag => "tag:",
            Field::Path => "path:",
            Field::File => "file:",
        }
    }

    /// The FTS5 column holding the field (see `pages::CONTENT_SCHEMA`).
    fn column(self) -> &'static str {
        match self {
            Field::Tag => "tagged",
            Field::Path => "place",
            Field::File => "file",
        }
    }

    /// The value as the field compares it: a tag without `#` and trailing `/`, a path or file
    /// name without surrounding `/` and without `.md`.
    fn normalize(self, value: &str) -> String {
        let value = value.trim();
        match self {
            Field::Tag => value
                .trim_start_matches('#')
                .trim_end_matches('/')
                .to_string(),
            Field::Path | Field::File => {
                let value = value.trim_matches('/');
                let stem = value.len().checked_sub(3).filter(|&cut| {
                    value.is_char_boundary(cut) && value[cut..].eq_ignore_ascii_case(".md")
                });
                stem.map_or(value, |cut| &value[..cut]).to_string()
            }
        }
    }
}

/// Words that say little about what a page is about, left out of [`Query::any_word`].
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had",
    "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not",
    "of", "on", "or", "our", "should", "so", "some", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "to", "us", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "would", "you", "your",
];

impl Query {
    /// Parses `input`; see the module documentation for the syntax.
    pub fn parse(input: &str) -> Result<Query, SearchSyntaxError> {
        let lexemes = lex(input)?;
        if lexemes.is_empty() {
            let message = if input.trim().is_empty() {
                "the query is empty"
            } else {
                "the query has no letters or digits to search for"
            };
            return Err(error(0, message));
        }
        let mut parser = Parser {
            lexemes,
            next: 0,
            end: input.chars().count(),
        };
        let query = parser.or()?;
        if let Some(lexeme) = parser.peek() {
            // Only a `)` without its `(` stops `or` before the end.
            return Err(error(lexeme.position, "this `)` closes no `(`"));
        }
        Ok(query)
    }

    /// The FTS5 `MATCH` expression for this query. Every term is a quoted string (CJK spaced
    /// as the indexed text is); operators and parentheses are the only bare syntax.
    pub fn to_fts5(&self) -> String {
        let mut out = String::new();
        self.render(&mut out);
        out
    }

    /// For words typed side by side (`input` is `how far away are other suns`: two or more
    /// plain words or phrases, no operator, field or parenthesis), the query that matches pages with **any** of them, the
    /// common English function words left out when others remain: what a search falls back
    /// to when no page has every word, ranked by BM25 so the pages with the most and the
    /// rarest words come first. `None` for anything else (operators, fields, negations, one
    /// word), which means exactly what it says.
    pub fn any_word(input: &str) -> Option<Query> {
        let parts: Vec<Query> = lex(input)
            .ok()?
            .into_iter()
            .map(|l| match l.kind {
                Kind::Term(term) => Some(Query::Term(term)),
                _ => None,
            })
            .collect::<Option<_>>()?;
        if parts.len() < 2 {
            return None;
        }
        let telling: Vec<Query> = parts
            .iter()
            .filter(|p| match p {
                Query::Term(t) => !FUNCTION_WORDS.contains(&t.text.to_lowercase().as_str()),
                _ => true,
            })
            .cloned()
            .collect();
        match telling.len() {
            0 => Some(Query::Or(parts.clone())),
            1 => telling.into_iter().next(),
            _ => Some(Query::Or(telling)),
        }
    }

    /// Whether some term of the query is a `field` term.
    pub fn uses(&self, field: Field) -> bool {
        match self {
            Query::Term(_) => false,
            Query::Field(f, _) => *f == field,
            Query::And(parts) | Query::Or(parts) => parts.iter().any(|p| p.uses(field)),
            Query::Not(inner) => inner.uses(field),
        }
    }

    fn render(&self, out: &mut String) {
        match self {
            Query::Term(term) => quoted(&space_cjk(&term.text), term.prefix, out),
            Query::Field(field, term) => {
                // In parentheses, so the column filter never binds to a neighbour.
                out.push('(');
                out.push_str(field.column());
                out.push_str(" : ");
                match field {
                    Field::Tag => quoted(&tag_token(&term.text), term.prefix, out),
                    Field::Path | Field::File => {
                        quoted(&space_cjk(&term.text), term.prefix, out);
                    }
                }
                out.push(')');
            }
            Query::Or(parts) => {
                out.push('(');
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" OR ");
                    }
                    part.render(out);
                }
                out.push(')');
            }
            Query::And(parts) => {
                let (negative, positive): (Vec<&Query>, Vec<&Query>) =
                    parts.iter().partition(|p| matches!(p, Query::Not(_)));
                // FTS5 NOT is binary: ((p1 AND p2) NOT n1) NOT n2.
                out.extend(std::iter::repeat_n('(', negative.len() + 1));
                for (i, part) in positive.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" AND ");
                    }
                    part.render(out);
                }
                out.push(')');
                for part in negative {
                    out.push_str(" NOT ");
                    if let Query::Not(inner) = part {
                        inner.render(out);
                    }
                    out.push(')');
                }
            }
            // `check_negations` keeps a lone Not from being parsed; render it harmlessly.
            Query::Not(inner) => inner.render(out),
        }
    }
}

/// `text` as an FTS5 string (`"` doubled), with ` *` after it for a prefix.
fn quoted(text: &str, prefix: Prefix, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
    if prefix == Prefix::Prefix {
        out.push_str(" *");
    }
}

fn error(position: usize, message: impl Into<String>) -> SearchSyntaxError {
    SearchSyntaxError {
        position,
        message: message.into(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Open,
    Close,
    And,
    Or,
    Not,
    Term(Term),
    Field(Field, Term),
}

#[derive(Debug, Clone)]
struct Lexeme {
    kind: Kind,
    /// Character offset where it starts.
    position: usize,
}

/// Characters that end a word.
fn is_break(c: char) -> bool {
    c.is_whitespace() || c.is_control() || c == '(' || c == ')' || c == '"'
}

fn lex(input: &str) -> Result<Vec<Lexeme>, SearchSyntaxError> {
    let chars: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c.is_control() {
            i += 1;
            continue;
        }
        // `-` right before a word, phrase or group negates it.
        if c == '-'
            && chars
                .get(i + 1)
                .is_some_and(|&n| !(n.is_whitespace() || n.is_control()))
        {
            let starts_term = chars[i + 1] == '"'
                || chars[i + 1] == '('
                || chars[i + 1..]
                    .iter()
                    .take_while(|&&n| !is_break(n))
                    .any(|&n| is_token_char(n));
            if starts_term && (chars[i + 1] != ')') {
                out.push(Lexeme {
                    kind: Kind::Not,
                    position: i,
                });
                i += 1;
                continue;
            }
        }
        match c {
            '(' => out.push(Lexeme {
                kind: Kind::Open,
                position: i,
            }),
            ')' => out.push(Lexeme {
                kind: Kind::Close,
                position: i,
            }),
            '"' => {
                let start = i;
                let term;
                (term, i) = phrase(&chars, start)?;
                if term.text.chars().any(is_token_char) {
                    out.push(Lexeme {
                        kind: Kind::Term(term),
                        position: start,
                    });
                }
            }
            _ => {
                let start = i;
                while i < chars.len() && !is_break(chars[i]) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if let Some((field, value)) = word
                    .split_once(':')
                    .and_then(|(name, value)| Some((Field::named(name)?, value)))
                {
                    let (term, end) = if value.is_empty() && chars.get(i) == Some(&'"') {
                        phrase(&chars, i)?
                    } else {
                        (word_term(value), i - 1)
                    };
                    let text = field.normalize(&term.text);
                    if !text.chars().any(is_token_char) {
                        return Err(error(
                            start,
                            format!(
                                "`{}` needs a word to match after it, as in `{}project`",
                                field.operator(),
                                field.operator()
                            ),
                        ));
                    }
                    out.push(Lexeme {
                        kind: Kind::Field(
                            field,
                            Term {
                                text,
                                prefix: term.prefix,
                            },
                        ),
                        position: start,
                    });
                    i = end + 1;
                    continue;
                }
                i -= 1;
                let kind = match word.as_str() {
                    "AND" => Kind::And,
                    "OR" => Kind::Or,
                    "NOT" => Kind::Not,
                    _ => {
                        let term = word_term(&word);
                        if !term.text.chars().any(is_token_char) {
                            i += 1;
                            continue;
                        }
                        Kind::Term(term)
                    }
                };
                out.push(Lexeme {
                    kind,
                    position: start,
                });
            }
        }
        i += 1;
    }
    Ok(out)
}

/// A word as a term: a trailing `*` makes it a prefix.
fn word_term(word: &str) -> Term {
    let text = word.trim_end_matches('*');
    let prefix = if text.len() < word.len() {
        Prefix::Prefix
    } else {
        Prefix::Exact
    };
    Term {
        text: text.to_string(),
        prefix,
    }
}

/// The quoted phrase whose `"` is at `start`, with a `*` after it making a prefix; and the
/// index of its last character.
fn phrase(chars: &[char], start: usize) -> Result<(Term, usize), SearchSyntaxError> {
    let close = chars[start + 1..].iter().position(|&n| n == '"');
    let Some(close) = close.map(|offset| start + 1 + offset) else {
        return Err(error(start, "this `\"` is never closed"));
    };
    let text: String = chars[start + 1..close]
        .iter()
        .map(|&n| if n.is_control() { ' ' } else { n })
        .collect();
    let mut end = close;
    let mut prefix = Prefix::Exact;
    while chars.get(end + 1) == Some(&'*') {
        prefix = Prefix::Prefix;
        end += 1;
    }
    Ok((Term { text, prefix }, end))
}

struct Parser {
    lexemes: Vec<Lexeme>,
    next: usize,
    /// Character length of the input: where "the end" is.
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Lexeme> {
        self.lexemes.get(self.next)
    }

    fn or(&mut self) -> Result<Query, SearchSyntaxError> {
        let mut parts = vec![self.and()?];
        while let Some(Lexeme {
            kind: Kind::Or,
            position,
        }) = self.peek().cloned()
        {
            self.next += 1;
            if !self.starts_operand() {
                return Err(error(position, "`OR` needs a term after it"));
            }
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Query::Or(parts)
        })
    }

    fn starts_operand(&self) -> bool {
        matches!(
            self.peek().map(|l| &l.kind),
            Some(Kind::Term(_) | Kind::Field(..) | Kind::Open | Kind::Not)
        )
    }

    fn and(&mut self) -> Result<Query, SearchSyntaxError> {
        // When every part is a negation, the first part starts with the offending `NOT`.
        let first = self.peek().map(|l| l.position);
        let mut parts = vec![self.unary()?];
        loop {
            match self.peek().cloned() {
                Some(Lexeme {
                    kind: Kind::And,
                    position,
                }) => {
                    self.next += 1;
                    if !self.starts_operand() {
                        return Err(error(position, "`AND` needs a term after it"));
                    }
                }
                Some(_) if self.starts_operand() => {}
                _ => break,
            }
            parts.push(self.unary()?);
        }
        if parts.iter().all(|p| matches!(p, Query::Not(_))) {
            return Err(error(first.unwrap_or(self.end), ONLY_NEGATIVE));
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Query::And(parts)
        })
    }

    fn unary(&mut self) -> Result<Query, SearchSyntaxError> {
        if let Some(Lexeme {
            kind: Kind::Not,
            position,
        }) = self.peek().cloned()
        {
            self.next += 1;
            return match self.peek().map(|l| &l.kind) {
                Some(Kind::Term(_) | Kind::Field(..) | Kind::Open) => {
                    Ok(Query::Not(Box::new(self.primary()?)))
                }
                Some(Kind::Not) => Err(error(position, "`NOT` cannot be doubled")),
                _ => Err(error(position, "`NOT` needs a term after it")),
            };
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Query, SearchSyntaxError> {
        let Some(lexeme) = self.peek().cloned() else {
            return Err(error(self.end, "a term is missing at the end"));
        };
        self.next += 1;
        match lexeme.kind {
            Kind::Term(term) => Ok(Query::Term(term)),
            Kind::Field(field, term) => Ok(Query::Field(field, term)),
            Kind::Open => {
                if matches!(self.peek().map(|l| &l.kind), Some(Kind::Close)) {
                    return Err(error(lexeme.position, "these parentheses are empty"));
                }
                if self.peek().is_none() {
                    return Err(error(lexeme.position, "this `(` is never closed"));
                }
                let inner = self.or()?;
                match self.peek() {
                    Some(Lexeme {
                        kind: Kind::Close, ..
                    }) => {
                        self.next += 1;
                        Ok(inner)
                    }
                    _ => Err(error(lexeme.position, "this `(` is never closed")),
                }
            }
            Kind::Close => Err(error(lexeme.position, "this `)` closes no `(`")),
            Kind::And => Err(error(lexeme.position, "`AND` needs a term before it")),
            Kind::Or => Err(error(lexeme.position, "`OR` needs a term before it")),
            Kind::Not => Err(error(lexeme.position, "`NOT` cannot be doubled")),
        }
    }
}

/// Why a negation alone is refused (FTS5 `NOT` needs something to subtract from).
const ONLY_NEGATIVE: &str = "`NOT` needs a term to search for beside it in the same group, \
     as in `a NOT b`: a query or a group cannot only exclude";

#[cfg(test)]
mod tests {
    use super::*;

    fn fts(input: &str) -> String {
        Query::parse(input)
            .unwrap_or_else(|e| panic!("{input}: {e}"))
            .to_fts5()
    }

    fn fault(input: &str) -> (usize, String) {
        let e = Query::parse(input).expect_err(input);
        (e.position, e.message)
    }

    #[test]
    fn words_side_by_side_all_must_match() {
        assert_eq!(fts("alpha beta"), r#"("alpha" AND "beta")"#);
        assert_eq!(fts("alpha AND beta"), r#"("alpha" AND "beta")"#);
    }

    #[test]
    fn words_typed_side_by_side_fall_back_to_any_of_the_telling_ones() {
        let any = |input: &str| Query::any_word(input).map(|q| q.to_fts5());
        assert_eq!(
            any("how far away are other suns").as_deref(),
            Some(r#"("far" OR "away" OR "other" OR "suns")"#)
        );
        assert_eq!(
            any(r#"the "red planet" moons"#).as_deref(),
            Some(r#"("red planet" OR "moons")"#)
        );
        // One telling word is that word; only function words: all of them.
        assert_eq!(any("what is kanban").as_deref(), Some(r#""kanban""#));
        assert_eq!(
            any("what is it").as_deref(),
            Some(r#"("what" OR "is" OR "it")"#)
        );
        // Anything but plain words means what it says.
        for exact in [
            "alpha",
            "alpha OR beta",
            "alpha AND beta",
            "alpha NOT beta",
            "tag:x alpha",
            "(a b) c",
        ] {
            assert_eq!(any(exact), None, "{exact}");
        }
    }

    #[test]
    fn or_binds_looser_than_and() {
        assert_eq!(fts("a b OR c"), r#"(("a" AND "b") OR "c")"#);
        assert_eq!(fts("a (b OR c)"), r#"("a" AND ("b" OR "c"))"#);
    }

    #[test]
    fn negations_render_as_binary_not() {
        assert_eq!(fts("a -b"), r#"(("a") NOT "b")"#);
        assert_eq!(fts("a NOT b -c"), r#"((("a") NOT "b") NOT "c")"#);
        assert_eq!(fts("-b a"), r#"(("a") NOT "b")"#);
        assert_eq!(fts("a -(b OR c)"), r#"(("a") NOT ("b" OR "c"))"#);
    }

    #[test]
    fn phrases_prefixes_and_cjk_are_quoted() {
        assert_eq!(fts(r#""old plan" pla*"#), r#"("old plan" AND "pla" *)"#);
        assert_eq!(fts(r#""old pl"*"#), r#""old pl" *"#);
        assert_eq!(fts("東京"), "\"東\u{200B}京\"");
        assert_eq!(
            fts("NEAR(x) col:y ^z"),
            r#"("NEAR" AND "x" AND "col:y" AND "^z")"#
        );
    }

    #[test]
    fn fields_render_as_column_filters() {
        assert_eq!(
            fts("tag:#Project/ path:notes/daily.md file:x*"),
            "((tagged : \"t70726f6a656374\") AND (place : \"notes/daily\") \
             AND (file : \"x\" *))"
        );
        assert_eq!(
            fts("a -tag:b OR path:\"my notes\"*"),
            "(((\"a\") NOT (tagged : \"t62\")) OR (place : \"my notes\" *))"
        );
        // Other prefixes are words.
        assert_eq!(fts("tags:x"), r#""tags:x""#);
        assert!(Query::parse("x tag:y").unwrap().uses(Field::Tag));
        assert!(!Query::parse("x path:y").unwrap().uses(Field::Tag));
    }

    #[test]
    fn lowercase_operators_are_words_and_punctuation_is_ignored() {
        assert_eq!(fts("cats and dogs"), r#"("cats" AND "and" AND "dogs")"#);
        assert_eq!(fts("a & b"), r#"("a" AND "b")"#);
        assert_eq!(fts("well-known - x"), r#"("well-known" AND "x")"#);
    }

    #[test]
    fn every_syntax_error_names_its_position() {
        let cases: &[(&str, usize, &str)] = &[
            ("", 0, "the query is empty"),
            ("   ", 0, "the query is empty"),
            (
                "&& --",
                0,
                "the query has no letters or digits to search for",
            ),
            ("a \"open", 2, "this `\"` is never closed"),
            ("(a b", 0, "this `(` is never closed"),
            ("a (", 2, "this `(` is never closed"),
            ("a b)", 3, "this `)` closes no `(`"),
            ("a () b", 2, "these parentheses are empty"),
            ("a AND", 2, "`AND` needs a term after it"),
            ("AND a", 0, "`AND` needs a term before it"),
            ("a OR", 2, "`OR` needs a term after it"),
            ("OR a", 0, "`OR` needs a term before it"),
            ("a AND OR b", 2, "`AND` needs a term after it"),
            ("NOT", 0, "`NOT` needs a term after it"),
            ("a NOT", 2, "`NOT` needs a term after it"),
            ("a NOT NOT b", 2, "`NOT` cannot be doubled"),
            ("NOT a", 0, ONLY_NEGATIVE),
            ("-a -b", 0, ONLY_NEGATIVE),
            ("x OR -b", 5, ONLY_NEGATIVE),
            ("x (-b)", 3, ONLY_NEGATIVE),
            ("é \"ü", 2, "this `\"` is never closed"),
            (
                "tag:",
                0,
                "`tag:` needs a word to match after it, as in `tag:project`",
            ),
            (
                "a path:\"/\"",
                2,
                "`path:` needs a word to match after it, as in `path:project`",
            ),
            (
                "file: x",
                0,
                "`file:` needs a word to match after it, as in `file:project`",
            ),
            (
                "tag:#/",
                0,
                "`tag:` needs a word to match after it, as in `tag:project`",
            ),
            ("x path:\"open", 7, "this `\"` is never closed"),
            ("-tag:a", 0, ONLY_NEGATIVE),
        ];
        for &(input, position, message) in cases {
            assert_eq!(fault(input), (position, message.to_string()), "{input:?}");
        }
    }
}
