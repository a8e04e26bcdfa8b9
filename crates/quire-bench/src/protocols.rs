//! A folder of pages copied in and read back through each file protocol of the real server,
//! against the same through REST and a `cp -r` between local folders (the floor): `rclone
//! copy` for WebDAV and S3, `cp -r` on the FUSE mount, `nfs-cp` per file for NFS (libnfs's
//! utilities copy one file per process; a row of `cp` per file shows what the processes
//! cost), 4 parallel clients everywhere (rclone's default is 4 transfers). Each copy goes into
//! a folder of its own in one root; the server runs with its defaults (batched commits).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// Pages in the folder copied.
    #[arg(long, default_value_t = 1_000)]
    pub pages: usize,
    /// The `quire` binary to serve with.
    #[arg(long, default_value = "target/release/quire")]
    pub binary: PathBuf,
    /// Leave the FUSE mount out (no /dev/fuse or fusermount3).
    #[arg(long)]
    pub no_fuse: bool,
    /// Leave NFS out (no `nfs-cp`: apt-get install libnfs-utils).
    #[arg(long)]
    pub no_nfs: bool,
}

const S3_KEY: &str = "bench-access";
const S3_SECRET: &str = "bench-secret-0123456789";

/// The addresses the server printed.
#[derive(Default, Debug)]
struct Addresses {
    rest: Option<String>,
    webdav: Option<String>,
    s3: Option<String>,
    /// `host:port`
    nfs: Option<String>,
}

fn addresses(server: &mut Child, want_nfs: bool) -> anyhow::Result<Addresses> {
    let stderr = server.stderr.take().context("server stderr")?;
    let found = Arc::new(Mutex::new(Addresses::default()));
    let sink = found.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let url = line.find("http://").map(|i| {
                line[i..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_string()
            });
            let mut found = sink.lock().unwrap();
            if line.contains("serving ") {
                found.rest = url;
            } else if line.contains("WebDAV listening") {
                found.webdav = url.map(|u| u.trim_end_matches('/').to_string());
            } else if line.contains("S3 listening") {
                found.s3 = url.map(|u| u.trim_end_matches('/').to_string());
            } else if let Some(at) = line.find("NFS listening on ") {
                found.nfs = Some(line[at + 17..].trim().to_string());
            } else if line.contains("ERROR") {
                eprintln!("server: {line}");
            }
        }
    });
    let started = Instant::now();
    loop {
        {
            let found = found.lock().unwrap();
            if found.rest.is_some()
                && found.webdav.is_some()
                && found.s3.is_some()
                && (found.nfs.is_some() || !want_nfs)
            {
                return Ok(Addresses {
                    rest: found.rest.clone(),
                    webdav: found.webdav.clone(),
                    s3: found.s3.clone(),
                    nfs: found.nfs.clone(),
                });
            }
        }
        if started.elapsed() > Duration::from_secs(120) {
            bail!("the server did not print its addresses");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn generate(dir: &Path, pages: usize) -> anyhow::Result<()> {
    for i in 0..pages {
        let folder = dir.join(format!("f{:02}", i % 20));
        std::fs::create_dir_all(&folder)?;
        let body = format!(
            "---\ntitle: Page {i}\ntags: [bench]\n---\n# Page {i}\n\nSee [[p{}]] and [[p{}]].\n\n{}\n",
            (i + 1) % pages,
            (i * 7) % pages,
            "Some words of a note that people keep. ".repeat(20)
        );
        std::fs::write(folder.join(format!("p{i}.md")), body)?;
    }
    Ok(())
}

fn files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}{name}");
            if entry.path().is_dir() {
                walk(&entry.path(), &format!("{path}/"), out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out);
    out.sort();
    out
}

fn run_ok(cmd: &mut Command) -> anyhow::Result<()> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

fn timed(f: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<Duration> {
    let started = Instant::now();
    f()?;
    Ok(started.elapsed())
}

/// Each of `paths` through `call`, 4 threads.
fn four_clients(
    paths: &[String],
    call: impl Fn(&ureq::Agent, &str) -> anyhow::Result<()> + Sync,
) -> anyhow::Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    let agent = ureq::AgentBuilder::new().build();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = paths.get(i) else {
                            return Ok(());
                        };
                        call(&agent, path)?;
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("client thread")?;
        }
        Ok(())
    })
}

/// Each file of `src` named in `names`, PUT to `url(name)` by 4 clients.
fn put_each(
    names: &[String],
    src: &Path,
    url: impl Fn(&str) -> String + Sync,
) -> anyhow::Result<()> {
    four_clients(names, |agent, name| {
        let body = std::fs::read(src.join(name))?;
        agent.put(&url(name)).send_bytes(&body)?;
        Ok(())
    })
}

