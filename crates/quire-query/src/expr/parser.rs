//! Tokens → [`Expr`] by precedence climbing. The DQL parser drives the same [`Parser`] over
//! a whole query, with its clause keywords reserved so an expression stops before them.

use super::func::{self, Func};
use super::lexer::{describe, lex, Tok, Token};
use super::{BinaryOp, Call, Error, Expr, ExprKind, Span, UnaryOp};
use crate::value::Value;

/// Deepest expression tree accepted; keeps recursion in evaluation and drop bounded.
const MAX_HEIGHT: u32 = 100;

/// Deepest recursion of the parser, which bounds its stack (parentheses make no node, so the
/// height alone does not): about 5 KB a level in a debug build, so 201 levels take 1 MB of a
/// 2 MB thread stack. Twice the height and one: the printer's text of any tree accepted costs
/// at most one operand and one parenthesis a level, and must parse again.
const MAX_DEPTH: u32 = 2 * MAX_HEIGHT + 1;

const NOT_BP: u8 = 5;
const PREFIX_BP: u8 = 13;

pub(crate) struct Parser<'a> {
    pub src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    reserved: &'a [&'a str],
    /// Current recursion depth of [`Parser::expr_bp`].
    depth: u32,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, reserved: &'a [&'a str]) -> Result<Parser<'a>, Error> {
        Ok(Parser {
            src,
            tokens: lex(src)?,
            pos: 0,
            reserved,
            depth: 0,
        })
    }

    pub fn peek(&self) -> &Token {
        &self.tokens[self.pos]
    }

    pub fn peek_at(&self, ahead: usize) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.pos + ahead).min(last)]
    }

    pub fn advance(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    /// Consumes the keyword `word` (any case) if it is next.
    pub fn eat_word(&mut self, word: &str) -> bool {
        if self.peek().is_word(word) {
            self.advance();
            true
        } else {
            false
        }
    }

    pub fn eat(&mut self, tok: &Tok) -> bool {
        if &self.peek().tok == tok {
            self.advance();
            true
        } else {
            false
        }
    }

    /// "expected {what}, found …" at the next token.
    pub fn expected(&self, what: &str) -> Error {
        let token = self.peek();
        Error::new(
            token.start,
            format!("expected {what}, found {}", describe(&token.tok)),
        )
    }

    pub fn expect(&mut self, tok: Tok, what: &str) -> Result<Token, Error> {
        if self.peek().tok == tok {
            Ok(self.advance())
        } else {
            Err(self.expected(what))
        }
    }

    pub fn is_reserved(&self, token: &Token) -> bool {
        self.reserved.iter().any(|word| token.is_word(word))
    }

    /// One expression followed by the end of input.
    pub fn parse_whole(&mut self) -> Result<Expr, Error> {
        let expr = self.expr()?;
        if self.peek().tok != Tok::Eof {
            return Err(self.expected("an operator or end of input"));
        }
        Ok(expr)
    }

    pub fn expr(&mut self) -> Result<Expr, Error> {
        self.expr_bp(0)
    }

    fn expr_bp(&mut self, min_bp: u8) -> Result<Expr, Error> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::new(self.peek().start, "expression nests too deeply"));
        }
        self.depth += 1;
        let result = self.expr_bp_inner(min_bp);
        self.depth -= 1;
        result
    }

    fn expr_bp_inner(&mut self, min_bp: u8) -> Result<Expr, Error> {
        let mut lhs = self.prefix()?;
        while let Some((op, l_bp, r_bp, width)) = self.infix() {
            if l_bp < min_bp {
                break;
            }
            for _ in 0..width {
                self.advance();
            }
            let rhs = self.expr_bp(r_bp)?;
            lhs = node_of(
                lhs.span.start,
                rhs.span.end,
                ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            )?;
        }
        Ok(lhs)
    }

    /// The binary operator at the cursor: operator, left and right binding power, and how
    /// many tokens it spans.
    fn infix(&self) -> Option<(BinaryOp, u8, u8, usize)> {
        let token = self.peek();
        let (op, l_bp) = match &token.tok {
            Tok::OrOr => (BinaryOp::Or, 1),
            Tok::AndAnd => (BinaryOp::And, 3),
            Tok::Eq => (BinaryOp::Eq, 7),
            Tok::NotEq => (BinaryOp::NotEq, 7),
            Tok::Lt => (BinaryOp::Lt, 7),
            Tok::Le => (BinaryOp::Le, 7),
            Tok::Gt => (BinaryOp::Gt, 7),
            Tok::Ge => (BinaryOp::Ge, 7),
            Tok::Plus => (BinaryOp::Add, 9),
            Tok::Minus => (BinaryOp::Sub, 9),
            Tok::Star => (BinaryOp::Mul, 11),
            Tok::Slash => (BinaryOp::Div, 11),
            Tok::Percent => (BinaryOp::Rem, 11),
            Tok::Ident(_) if token.is_word("or") => (BinaryOp::Or, 1),
            Tok::Ident(_) if token.is_word("and") => (BinaryOp::And, 3),
            Tok::Ident(_) if token.is_word("in") => (BinaryOp::In, 7),
            Tok::Ident(_) if token.is_word("not") && self.peek_at(1).is_word("in") => {
                return Some((BinaryOp::NotIn, 7, 8, 2));
            }
            _ => return None,
        };
        Some((op, l_bp, l_bp + 1, 1))
    }

    /// An operand and the member and index accesses after it. Each form has a function of its
    /// own so that the frames on the recursive path stay small: a debug build gives every local
    /// of a function its own stack slot, and one large `match` here cost 10 KB a nesting level.
    fn prefix(&mut self) -> Result<Expr, Error> {
        let token = self.advance();
        let word = matches!(token.tok, Tok::Ident(_)) && !self.is_reserved(&token);
        let expr = match &token.tok {
            Tok::Ident(name) if !word => {
                return Err(Error::new(
                    token.start,
                    format!("unexpected keyword '{name}'"),
                ))
            }
            Tok::Minus => return self.unary(UnaryOp::Neg, token.start, PREFIX_BP),
            Tok::Bang => return self.unary(UnaryOp::Not, token.start, PREFIX_BP),
            Tok::Ident(_) if word && token.is_word("not") => {
                return self.unary(UnaryOp::Not, token.start, NOT_BP)
            }
            Tok::LParen => self.group(token.start)?,
            Tok::LBracket => self.list(token.start)?,
            Tok::Ident(name)
                if word
                    && self.peek().tok == Tok::LParen
                    && !["true", "false", "null"].iter().any(|w| token.is_word(w)) =>
            {
                self.call(name, token.start)?
            }
            _ => leaf(token)?,
        };
        self.postfix(expr)
    }

    fn unary(&mut self, op: UnaryOp, start: usize, bp: u8) -> Result<Expr, Error> {
        let operand = self.expr_bp(bp)?;
        node_of(
            start,
            operand.span.end,
            ExprKind::Unary(op, Box::new(operand)),
        )
    }

    /// `( … )`: the inner node, its span widened to the parentheses.
    fn group(&mut self, start: usize) -> Result<Expr, Error> {
        let inner = self.expr()?;
        let close = self.expect(Tok::RParen, "')'")?;
        Ok(Expr {
            span: Span {
                start,
                end: close.end,
            },
            ..inner
        })
    }

    fn list(&mut self, start: usize) -> Result<Expr, Error> {
        let items = self.comma_list(Tok::RBracket, "',' or ']'")?;
        let close_end = self.advance().end;
        node_of(start, close_end, ExprKind::List(items))
    }

    fn postfix(&mut self, mut expr: Expr) -> Result<Expr, Error> {
        loop {
            match self.peek().tok {
                Tok::Dot => {
                    self.advance();
                    let field = self.advance();
                    let Tok::Ident(name) = field.tok else {
                        return Err(Error::new(
                            field.start,
                            format!(
                                "expected a field name after '.', found {}",
                                describe(&field.tok)
                            ),
                        ));
                    };
                    expr = field_access(expr, name, field.end)?;
                }
                Tok::LBracket => {
                    self.advance();
                    let index = self.expr()?;
                    let close = self.expect(Tok::RBracket, "']'")?;
                    expr = match (&index.kind, &expr.kind) {
                        (ExprKind::Literal(Value::String(key)), ExprKind::Path(_)) => {
                            field_access(expr, key.clone(), close.end)?
                        }
                        _ => node_of(
                            expr.span.start,
                            close.end,
                            ExprKind::Index(Box::new(expr), Box::new(index)),
                        )?,
                    };
                }
                _ => return Ok(expr),
            }
        }
    }

    fn call(&mut self, name: &str, start: usize) -> Result<Expr, Error> {
        let func = Func::from_name(name)
            .ok_or_else(|| Error::new(start, format!("unknown function '{name}'")))?;
        self.advance(); // '('
        let args = self.comma_list(Tok::RParen, "',' or ')'")?;
        let close = self.advance();
        checked_call(func, args, start, close.end)
    }

    /// Comma-separated expressions up to (not consuming) `close`; a trailing comma is fine.
    fn comma_list(&mut self, close: Tok, what: &str) -> Result<Vec<Expr>, Error> {
        let mut items = Vec::new();
        while self.peek().tok != close {
            items.push(self.expr()?);
            if !self.eat(&Tok::Comma) {
                if self.peek().tok != close {
                    return Err(self.expected(what));
                }
                break;
            }
        }
        Ok(items)
    }
}

