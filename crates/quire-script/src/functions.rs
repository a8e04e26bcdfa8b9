//! The functions a script calls besides Starlark's own: the reads its host answers (within
//! the read budget), `slug`, and `print` captured into the output.

use std::cell::{Cell, RefCell};

use anyhow::anyhow;
use quire_api::script::{HostCall, MAX_HOST_CALLS, MAX_OUTPUT_BYTES, MAX_READ_BYTES};
use serde_json::{Map, Value as Json};
use starlark::any::ProvidesStaticType;
use starlark::environment::GlobalsBuilder;
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::values::Value;
use starlark::PrintHandler;

use crate::Host;

/// What the evaluator carries for the functions below (`Evaluator::extra`).
#[derive(ProvidesStaticType)]
pub(crate) struct Context<'a> {
    host: RefCell<&'a mut dyn Host>,
    calls: Cell<usize>,
    bytes: Cell<usize>,
    pub(crate) printed: Printed,
}

impl<'a> Context<'a> {
    pub(crate) fn new(host: &'a mut dyn Host) -> Context<'a> {
        Context {
            host: RefCell::new(host),
            calls: Cell::new(0),
            bytes: Cell::new(0),
            printed: Printed::default(),
        }
    }

    /// Asks the host, within the budget; a refusal names the call.
    fn call(&self, call: HostCall) -> anyhow::Result<Json> {
        let calls = self.calls.get() + 1;
        if calls > MAX_HOST_CALLS {
            return Err(anyhow!(
                "the script made more than {MAX_HOST_CALLS} reads (query, files, read, \
                 frontmatter, links); read less, for example one query instead of a read per page"
            ));
        }
        self.calls.set(calls);
        let answer = self
            .host
            .borrow_mut()
            .call(&call)
            .map_err(|e| anyhow!("{}({}) failed: {e}", call.name(), argument(&call)))?;
        let bytes = self.bytes.get() + json_size(&answer);
        if bytes > MAX_READ_BYTES {
            return Err(anyhow!(
                "the script read more than {} MB; read less, for example frontmatter() instead \
                 of read()",
                MAX_READ_BYTES >> 20
            ));
        }
        self.bytes.set(bytes);
        Ok(answer)
    }
}

/// The argument of a call, quoted as the script wrote it.
fn argument(call: &HostCall) -> String {
    let text = match call {
        HostCall::Query { dql } => dql,
        HostCall::Files { glob } => glob,
        HostCall::Read { path } | HostCall::Frontmatter { path } | HostCall::Links { path } => path,
    };
    format!("{text:?}")
}

/// About the bytes `value` takes as JSON (strings counted by their bytes, a few bytes per
/// value): what the budget counts, without serialising the answer again.
fn json_size(value: &Json) -> usize {
    match value {
        Json::Null | Json::Bool(_) | Json::Number(_) => 8,
        Json::String(s) => s.len() + 2,
        Json::Array(items) => 2 + items.iter().map(json_size).sum::<usize>(),
        Json::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() + 3 + json_size(v))
                .sum::<usize>()
        }
    }
}

/// `print` output, kept up to [`MAX_OUTPUT_BYTES`].
#[derive(Default)]
pub(crate) struct Printed {
    text: RefCell<String>,
    cut: Cell<bool>,
}

impl Printed {
    pub(crate) fn take(&self) -> String {
        self.text.take()
    }
}

impl PrintHandler for Printed {
    fn println(&self, line: &str) -> starlark::Result<()> {
        if self.cut.get() {
            return Ok(());
        }
        let mut text = self.text.borrow_mut();
        if text.len() + line.len() + 1 > MAX_OUTPUT_BYTES {
            text.push_str(&format!(
                "[output cut off at {} MB]\n",
                MAX_OUTPUT_BYTES >> 20
            ));
            self.cut.set(true);
            return Ok(());
        }
        text.push_str(line);
        text.push('\n');
        Ok(())
    }
}

fn context<'a, 'e>(eval: &Evaluator<'_, 'a, 'e>) -> anyhow::Result<&'a Context<'e>> {
    eval.extra
        .and_then(|extra| extra.downcast_ref::<Context>())
        .ok_or_else(|| anyhow!("this function is not available here"))
}

/// The rows of a query result as dicts from column header to value.
fn rows(result: Json) -> anyhow::Result<Json> {
    let headers: Vec<String> = result
        .get("headers")
        .and_then(Json::as_array)
        .map(|h| {
            h.iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .ok_or_else(|| anyhow!("the query answer has no headers"))?;
    let Some(Json::Array(rows)) = result.get("rows").cloned() else {
        return Err(anyhow!("the query answer has no rows"));
    };
    let out = rows
        .into_iter()
        .map(|row| {
            let cells = match row {
                Json::Array(cells) => cells,
                other => vec![other],
            };
            let map: Map<String, Json> = headers.iter().cloned().zip(cells).collect();
            Json::Object(map)
        })
        .collect();
    Ok(Json::Array(out))
}

#[starlark_module]
pub(crate) fn host_functions(builder: &mut GlobalsBuilder) {
    /// Runs a DQL query (`LIST FROM "inbox" WHERE status = "done"`); returns its rows, each a
    /// dict from column header to value (`File` is the page path).
    fn query<'v>(
        #[starlark(require = pos)] dql: &str,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<Value<'v>> {
        let answer = context(eval)?.call(HostCall::Query {
            dql: dql.to_owned(),
        })?;
        Ok(eval.heap().alloc(&rows(answer)?))
    }

    /// The paths of the files matching `glob` (`**` spans folders; default every file),
    /// sorted.
    fn files<'v>(
        #[starlark(require = pos, default = "**")] glob: &str,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<Value<'v>> {
        let answer = context(eval)?.call(HostCall::Files {
            glob: glob.to_owned(),
        })?;
        Ok(eval.heap().alloc(&answer))
    }

    /// A file's text.
    fn read<'v>(
        #[starlark(require = pos)] path: &str,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<Value<'v>> {
        let answer = context(eval)?.call(HostCall::Read {
            path: path.to_owned(),
        })?;
        Ok(eval.heap().alloc(&answer))
    }

    /// A page's frontmatter as a dict (empty when it has none).
    fn frontmatter<'v>(
        #[starlark(require = pos)] path: &str,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<Value<'v>> {
        let answer = context(eval)?.call(HostCall::Frontmatter {
            path: path.to_owned(),
        })?;
        Ok(eval.heap().alloc(&answer))
    }

    /// A page's outgoing links: a list of `{"target": …, "path": …}`, `path` being the file
    /// the link resolves to (None when it resolves to none).
    fn links<'v>(
        #[starlark(require = pos)] path: &str,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<Value<'v>> {
        let answer = context(eval)?.call(HostCall::Links {
            path: path.to_owned(),
        })?;
        Ok(eval.heap().alloc(&answer))
    }

    /// The slug manifests use (`{{slug}}`): lower case, runs of other characters as one `-`.
    fn slug(#[starlark(require = pos)] text: &str) -> anyhow::Result<String> {
        Ok(quire_query::slug(text))
    }
}
