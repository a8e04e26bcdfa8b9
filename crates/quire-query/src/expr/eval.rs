//! Evaluation of an [`Expr`] against a [`Scope`]. Missing data reads as null; only type
//! errors the query itself causes (`"a" * 2`, division by zero, a bad layout) fail.

use std::cmp::Ordering;

use chrono::Duration;

use super::func::{self, contains};
use super::{BinaryOp, Error, EvalContext, Expr, ExprKind, Scope, UnaryOp};
use crate::value::{date_field, Value};

pub(crate) fn eval(expr: &Expr, scope: &dyn Scope, ctx: &EvalContext) -> Result<Value, Error> {
    match &expr.kind {
        ExprKind::Literal(value) => Ok(value.clone()),
        ExprKind::List(items) => items
            .iter()
            .map(|item| eval(item, scope, ctx))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List),
        ExprKind::Path(path) => Ok(match scope.lookup(path) {
            Some(value) => value,
            None if path.len() == 1 && path[0] == "now" => Value::Date(ctx.now()),
            None => Value::Null,
        }),
        ExprKind::Member(base, field) => Ok(member(&eval(base, scope, ctx)?, field)),
        ExprKind::Index(base, index) => {
            let base = eval(base, scope, ctx)?;
            let index = eval(index, scope, ctx)?;
            Ok(index_value(&base, &index))
        }
        ExprKind::Link(text) => Ok(Value::Link(
            scope.resolve_link(text).unwrap_or_else(|| text.clone()),
        )),
        ExprKind::Unary(op, operand) => {
            let value = eval(operand, scope, ctx)?;
            match op {
                UnaryOp::Not => Ok(Value::Bool(!value.truthy())),
                UnaryOp::Neg => match value {
                    Value::Number(n) => Ok(Value::Number(-n)),
                    Value::Duration(d) => Ok(Value::Duration(-d)),
                    Value::Null => Ok(Value::Null),
                    other => Err(Error::new(
                        expr.span.start,
                        format!("cannot negate a {}", other.type_name()),
                    )),
                },
            }
        }
        ExprKind::Binary(BinaryOp::And, lhs, rhs) => {
            if !eval(lhs, scope, ctx)?.truthy() {
                return Ok(Value::Bool(false));
            }
            Ok(Value::Bool(eval(rhs, scope, ctx)?.truthy()))
        }
        ExprKind::Binary(BinaryOp::Or, lhs, rhs) => {
            if eval(lhs, scope, ctx)?.truthy() {
                return Ok(Value::Bool(true));
            }
            Ok(Value::Bool(eval(rhs, scope, ctx)?.truthy()))
        }
        ExprKind::Binary(op, lhs, rhs) => {
            let a = eval(lhs, scope, ctx)?;
            let b = eval(rhs, scope, ctx)?;
            binary(*op, a, b).map_err(|message| Error::new(expr.span.start, message))
        }
        ExprKind::Call(call) => {
            let args = call
                .args
                .iter()
                .map(|arg| eval(arg, scope, ctx))
                .collect::<Result<Vec<_>, _>>()?;
            func::call(call.func, args, call.regex.as_ref(), ctx)
                .map_err(|message| Error::new(expr.span.start, message))
        }
    }
}

/// `value.field`: object keys, date parts, and a map over lists.
pub(crate) fn member(value: &Value, field: &str) -> Value {
    match value {
        Value::Object(map) => map.get(field).cloned().unwrap_or(Value::Null),
        Value::Date(d) => date_field(d, field),
        Value::List(items) => Value::List(items.iter().map(|item| member(item, field)).collect()),
        _ => Value::Null,
    }
}

fn index_value(base: &Value, index: &Value) -> Value {
    match (base, index) {
        (Value::List(items), Value::Number(n)) => {
            let len = items.len() as f64;
            let i = if *n < 0.0 { len + n.trunc() } else { n.trunc() };
            if i >= 0.0 && i < len {
                items[i as usize].clone()
            } else {
                Value::Null
            }
        }
        (Value::String(s), Value::Number(n)) if *n >= 0.0 => s
            .chars()
            .nth(*n as usize)
            .map(|c| Value::String(c.to_string()))
            .unwrap_or(Value::Null),
        (Value::Object(_) | Value::Date(_) | Value::List(_), Value::String(key)) => {
            member(base, key)
        }
        _ => Value::Null,
    }
}

