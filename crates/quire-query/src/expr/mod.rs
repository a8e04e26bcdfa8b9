//! The one expression language of quire: manifest `when`/`compute`/`select.query`, `move_to`
//! templates and DQL `WHERE`/`SORT`/fields all parse and evaluate here.
//!
//! * Literals: numbers, `"strings"` and `'strings'`, `true`, `false`, `null`, lists
//!   `[1, "a"]`, links `[[Page]]`. Dates come from `date("2024-01-02")` or from data.
//! * Variables: identifiers (letters of any script, digits, `_`; no dashes), dotted access
//!   `fm.key`, index access `fm["key-with-dash"]`, `list[0]` (negative counts from the end).
//!   A missing variable or key is `null`, never an error. `.field` on a list maps over it;
//!   on a date it gives `year`, `month`, `day`, `hour`, `minute`, `second`, `weekday`.
//! * Operators, loosest first: `or`/`||`; `and`/`&&`; `not`; comparisons `=` `==` `!=` `<`
//!   `<=` `>` `>=` `in` `not in`; `+` `-`; `*` `/` `%`; unary `-` and `!`. So `not a = b` is
//!   `not (a = b)` while `!a = b` is `(!a) = b`. Keywords are case-insensitive.
//! * `in`: element of a list, substring of a string, key of an object.
//! * `+`: numbers add; a string with anything concatenates; lists concatenate; date +
//!   duration. `-`: numbers, date − duration, date − date (a duration). Arithmetic with null
//!   gives null, so a missing field does not fail a query.
//! * Functions (names case-insensitive) are checked at parse time: an unknown name or a
//!   wrong number of arguments is a parse error. See [`Func`].
//!
//! Ordering, equality and truthiness are documented in [`crate::value`].

mod eval;
mod func;
mod layout;
pub(crate) mod lexer;
pub(crate) mod parser;
pub(crate) mod print;

use std::fmt;

use chrono::{DateTime, FixedOffset};

use crate::value::Value;

pub(crate) use eval::member as member_of;

/// A field of a value (`object.key`, a link's page field, a list's items' field), as `.`
/// reads it in an expression.
pub fn member(value: &Value, field: &str) -> Value {
    eval::member(value, field)
}
pub use func::Func;

/// Longest text an expression may make (`replace`, `+`): a text growing past it is an
/// evaluation error, so that a query cannot multiply a short text into gigabytes
/// (`replace(replace(s, "a", s), "a", replace(s, "a", s))` squares its length a level).
pub const MAX_TEXT_BYTES: usize = 1 << 20;
pub use layout::go_layout_to_strftime;

/// A parse or evaluation error at a byte offset of the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {position}: {message}")]
pub struct Error {
    /// Byte offset in the source text.
    pub position: usize,
    pub message: String,
}

impl Error {
    pub(crate) fn new(position: usize, message: impl Into<String>) -> Error {
        Error {
            position,
            message: message.into(),
        }
    }
}

/// A byte range of the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// A parsed expression node.
#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the tree under this node; the parser caps it so evaluation and drop
    /// cannot overflow the stack.
    pub(crate) height: u32,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Literal(Value),
    List(Vec<Expr>),
    /// A variable followed by constant field accesses: `fm.status`, `fm["review-by"]`,
    /// `file.name`. The first segment is the variable.
    Path(Vec<String>),
    /// `.field` on something that is not a variable path.
    Member(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    /// `[[text]]`, resolved through [`Scope::resolve_link`] when evaluated.
    Link(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Call(Call),
}

#[derive(Debug, Clone)]
pub struct Call {
    pub func: Func,
    pub args: Vec<Expr>,
    /// A literal pattern of `regexmatch`/`regextest`, compiled once at parse time.
    pub(crate) regex: Option<regex::Regex>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// Variables an expression can read; the caller decides what exists.
///
/// Manifests supply `path`, `dir`, `name`, `stem`, `title`, `tags`, `fm`, `links`, `date`,
/// `modified`, `now`; DQL supplies the page fields listed in [`crate::dql`]. A `None` reads
/// as `null`.
pub trait Scope {
    /// The value of a bare variable.
    fn get(&self, name: &str) -> Option<Value>;

    /// The value of a variable path such as `["fm", "status"]`. The default reads the first
    /// segment with [`Scope::get`] and walks the rest; scopes override it to avoid building
    /// whole objects for one field.
    fn lookup(&self, path: &[String]) -> Option<Value> {
        let (first, rest) = path.split_first()?;
        let mut value = self.get(first)?;
        for field in rest {
            value = eval::member(&value, field);
        }
        Some(value)
    }

    /// Resolves the text of a `[[link]]` literal to a page path; `None` keeps the text.
    fn resolve_link(&self, _text: &str) -> Option<String> {
        None
    }
}

/// A scope with no variables.
pub struct EmptyScope;

impl Scope for EmptyScope {
    fn get(&self, _name: &str) -> Option<Value> {
        None
    }
}

impl<S: Scope + ?Sized> Scope for &S {
    fn get(&self, name: &str) -> Option<Value> {
        (**self).get(name)
    }
    fn lookup(&self, path: &[String]) -> Option<Value> {
        (**self).lookup(path)
    }
    fn resolve_link(&self, text: &str) -> Option<String> {
        (**self).resolve_link(text)
    }
}

/// A scope over a map of variables.
impl Scope for std::collections::BTreeMap<String, Value> {
    fn get(&self, name: &str) -> Option<Value> {
        std::collections::BTreeMap::get(self, name).cloned()
    }
}

/// What an evaluation may depend on besides its variables.
#[derive(Debug, Clone, Copy)]
pub struct EvalContext {
    /// The clock `now()`, the `now` variable (when the scope has none) and `date("today")`
    /// read. Given by the caller: evaluation never reads the system clock, so the same
    /// expression over the same pages gives the same answer.
    pub now: DateTime<FixedOffset>,
}

impl EvalContext {
    /// A context whose clock reads `now`.
    pub fn at(now: DateTime<FixedOffset>) -> EvalContext {
        EvalContext { now }
    }

    /// The clock.
    pub fn now(&self) -> DateTime<FixedOffset> {
        self.now
    }
}

/// Parses a standalone expression (a manifest `when`, `compute` or `select.query`).
pub fn parse(src: &str) -> Result<Expr, Error> {
    parser::Parser::new(src, &[])?.parse_whole()
}

impl Expr {
    /// Evaluates the expression; errors carry the position of the failing node.
    pub fn eval(&self, scope: &dyn Scope, ctx: &EvalContext) -> Result<Value, Error> {
        eval::eval(self, scope, ctx)
    }
}

/// Parses and evaluates `src` in one step.
pub fn eval_str(src: &str, scope: &dyn Scope, ctx: &EvalContext) -> Result<Value, Error> {
    parse(src)?.eval(scope, ctx)
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BinaryOp::Or => "or",
            BinaryOp::And => "and",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::In => "in",
            BinaryOp::NotIn => "not in",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
        })
    }
}
