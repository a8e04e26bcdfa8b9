//! Refusing recursion before a script runs. Starlark in Rust allows recursion up to its call
//! stack; scripts must not recurse (spec "Limits"), so every function (`def f`, or
//! `f = lambda …`) is a node, each name it uses that is another function's name (and not one
//! of its own parameters or variables) an edge, and a function that reaches itself is
//! refused with the call that starts the cycle. Functions are told apart by name, so two
//! functions of one name count as one (a refusal errs on the safe side). Recursion through a
//! value (`f(f)`) is caught at run time by the call-depth limit instead.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use starlark::codemap::Span;
use starlark::syntax::ast::{
    AssignTargetP, AstAssignIdentP, AstNoPayload, ClauseP, ExprP, ParameterP, StmtP,
};
use starlark::syntax::AstModule;
use starlark_syntax::syntax::uniplate::Visit;

use crate::errors::{Position, ScriptError};

/// One function of the script.
struct Function<'a> {
    name: &'a str,
    /// Names it uses, with where (first use of each), in source order.
    uses: Vec<(&'a str, Span)>,
}

pub(crate) fn check(ast: &AstModule) -> Result<(), ScriptError> {
    let mut functions = Vec::new();
    collect(Visit::Stmt(ast.statement()), &mut functions);
    let names: BTreeSet<&str> = functions.iter().map(|f| f.name).collect();
    // name → (callee name → first call span), merged over functions of one name.
    let mut calls: BTreeMap<&str, Vec<(&str, Span)>> = BTreeMap::new();
    for f in &functions {
        let entry = calls.entry(f.name).or_default();
        for (used, span) in &f.uses {
            if names.contains(used) && !entry.iter().any(|(n, _)| n == used) {
                entry.push((used, *span));
            }
        }
    }
    for f in &functions {
        if let Some(cycle) = cycle_from(f.name, &calls) {
            let span = calls[f.name]
                .iter()
                .find(|(n, _)| *n == cycle[1])
                .map(|(_, span)| *span);
            let message = if cycle.len() == 2 {
                format!("`{}` calls itself", cycle[0])
            } else {
                let chain: Vec<String> = cycle.iter().map(|n| format!("`{n}`")).collect();
                format!("{} call each other", chain.join(" → "))
            };
            return Err(ScriptError::Recursion {
                at: span.map(|s| Position::of(&ast.file_span(s))),
                message,
            });
        }
    }
    Ok(())
}

/// A path of calls from `start` back to `start`, if there is one (shortest first found by a
/// breadth-first search).
fn cycle_from<'a>(
    start: &'a str,
    calls: &BTreeMap<&'a str, Vec<(&'a str, Span)>>,
) -> Option<Vec<&'a str>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for (next, _) in calls.get(at).into_iter().flatten() {
            if *next == start {
                let mut path = vec![start];
                let mut step = at;
                let mut back = Vec::new();
                while step != start {
                    back.push(step);
                    step = came_from[step];
                }
                path.extend(back.into_iter().rev());
                path.push(start);
                return Some(path);
            }
            if !came_from.contains_key(next) && *next != start {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Every function below `node`, nested ones too.
fn collect<'a>(node: Visit<'a, AstNoPayload>, out: &mut Vec<Function<'a>>) {
    if let Visit::Stmt(stmt) = node {
        match &stmt.node {
            StmtP::Def(def) => {
                let mut locals = params(def.params.iter().map(|p| &p.node));
                let mut uses = Vec::new();
                body(Visit::Stmt(&def.body), &mut uses, &mut locals);
                out.push(function(&def.name.node.ident, uses, &locals));
            }
            StmtP::Assign(assign) => {
                if let (AssignTargetP::Identifier(name), ExprP::Lambda(lambda)) =
                    (&assign.lhs.node, &assign.rhs.node)
                {
                    let mut locals = params(lambda.params.iter().map(|p| &p.node));
                    let mut uses = Vec::new();
                    body(Visit::Expr(&lambda.body), &mut uses, &mut locals);
                    out.push(function(&name.node.ident, uses, &locals));
                }
            }
            _ => {}
        }
    }
    node.visit_children(|child| collect(child, out));
}

fn function<'a>(
    name: &'a str,
    uses: Vec<(&'a str, Span)>,
    locals: &HashSet<&'a str>,
) -> Function<'a> {
    let uses = uses
        .into_iter()
        .filter(|(used, _)| !locals.contains(used))
        .collect();
    Function { name, uses }
}

fn params<'a>(params: impl Iterator<Item = &'a ParameterP<AstNoPayload>>) -> HashSet<&'a str> {
    params
        .filter_map(|p| p.ident())
        .map(|id| id.node.ident.as_str())
        .collect()
}

/// The names used below `node`, and the variables assigned there (which shadow functions of
/// the same name). Nested functions count as part of the body: what they call, the
/// enclosing function may call through them.
fn body<'a>(
    node: Visit<'a, AstNoPayload>,
    uses: &mut Vec<(&'a str, Span)>,
    locals: &mut HashSet<&'a str>,
) {
    let mut assigned = |id: &'a AstAssignIdentP<AstNoPayload>| {
        locals.insert(id.node.ident.as_str());
    };
    match node {
        Visit::Expr(expr) => match &expr.node {
            ExprP::Identifier(id) => uses.push((id.node.ident.as_str(), expr.span)),
            ExprP::Lambda(lambda) => lambda
                .params
                .iter()
                .filter_map(|p| p.node.ident())
                .for_each(&mut assigned),
            ExprP::ListComprehension(_, first, clauses) => {
                first.var.visit_lvalue(&mut assigned);
                for clause in clauses {
                    if let ClauseP::For(f) = clause {
                        f.var.visit_lvalue(&mut assigned);
                    }
                }
            }
            ExprP::DictComprehension(_, first, clauses) => {
                first.var.visit_lvalue(&mut assigned);
                for clause in clauses {
                    if let ClauseP::For(f) = clause {
                        f.var.visit_lvalue(&mut assigned);
                    }
                }
            }
            _ => {}
        },
        Visit::Stmt(stmt) => match &stmt.node {
            StmtP::Assign(assign) => assign.lhs.visit_lvalue(&mut assigned),
            StmtP::AssignModify(lhs, _, _) => lhs.visit_lvalue(&mut assigned),
            StmtP::For(f) => f.var.visit_lvalue(&mut assigned),
            StmtP::Def(def) => def
                .params
                .iter()
                .filter_map(|p| p.node.ident())
                .for_each(&mut assigned),
            _ => {}
        },
    }
    node.visit_children(|child| body(child, uses, locals));
}
