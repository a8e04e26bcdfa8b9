//! Why a script failed, as sentences a user can act on: the kind, the message and, where the
//! evaluator knows it, the line and column.

use std::fmt;

use starlark::codemap::FileSpan;

use crate::{Limits, FUNCTIONS};

/// A place in the script, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

impl Position {
    pub(crate) fn of(span: &FileSpan) -> Position {
        let begin = span.resolve_span().begin;
        Position {
            line: begin.line + 1,
            column: begin.column + 1,
        }
    }
}

/// Why a script produced no manifest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    #[error("the script has a syntax error at {at}: {message}")]
    Syntax { at: Position, message: String },
    #[error("recursion is not allowed: {message}{}", at_suffix(.at))]
    Recursion {
        at: Option<Position>,
        message: String,
    },
    #[error("the script failed{}: {message}", at_prefix(.at))]
    Runtime {
        at: Option<Position>,
        message: String,
    },
    #[error("the script exceeded the {} MB memory limit", .limit_bytes >> 20)]
    Memory { limit_bytes: usize },
    #[error(
        "the script returned no manifest: define `main()` returning one, or set a global \
         `manifest`"
    )]
    NoManifest,
    #[error("the script's manifest is not plain data (dicts, lists, strings, numbers): {0}")]
    NotData(String),
}

impl ScriptError {
    /// Where in the script, when known.
    pub fn position(&self) -> Option<Position> {
        match self {
            ScriptError::Syntax { at, .. } => Some(*at),
            ScriptError::Recursion { at, .. } | ScriptError::Runtime { at, .. } => *at,
            _ => None,
        }
    }
}

fn at_suffix(at: &Option<Position>) -> String {
    at.map(|at| format!(" ({at})")).unwrap_or_default()
}

fn at_prefix(at: &Option<Position>) -> String {
    at.map(|at| format!(" at {at}")).unwrap_or_default()
}

/// The evaluator's message without its source excerpt.
fn message(e: &starlark::Error) -> String {
    e.without_diagnostic().to_string().trim().to_string()
}

pub(crate) fn syntax(e: &starlark::Error) -> ScriptError {
    let at = e
        .span()
        .map(Position::of)
        .unwrap_or(Position { line: 1, column: 1 });
    let text = message(e);
    let mut message = text
        .strip_prefix("Parse error: ")
        .unwrap_or(&text)
        .to_string();
    if message.contains("reserved keyword `while`") {
        message
            .push_str("; scripts have no `while` loops: loop over a list or `range(n)` with `for`");
    }
    ScriptError::Syntax { at, message }
}

/// Names a script might reach for to change files; none exists.
const WRITING: &[&str] = &[
    "write", "open", "remove", "delete", "rename", "move", "mkdir", "unlink", "save", "exec",
    "system",
];

pub(crate) fn runtime(e: &starlark::Error, limits: &Limits) -> ScriptError {
    let at = e.span().map(Position::of);
    let text = message(e);
    match e.kind() {
        starlark::ErrorKind::StackOverflow(_) => {
            return ScriptError::Recursion {
                at,
                message: format!(
                    "calls nested more than {} deep; a function may not call itself, directly \
                     or through others",
                    limits.max_call_depth
                ),
            }
        }
        starlark::ErrorKind::Scope(_) => {
            if let Some(name) = unknown_name(&text) {
                if WRITING.contains(&name) {
                    return ScriptError::Runtime {
                        at,
                        message: format!(
                            "`{name}` does not exist: scripts cannot write or open files; they \
                             return a manifest describing the change (functions: {FUNCTIONS})"
                        ),
                    };
                }
            }
        }
        _ => {}
    }
    if text.starts_with("Heap memory limit") {
        return ScriptError::Memory {
            limit_bytes: limits.memory_bytes,
        };
    }
    ScriptError::Runtime { at, message: text }
}

/// `x` of the evaluator's "Variable `x` not found".
fn unknown_name(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Variable `")?;
    let end = rest.find('`')?;
    rest[end..]
        .starts_with("` not found")
        .then_some(&rest[..end])
}
