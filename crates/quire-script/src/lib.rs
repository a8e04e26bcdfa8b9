//! Restructuring scripts: Starlark source that computes a manifest (spec "Script").
//!
//! [`run`] parses and runs a script and returns what it produced: the manifest `main()`
//! returned (or the global `manifest`) as JSON, and what it printed. It does no I/O: every
//! read (`query`, `files`, `read`, `frontmatter`, `links`) is a [`HostCall`] its [`Host`]
//! answers. The `quire` binary runs this in a child process (`quire __script`) whose host
//! forwards each call to the service over a pipe; tests answer from memory.
//!
//! The language is Starlark with top-level statements and f-strings, without `load`, without
//! `while` (a reserved word the parser refuses) and without recursion (refused before the
//! script runs when a function reaches itself by name, and by a call depth of
//! [`Limits::max_call_depth`] when it does so through a value). Reads are bounded by
//! [`quire_api::script::MAX_HOST_CALLS`] and [`quire_api::script::MAX_READ_BYTES`].

mod errors;
mod functions;
mod recursion;

use starlark::environment::{GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::Evaluator;
use starlark::syntax::{AstModule, Dialect};
use starlark::values::Value;

pub use errors::{Position, ScriptError};
pub use quire_api::script::HostCall;

/// Answers the reads of a script.
pub trait Host {
    /// The answer to one read, or a sentence saying why there is none (`no such file`).
    fn call(&mut self, call: &HostCall) -> Result<serde_json::Value, String>;
}

/// What a script produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptOutput {
    /// What `main()` returned, or the global `manifest`, as JSON (not yet checked as a
    /// manifest: the caller validates it like any other).
    pub manifest: serde_json::Value,
    /// What `print` wrote, one line per call (cut off at
    /// [`quire_api::script::MAX_OUTPUT_BYTES`]).
    pub output: String,
}

/// Bounds of one run besides the reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The memory the script may use. The Starlark heap stops at three quarters of it with a
    /// clean error; the process running the script enforces the whole of it.
    pub memory_bytes: usize,
    /// Calls nested deeper than this fail: the backstop against recursion through values
    /// (`f(f)`), which the check before the run cannot see.
    pub max_call_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            memory_bytes: 256 << 20,
            max_call_depth: 64,
        }
    }
}

/// The functions a script can call, for error messages.
pub const FUNCTIONS: &str =
    "query, files, read, frontmatter, links, slug, json.encode, json.decode, print";

/// Runs `source` within the default [`Limits`].
pub fn run(source: &str, host: &mut dyn Host) -> Result<ScriptOutput, ScriptError> {
    run_with(source, host, &Limits::default())
}

/// Runs `source`: parses it, refuses recursion, runs the module, then calls `main()` when it
/// defines one; the manifest is what `main()` returned, else the global `manifest`.
pub fn run_with(
    source: &str,
    host: &mut dyn Host,
    limits: &Limits,
) -> Result<ScriptOutput, ScriptError> {
    let ast = AstModule::parse("script", source.to_owned(), &dialect())
        .map_err(|e| errors::syntax(&e))?;
    recursion::check(&ast)?;
    let globals = GlobalsBuilder::extended_by(&[
        LibraryExtension::Json,
        LibraryExtension::Print,
        LibraryExtension::Map,
        LibraryExtension::Filter,
    ])
    .with(functions::host_functions)
    .build();
    let context = functions::Context::new(host);
    let failed = |e: starlark::Error| errors::runtime(&e, limits);
    let manifest = Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        eval.set_max_callstack_size(limits.max_call_depth)
            .and_then(|()| eval.set_max_heap_size((limits.memory_bytes / 4 * 3).max(1)))
            .map_err(|e| ScriptError::Runtime {
                at: None,
                message: format!("the evaluator cannot be set up: {e}"),
            })?;
        eval.set_print_handler(&context.printed);
        eval.extra = Some(&context);
        eval.eval_module(ast, &globals).map_err(failed)?;
        let mut manifest: Option<Value> = None;
        if let Some(main) = module.get("main") {
            let returned = eval.eval_function(main, &[], &[]).map_err(failed)?;
            manifest = Some(returned).filter(|v| !v.is_none());
        }
        let manifest = manifest
            .or_else(|| module.get("manifest").filter(|v| !v.is_none()))
            .ok_or(ScriptError::NoManifest)?;
        manifest
            .to_json_value()
            .map_err(|e| ScriptError::NotData(e.to_string()))
    })?;
    Ok(ScriptOutput {
        manifest,
        output: context.printed.take(),
    })
}

/// Standard Starlark plus top-level statements (loops outside functions), f-strings and
/// keyword-only arguments; no `load` (a script is one file).
fn dialect() -> Dialect {
    Dialect {
        enable_top_level_stmt: true,
        enable_f_strings: true,
        enable_keyword_only_arguments: true,
        enable_load: false,
        ..Dialect::Standard
    }
}
