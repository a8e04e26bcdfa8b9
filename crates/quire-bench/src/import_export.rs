//! Issue 27's measurements: `POST /import` of N csv rows and of N PostgreSQL rows into an
//! empty root, then `GET /export` of the imported root as JSON Lines, CSV and Parquet (content
//! included), each body streamed into a sink. Everything runs in this process: the service,
//! axum on loopback and the client.
//!
//! Peak memory is the process's `VmHWM`, reset at the start of each phase (`5` written to
//! `/proc/self/clear_refs` sets it back to the current RSS), so a phase's peak holds what the
//! phases before it freed but kept mapped; run each phase on its own (`--phase`) for clean
//! figures. The PostgreSQL server is another process and is not counted.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args as ClapArgs, ValueEnum};
use quire_service::{AssetRules, Service, SpaceSettings};
use quire_store::HistoryOptions;
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Phase {
    /// csv import, then (with `--postgres`) postgres import, then the exports of the csv root.
    All,
    /// csv import into an empty root (`--root` keeps it for `export`).
    Csv,
    /// PostgreSQL import into an empty root (starts a throwaway server).
    Postgres,
    /// The three exports of `--root` (a root a `csv` phase imported).
    Export,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Rows in the source (the import limit is 100,000).
    #[arg(long, default_value_t = 100_000)]
    pub rows: usize,
    #[arg(long, value_enum, default_value_t = Phase::All)]
    pub phase: Phase,
    /// With `--phase all`: import from PostgreSQL too.
    #[arg(long)]
    pub postgres: bool,
    /// The root of the csv import (created, must be empty) or of the export (kept); default a
    /// temporary folder.
    #[arg(long)]
    pub root: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let temp = tempfile::tempdir()?;
    let root = args.root.clone().unwrap_or_else(|| temp.path().join("kb"));
    println!(
        "import-export: {} rows, phase {:?}, load average {}",
        args.rows,
        args.phase,
        loadavg()
    );
    match args.phase {
        Phase::Csv => csv_import(args.rows, &root),
        Phase::Postgres => postgres_import(args.rows, &temp.path().join("pg-kb")),
        Phase::Export => export(&root),
        Phase::All => {
            csv_import(args.rows, &root)?;
            if args.postgres {
                postgres_import(args.rows, &temp.path().join("pg-kb"))?;
            }
            export(&root)
        }
    }
}

/// A served root: the service and its base URL (`…/api/quire`).
struct Served {
    service: Arc<Service>,
    base: String,
    runtime: tokio::runtime::Runtime,
}

