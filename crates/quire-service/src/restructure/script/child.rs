//! The script process: started from the runner's command in a process group of its own, fed
//! the script, its reads answered line by line (`quire_api::script`), killed with its group
//! when it outlives the wall-time limit. Its end is read from its last line, or else from how
//! it died: an allocation failure is the memory limit, a CPU-time signal the time limit.

use std::io::{BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use quire_api::script::{
    read_line, ChildLine, HostAnswer, HostCall, LineTooLong, ScriptDone, ScriptJob,
    MAX_CHILD_LINE_BYTES, MAX_HOST_CALLS,
};

use crate::error::{Error, Result};
use crate::settings::{ScriptLimits, ScriptRunner};

/// How much of the child's standard error is kept (to tell an allocation failure).
const STDERR_KEPT: usize = 64 << 10;
/// How long a child that has said its last line may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// Runs the script to its end: its result, or the error the caller sees.
pub(super) fn converse(
    runner: &ScriptRunner,
    source: &str,
    answer: &mut dyn FnMut(&HostCall) -> HostAnswer,
) -> Result<ScriptDone> {
    let limits = runner.limits;
    let mut child = spawn(runner)?;
    let pid = child.id();
    let stderr = child.stderr.take().map(keep_stderr);
    let (stop, stopped) = mpsc::channel::<()>();
    let timed_out = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let timed_out = timed_out.clone();
        std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(limits.time) {
                timed_out.store(true, Ordering::Release);
                kill_group(pid);
            }
        })
    };

    let talked = talk(&mut child, source, answer);

    // The watchdog ends before the child is reaped, so it can never signal a reused pid.
    drop(stop);
    let _ = watchdog.join();
    drop(child.stdin.take());
    let status = reap(&mut child, pid);
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();

    if timed_out.load(Ordering::Acquire) {
        return Err(Error::unprocessable(format!(
            "the script ran longer than {}; it was stopped",
            seconds(limits.time)
        )));
    }
    match talked {
        Ok(Some(Ending::Done(done))) => Ok(done),
        Ok(Some(Ending::Failed(message))) => Err(Error::unprocessable(message)),
        Ok(None) => Err(died(status, &stderr, &limits)),
        Err(e) => Err(e),
    }
}

enum Ending {
    Done(ScriptDone),
    Failed(String),
}

fn spawn(runner: &ScriptRunner) -> Result<Child> {
    let cpu_seconds = runner.limits.time.as_secs() + 2;
    let mut command = Command::new(&runner.program);
    command
        .args(&runner.args)
        .arg("--memory-bytes")
        .arg(runner.limits.memory_bytes.to_string())
        .arg("--cpu-seconds")
        .arg(cpu_seconds.to_string())
        // The child reads nothing but its standard input: no environment, no folder.
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.spawn().map_err(|e| {
        Error::internal(format!(
            "cannot start the script process {}: {e}",
            runner.program.display()
        ))
    })
}

/// Sends the job and answers the child's calls until its last line; `None` when it stopped
/// without one (it died, or was killed).
fn talk(
    child: &mut Child,
    source: &str,
    answer: &mut dyn FnMut(&HostCall) -> HostAnswer,
) -> Result<Option<Ending>> {
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(Error::internal("the script process has no pipes"));
    };
    let job = ScriptJob {
        script: source.to_string(),
    };
    if send(&mut stdin, &job).is_err() {
        return Ok(None);
    }
    let mut lines = BufReader::new(stdout);
    let mut calls = 0usize;
    loop {
        let line = match read_line(&mut lines, MAX_CHILD_LINE_BYTES) {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(None),
            Err(LineTooLong) => {
                kill_group(child.id());
                return Err(Error::unprocessable(format!(
                    "the script's manifest and output exceed {} MB",
                    MAX_CHILD_LINE_BYTES >> 20
                )));
            }
        };
        let parsed: ChildLine = match serde_json::from_slice(&line) {
            Ok(parsed) => parsed,
            Err(e) => {
                kill_group(child.id());
                return Err(Error::internal(format!(
                    "the script process said something unexpected: {e}"
                )));
            }
        };
        match parsed {
            ChildLine::Call(call) => {
                calls += 1;
                // The child counts its reads too; this only stops one that does not.
                if calls > MAX_HOST_CALLS + 1 {
                    kill_group(child.id());
                    return Err(Error::unprocessable(format!(
                        "the script made more than {MAX_HOST_CALLS} reads"
                    )));
                }
                if send(&mut stdin, &answer(&call)).is_err() {
                    return Ok(None);
                }
            }
            ChildLine::Done(done) => return Ok(Some(Ending::Done(done))),
            ChildLine::Failed(failed) => return Ok(Some(Ending::Failed(failed.error))),
        }
    }
}

fn send(stdin: &mut impl Write, value: &impl serde::Serialize) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    stdin.write_all(&line)?;
    stdin.flush()
}

/// Keeps the first [`STDERR_KEPT`] bytes of the child's standard error, draining the rest so
/// the child never blocks on it.
fn keep_stderr(mut stderr: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stderr.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = STDERR_KEPT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Waits for the child, killing its group when it does not exit within the grace period.
fn reap(child: &mut Child, pid: u32) -> Option<ExitStatus> {
    let until = Instant::now() + EXIT_GRACE;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                kill_group(pid);
                return child.wait().ok();
            }
            Err(_) => return None,
        }
    }
}

/// Kills the child's process group (the child leads it); the child alone where there are no
/// process groups.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(pid) {
            // SAFETY: kill(2) takes plain integers; a negative pid names the process group the
            // child leads (it was started with `process_group(0)` and is not reaped yet).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
    }
}

/// Why a child that said no last line ended.
fn died(status: Option<ExitStatus>, stderr: &str, limits: &ScriptLimits) -> Error {
    let memory = || {
        Error::unprocessable(format!(
            "the script exceeded the {} MB memory limit",
            limits.memory_bytes >> 20
        ))
    };
    if ["memory allocation of", "out of memory", "capacity overflow"]
        .iter()
        .any(|sign| stderr.contains(sign))
    {
        return memory();
    }
    #[cfg(unix)]
    if let Some(signal) = status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)) {
        if signal == libc::SIGXCPU {
            return Error::unprocessable(format!(
                "the script ran longer than {}; it was stopped",
                seconds(limits.time)
            ));
        }
    }
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!(": {}", l.trim()))
        .unwrap_or_default();
    let how = match status {
        Some(status) => status.to_string(),
        None => "unknown status".to_string(),
    };
    Error::unprocessable(format!(
        "the script process stopped unexpectedly ({how}){last}"
    ))
}

/// `30 s`, `2 s`, `1.5 s`.
fn seconds(time: Duration) -> String {
    let ms = time.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", time.as_secs_f64())
    }
}
