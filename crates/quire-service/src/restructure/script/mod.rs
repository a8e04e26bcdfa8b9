//! Scripted manifests (spec "Script"): a Starlark script runs in a child process of the
//! embedding binary, reading the space only through the calls answered here (from the same
//! read paths as every other reader: files, DQL, the parsed page and the link model); the
//! manifest it returns is checked like any other and planned. Nothing is written.

mod child;

use std::sync::atomic::{AtomicUsize, Ordering};

use quire_api::script::{HostAnswer, HostCall, MAX_SCRIPT_BYTES};
use quire_restructure::{Manifest, ManifestFormat};
use serde_json::Value;

use super::state::Restructuring;
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::files::Files;
use crate::find::Find;
use crate::pages::Pages;

/// Scripts running at once in this process; more wait for none and are refused (503): each
/// may take the whole memory limit.
const MAX_RUNNING: usize = 4;

static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// A place among the running scripts, given back when dropped.
struct Slot;

impl Slot {
    fn take() -> Result<Slot> {
        let taken = RUNNING.fetch_add(1, Ordering::AcqRel);
        if taken >= MAX_RUNNING {
            RUNNING.fetch_sub(1, Ordering::AcqRel);
            return Err(Error::unavailable(format!(
                "{MAX_RUNNING} scripts are running already; try again when one has finished"
            )));
        }
        Ok(Slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a script produced, its manifest checked.
pub(crate) struct Ran {
    pub(crate) manifest: Manifest,
    pub(crate) output: String,
}

/// Runs `source` in a child process and checks the manifest it returns: 400 for an empty
/// script, 413 over 1 MB, 501 when the binary offers no script runner, 422 when the script
/// fails, runs out of time or memory, or returns no valid manifest.
pub(crate) fn run(core: &SpaceCore, area: &Restructuring, source: &str) -> Result<Ran> {
    if source.trim().is_empty() {
        return Err(Error::bad_request(
            "the script is empty: send Starlark source in `script` that returns a manifest \
             from main() or sets a global `manifest`",
        ));
    }
    if source.len() > MAX_SCRIPT_BYTES {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!(
                "the script is {} bytes; at most {} bytes are accepted",
                source.len(),
                MAX_SCRIPT_BYTES
            ),
        ));
    }
    let Some(runner) = &area.script else {
        return Err(Error::new(
            ErrorCode::NotImplemented,
            "scripts are not available in this build: the service was started without a \
             script runner (`quire serve` and `quire refactor script` provide one)",
        ));
    };
    let _slot = Slot::take()?;
    let done = child::converse(runner, source, &mut |call| answer(core, call))?;
    let manifest = checked(&done.manifest)?;
    Ok(Ran {
        manifest,
        output: done.output,
    })
}

/// The manifest a script returned, parsed and validated exactly as a manifest body is; a
/// manifest the planner would refuse is the script's failure (422).
fn checked(value: &Value) -> Result<Manifest> {
    if !value.is_object() {
        return Err(Error::unprocessable(format!(
            "the script returned {} instead of a manifest (a dict with `moves`, `merges`, \
             `edits`, `rename_tags`, `relinks` or `split`)",
            kind_of(value)
        )));
    }
    let body = serde_json::to_vec(value).map_err(Error::internal)?;
    quire_restructure::parse_manifest(&body, ManifestFormat::Json)
        .map_err(|e| Error::unprocessable(format!("the script returned an invalid manifest: {e}")))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "None",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a dict",
    }
}

/// One read of the script, answered from the space's read paths.
fn answer(core: &SpaceCore, call: &HostCall) -> HostAnswer {
    match reply(core, call) {
        Ok(value) => HostAnswer::Ok(value),
        Err(e) if e.code == ErrorCode::Internal => {
            tracing::error!(
                "script {}: {}",
                call.name(),
                e.detail.as_deref().unwrap_or(&e.message)
            );
            HostAnswer::Error(e.message)
        }
        Err(e) => HostAnswer::Error(e.message),
    }
}

fn reply(core: &SpaceCore, call: &HostCall) -> Result<Value> {
    match call {
        HostCall::Query { dql } => {
            serde_json::to_value(Find(core).query(dql)?).map_err(Error::internal)
        }
        HostCall::Files { glob } => {
            let glob = quire_restructure::glob_regex(glob.trim_start_matches('/'));
            let vault = core.links.vault();
            let mut paths: Vec<String> = vault
                .files()
                .map(|p| p.as_str())
                .filter(|p| glob.is_match(p))
                .map(str::to_string)
                .collect();
            paths.sort();
            Ok(Value::from(paths))
        }
        HostCall::Read { path } => {
            let content = Files(core).read(path)?;
            String::from_utf8(content.bytes)
                .map(Value::String)
                .map_err(|_| Error::bad_request(format!("{path} is not a text file")))
        }
        HostCall::Frontmatter { path } => Ok(Pages(core).peek(path)?.frontmatter),
        HostCall::Links { path } => {
            serde_json::to_value(Pages(core).peek(path)?.links_out).map_err(Error::internal)
        }
    }
}
