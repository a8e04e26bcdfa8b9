//! Pure markdown model of quire: page text in, plain data with exact byte spans out.
//!
//! No I/O and no failure on user content: [`parse`] accepts any `&str` and reports problems
//! as [`Diagnostic`]s.

mod model;

pub use model::*;