fn binary(op: BinaryOp, a: Value, b: Value) -> Result<Value, String> {
    use BinaryOp::*;
    let ordering = |want: fn(Ordering) -> bool| Ok(Value::Bool(want(a.compare(&b))));
    match op {
        Eq => Ok(Value::Bool(a.equals(&b))),
        NotEq => Ok(Value::Bool(!a.equals(&b))),
        Lt => ordering(Ordering::is_lt),
        Le => ordering(Ordering::is_le),
        Gt => ordering(Ordering::is_gt),
        Ge => ordering(Ordering::is_ge),
        In => Ok(Value::Bool(contains(&b, &a))),
        NotIn => Ok(Value::Bool(!contains(&b, &a))),
        Add => add(a, b),
        Sub => subtract(a, b),
        Mul | Div | Rem => arithmetic(op, a, b),
        And | Or => unreachable!("short-circuit operators are evaluated lazily"),
    }
}

fn mismatch(op: BinaryOp, a: &Value, b: &Value) -> String {
    format!(
        "cannot apply '{op}' to a {} and a {}",
        a.type_name(),
        b.type_name()
    )
}

fn add(a: Value, b: Value) -> Result<Value, String> {
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Number(x), Value::Number(y)) => Value::Number(x + y),
        (Value::String(x), y) => Value::String(joined(x, &y.to_string())?),
        (x, Value::String(y)) => Value::String(joined(x.to_string(), &y)?),
        (Value::List(mut x), Value::List(y)) => {
            x.extend(y);
            Value::List(x)
        }
        (Value::Date(d), Value::Duration(dur)) | (Value::Duration(dur), Value::Date(d)) => {
            Value::Date(d.checked_add_signed(dur).ok_or("date out of range")?)
        }
        (Value::Duration(x), Value::Duration(y)) => {
            Value::Duration(x.checked_add(&y).ok_or("duration out of range")?)
        }
        (x, y) => return Err(mismatch(BinaryOp::Add, &x, &y)),
    })
}

/// `x + y` as text, refused past [`super::MAX_TEXT_BYTES`].
fn joined(x: String, y: &str) -> Result<String, String> {
    let made = x.len().saturating_add(y.len());
    if made > super::MAX_TEXT_BYTES {
        return Err(func::too_long("`+`", made));
    }
    Ok(x + y)
}

fn subtract(a: Value, b: Value) -> Result<Value, String> {
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Number(x), Value::Number(y)) => Value::Number(x - y),
        (Value::Date(d), Value::Duration(dur)) => {
            Value::Date(d.checked_sub_signed(dur).ok_or("date out of range")?)
        }
        (Value::Date(x), Value::Date(y)) => Value::Duration(x.signed_duration_since(y)),
        (Value::Duration(x), Value::Duration(y)) => {
            Value::Duration(x.checked_sub(&y).ok_or("duration out of range")?)
        }
        (x, y) => return Err(mismatch(BinaryOp::Sub, &x, &y)),
    })
}

fn arithmetic(op: BinaryOp, a: Value, b: Value) -> Result<Value, String> {
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Number(x), Value::Number(y)) => {
            if y == 0.0 && op != BinaryOp::Mul {
                return Err("division by zero".into());
            }
            Value::Number(match op {
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                _ => x % y,
            })
        }
        (Value::Duration(d), Value::Number(n)) | (Value::Number(n), Value::Duration(d))
            if op == BinaryOp::Mul =>
        {
            scale(d, n)?
        }
        (Value::Duration(d), Value::Number(n)) if op == BinaryOp::Div => {
            if n == 0.0 {
                return Err("division by zero".into());
            }
            scale(d, 1.0 / n)?
        }
        (x, y) => return Err(mismatch(op, &x, &y)),
    })
}

fn scale(d: Duration, factor: f64) -> Result<Value, String> {
    let ms = d.num_milliseconds() as f64 * factor;
    if !ms.is_finite() || ms.abs() > 9e15 {
        return Err("duration out of range".into());
    }
    Duration::try_milliseconds(ms.round() as i64)
        .map(Value::Duration)
        .ok_or_else(|| "duration out of range".into())
}
