//! Resource exhaustion against the real `quire serve` (issue 25, part 5): bodies over the
//! limit (declared, streamed without a length), JSON and YAML nested 100,000 deep, globs tried
//! on millions of paths, DQL that multiplies rows or texts, a 2 GB multipart upload, archives
//! (nothing unpacks them), thousands of idle event streams, and headers sent a byte a second.
//! Each attack gets a clear 4xx `{"error": …}` or a bounded cost, writes nothing to the root,
//! and a reader asking for a page all along keeps being answered: its p99 is printed and held
//! under a generous bound (CI shares two cores). docs/RELIABILITY.md, "Resource exhaustion",
//! lists what was measured.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{quire, write_config, Server};

/// The server's body limit (`quire_http::MAX_BODY_BYTES`).
const MAX_BODY: usize = 64 * 1024 * 1024;
/// What the reader's p99 must stay under during an attack.
const P99_BOUND: Duration = Duration::from_secs(2);
/// The page the reader asks for.
const READ_PATH: &str = "notes/alpha.md";

/// One attack at a time: the reader's latency is the attack's, not a neighbour's.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A root with a few pages and a canvas, made a knowledge root by `quire init`; `config`
/// replaces its `.quire/config.toml` (empty: the file `init` wrote, all defaults).
fn seeded(dir: &Path, config: &str, extra_pages: usize) -> PathBuf {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join(READ_PATH),
        "---\nstatus: open\nl: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]\n---\n# Alpha\n\nSee [[beta]].\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/beta.md"), "# Beta\n\nBack to [[alpha]].\n").unwrap();
    std::fs::write(
        root.join("board.canvas.json"),
        r#"{"nodes":[{"id":"a","type":"text","text":"x","x":0,"y":0,"width":10,"height":10}],"edges":[]}"#,
    )
    .unwrap();
    if extra_pages > 0 {
        std::fs::create_dir_all(root.join("many")).unwrap();
        for i in 0..extra_pages {
            std::fs::write(root.join(format!("many/page-{i}.md")), "# Page\n").unwrap();
        }
    }
    let out = quire().arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    if !config.is_empty() {
        write_config(&root, config);
    }
    root
}

/// HEAD's commit and every file under the root but `.git/` and `.quire/state/`: what an attack
/// that writes nothing must leave as it was.
fn state_of(root: &Path) -> (String, Vec<PathBuf>) {
    let head = git2::Repository::open(root)
        .ok()
        .and_then(|r| r.head().ok()?.target())
        .map(|id| id.to_string())
        .unwrap_or_default();
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if rel.starts_with(".git") || rel.starts_with(".quire/state") {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                files.push(rel);
            }
        }
    }
    files.sort();
    (head, files)
}

/// Latencies of the reader's answers, and what went wrong.
struct ReadStats {
    latencies: Vec<Duration>,
    failures: Vec<String>,
}

impl ReadStats {
    fn p99(&self) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)]
    }
}

/// `GET /file?path=notes/alpha.md` in a loop on a connection of its own until stopped.
struct Reader {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<ReadStats>,
}

impl Reader {
    fn start(server: &Server) -> Reader {
        let url = format!("{}/file?path={READ_PATH}", server.base);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout(Duration::from_secs(30))
                .build();
            let mut stats = ReadStats {
                latencies: Vec::new(),
                failures: Vec::new(),
            };
            // At least one read, however short the attack.
            while stats.latencies.is_empty() || !stopped.load(Ordering::Relaxed) {
                let started = Instant::now();
                match agent.get(&url).call() {
                    Ok(r) if r.status() == 200 => {
                        let _ = r.into_string();
                        stats.latencies.push(started.elapsed());
                    }
                    Ok(r) => stats.failures.push(format!("status {}", r.status())),
                    Err(e) => stats.failures.push(e.to_string()),
                }
                if stats.failures.len() > 100 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            stats
        });
        Reader { stop, thread }
    }

    /// Stops the loop; asserts every read was answered, with a p99 under the bound, and
    /// prints it.
    fn finish(self, attack: &str) {
        self.stop.store(true, Ordering::Relaxed);
        let stats = self.thread.join().unwrap();
        assert!(
            stats.failures.is_empty(),
            "{attack}: reads failed: {:?}",
            &stats.failures[..stats.failures.len().min(5)]
        );
        assert!(
            !stats.latencies.is_empty(),
            "{attack}: no read answered during the attack"
        );
        let p99 = stats.p99();
        println!(
            "{attack}: {} reads during the attack, p99 {:.1} ms, max {:.1} ms",
            stats.latencies.len(),
            p99.as_secs_f64() * 1000.0,
            stats.latencies.iter().max().unwrap().as_secs_f64() * 1000.0
        );
        assert!(p99 < P99_BOUND, "{attack}: read p99 {p99:?}");
    }
}

