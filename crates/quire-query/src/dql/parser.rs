//! DQL text → [`Query`]: the header, the clauses and `FROM` sources. Expressions inside
//! clauses go through the shared expression parser with the clause keywords reserved.

use super::{Clause, Field, IdColumn, Query, QueryError, QueryKind, SortKey, SortOrder, Source};
use crate::expr::lexer::{describe, Tok};
use crate::expr::parser::Parser;
use crate::expr::{Error, Expr, ExprKind};

/// Words that end an expression inside a query.
const CLAUSE_WORDS: [&str; 6] = ["from", "where", "sort", "group", "flatten", "limit"];

const MAX_SOURCE_DEPTH: u32 = 100;

/// Parses a DQL query; errors are [`QueryError::Syntax`] with a byte position.
pub fn parse_query(src: &str) -> Result<Query, QueryError> {
    let mut p = Parser::new(src, &CLAUSE_WORDS).map_err(QueryError::syntax)?;
    query(&mut p).map_err(QueryError::syntax)
}

fn query(p: &mut Parser) -> Result<Query, Error> {
    if p.peek().tok == Tok::Eof {
        return Err(Error::new(
            p.peek().start,
            "empty query: expected TABLE, LIST, COUNT or DISTINCT",
        ));
    }
    let kind = if p.eat_word("table") {
        let id = if p.eat_word("without") {
            if !p.eat_word("id") {
                return Err(p.expected("ID after WITHOUT"));
            }
            IdColumn::Hidden
        } else {
            IdColumn::Shown
        };
        let mut fields = Vec::new();
        if !at_clause_or_end(p) {
            loop {
                fields.push(field(p)?);
                if !p.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        QueryKind::Table { id, fields }
    } else if p.eat_word("list") {
        let expr = if at_clause_or_end(p) {
            None
        } else {
            Some(field(p)?)
        };
        QueryKind::List { expr }
    } else if p.eat_word("count") {
        QueryKind::Count
    } else if p.eat_word("distinct") {
        if at_clause_or_end(p) {
            return Err(p.expected("an expression after DISTINCT"));
        }
        QueryKind::Distinct { expr: field(p)? }
    } else {
        return Err(p.expected("TABLE, LIST, COUNT or DISTINCT"));
    };

    let mut clauses = Vec::new();
    while p.peek().tok != Tok::Eof {
        clauses.push(clause(p)?);
    }
    Ok(Query { kind, clauses })
}

fn clause(p: &mut Parser) -> Result<Clause, Error> {
    if p.eat_word("from") {
        return Ok(Clause::From(source_or(p, 0)?));
    }
    if p.eat_word("where") {
        return Ok(Clause::Where(p.expr()?));
    }
    if p.eat_word("sort") {
        let mut keys = Vec::new();
        loop {
            let expr = p.expr()?;
            let order = if p.eat_word("desc") || p.eat_word("descending") {
                SortOrder::Desc
            } else {
                // ASC is the default; accept it spelled out.
                let _ = p.eat_word("asc") || p.eat_word("ascending");
                SortOrder::Asc
            };
            keys.push(SortKey { expr, order });
            if !p.eat(&Tok::Comma) {
                break;
            }
        }
        return Ok(Clause::Sort(keys));
    }
    if p.eat_word("group") {
        if !p.eat_word("by") {
            return Err(p.expected("BY after GROUP"));
        }
        let expr = p.expr()?;
        let name = if p.eat_word("as") {
            Some(name(p)?)
        } else {
            None
        };
        return Ok(Clause::GroupBy { expr, name });
    }
    if p.eat_word("flatten") {
        let expr = p.expr()?;
        let name = if p.eat_word("as") {
            name(p)?
        } else {
            match &expr.kind {
                ExprKind::Path(path) => path.join("."),
                _ => source_text(p, &expr),
            }
        };
        return Ok(Clause::Flatten { expr, name });
    }
    if p.eat_word("limit") {
        let token = p.advance();
        return match token.tok {
            Tok::Number(n) if n.is_finite() && n.fract() == 0.0 && n >= 0.0 => {
                Ok(Clause::Limit(n.min(usize::MAX as f64) as usize))
            }
            other => Err(Error::new(
                token.start,
                format!("LIMIT needs a whole number, found {}", describe(&other)),
            )),
        };
    }
    Err(p.expected("FROM, WHERE, SORT, GROUP BY, FLATTEN or LIMIT"))
}

fn at_clause_or_end(p: &Parser) -> bool {
    p.peek().tok == Tok::Eof || p.is_reserved(p.peek())
}

fn field(p: &mut Parser) -> Result<Field, Error> {
    let expr = p.expr()?;
    let header = if p.eat_word("as") {
        name(p)?
    } else {
        source_text(p, &expr)
    };
    Ok(Field { expr, header })
}

/// The name after `AS`: an identifier or a quoted string.
fn name(p: &mut Parser) -> Result<String, Error> {
    match p.peek().tok.clone() {
        Tok::Ident(name) | Tok::Str(name) => {
            p.advance();
            Ok(name)
        }
        _ => Err(p.expected("a name after AS")),
    }
}

fn source_text(p: &Parser, expr: &Expr) -> String {
    p.src[expr.span.start..expr.span.end].trim().to_owned()
}

fn source_or(p: &mut Parser, depth: u32) -> Result<Source, Error> {
    let mut lhs = source_and(p, depth)?;
    while p.eat_word("or") || p.eat(&Tok::OrOr) {
        let rhs = source_and(p, depth)?;
        lhs = Source::Or(Box::new(lhs), Box::new(rhs));
    }
    Ok(lhs)
}

fn source_and(p: &mut Parser, depth: u32) -> Result<Source, Error> {
    let mut lhs = source_unary(p, depth)?;
    while p.eat_word("and") || p.eat(&Tok::AndAnd) {
        let rhs = source_unary(p, depth)?;
        lhs = Source::And(Box::new(lhs), Box::new(rhs));
    }
    Ok(lhs)
}

fn source_unary(p: &mut Parser, depth: u32) -> Result<Source, Error> {
    // Count negations in a loop: a long run of `-` must not recurse.
    let mut negated = false;
    while p.eat(&Tok::Minus) || p.eat(&Tok::Bang) || p.eat_word("not") {
        negated = !negated;
    }
    let atom = source_atom(p, depth)?;
    Ok(if negated {
        Source::Not(Box::new(atom))
    } else {
        atom
    })
}

fn source_atom(p: &mut Parser, depth: u32) -> Result<Source, Error> {
    const WHAT: &str = "a FROM source: \"folder\", #tag, [[link]] or outgoing([[link]])";
    let token = p.peek().clone();
    match token.tok {
        Tok::Str(folder) => {
            p.advance();
            Ok(Source::Folder(folder))
        }
        Tok::Tag(tag) => {
            p.advance();
            Ok(Source::Tag(tag))
        }
        Tok::Link(target) => {
            p.advance();
            Ok(Source::LinksTo(target))
        }
        Tok::Ident(_) if token.is_word("outgoing") || token.is_word("incoming") => {
            p.advance();
            p.expect(Tok::LParen, "'(' after outgoing")?;
            let link = p.advance();
            let Tok::Link(target) = link.tok else {
                return Err(Error::new(
                    link.start,
                    format!("expected a [[link]], found {}", describe(&link.tok)),
                ));
            };
            p.expect(Tok::RParen, "')'")?;
            Ok(if token.is_word("outgoing") {
                Source::LinkedFrom(target)
            } else {
                Source::LinksTo(target)
            })
        }
        Tok::LParen => {
            if depth >= MAX_SOURCE_DEPTH {
                return Err(Error::new(token.start, "FROM source nests too deeply"));
            }
            p.advance();
            let inner = source_or(p, depth + 1)?;
            p.expect(Tok::RParen, "')'")?;
            Ok(inner)
        }
        _ => Err(p.expected(WHAT)),
    }
}
