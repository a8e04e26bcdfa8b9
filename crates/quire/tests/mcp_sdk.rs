//! MCP with the official Python SDK (`mcp` on PyPI): `tests/python/mcp_sdk.py` drives the real
//! binary over streamable HTTP (`quire serve`), stdio (`quire mcp`) and the stdio relay, and
//! checks every tool's schemas and answers against the MCP 2025-11-25 specification.
//!
//! Skipped, saying why, when python3 or the package is missing — unless
//! `QUIRE_REQUIRE_PYTHON_SDK` is set: `.ci/run` installs the package and sets it, so in CI a
//! missing SDK fails instead of skipping.

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{quire, write_config, Server};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/mcp_sdk.py");

/// The whole script may take this long (two dozen calls over three transports, debug build).
const LIMIT: Duration = Duration::from_secs(300);

/// Whether python3 with the SDK can run; `false` (with a message) when the test is skipped.
fn sdk_available() -> bool {
    let probe = Command::new("python3")
        .args(["-c", "import mcp, jsonschema, anyio"])
        .output();
    let problem = match probe {
        Ok(out) if out.status.success() => return true,
        Ok(out) => format!(
            "python3 cannot import the MCP SDK ({}); install it with \
             `python3 -m pip install 'mcp>=1.20'`",
            support::text(&out.stderr).trim()
        ),
        Err(e) => format!("python3 does not run ({e})"),
    };
    support::clients_present("QUIRE_REQUIRE_PYTHON_SDK", Some(problem))
}

/// A root with the pages the script's calls name.
fn seeded(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/alpha.md"),
        "---\nstatus: open\n---\n# Alpha\n\nSee [[beta]].\n\n## Part\n\nA part of alpha.\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/beta.md"), "# Beta\n\nBack to [[alpha]].\n").unwrap();
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    root
}

#[test]
fn the_official_python_sdk_gets_every_result_in_text_and_in_schema() {
    if !sdk_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let served = seeded(dir.path(), "served");
    let alone = seeded(dir.path(), "alone");
    let keyed = seeded(dir.path(), "keyed");
    write_config(&keyed, "[auth]\ntype = \"apikey\"\napi_key = \"sdk-key\"\n");
    let server = Server::start(&served, &["--no-mcp"]);
    let _keyed_server = Server::start(&keyed, &["--no-mcp"]);

    let mut child = Command::new("python3")
        .arg(SCRIPT)
        .arg("--quire")
        .arg(env!("CARGO_BIN_EXE_quire"))
        .arg("--http")
        .arg(format!("{}/mcp", server.host))
        .arg("--served-root")
        .arg(&served)
        .arg("--stdio-root")
        .arg(&alone)
        .arg("--keyed-root")
        .arg(&keyed)
        .env_remove("QUIRE_API_KEY")
        .env("PYTHONUNBUFFERED", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    // Read as it comes, so a full pipe never stalls the script.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the SDK script did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    println!("{stdout}");
    assert!(
        status.success(),
        "the SDK script failed ({status}):\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("every check passed"), "{stdout}");
}