/// A call's arguments checked against its function: their number, and a literal pattern
/// compiled once.
fn checked_call(func: Func, args: Vec<Expr>, start: usize, end: usize) -> Result<Expr, Error> {
    let (min, max) = func.arity();
    if args.len() < min || max.is_some_and(|max| args.len() > max) {
        let wanted = match max {
            Some(max) if max == min => format!("{min}"),
            Some(max) => format!("{min} to {max}"),
            None => format!("at least {min}"),
        };
        return Err(Error::new(
            start,
            format!(
                "{}() takes {wanted} argument(s), got {}",
                func.name(),
                args.len()
            ),
        ));
    }
    let regex = match (func, args.first().map(|a| &a.kind)) {
        (Func::RegexMatch | Func::RegexTest, Some(ExprKind::Literal(Value::String(p)))) => {
            let anchored = func.anchor(p);
            Some(
                func::compile_regex(&anchored)
                    .map_err(|message| Error::new(args[0].span.start, message))?,
            )
        }
        _ => None,
    };
    node_of(start, end, ExprKind::Call(Call { func, args, regex }))
}

/// A token that is an operand by itself: a literal, a link or a variable.
fn leaf(token: Token) -> Result<Expr, Error> {
    let Token { tok, start, end } = token;
    let kind = match tok {
        Tok::Number(n) => ExprKind::Literal(Value::Number(n)),
        Tok::Str(s) => ExprKind::Literal(Value::String(s)),
        Tok::Link(text) => ExprKind::Link(text),
        Tok::Ident(name) => {
            let word = |w: &str| name.eq_ignore_ascii_case(w);
            if word("true") {
                ExprKind::Literal(Value::Bool(true))
            } else if word("false") {
                ExprKind::Literal(Value::Bool(false))
            } else if word("null") {
                ExprKind::Literal(Value::Null)
            } else {
                ExprKind::Path(vec![name])
            }
        }
        Tok::Tag(_) => {
            return Err(Error::new(
                start,
                "a #tag is only allowed in FROM; compare with a string instead",
            ))
        }
        other => {
            return Err(Error::new(
                start,
                format!("expected an expression, found {}", describe(&other)),
            ))
        }
    };
    node_of(start, end, kind)
}