impl Served {
    fn open(root: &Path) -> anyhow::Result<Served> {
        std::fs::create_dir_all(root)?;
        let service = Arc::new(Service::open(vec![SpaceSettings {
            name: "default".into(),
            root: root.to_path_buf(),
            history: HistoryOptions::default(),
            assets: AssetRules::default(),
            refactor: Default::default(),
            claims: Default::default(),
            find: Default::default(),
            script: None,
            editorial: Default::default(),
            public_url: None,
            backup: None,
            janitor: Default::default(),
        }])?);
        // The index's first pass is part of opening, not of what is measured.
        if let Some(space) = service.space("default") {
            space.find().flush();
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        let app = quire_http::router(service.clone(), quire_http::HttpSettings::open("default"));
        runtime.spawn(async move { axum::serve(listener, app).await });
        Ok(Served {
            service,
            base: format!("http://{addr}/api/quire"),
            runtime,
        })
    }

    fn close(self) {
        self.service.flush();
        self.runtime.shutdown_timeout(Duration::from_secs(1));
    }

    /// `POST /import`; reports the seconds it took and the peak RSS when it answered, then
    /// the seconds until the search index has the pages too.
    fn import(&self, body: Value, rows: usize) -> anyhow::Result<()> {
        let start = Instant::now();
        let result: Value = ureq::AgentBuilder::new()
            .build()
            .post(&format!("{}/import", self.base))
            .set("X-Actor", "bench")
            .send_json(body)
            .context("POST /import")?
            .into_json()?;
        let took = start.elapsed();
        let peak_at_answer = status_kb("VmHWM");
        if let Some(space) = self.service.space("default") {
            space.find().flush();
        }
        let indexed = start.elapsed();
        let imported = result["imported"].as_u64().unwrap_or(0) as usize;
        let errors = result["errors"].as_array().map_or(0, Vec::len);
        if imported != rows || errors != 0 {
            bail!("imported {imported} of {rows} rows, {errors} errors: {result}");
        }
        println!(
            "  {} rows → {} pages in one commit: {:.2} s = {:.0} pages/s (search index caught \
             up after {:.2} s); peak RSS when answered {:.0} MB",
            rows,
            imported,
            took.as_secs_f64(),
            rows as f64 / took.as_secs_f64(),
            indexed.as_secs_f64(),
            peak_at_answer as f64 / 1024.0
        );
        Ok(())
    }
}

/// Path, title and body from their columns; frontmatter `id`, `tags`, `stars` (without it,
/// every other column, the body included, would be frontmatter too).
fn mapping() -> Value {
    json!({"path": "{{folder}}/{{slug}}", "title": "{{title}}", "content": "{{body}}",
        "frontmatter": {"id": "{{id}}", "tags": "{{tags}}", "stars": "{{stars}}"}})
}

fn csv_import(rows: usize, root: &Path) -> anyhow::Result<()> {
    if std::fs::read_dir(root).is_ok_and(|mut d| d.next().is_some()) {
        bail!("{} is not empty", root.display());
    }
    println!("csv import into an empty root ({})", root.display());
    let served = Served::open(root)?;
    // Where an upload would be (`POST /import/upload`), so the source is not committed.
    let file = ".quire/state/uploads/0123456789abcdef01234567/rows.csv";
    let bytes = write_csv(rows, &root.join(file))?;
    println!("  source: {rows} rows, {:.1} MB of csv", bytes as f64 / 1e6);
    let base = memory_mark();
    served.import(
        json!({"source": "csv", "connection": {"file": file}, "id_column": "id",
            "mapping": mapping()}),
        rows,
    )?;
    memory_report("csv import", base);
    served.close();
    Ok(())
}

fn postgres_import(rows: usize, root: &Path) -> anyhow::Result<()> {
    println!("postgres import into an empty root");
    let Some(db) = quire_testkit::servers::DbServer::start(quire_testkit::servers::Db::Postgres)
    else {
        bail!("PostgreSQL is not installed");
    };
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("rows.csv");
    write_csv(rows, &csv)?;
    let fill = Instant::now();
    let mut script = String::from(
        "CREATE TABLE notes (id int PRIMARY KEY, folder text, slug text, title text, \
         tags text, stars int, body text);\nCOPY notes FROM STDIN WITH (FORMAT csv, HEADER true);\n",
    );
    std::fs::File::open(&csv)?.read_to_string(&mut script)?;
    script.push_str("\\.\n");
    db.run(&script);
    println!(
        "  source: {rows} rows in a table (COPY in {:.1} s)",
        fill.elapsed().as_secs_f64()
    );
    let served = Served::open(root)?;
    let base = memory_mark();
    served.import(
        json!({"source": "postgres", "connection": {"dsn": db.dsn()}, "query": "notes",
            "id_column": "id", "mapping": mapping()}),
        rows,
    )?;
    memory_report(
        "postgres import (this process; the server not counted)",
        base,
    );
    served.close();
    Ok(())
}

fn export(root: &Path) -> anyhow::Result<()> {
    println!("export of {}", root.display());
    let open = Instant::now();
    let served = Served::open(root)?;
    println!(
        "  opened (index built) in {:.1} s",
        open.elapsed().as_secs_f64()
    );
    let agent = ureq::AgentBuilder::new().build();
    for format in ["jsonl", "csv", "parquet"] {
        let base = memory_mark();
        let start = Instant::now();
        let response = agent
            .get(&format!("{}/export", served.base))
            .query("format", format)
            .query("include-content", "true")
            .call()
            .with_context(|| format!("GET /export?format={format}"))?;
        let first = start.elapsed();
        let bytes = std::io::copy(&mut response.into_reader(), &mut std::io::sink())?;
        let took = start.elapsed();
        println!(
            "  {format}: {:.2} s, {:.1} MB ({:.0} MB/s; first byte after {:.0} ms)",
            took.as_secs_f64(),
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / took.as_secs_f64(),
            first.as_secs_f64() * 1e3
        );
        memory_report(&format!("export {format}"), base);
    }
    served.close();
    Ok(())
}

/// Writes `rows` csv rows (header `id,folder,slug,title,tags,stars,body`): 100 folders, a
/// body of two paragraphs (~500 bytes) with a wiki link to another row's page and a tag. Answers
/// the bytes written.
fn write_csv(rows: usize, path: &Path) -> anyhow::Result<u64> {
    const WORDS: [&str; 24] = [
        "river", "ledger", "window", "harbor", "signal", "meadow", "copper", "lantern", "orbit",
        "quarry", "tundra", "violet", "anchor", "bramble", "cinder", "delta", "ember", "fable",
        "glacier", "hollow", "island", "jasper", "kernel", "lagoon",
    ];
    std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "id,folder,slug,title,tags,stars,body")?;
    let mut state = 42u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    for id in 1..=rows {
        let title = |id: usize| {
            format!(
                "{} {} {id}",
                WORDS[id % WORDS.len()],
                WORDS[(id / WORDS.len()) % WORDS.len()]
            )
        };
        let folder = |id: usize| format!("f{:02}", id % 100);
        let slug = |id: usize| title(id).replace(' ', "-");
        let mut body = String::with_capacity(600);
        for paragraph in 0..2 {
            if paragraph > 0 {
                body.push_str("\n\n");
            }
            for w in 0..36 {
                if w > 0 {
                    body.push(' ');
                }
                body.push_str(WORDS[next() % WORDS.len()]);
            }
            body.push('.');
        }
        let other = next() % rows + 1;
        body.push_str(&format!(
            " See [[{}/{}]], \"quoted\" #{}.",
            folder(other),
            slug(other),
            WORDS[other % WORDS.len()]
        ));
        writeln!(
            out,
            "{id},{},{},{},\"{}, {}\",{},\"{}\"",
            folder(id),
            slug(id),
            title(id),
            WORDS[(id / 3) % WORDS.len()],
            WORDS[(id / 7) % WORDS.len()],
            next() % 5 + 1,
            body.replace('"', "\"\"")
        )?;
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

/// Resets the process's peak RSS to its current RSS; answers that RSS (kB).
fn memory_mark() -> u64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    status_kb("VmRSS")
}

fn memory_report(what: &str, base: u64) {
    let peak = status_kb("VmHWM");
    println!(
        "  {what}: peak RSS {:.0} MB (RSS at the start {:.0} MB, so +{:.0} MB)",
        peak as f64 / 1024.0,
        base as f64 / 1024.0,
        peak.saturating_sub(base) as f64 / 1024.0
    );
}

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_string()
}
