//! `quire __script` (hidden): the process one restructuring script runs in, and the runner
//! that tells the service to start it.
//!
//! The process limits itself first (address space, CPU time), reads the script from its
//! standard input, and runs it with `quire-script`; every read the script makes goes to the
//! service as a line on standard output and comes back as a line on standard input
//! (`quire_api::script`). It opens nothing in the knowledge root (the service starts it in
//! `/` with an empty environment), so it has no way to write there.

use std::io::{BufRead, Write};
use std::time::Duration;

use anyhow::Context;
use clap::Args as ClapArgs;
use quire_api::script::{ChildLine, HostAnswer, ScriptDone, ScriptFailed, ScriptJob};
use quire_script::{Host, HostCall, Limits};
use quire_service::{ScriptLimits, ScriptRunner};

/// The subcommand's name.
pub const SUBCOMMAND: &str = "__script";

/// Overrides the wall-time limit of scripts (milliseconds; default 30 s). For tests, and for
/// operators who need another bound.
pub const TIMEOUT_ENV: &str = "QUIRE_SCRIPT_TIMEOUT_MS";

#[derive(ClapArgs)]
pub struct Args {
    /// Address-space limit of this process (RLIMIT_AS).
    #[arg(long)]
    memory_bytes: u64,
    /// CPU-time limit of this process (RLIMIT_CPU): the backstop behind the service's
    /// wall-time limit.
    #[arg(long)]
    cpu_seconds: u64,
}

/// How the service started by this binary runs scripts: this executable, re-executed with
/// the hidden subcommand. `None` where the limits cannot be enforced (no rlimits) or the
/// executable cannot be found: scripts then answer 501.
pub fn runner() -> Option<ScriptRunner> {
    if !cfg!(unix) {
        return None;
    }
    let program = std::env::current_exe().ok()?;
    let mut limits = ScriptLimits::default();
    if let Some(ms) = std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
    {
        limits.time = Duration::from_millis(ms);
    }
    Some(ScriptRunner {
        program,
        args: vec![SUBCOMMAND.to_string()],
        limits,
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    limit_self(&args)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut first = String::new();
    input
        .read_line(&mut first)
        .context("reading the script from standard input")?;
    let job: ScriptJob = serde_json::from_str(&first).context("the script job is not JSON")?;
    let stdout = std::io::stdout();
    let mut pipe = Pipe {
        input,
        output: stdout.lock(),
    };
    let limits = Limits {
        memory_bytes: usize::try_from(args.memory_bytes).unwrap_or(usize::MAX),
        ..Limits::default()
    };
    let last = match quire_script::run_with(&job.script, &mut pipe, &limits) {
        Ok(out) => ChildLine::Done(ScriptDone {
            manifest: out.manifest,
            output: out.output,
        }),
        Err(e) => ChildLine::Failed(ScriptFailed {
            error: e.to_string(),
        }),
    };
    pipe.send(&last).context("answering the service")?;
    Ok(())
}

/// The service, at the other end of standard input and output.
struct Pipe<R, W> {
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> Pipe<R, W> {
    fn send(&mut self, line: &ChildLine) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        self.output.write_all(&bytes)?;
        self.output.flush()
    }
}

impl<R: BufRead, W: Write> Host for Pipe<R, W> {
    fn call(&mut self, call: &HostCall) -> Result<serde_json::Value, String> {
        let gone = |_| "the service stopped answering".to_string();
        self.send(&ChildLine::Call(call.clone())).map_err(gone)?;
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) | Err(_) => return Err("the service stopped answering".into()),
            Ok(_) => {}
        }
        match serde_json::from_str::<HostAnswer>(&line) {
            Ok(HostAnswer::Ok(value)) => Ok(value),
            Ok(HostAnswer::Error(message)) => Err(message),
            Err(e) => Err(format!("the service's answer is not understood: {e}")),
        }
    }
}

/// Sets this process's own limits before it reads anything.
#[cfg(unix)]
fn limit_self(args: &Args) -> anyhow::Result<()> {
    set_limit(libc::RLIMIT_AS, args.memory_bytes, args.memory_bytes)?;
    set_limit(
        libc::RLIMIT_CPU,
        args.cpu_seconds,
        args.cpu_seconds.saturating_add(1),
    )?;
    Ok(())
}

#[cfg(not(unix))]
fn limit_self(_: &Args) -> anyhow::Result<()> {
    anyhow::bail!("scripts need process limits, which this platform does not offer")
}

/// The type `setrlimit` takes its resource as (glibc has its own).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(all(unix, not(all(target_os = "linux", target_env = "gnu"))))]
type Resource = libc::c_int;

#[cfg(unix)]
fn set_limit(resource: Resource, soft: u64, hard: u64) -> anyhow::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: soft as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: setrlimit(2) reads the struct we pass and changes only this process's limits.
    let done = unsafe { libc::setrlimit(resource, &limit) };
    if done != 0 {
        anyhow::bail!(
            "cannot limit the script process: {}",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}