/// `127.0.0.1:<port>` of a server.
fn addr(server: &Server) -> String {
    server.host.trim_start_matches("http://").to_string()
}

/// A raw HTTP/1.1 answer: status and body as read until the
/// server closed the connection or the body's length was reached.
struct Answer {
    status: u16,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}), status {}: {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// Asserts a 4xx `{"error": …}` of this status and returns its message.
    fn error(&self, status: u16) -> String {
        assert_eq!(
            self.status,
            status,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        let body = self.json();
        body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message: {body}"))
            .to_string()
    }
}

/// Reads one answer from `stream` (a `Content-Length` body, or up to the close).
fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).expect("the server answers");
        assert!(n > 0, "the server closed the connection without an answer");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[head_end..].to_vec();
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok());
    if let Some(length) = length {
        while body.len() < length {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => body.extend_from_slice(&chunk[..n]),
            }
        }
        body.truncate(length);
    }
    Answer { status, body }
}

fn connect(server: &Server) -> TcpStream {
    let stream = TcpStream::connect(addr(server)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    stream
}

/// Sends `head` (request line and headers, without the blank line) and, from a thread of its
/// own, the body `chunks()` yields until it returns `None` or the server stops reading; reads
/// the answer meanwhile. Returns it with the number of body bytes the socket accepted.
fn send_streaming(
    server: &Server,
    head: &str,
    mut chunks: impl FnMut() -> Option<Vec<u8>> + Send + 'static,
) -> (Answer, u64) {
    let mut stream = connect(server);
    stream
        .write_all(format!("{head}\r\nHost: {}\r\n\r\n", addr(server)).as_bytes())
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let sent = std::thread::spawn(move || {
        let mut sent = 0u64;
        while let Some(chunk) = chunks() {
            if writer.write_all(&chunk).is_err() {
                break;
            }
            sent += chunk.len() as u64;
        }
        let _ = writer.flush();
        sent
    });
    let answer = read_answer(&mut stream);
    // The server answered: it reads no more, so the writer stops on a closed socket.
    let _ = stream.shutdown(std::net::Shutdown::Both);
    (answer, sent.join().unwrap())
}

/// A chunked body of `total` bytes of `fill`, in chunks of 1 MiB (`None` after the end and
/// its terminating chunk).
fn chunked(total: u64, fill: u8) -> impl FnMut() -> Option<Vec<u8>> + Send + 'static {
    let mut left = total;
    let mut done = false;
    move || {
        if done {
            return None;
        }
        if left == 0 {
            done = true;
            return Some(b"0\r\n\r\n".to_vec());
        }
        let n = left.min(1 << 20);
        left -= n;
        let mut chunk = format!("{n:x}\r\n").into_bytes();
        chunk.extend(std::iter::repeat_n(fill, n as usize));
        chunk.extend_from_slice(b"\r\n");
        Some(chunk)
    }
}

fn request(server: &Server, method: &str, path: &str) -> ureq::Request {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(60))
        .build()
        .request(method, &format!("{}{path}", server.base))
}

/// Status and body of an answer, whatever its status.
fn answer_of(result: Result<ureq::Response, ureq::Error>) -> (u16, String) {
    match result {
        Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
        Err(e) => panic!("transport error: {e}"),
    }
}

/// Asserts a 4xx `{"error": …}` answer and returns the message.
fn client_error(what: &str, (status, body): (u16, String)) -> String {
    assert!((400..500).contains(&status), "{what}: {status} {body}");
    let body: Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {body}"));
    body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no error: {body}"))
        .to_string()
}

