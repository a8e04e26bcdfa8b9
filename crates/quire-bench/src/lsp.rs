//! The language server: `workspace/willRenameFiles` of a hub page with many backlinks, and
//! the diagnostics of a long page as the user types. The server runs as `quire lsp` does
//! (over a read-only space) on an in-memory connection, so the figures are the server's
//! work from request to answer, without a pipe.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args as ClapArgs;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use quire_service::{Access, Service, SpaceSettings};
use quire_store::{HistoryOptions, Strategy};
use serde_json::{json, Value};

#[derive(ClapArgs)]
pub struct Args {
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Backlinks of the hub page.
    #[arg(long, default_value_t = 500)]
    pub hub: usize,
    /// Lines of the page whose diagnostics are measured.
    #[arg(long, default_value_t = 1_000)]
    pub lines: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            pages: 10_000,
            hub: 500,
            lines: 1_000,
            seed: 42,
        }
    }
}

fn settings(root: &Path) -> SpaceSettings {
    SpaceSettings {
        name: "default".into(),
        root: root.to_path_buf(),
        history: HistoryOptions {
            strategy: Strategy::Git,
            async_commit: false,
            ..HistoryOptions::default()
        },
        assets: Default::default(),
        refactor: Default::default(),
        claims: Default::default(),
        find: Default::default(),
        script: None,
        editorial: Default::default(),
        public_url: None,
        backup: None,
        janitor: Default::default(),
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let generated = quire_testkit::generate(
        &quire_testkit::VaultSpec::new(args.seed, args.pages).with_hub(args.hub),
    );
    generated.write_to(dir.path())?;
    let hub = generated.hub().context("the vault has a hub")?.to_string();
    let pages: Vec<String> = generated
        .page_paths()
        .into_iter()
        .map(str::to_owned)
        .collect();
    // The first (writable) open makes the repository; the language server reads only.
    drop(Service::open(vec![settings(dir.path())])?);
    let service = Service::open_as(vec![settings(dir.path())], &Access::ReadOnly)?;
    let space = service.default_space().clone();
    let root = dir.path().canonicalize()?;
    let root_uri = format!("file://{}", root.display());

    let (server, client) = Connection::memory();
    let serving = std::thread::spawn(move || {
        let open =
            move |_: &Path| -> Result<Arc<quire_service::Space>, String> { Ok(space.clone()) };
        quire_lsp::serve(
            &server,
            quire_lsp::Launch {
                root: None,
                open: &open,
            },
        )
    });
    let mut c = Client {
        conn: client,
        id: 0,
    };
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "capabilities": {}}),
    )?;
    c.notify("initialized", json!({}));
    println!(
        "lsp: {} pages, hub {hub} ({} backlinks), a {}-line page",
        args.pages, args.hub, args.lines
    );

    // willRenameFiles of the hub.
    let uri = |path: &str| {
        format!(
            "{root_uri}/{}",
            quire_api::workspace_edit::encode_uri_path(path)
        )
    };
    let params = json!({"files": [{"oldUri": uri(&hub), "newUri": uri("hubs/Central hub.md")}]});
    let mut times = Vec::new();
    let mut edits = 0;
    for _ in 0..7 {
        let start = Instant::now();
        let answer = c.request("workspace/willRenameFiles", params.clone())?;
        times.push(start.elapsed());
        edits = answer["documentChanges"].as_array().map_or(0, |d| {
            d.iter()
                .map(|e| e["edits"].as_array().map_or(0, Vec::len))
                .sum()
        });
    }
    if edits < args.hub {
        bail!("willRenameFiles rewrote {edits} links, fewer than the hub's backlinks");
    }
    report(
        "willRenameFiles of the hub",
        &mut times,
        &format!("{edits} link edits"),
    );

    // Diagnostics of a long page: opened, then changed (each change republishes).
    let text = long_page(&pages, args.lines);
    let page_uri = uri("bench/long page.md");
    let mut times = Vec::new();
    let mut count = 0;
    for version in 1..=8i32 {
        let start = Instant::now();
        if version == 1 {
            c.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": page_uri, "languageId": "markdown", "version": 1, "text": text}}),
            );
        } else {
            let changed = format!("{text}\nline {version}: [[{}]]\n", pages[version as usize]);
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": page_uri, "version": version}, "contentChanges": [{"text": changed}]}),
            );
        }
        let published = c.diagnostics(version)?;
        times.push(start.elapsed());
        count = published;
    }
    report(
        &format!(
            "diagnostics of the {}-line page (open, then 7 edits)",
            args.lines
        ),
        &mut times,
        &format!("{count} diagnostics"),
    );
    c.request("shutdown", Value::Null)?;
    c.notify("exit", Value::Null);
    drop(c);
    serving
        .join()
        .map_err(|_| anyhow::anyhow!("the server panicked"))?
        .map_err(|e| anyhow::anyhow!(e))?;
    Ok(())
}

fn report(name: &str, times: &mut [Duration], what: &str) {
    times.sort();
    println!(
        "  {name}: best {:.1} ms, median {:.1} ms over {} runs; {what}",
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3,
        times.len()
    );
}

/// A page of `lines` lines: a heading every 20 lines, a wiki link on every line (one in ten
/// broken, one in ten with a fragment), a markdown link on every fifth.
fn long_page(pages: &[String], lines: usize) -> String {
    let mut out = String::from("# Long page\n");
    for i in 0..lines {
        let page = &pages[(i * 7919) % pages.len()];
        let stem = page.rsplit('/').next().unwrap().trim_end_matches(".md");
        if i % 20 == 0 {
            out.push_str(&format!("## Part {i}\n"));
            continue;
        }
        match i % 10 {
            3 => out.push_str(&format!("Line {i} names [[missing {i}]] and more words.")),
            7 => out.push_str(&format!("Line {i} names [[{stem}#Some heading]] here.")),
            _ => out.push_str(&format!("Line {i} names [[{stem}]] and some words.")),
        }
        if i % 5 == 0 {
            out.push_str(&format!(" See [it](/{}).", page.replace(' ', "%20")));
        }
        out.push('\n');
    }
    out
}

struct Client {
    conn: Connection,
    id: i32,
}

impl Client {
    fn notify(&self, method: &str, params: Value) {
        let _ = self
            .conn
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )));
    }

    fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.id += 1;
        let id = RequestId::from(self.id);
        self.conn.sender.send(Message::Request(Request::new(
            id.clone(),
            method.into(),
            params,
        )))?;
        loop {
            match self.conn.receiver.recv_timeout(Duration::from_secs(60))? {
                Message::Response(r) if r.id == id => {
                    return match r.response_result {
                        Ok(value) => Ok(value),
                        Err(e) => bail!("{method}: {}", e.message),
                    };
                }
                _ => {}
            }
        }
    }

    /// Waits for the diagnostics of the given version; returns how many there are.
    fn diagnostics(&mut self, version: i32) -> anyhow::Result<usize> {
        loop {
            if let Message::Notification(n) =
                self.conn.receiver.recv_timeout(Duration::from_secs(60))?
            {
                if n.method == "textDocument/publishDiagnostics"
                    && n.params["version"] == json!(version)
                {
                    return Ok(n.params["diagnostics"].as_array().map_or(0, Vec::len));
                }
            }
        }
    }
}
