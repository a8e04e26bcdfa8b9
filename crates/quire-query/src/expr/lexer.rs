//! Source text → tokens with byte spans, shared by expressions and DQL.
//!
//! Identifiers start with a letter (any script) or `_` and go on with letters, digits and
//! `_`; a key with a dash is written `fm["review-by"]`. `[[` always opens a link literal
//! (`[[Page]]`, `[[Page|alias]]`), so a nested list is written `[ [1] ]`. `#tag/sub` is a tag
//! token, used only by DQL `FROM`.

use super::Error;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Number(f64),
    Str(String),
    Ident(String),
    /// `[[text]]`: the text before any `|` or `#`.
    Link(String),
    /// `#tag`, without the `#`.
    Tag(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    /// `=` or `==`.
    Eq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    AndAnd,
    OrOr,
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// Whether this is the identifier `word`, ignoring ASCII case (keywords).
    pub fn is_word(&self, word: &str) -> bool {
        matches!(&self.tok, Tok::Ident(name) if name.eq_ignore_ascii_case(word))
    }
}

/// How a token is named in "expected …, found …" messages.
pub(crate) fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Number(_) => "a number".into(),
        Tok::Str(_) => "a string".into(),
        Tok::Ident(name) => format!("'{name}'"),
        Tok::Link(text) => format!("link [[{text}]]"),
        Tok::Tag(tag) => format!("tag #{tag}"),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::LBracket => "'['".into(),
        Tok::RBracket => "']'".into(),
        Tok::Comma => "','".into(),
        Tok::Dot => "'.'".into(),
        Tok::Eq => "'='".into(),
        Tok::NotEq => "'!='".into(),
        Tok::Lt => "'<'".into(),
        Tok::Le => "'<='".into(),
        Tok::Gt => "'>'".into(),
        Tok::Ge => "'>='".into(),
        Tok::Plus => "'+'".into(),
        Tok::Minus => "'-'".into(),
        Tok::Star => "'*'".into(),
        Tok::Slash => "'/'".into(),
        Tok::Percent => "'%'".into(),
        Tok::Bang => "'!'".into(),
        Tok::AndAnd => "'&&'".into(),
        Tok::OrOr => "'||'".into(),
        Tok::Eof => "end of input".into(),
    }
}

/// Splits `src` into tokens; the last one is always [`Tok::Eof`].
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, Error> {
    let mut tokens = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = src[i..].chars().next().unwrap_or('\0');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        let two = |a: u8, b: u8| bytes[i] == a && bytes.get(i + 1) == Some(&b);
        let (tok, len) = match c {
            '0'..='9' => {
                let mut end = i;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                if end + 1 < bytes.len() && bytes[end] == b'.' && bytes[end + 1].is_ascii_digit() {
                    end += 1;
                    while end < bytes.len() && bytes[end].is_ascii_digit() {
                        end += 1;
                    }
                }
                let n = src[i..end].parse().unwrap_or(f64::NAN);
                (Tok::Number(n), end - i)
            }
            '"' | '\'' => {
                let (text, len) = lex_string(src, i, c)?;
                (Tok::Str(text), len)
            }
            '[' if two(b'[', b'[') => {
                let body_start = i + 2;
                let close = src[body_start..]
                    .find("]]")
                    .filter(|&n| !src[body_start..body_start + n].contains('\n'))
                    .ok_or_else(|| Error::new(start, "unterminated link: expected ']]'"))?;
                let body = &src[body_start..body_start + close];
                let target = body.split(['|', '#']).next().unwrap_or("").trim();
                (Tok::Link(target.to_owned()), close + 4)
            }
            '#' => {
                let rest = &src[i + 1..];
                let len = rest
                    .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
                    .unwrap_or(rest.len());
                if len == 0 {
                    return Err(Error::new(start, "expected a tag name after '#'"));
                }
                (Tok::Tag(rest[..len].to_owned()), len + 1)
            }
            c if c.is_alphabetic() || c == '_' => {
                let rest = &src[i..];
                let len = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                (Tok::Ident(rest[..len].to_owned()), len)
            }
            _ if two(b'=', b'=') => (Tok::Eq, 2),
            _ if two(b'!', b'=') => (Tok::NotEq, 2),
            _ if two(b'<', b'=') => (Tok::Le, 2),
            _ if two(b'>', b'=') => (Tok::Ge, 2),
            _ if two(b'&', b'&') => (Tok::AndAnd, 2),
            _ if two(b'|', b'|') => (Tok::OrOr, 2),
            '=' => (Tok::Eq, 1),
            '<' => (Tok::Lt, 1),
            '>' => (Tok::Gt, 1),
            '!' => (Tok::Bang, 1),
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '[' => (Tok::LBracket, 1),
            ']' => (Tok::RBracket, 1),
            ',' => (Tok::Comma, 1),
            '.' => (Tok::Dot, 1),
            '+' => (Tok::Plus, 1),
            '-' => (Tok::Minus, 1),
            '*' => (Tok::Star, 1),
            '/' => (Tok::Slash, 1),
            '%' => (Tok::Percent, 1),
            other => return Err(Error::new(start, format!("unexpected character '{other}'"))),
        };
        i += len;
        tokens.push(Token { tok, start, end: i });
    }
    tokens.push(Token {
        tok: Tok::Eof,
        start: src.len(),
        end: src.len(),
    });
    Ok(tokens)
}

/// A quoted string starting at `start`; returns its value and its length in the source.
fn lex_string(src: &str, start: usize, quote: char) -> Result<(String, usize), Error> {
    let mut out = String::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        if c == quote {
            return Ok((out, offset + 2));
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, 'n')) => out.push('\n'),
            Some((_, 't')) => out.push('\t'),
            Some((_, 'r')) => out.push('\r'),
            Some((_, other)) => out.push(other),
            None => break,
        }
    }
    Err(Error::new(start, "unterminated string"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_operators_links_tags_and_strings() {
        assert_eq!(
            toks(r#"a.b == 'x\'y' && [[Note|alias]] != #proj/sub-1 <= 2.5"#),
            vec![
                Tok::Ident("a".into()),
                Tok::Dot,
                Tok::Ident("b".into()),
                Tok::Eq,
                Tok::Str("x'y".into()),
                Tok::AndAnd,
                Tok::Link("Note".into()),
                Tok::NotEq,
                Tok::Tag("proj/sub-1".into()),
                Tok::Le,
                Tok::Number(2.5),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn number_then_dot_is_member_access() {
        assert_eq!(
            toks("1.x"),
            vec![Tok::Number(1.0), Tok::Dot, Tok::Ident("x".into()), Tok::Eof]
        );
    }

    #[test]
    fn errors_carry_byte_positions() {
        assert_eq!(
            lex("a = \"open").unwrap_err(),
            Error::new(4, "unterminated string")
        );
        assert_eq!(lex("ü @").unwrap_err().position, 3);
        assert_eq!(lex("x in [[a").unwrap_err().position, 5);
        assert_eq!(lex("# x").unwrap_err().position, 0);
    }
}