#[test]
fn bodies_over_the_limit_are_refused_with_413_and_write_nothing() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "", 0);
    let server = Server::start(&root, &[]);
    let before = state_of(&root);
    let reader = Reader::start(&server);

    // A declared length over the limit: refused before a byte of the body is sent.
    let started = Instant::now();
    let mut stream = connect(&server);
    write!(
        stream,
        "PUT /api/quire/file?path=big.md HTTP/1.1\r\nHost: {}\r\nContent-Type: text/markdown\r\nContent-Length: {}\r\n\r\n",
        addr(&server),
        MAX_BODY + 1
    )
    .unwrap();
    let answer = read_answer(&mut stream);
    let message = answer.error(413);
    assert!(message.contains("over the limit"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // No length at all (chunked): cut at the limit as it arrives, the rest never read.
    let (answer, sent) = send_streaming(
        &server,
        "PUT /api/quire/file?path=big.md HTTP/1.1\r\nContent-Type: text/markdown\r\nTransfer-Encoding: chunked",
        chunked(MAX_BODY as u64 + (16 << 20), b'a'),
    );
    answer.error(413);
    assert!(sent <= MAX_BODY as u64 + (16 << 20));

    // A JSON body over the limit on a JSON route.
    let mut stream = connect(&server);
    write!(
        stream,
        "POST /api/quire/refactor/plan HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        addr(&server),
        1u64 << 40
    )
    .unwrap();
    read_answer(&mut stream).error(413);

    reader.finish("body over the limit");
    assert_eq!(state_of(&root), before, "a refused body wrote something");
}

/// `depth` opening brackets of `open`, `inner`, then as many of `close`.
fn nested(open: &str, inner: &str, close: &str, depth: usize) -> String {
    let mut text = String::with_capacity((open.len() + close.len()) * depth + inner.len());
    text.push_str(&open.repeat(depth));
    text.push_str(inner);
    text.push_str(&close.repeat(depth));
    text
}

#[test]
fn json_and_yaml_nested_100000_deep_are_refused_without_overflowing_the_stack() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "", 0);
    let server = Server::start(&root, &[]);
    let before = state_of(&root);
    let reader = Reader::start(&server);
    let deep_list = nested("[", "1", "]", 100_000);
    let deep_map = nested("{\"a\":", "1", "}", 100_000);
    let deep_yaml_flow = nested("{a: ", "1", "}", 100_000);
    let deep_yaml_block = format!("moves:\n  - from: {}x\n    to: b/\n", "- ".repeat(100_000));

    let json_routes: [(&str, &str); 4] = [
        ("PUT", "/canvas?path=board.canvas.json"),
        ("PATCH", "/canvas?path=board.canvas.json"),
        ("POST", "/refactor/plan"),
        ("POST", "/rename"),
    ];
    for (method, path) in json_routes {
        for body in [&deep_list, &deep_map] {
            let what = format!("{method} {path}");
            let got = answer_of(
                request(&server, method, path)
                    .set("Content-Type", "application/json")
                    .send_string(body),
            );
            client_error(&what, got);
        }
    }
    for body in [&deep_list, &deep_yaml_flow, &deep_yaml_block] {
        let got = answer_of(
            request(&server, "POST", "/refactor/plan")
                .set("Content-Type", "application/yaml")
                .send_string(body),
        );
        let message = client_error("a YAML manifest", got);
        assert!(!message.is_empty());
    }
    // The MCP endpoint reads JSON-RPC: a refusal, never a crash.
    for body in [&deep_list, &deep_map] {
        let (status, text) = answer_of(
            ureq::post(&format!("{}/mcp", server.host))
                .set("Content-Type", "application/json")
                .set("Accept", "application/json, text/event-stream")
                .send_string(body),
        );
        assert!((400..500).contains(&status), "MCP: {status} {text}");
    }
    assert_eq!(state_of(&root), before, "a refused body wrote something");

    // A page is text: frontmatter nested 100,000 deep is stored, and reading it (the index,
    // a DQL query over its fields) neither crashes nor hangs the server.
    let page = format!("---\na: {deep_list}\nb: {deep_yaml_flow}\n---\n# Deep\n");
    let (status, body) = answer_of(
        request(&server, "PUT", "/file?path=deep.md")
            .set("Content-Type", "text/markdown")
            .send_string(&page),
    );
    assert!((200..300).contains(&status), "{status} {body}");
    let (status, body) = answer_of(request(&server, "GET", "/query?q=TABLE%20a%2C%20b").call());
    assert!(status < 500, "{status} {body}");
    reader.finish("JSON and YAML nested 100,000 deep");
}

/// A manifest of `count` glob moves, each selecting every page.
fn glob_manifest(count: usize) -> String {
    let mut manifest = String::from("moves:\n");
    for i in 0..count {
        manifest.push_str(&format!(
            "  - from: \"**/*{}\"\n    to: out/\n",
            "?".repeat(i % 3)
        ));
    }
    manifest
}

