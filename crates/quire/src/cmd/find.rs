//! `quire search`, `quire query` and `quire reindex`: finding things from the command line,
//! through the server holding the root or on the root itself (see `venue`).
//!
//! On a root no server holds, `search` reads every page (the grep tier: the index belongs to
//! the process writing the root) and `query` reads the pages' frontmatter now; `reindex`
//! takes the root's writer lock and rebuilds `.quire/state/index.db`.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args as ClapArgs;
use quire_api::{QueryResult, Reindexed, SearchResults};
use quire_service::SearchQuery;

use super::venue::{self, Place, Purpose, Venue};

#[derive(ClapArgs)]
pub struct Target {
    #[command(flatten)]
    place: Place,
    /// Print the answer as JSON (the API's wire type).
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
pub struct SearchArgs {
    /// Words (all must match), AND, OR, NOT or -word, "phrases", prefix*, parentheses,
    /// tag:name, path:folder/sub, file:name.
    query: String,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Skip this many results first.
    #[arg(long, default_value_t = 0)]
    offset: usize,
    /// Only pages under this folder.
    #[arg(long)]
    path: Option<String>,
    /// Only pages with this tag (or one nested below it).
    #[arg(long)]
    tag: Option<String>,
    /// Rank pages marked `status: verified` or `source-of-truth: true` first.
    #[arg(long)]
    verified: bool,
    /// `hybrid` (words and meaning; the default when vector search is on) or `bm25` (words
    /// only).
    #[arg(long, value_parser = ["hybrid", "bm25"])]
    mode: Option<String>,
    #[command(flatten)]
    target: Target,
}

#[derive(ClapArgs)]
pub struct QueryArgs {
    /// A DQL query, e.g. 'TABLE title, status FROM "projects" WHERE status = "open" SORT
    /// file.mtime DESC LIMIT 20'.
    query: String,
    #[command(flatten)]
    target: Target,
}

#[derive(ClapArgs)]
pub struct ReindexArgs {
    #[command(flatten)]
    target: Target,
}

pub fn search(args: SearchArgs) -> anyhow::Result<()> {
    let t = &args.target;
    let results: SearchResults = match t.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, Purpose::Read)?;
            let query = SearchQuery {
                q: args.query.clone(),
                limit: Some(args.limit),
                offset: Some(args.offset),
                path: args.path.clone(),
                tag: args.tag.clone(),
                mode: args.mode.clone(),
            };
            let find = service.default_space().find();
            if args.verified {
                find.search_verified(&query)?
            } else {
                find.search(&query)?
            }
        }
        Venue::Server(remote) => {
            let mut params = vec![
                ("q", args.query.clone()),
                ("limit", args.limit.to_string()),
                ("offset", args.offset.to_string()),
            ];
            params.extend(args.path.clone().map(|p| ("path", p)));
            params.extend(args.tag.clone().map(|t| ("tag", t)));
            params.extend(args.mode.clone().map(|m| ("mode", m)));
            let route = if args.verified {
                "/search/verified"
            } else {
                "/search"
            };
            remote.get_json(route, &params)?
        }
    };
    if t.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
        return Ok(());
    }
    for hit in &results.results {
        println!("{}  {}", hit.path, hit.title);
        println!("    {}", plain_snippet(&hit.snippet));
    }
    eprintln!(
        "{} of {} matching pages ({})",
        results.results.len(),
        results.total,
        results.engine
    );
    Ok(())
}

pub fn query(args: QueryArgs) -> anyhow::Result<()> {
    let t = &args.target;
    let result: QueryResult = match t.place.choose(Purpose::Read)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, Purpose::Read)?;
            let answer = service.default_space().find().query(&args.query)?;
            answer
        }
        Venue::Server(remote) => remote.get_json("/query", &[("q", args.query.clone())])?,
    };
    if t.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", table(&result));
    }
    Ok(())
}

pub fn reindex(args: ReindexArgs) -> anyhow::Result<()> {
    let t = &args.target;
    let purpose = Purpose::Write("reindex");
    let done: Reindexed = match t.place.choose(purpose)? {
        Venue::Root(root) => {
            let service = venue::open_root(&root, purpose)?;
            let space = service.default_space().clone();
            let worker = std::thread::spawn(move || space.find().reindex());
            let space = service.default_space();
            let terminal = std::io::stderr().is_terminal();
            while !worker.is_finished() {
                if let (true, Some((done, total))) = (terminal, space.find().progress()) {
                    eprint!("\rindexing: {done} of {total} pages read");
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            if terminal {
                eprintln!();
            }
            worker
                .join()
                .map_err(|_| anyhow::anyhow!("the reindex thread panicked"))??
        }
        Venue::Server(remote) => remote.post_json("/reindex", &[], &serde_json::json!({}))?,
    };
    if t.json {
        println!("{}", serde_json::to_string_pretty(&done)?);
    } else {
        println!("indexed {} pages in {} ms", done.pages, done.duration_ms);
    }
    Ok(())
}

/// A snippet for a terminal: matches in `[…]`, HTML entities decoded.
fn plain_snippet(html: &str) -> String {
    html.replace("<mark>", "[")
        .replace("</mark>", "]")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
        .replace('\n', " ")
}

/// A query result as an aligned text table.
fn table(result: &QueryResult) -> String {
    let cell = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    let rows: Vec<Vec<String>> = result
        .rows
        .iter()
        .map(|r| r.iter().map(cell).collect())
        .collect();
    let mut widths: Vec<usize> = result.headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, c) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(c.chars().count().min(60));
            }
        }
    }
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w = widths.get(i).copied().unwrap_or(0);
                let c: String = c.chars().take(60).collect();
                format!("{c:<w$}")
            })
            .collect();
        format!("{}\n", parts.join("  ").trim_end())
    };
    let mut out = line(&result.headers);
    out.push_str(&line(
        &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
    ));
    for row in &rows {
        out.push_str(&line(row));
    }
    out.push_str(&format!("({} rows)\n", rows.len()));
    out
}