/// Each `url(name)` read to its end by 4 clients.
fn get_each(names: &[String], url: impl Fn(&str) -> String + Sync) -> anyhow::Result<()> {
    four_clients(names, |agent, name| {
        let mut body = Vec::new();
        std::io::Read::read_to_end(&mut agent.get(&url(name)).call()?.into_reader(), &mut body)?;
        Ok(())
    })
}

/// One process per path of `paths` (`command(path)` must succeed), 4 at a time.
fn four_processes(
    paths: &[String],
    command: impl Fn(&str) -> Command + Sync,
) -> anyhow::Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = paths.get(i) else {
                            return Ok(());
                        };
                        run_ok(command(path).stdout(Stdio::null()))?;
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().expect("client thread")?;
        }
        Ok(())
    })
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    if !args.binary.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p quire`",
            args.binary.display()
        );
    }
    let dir = tempfile::tempdir()?;
    let src = dir.path().join("src");
    generate(&src, args.pages)?;
    let names = files(&src);
    let bytes: u64 = names
        .iter()
        .map(|n| std::fs::metadata(src.join(n)).map(|m| m.len()).unwrap_or(0))
        .sum();
    let root = dir.path().join("root");
    run_ok(Command::new(&args.binary).arg("init").arg(&root))?;
    let mount = dir.path().join("mnt");
    std::fs::create_dir_all(&mount)?;
    let mut config = format!(
        "[protocols.webdav]\nenabled = true\nport = 0\n\
         [protocols.s3]\nenabled = true\nport = 0\naccess_key = \"{S3_KEY}\"\nsecret_key = \"{S3_SECRET}\"\n"
    );
    if !args.no_fuse {
        config.push_str(&format!(
            "[protocols.fuse]\nmountpoint = {:?}\n",
            mount.to_str().context("mount path")?
        ));
    }
    if !args.no_nfs {
        config.push_str("[protocols.nfs]\nenabled = true\nport = 0\n");
    }
    std::fs::write(root.join(".quire/config.toml"), config)?;
    let mut server = Command::new(&args.binary)
        .args(["serve", "--port", "0", "--no-mcp", "--root"])
        .arg(&root)
        .env("QUIRE_LOG", "warn,quire=info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting quire serve")?;
    let found = addresses(&mut server, !args.no_nfs)?;
    let rest = found.rest.context("REST address")?;
    let webdav = found.webdav.context("WebDAV address")?;
    let s3 = found.s3.context("S3 address")?;
    // rclone (1.60) paces its WebDAV calls at least 10 ms apart, all transfers together: its
    // row measures that pacer. The plain PUT/GET row measures the server.
    let webdav_remote = format!(":webdav,url='{webdav}',vendor=other:");
    let s3_remote = format!(
        ":s3,provider=Other,env_auth=false,access_key_id={S3_KEY},secret_access_key={S3_SECRET},endpoint='{s3}',region=us-east-1:default/"
    );
    let rclone = |from: &str, to: &str| {
        // rclone's S3 backend cannot take a custom CA bundle over plain HTTP.
        run_ok(Command::new("rclone").env_remove("AWS_CA_BUNDLE").args([
            "copy",
            from,
            to,
            "--config",
            "/dev/null",
            "--transfers",
            "4",
        ]))
    };
    println!(
        "protocols: {} pages ({} KB) copied in, then read back; 4 clients each",
        args.pages,
        bytes / 1024
    );
    let mut rows: Vec<(&str, Duration, Duration)> = Vec::new();
    // The floor: local folder to local folder.
    let floor_in = timed(|| {
        run_ok(
            Command::new("cp")
                .arg("-r")
                .arg(&src)
                .arg(dir.path().join("local")),
        )
    })?;
    let floor_out = timed(|| {
        run_ok(
            Command::new("cp")
                .arg("-r")
                .arg(dir.path().join("local"))
                .arg(dir.path().join("local-back")),
        )
    })?;
    rows.push(("cp -r, local (floor)", floor_in, floor_out));
    // REST.
    let rest_url = |name: &str| format!("{rest}/file?path=rest/{name}");
    let rest_in = timed(|| put_each(&names, &src, rest_url))?;
    let rest_out = timed(|| get_each(&names, rest_url))?;
    rows.push(("REST PUT/GET /file", rest_in, rest_out));
    // WebDAV and S3 with rclone.
    let back = dir.path().join("back");
    let dav_in = timed(|| rclone(src.to_str().unwrap(), &format!("{webdav_remote}webdav")))?;
    let dav_out = timed(|| {
        rclone(
            &format!("{webdav_remote}webdav"),
            back.join("webdav").to_str().unwrap(),
        )
    })?;
    rows.push(("WebDAV (rclone copy)", dav_in, dav_out));
    let folders: std::collections::BTreeSet<&str> = names
        .iter()
        .filter_map(|n| n.rsplit_once('/').map(|(f, _)| f))
        .collect();
    let dav_url = |name: &str| format!("{webdav}/dav-put/{name}");
    let dav_put = timed(|| {
        let agent = ureq::AgentBuilder::new().build();
        agent
            .request("MKCOL", &format!("{webdav}/dav-put"))
            .call()?;
        for folder in &folders {
            agent
                .request("MKCOL", &format!("{webdav}/dav-put/{folder}"))
                .call()?;
        }
        put_each(&names, &src, dav_url)
    })?;
    let dav_get = timed(|| get_each(&names, dav_url))?;
    rows.push(("WebDAV PUT/GET (MKCOL first)", dav_put, dav_get));
    let s3_in = timed(|| rclone(src.to_str().unwrap(), &format!("{s3_remote}s3")))?;
    let s3_out = timed(|| rclone(&format!("{s3_remote}s3"), back.join("s3").to_str().unwrap()))?;
    rows.push(("S3 (rclone copy)", s3_in, s3_out));
    // FUSE.
    if !args.no_fuse {
        let fuse_in = timed(|| {
            run_ok(
                Command::new("cp")
                    .arg("-r")
                    .arg(&src)
                    .arg(mount.join("fuse")),
            )
        })?;
        let fuse_out = timed(|| {
            run_ok(
                Command::new("cp")
                    .arg("-r")
                    .arg(mount.join("fuse"))
                    .arg(back.join("fuse")),
            )
        })?;
        rows.push(("FUSE (cp -r on the mount)", fuse_in, fuse_out));
    }
    // NFS: one `nfs-cp` per file (the folders made over WebDAV first).
    if let Some(nfs) = &found.nfs {
        let back_nfs = back.join("nfs");
        ureq::request("MKCOL", &format!("{webdav}/nfs")).call()?;
        for folder in &folders {
            ureq::request("MKCOL", &format!("{webdav}/nfs/{folder}")).call()?;
            std::fs::create_dir_all(back_nfs.join(folder))?;
            std::fs::create_dir_all(dir.path().join("each").join(folder))?;
        }
        let (host, port) = nfs.rsplit_once(':').context("NFS address")?;
        let url = |path: &str| {
            format!("nfs://{host}/nfs/{path}?nfsport={port}&mountport={port}&version=3")
        };
        let nfs_in = timed(|| {
            four_processes(&names, |name| {
                let mut cmd = Command::new("nfs-cp");
                cmd.arg(src.join(name)).arg(url(name));
                cmd
            })
        })?;
        let nfs_out = timed(|| {
            four_processes(&names, |name| {
                let mut cmd = Command::new("nfs-cp");
                cmd.arg(url(name)).arg(back_nfs.join(name));
                cmd
            })
        })?;
        let each_in = timed(|| {
            four_processes(&names, |name| {
                let mut cmd = Command::new("cp");
                cmd.arg(src.join(name))
                    .arg(dir.path().join("each").join(name));
                cmd
            })
        })?;
        rows.push(("cp per file, local (floor)", each_in, each_in));
        rows.push(("NFS (nfs-cp per file)", nfs_in, nfs_out));
    }
    // Everything arrived, byte for byte.
    let mut copies = vec![("webdav", back.join("webdav")), ("s3", back.join("s3"))];
    if found.nfs.is_some() {
        copies.push(("nfs", back.join("nfs")));
    }
    for (name, folder) in copies {
        let got = files(&folder);
        if got != names {
            bail!(
                "{name}: {} files read back, {} written",
                got.len(),
                names.len()
            );
        }
    }
    println!(
        "{:<28} {:>10} {:>10} {:>9} {:>9}",
        "", "in (s)", "out (s)", "in/REST", "out/REST"
    );
    for (name, copy_in, copy_out) in &rows {
        println!(
            "{name:<28} {:>10.2} {:>10.2} {:>9.2} {:>9.2}",
            copy_in.as_secs_f64(),
            copy_out.as_secs_f64(),
            copy_in.as_secs_f64() / rest_in.as_secs_f64(),
            copy_out.as_secs_f64() / rest_out.as_secs_f64()
        );
    }
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
    Ok(())
}