/// The errors of a plan that cannot be applied: the plan route answers 200 with the plan,
/// whose `errors` say why, and applies nothing.
fn plan_errors((status, body): (u16, String)) -> Vec<String> {
    assert_eq!(status, 200, "{}", &body[..body.len().min(500)]);
    let plan: Value = serde_json::from_str(&body).unwrap();
    plan["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn globs_tried_on_millions_of_paths_are_refused_at_once_and_write_nothing() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "", 2_000);
    let server = Server::start(&root, &[]);
    let before = state_of(&root);
    let reader = Reader::start(&server);

    // 6,000 globs over 2,003 files: 12 million tests (the limit is 10 million), in a manifest
    // of 190 KB, under the manifest limit.
    let started = Instant::now();
    let got = answer_of(
        request(&server, "POST", "/refactor/plan")
            .set("Content-Type", "application/yaml")
            .send_string(&glob_manifest(6_000)),
    );
    let took = started.elapsed();
    let errors = plan_errors(got);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("use fewer patterns"), "{errors:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    println!("6,000 globs over 2,003 files: refused in {took:?}");

    // Under the limit, the same glob repeated: one error per entry, not one per file.
    let started = Instant::now();
    let got = answer_of(
        request(&server, "POST", "/refactor/plan")
            .set("Content-Type", "application/yaml")
            .send_string(&glob_manifest(300)),
    );
    let took = started.elapsed();
    let errors = plan_errors(got);
    assert_eq!(errors.len(), 299, "{:?}", &errors[..errors.len().min(3)]);
    assert!(
        errors[0].contains("more files selected before"),
        "{}",
        errors[0]
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
    println!("300 overlapping globs over 2,003 files: planned in {took:?}");

    reader.finish("globs over millions of paths");
    assert_eq!(state_of(&root), before, "a refused plan wrote something");
}

fn query(server: &Server, q: &str) -> (u16, String) {
    let mut encoded = String::new();
    for byte in q.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    answer_of(request(server, "GET", &format!("/query?q={encoded}")).call())
}

#[test]
fn dql_that_multiplies_rows_or_texts_is_cut_off_with_a_clear_error() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "", 300);
    let server = Server::start(&root, &[]);
    // Queries wait for the first index build (503 until then).
    let deadline = Instant::now() + Duration::from_secs(60);
    while query(&server, "LIST LIMIT 1").0 == 503 {
        assert!(Instant::now() < deadline, "the index was not built in 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let reader = Reader::start(&server);

    // A cartesian product: 20 × 20 × 20 × 20 rows from one page, past the row limit.
    let started = Instant::now();
    let got = query(
        &server,
        "TABLE a, b, c, d FLATTEN l AS a FLATTEN l AS b FLATTEN l AS c FLATTEN l AS d",
    );
    let message = client_error("FLATTEN × 4", got);
    assert!(message.contains("rows"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(15));

    // Every page against every page's list: bounded the same way.
    let got = query(
        &server,
        "TABLE a, b FROM \"many\" FLATTEN file.name AS a FLATTEN list(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,210,211,212,213,214,215,216,217,218,219,220,221,222,223,224,225,226,227,228,229,230,231,232,233,234,235,236,237,238,239,240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255,256,257,258,259,260,261,262,263,264,265,266,267,268,269,270,271,272,273,274,275,276,277,278,279,280,281,282,283,284,285,286,287,288,289,290,291,292,293,294,295,296,297,298,299,300,301,302,303,304,305,306,307,308,309,310,311,312,313,314,315,316,317,318,319,320,321,322,323,324,325,326,327,328,329,330,331,332,333,334,335,336,337,338,339,340,341,342,343,344,345,346,347,348,349,350,351,352,353,354,355,356,357,358,359,360,361,362,363,364,365,366,367,368,369,370,371,372,373,374,375,376,377,378,379,380,381,382,383,384,385,386,387,388,389,390,391,392,393,394,395,396,397,398,399,400) AS b",
    );
    client_error("pages × a list of 400", got);

    // A text squared at every level: 10, 100, 10^4, 10^8, 10^16 bytes.
    let a = r#"replace("aaaaaaaaaa", "a", "aaaaaaaaaa")"#;
    let b = format!(r#"replace({a}, "a", {a})"#);
    let c = format!(r#"replace({b}, "a", {b})"#);
    let d = format!(r#"replace({c}, "a", {c})"#);
    let started = Instant::now();
    let message = client_error("replace squared", query(&server, &format!("TABLE {d}")));
    assert!(message.contains("over the limit"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(10));

    // A huge LIMIT caps nothing it should not: the rows there are, no more.
    let (status, body) = query(&server, "LIST FROM \"notes\" LIMIT 18446744073709551615");
    assert!(
        status == 200 || (400..500).contains(&status),
        "{status} {body}"
    );
    reader.finish("DQL blow-ups");
}

#[test]
fn a_2_gb_multipart_upload_is_refused_early_and_nothing_is_stored() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "", 0);
    let server = Server::start(&root, &[]);
    let before = state_of(&root);
    let reader = Reader::start(&server);
    let boundary = "quire-exhaustion-boundary";
    let part_head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"huge.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    );
    let two_gb: u64 = 2 << 30;

    // Declared: 413 before the body is sent.
    let started = Instant::now();
    let mut stream = connect(&server);
    write!(
        stream,
        "POST /api/quire/assets HTTP/1.1\r\nHost: {}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n{part_head}",
        addr(&server),
        two_gb + part_head.len() as u64 + boundary.len() as u64 + 8
    )
    .unwrap();
    let message = read_answer(&mut stream).error(413);
    assert!(message.contains("over the limit"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // Streamed without a length: cut at the body limit; the 2 GB are never read.
    let mut first = Some(format!("{:x}\r\n{part_head}\r\n", part_head.len()).into_bytes());
    let mut body = chunked(two_gb, b'z');
    let (answer, sent) = send_streaming(
        &server,
        &format!("POST /api/quire/assets HTTP/1.1\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nTransfer-Encoding: chunked"),
        move || first.take().or_else(&mut body),
    );
    let message = answer.error(413);
    assert!(!message.is_empty());
    println!(
        "chunked 2 GB multipart: the server stopped reading after {} MiB",
        sent >> 20
    );
    assert!(sent < 512 << 20, "the client could send {sent} bytes");

    reader.finish("2 GB multipart upload");
    assert_eq!(state_of(&root), before, "a refused upload wrote something");
}

#[test]
fn nothing_unpacks_archives_import_refuses_them_unread_and_archives_are_no_assets() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "", 0);
    let server = Server::start(&root, &[]);
    let before = state_of(&root);
    let reader = Reader::start(&server);

    // The import routes take archives in the spec. `/import`, its preview and `/ingest` take
    // JSON (ingest names a file of the root or an upload), the upload a multipart form: each
    // refuses a zip body by its media type without waiting for it (here: declared, never sent).
    for (path, status) in [
        ("/import", 400),
        ("/import/preview", 400),
        ("/import/upload", 400),
        ("/ingest", 400),
    ] {
        let started = Instant::now();
        let mut stream = connect(&server);
        write!(
            stream,
            "POST /api/quire{path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/zip\r\nContent-Length: {}\r\n\r\nPK\x03\x04",
            addr(&server),
            10 << 20
        )
        .unwrap();
        let answer = read_answer(&mut stream);
        assert_eq!(answer.status, status, "{path}");
        let message = answer.error(status);
        if status == 501 {
            assert!(message.contains("not implemented"), "{path}: {message}");
        }
        assert!(started.elapsed() < Duration::from_secs(5), "{path}");
    }
    assert_eq!(state_of(&root), before, "an import wrote something");

    // A .docx or a .zip is no asset type: refused by its media type, never opened.
    for (name, media_type) in [
        (
            "bomb.docx",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
        ("bomb.zip", "application/zip"),
    ] {
        let mut archive = b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec();
        archive.extend(std::iter::repeat_n(0u8, 64 * 1024));
        let boundary = "archive-boundary";
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: {media_type}\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(&archive);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let got = answer_of(
            request(&server, "POST", "/assets")
                .set(
                    "Content-Type",
                    &format!("multipart/form-data; boundary={boundary}"),
                )
                .send_bytes(&body),
        );
        assert_eq!(got.0, 415, "{name}: {}", got.1);
        client_error(name, got);
    }
    assert_eq!(state_of(&root), before, "an archive upload wrote something");
    reader.finish("archives");
}

/// Raises this process's soft limit of open files towards its hard limit (the server started
/// after inherits it); returns the soft limit now in force.
fn raise_open_files() -> libc::rlim_t {
    // SAFETY: getrlimit/setrlimit write only the struct passed, which lives on this stack.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        let wanted = limit.rlim_max.min(65_536);
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        }
        limit.rlim_cur
    }
}

#[test]
fn thousands_of_idle_event_streams_are_capped_with_503_and_reads_go_on() {
    let _serial = serial();
    // 5,000 subscribers, the default cap of 1,000 open: each open stream takes a descriptor
    // in this process and one in the server (which inherits this limit); fewer where the
    // limit forbids it, with the cap scaled to match.
    let files = raise_open_files();
    let subscribers = 5_000usize.min((files as usize).saturating_sub(200));
    let cap = 1_000usize.min(subscribers.saturating_sub(100).max(10));
    let config = if cap == 1_000 {
        String::new()
    } else {
        format!("[server]\nmax_event_streams = {cap}\n")
    };
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), &config, 0);
    let server = Server::start(&root, &[]);
    let reader = Reader::start(&server);
    let started = Instant::now();
    let mut open = Vec::new();
    let mut refused = 0usize;
    for _ in 0..subscribers {
        let mut stream = connect(&server);
        write!(
            stream,
            "GET /api/quire/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            addr(&server)
        )
        .unwrap();
        // The head of the answer: 200 and a stream, or a 503 error.
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert_eq!(
                stream.read(&mut byte).unwrap(),
                1,
                "the server closed a stream"
            );
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).to_string();
        if head.starts_with("HTTP/1.1 200") {
            assert!(head.contains("text/event-stream"), "{head}");
            open.push(stream);
        } else {
            assert!(head.starts_with("HTTP/1.1 503"), "{head}");
            refused += 1;
        }
    }
    let took = started.elapsed();
    println!(
        "{subscribers} event subscribers in {took:?}: {} open, {refused} refused (cap {cap})",
        open.len()
    );
    assert_eq!(open.len(), cap);
    assert_eq!(refused, subscribers - cap);

    // The refusal is a JSON error naming the setting.
    let (status, body) = answer_of(request(&server, "GET", "/events").call());
    assert_eq!(status, 503);
    assert!(error_message(&body).contains("max_event_streams"), "{body}");
    reader.finish("idle event streams");

    // A stream that closes frees its place.
    drop(open.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut stream = connect(&server);
        write!(
            stream,
            "GET /api/quire/events HTTP/1.1\r\nHost: {}\r\n\r\n",
            addr(&server)
        )
        .unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).unwrap();
        if head.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a closed stream's place stayed taken"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn error_message(body: &str) -> String {
    let body: Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    body["error"].as_str().unwrap_or_default().to_string()
}

#[test]
fn headers_sent_a_byte_a_second_are_cut_off_at_the_header_timeout() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let root = seeded(dir.path(), "[server]\nheader_read_timeout = \"2s\"\n", 0);
    let server = Server::start(&root, &[]);
    let reader = Reader::start(&server);
    let request = format!(
        "GET /api/quire/file?path={READ_PATH} HTTP/1.1\r\nHost: {}\r\nX-Slow: {}\r\n\r\n",
        addr(&server),
        "s".repeat(60)
    );
    let started = Instant::now();
    let mut slow: Vec<(TcpStream, Option<Duration>)> = (0..200)
        .map(|_| {
            let stream = connect(&server);
            stream.set_nonblocking(true).unwrap();
            (stream, None)
        })
        .collect();
    // One byte a second to every connection, until the server has closed them all.
    let mut sent = 0;
    while slow.iter().any(|(_, closed)| closed.is_none()) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "slow connections still open after 30 s"
        );
        for (stream, closed) in slow.iter_mut().filter(|(_, c)| c.is_none()) {
            let mut buf = [0u8; 256];
            let gone = match stream.read(&mut buf) {
                Ok(0) => true,
                Ok(_) => true,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
                Err(_) => true,
            };
            let gone = gone
                || (sent < request.len()
                    && stream.write(&request.as_bytes()[sent..sent + 1]).is_err());
            if gone {
                *closed = Some(started.elapsed());
            }
        }
        sent += 1;
        std::thread::sleep(Duration::from_secs(1));
    }
    let last = slow.iter().filter_map(|(_, c)| *c).max().unwrap();
    println!("200 slow connections: all closed by the server after {last:?}");
    assert!(sent < request.len(), "a slow request was sent whole");
    assert!(last < Duration::from_secs(8), "{last:?}");
    reader.finish("headers a byte a second");
}