/// `base.field`: extends a variable path, else a member node.
fn field_access(base: Expr, field: String, end: usize) -> Result<Expr, Error> {
    let start = base.span.start;
    match base.kind {
        ExprKind::Path(mut path) => {
            path.push(field);
            node_of(start, end, ExprKind::Path(path))
        }
        kind => {
            let base = Expr { kind, ..base };
            node_of(start, end, ExprKind::Member(Box::new(base), field))
        }
    }
}

/// Builds a node, computing its height and refusing trees that are too deep.
pub(crate) fn node_of(start: usize, end: usize, kind: ExprKind) -> Result<Expr, Error> {
    let child_height = match &kind {
        ExprKind::Literal(_) | ExprKind::Path(_) | ExprKind::Link(_) => 0,
        ExprKind::List(items) => items.iter().map(|e| e.height).max().unwrap_or(0),
        ExprKind::Call(call) => call.args.iter().map(|e| e.height).max().unwrap_or(0),
        ExprKind::Member(base, _) => base.height,
        ExprKind::Unary(_, operand) => operand.height,
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => a.height.max(b.height),
    };
    if child_height >= MAX_HEIGHT {
        return Err(Error::new(start, "expression nests too deeply"));
    }
    Ok(Expr {
        kind,
        span: Span { start, end },
        height: child_height + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn shape(src: &str) -> String {
        fn show(e: &Expr) -> String {
            match &e.kind {
                ExprKind::Literal(v) => format!("{v:?}"),
                ExprKind::List(items) => {
                    format!("[{}]", items.iter().map(show).collect::<Vec<_>>().join(" "))
                }
                ExprKind::Path(p) => p.join("."),
                ExprKind::Member(b, f) => format!("{}.{f}", show(b)),
                ExprKind::Index(b, i) => format!("{}[{}]", show(b), show(i)),
                ExprKind::Link(t) => format!("[[{t}]]"),
                ExprKind::Unary(op, x) => format!("({op:?} {})", show(x)),
                ExprKind::Binary(op, a, b) => format!("({} {op} {})", show(a), show(b)),
                ExprKind::Call(c) => format!(
                    "{}({})",
                    c.func.name(),
                    c.args.iter().map(show).collect::<Vec<_>>().join(" ")
                ),
            }
        }
        show(&parse(src).unwrap())
    }

    fn err(src: &str) -> Error {
        parse(src).unwrap_err()
    }

    #[test]
    fn precedence_climbs() {
        assert_eq!(
            shape("a = 1 or b and not c > 2 + 3 * 4"),
            "((a = Number(1.0)) or (b and (Not (c > (Number(2.0) + (Number(3.0) * Number(4.0)))))))"
        );
        assert_eq!(shape("!a = b"), "((Not a) = b)");
        assert_eq!(shape("-x - -1"), "((Neg x) - (Neg Number(1.0)))");
        assert_eq!(shape("a - b - c"), "((a - b) - c)");
        assert_eq!(
            shape("x NOT IN [1, 2,]"),
            "(x not in [Number(1.0) Number(2.0)])"
        );
        assert_eq!(shape("a && b || c"), "((a and b) or c)");
    }

    #[test]
    fn paths_fold_dots_and_string_indexes() {
        assert_eq!(shape(r#"fm["review-by"].x"#), "fm.review-by.x");
        assert_eq!(shape("list[0]"), "list[Number(0.0)]");
        assert_eq!(shape("(a).b"), "a.b");
        assert_eq!(shape("lower(x).y"), "lower(x).y");
    }

    #[test]
    fn functions_are_case_insensitive_and_checked() {
        assert_eq!(shape("LOWER(x)"), "lower(x)");
        assert_eq!(err("frob(x)"), Error::new(0, "unknown function 'frob'"));
        assert_eq!(
            err("a and slug(x, y)"),
            Error::new(6, "slug() takes 1 argument(s), got 2")
        );
        assert_eq!(err("regexmatch('(', x)").position, 11);
    }

    #[test]
    fn syntax_errors_point_at_the_token() {
        assert_eq!(
            err("(a = 1"),
            Error::new(6, "expected ')', found end of input")
        );
        assert_eq!(err("a = = 1").position, 4);
        assert_eq!(err("a b").position, 2);
        assert_eq!(err("x = #tag").position, 4);
        assert_eq!(err("f(x").position, 0);
        assert_eq!(err("lower(x").position, 7);
        assert_eq!(err("a.").position, 2);
        assert_eq!(
            err("").message,
            "expected an expression, found end of input"
        );
    }

    /// Found while fixing the `expr` fuzz target's print round trip: `lower(not lower(not …`
    /// 100 levels deep overflowed a 2 MB thread stack in a debug build (and aborted the
    /// process) before the depth limit refused it. Every shape of nesting is refused, or
    /// parsed, within 1.5 MB.
    #[test]
    fn the_deepest_nesting_of_every_shape_parses_within_one_and_a_half_megabytes_of_stack() {
        let shapes = [
            ("(", "1", ")"),
            ("lower(not ", "a", ")"),
            ("-[a, b[(", "1", ")]]"),
            ("f(x)[!(a + ", "b", ")]"),
            ("not a = ", "a", ""),
        ];
        let run = std::thread::Builder::new()
            .stack_size(3 << 19)
            .spawn(move || {
                for (open, leaf, close) in shapes {
                    for depth in [50, 100, 150, 200, 300, 5000] {
                        let src = format!("{}{leaf}{}", open.repeat(depth), close.repeat(depth));
                        let _ = parse(&src);
                    }
                }
            });
        run.unwrap().join().unwrap();
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "(".repeat(5000) + "1" + &")".repeat(5000);
        assert_eq!(err(&deep).message, "expression nests too deeply");
        let long = vec!["1"; 5000].join(" + ");
        assert_eq!(err(&long).message, "expression nests too deeply");
    }
}
