//! The plain-binary driver, for the stable toolchain: runs every file of the target's corpus,
//! then inputs generated from the corpus and the target's dictionary (mutations, splices,
//! token soup, random bytes) until a time or count budget is spent. No coverage feedback —
//! that is AFL++'s job (`--features afl`) — but fast, in-process and reproducible: a run
//! prints its seed, and a failing input is saved and named with the command that repeats it.
//!
//! ```text
//! <target> [--seconds S] [--runs N] [--seed N] [--corpus DIR]... [--max-len BYTES]
//!          [--slow-ms MS] [--rss-mb MB] [--write-dict FILE] [--write-seeds] [FILE...]
//! ```
//! FILE arguments run just those inputs (a saved crash, say). Without a budget the run lasts
//! 10 seconds. Exit status 1 when an input panicked, ran longer than `--slow-ms`, or (seen by a
//! watchdog thread, which saves it too) never returned or grew the process past `--rss-mb`
//! (default 4096).

use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::text::hash;
use crate::Target;

struct Args {
    seconds: Option<f64>,
    runs: Option<u64>,
    seed: Option<u64>,
    corpus: Vec<PathBuf>,
    files: Vec<PathBuf>,
    max_len: usize,
    slow: Duration,
    rss_mb: u64,
    write_dict: Option<PathBuf>,
    write_seeds: bool,
}

fn usage(target: &Target, problem: &str) -> ! {
    eprintln!("{}: {problem}", target.name);
    eprintln!(
        "usage: {} [--seconds S] [--runs N] [--seed N] [--corpus DIR]... [--max-len BYTES] \
         [--slow-ms MS] [--rss-mb MB] [--write-dict FILE] [--write-seeds] [FILE...]",
        target.name
    );
    std::process::exit(2)
}

fn parse_args(target: &Target) -> Args {
    let mut args = Args {
        seconds: None,
        runs: None,
        seed: None,
        corpus: Vec::new(),
        files: Vec::new(),
        max_len: 64 << 10,
        slow: Duration::from_secs(10),
        rss_mb: 4096,
        write_dict: None,
        write_seeds: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .unwrap_or_else(|| usage(target, &format!("{name} needs a value")))
        };
        let number = |name: &str, text: String| -> u64 {
            text.parse()
                .unwrap_or_else(|_| usage(target, &format!("{name}: {text:?} is not a number")))
        };
        match arg.as_str() {
            "--seconds" => {
                let text = value("--seconds");
                args.seconds = Some(text.parse().unwrap_or_else(|_| {
                    usage(target, &format!("--seconds: {text:?} is not a number"))
                }));
            }
            "--runs" => args.runs = Some(number("--runs", value("--runs"))),
            "--seed" => args.seed = Some(number("--seed", value("--seed"))),
            "--corpus" => args.corpus.push(value("--corpus").into()),
            "--max-len" => args.max_len = number("--max-len", value("--max-len")) as usize,
            "--slow-ms" => {
                args.slow = Duration::from_millis(number("--slow-ms", value("--slow-ms")))
            }
            "--rss-mb" => args.rss_mb = number("--rss-mb", value("--rss-mb")),
            "--write-dict" => args.write_dict = Some(value("--write-dict").into()),
            "--write-seeds" => args.write_seeds = true,
            "-h" | "--help" => usage(
                target,
                "runs the target over its corpus and generated inputs",
            ),
            flag if flag.starts_with("--") => usage(target, &format!("unknown option {flag}")),
            file => args.files.push(file.into()),
        }
    }
    if args.corpus.is_empty() {
        args.corpus
            .push(crate_dir().join("corpus").join(target.name));
    }
    args
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `target` as the command line asks; exits the process.
pub fn main(target: &Target) -> ! {
    let args = parse_args(target);
    let dictionary = (target.dictionary)();
    if let Some(path) = &args.write_dict {
        write_afl_dictionary(path, &dictionary);
        println!(
            "{}: {} tokens written to {}",
            target.name,
            dictionary.len(),
            path.display()
        );
        std::process::exit(0);
    }
    let seeds = (target.seeds)();
    if args.write_seeds {
        let dir = &args.corpus[0];
        let written = std::fs::create_dir_all(dir).and_then(|()| {
            seeds.iter().try_for_each(|seed| {
                std::fs::write(dir.join(format!("seed-{:016x}", hash(seed))), seed)
            })
        });
        if let Err(e) = written {
            usage(target, &format!("{}: {e}", dir.display()));
        }
        println!(
            "{}: {} seeds written to {}",
            target.name,
            seeds.len(),
            dir.display()
        );
        std::process::exit(0);
    }
    let mut session = Session {
        target,
        slow: args.slow,
        runs: 0,
        slowest: Duration::ZERO,
        watch: Watch::start(target.name, args.slow, args.rss_mb),
    };
    if !args.files.is_empty() {
        for file in &args.files {
            let data = std::fs::read(file)
                .unwrap_or_else(|e| usage(target, &format!("{}: {e}", file.display())));
            session.run(&data);
            println!("{}: {} ok", target.name, file.display());
        }
        std::process::exit(0);
    }

    let started = Instant::now();
    let mut corpus = read_corpus(&args.corpus);
    corpus.extend(seeds);
    for data in &corpus {
        session.run(data);
    }
    let from_corpus = session.runs;

    let seed = args.seed.unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        nanos ^ u64::from(std::process::id())
    });
    let budget = match (args.seconds, args.runs) {
        (None, None) => Some(Duration::from_secs(10)),
        (seconds, _) => seconds.map(Duration::from_secs_f64),
    };
    let mut generator = Generator {
        rng: Rng::new(seed),
        corpus: &corpus,
        dictionary: &dictionary,
        max_len: args.max_len,
    };
    let mut last_report = Instant::now();
    loop {
        if args
            .runs
            .is_some_and(|runs| session.runs - from_corpus >= runs)
        {
            break;
        }
        // The clock is read every 64 inputs: cheap targets run millions a second.
        if session.runs.is_multiple_of(64) {
            if budget.is_some_and(|budget| started.elapsed() >= budget) {
                break;
            }
            if last_report.elapsed() >= Duration::from_secs(60) {
                last_report = Instant::now();
                eprintln!(
                    "{}: {} inputs, {:.0} s",
                    target.name,
                    session.runs,
                    started.elapsed().as_secs_f64()
                );
            }
        }
        let data = generator.next();
        session.run(&data);
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{}: {} inputs ({} corpus files, {} generated) in {:.1} s, {:.0}/s, seed {seed}, \
         slowest {} ms, 0 failures",
        target.name,
        session.runs,
        from_corpus,
        session.runs - from_corpus,
        elapsed,
        session.runs as f64 / elapsed.max(1e-9),
        session.slowest.as_millis(),
    );
    std::process::exit(0)
}

struct Session<'t> {
    target: &'t Target,
    slow: Duration,
    runs: u64,
    slowest: Duration,
    watch: &'static Watch,
}

/// What the watchdog thread sees: the input running now and since when. An input that never
/// returns, or grows the process past `--rss-mb`, cannot report itself: the watchdog saves it
/// and ends the process.
struct Watch {
    name: &'static str,
    input: Mutex<Vec<u8>>,
    /// Milliseconds since `epoch` when the input started; `u64::MAX` between inputs.
    since: AtomicU64,
    epoch: Instant,
}

impl Watch {
    fn start(name: &'static str, slow: Duration, rss_mb: u64) -> &'static Watch {
        let watch: &'static Watch = Box::leak(Box::new(Watch {
            name,
            input: Mutex::new(Vec::new()),
            since: AtomicU64::new(u64::MAX),
            epoch: Instant::now(),
        }));
        // Twice the slow limit: an input that ends late is reported by the run itself.
        let hang = (slow * 2).as_millis() as u64;
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let since = watch.since.load(Ordering::Acquire);
            if since == u64::MAX {
                continue;
            }
            let running = watch.now().saturating_sub(since);
            let rss = resident_mb();
            if running > hang {
                watch.give_up("hang", &format!("still running after {running} ms"));
            }
            if rss > rss_mb {
                watch.give_up(
                    "oom",
                    &format!("grew the process to {rss} MB (limit {rss_mb} MB)"),
                );
            }
        });
        watch
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn begin(&self, data: &[u8]) {
        let mut input = self.input.lock().unwrap_or_else(|e| e.into_inner());
        input.clear();
        input.extend_from_slice(data);
        self.since.store(self.now(), Ordering::Release);
    }

    fn end(&self) {
        self.since.store(u64::MAX, Ordering::Release);
    }

    fn give_up(&self, kind: &str, why: &str) -> ! {
        let input = self.input.lock().unwrap_or_else(|e| e.into_inner());
        save_and_exit(self.name, &input, kind, why)
    }
}

/// The resident set of this process in MB (0 where `/proc` is missing).
fn resident_mb() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| (pages * 4096) >> 20)
}

impl Session<'_> {
    /// Runs one input; a panic or a slow run saves it and ends the process.
    fn run(&mut self, data: &[u8]) {
        self.watch.begin(data);
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| (self.target.run)(data)));
        let took = start.elapsed();
        self.watch.end();
        self.runs += 1;
        self.slowest = self.slowest.max(took);
        if result.is_err() {
            self.fail(data, "crash", "panicked (message above)");
        }
        if took > self.slow {
            let why = format!(
                "took {} ms (limit {} ms)",
                took.as_millis(),
                self.slow.as_millis()
            );
            self.fail(data, "slow", &why);
        }
    }

    fn fail(&self, data: &[u8], kind: &str, why: &str) -> ! {
        eprintln!("\n{}: input {}", self.target.name, self.runs);
        save_and_exit(self.target.name, data, kind, why)
    }
}

/// Saves a failing input under `artifacts/<target>/`, says how to repeat it, and exits 1.
fn save_and_exit(name: &str, data: &[u8], kind: &str, why: &str) -> ! {
    let dir = crate_dir().join("artifacts").join(name);
    let path = dir.join(format!("{kind}-{:016x}", hash(data)));
    let saved = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, data));
    let _ = std::io::stdout().flush();
    eprintln!("{name}: an input {why}");
    match saved {
        Ok(()) => eprintln!(
            "saved to {}\nrepeat: cargo run --manifest-path {}/Cargo.toml --bin {name} -- {}",
            path.display(),
            crate_dir().display(),
            path.display()
        ),
        Err(e) => eprintln!("could not save it to {}: {e}", path.display()),
    }
    eprintln!(
        "input: {:?}",
        String::from_utf8_lossy(&data[..data.len().min(2000)])
    );
    std::process::exit(1)
}

/// The files of the corpus folders, in name order (a missing folder is an empty corpus).
fn read_corpus(dirs: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|path| std::fs::read(path).ok())
        .collect()
}

/// The dictionary in AFL's format (`-x FILE`): one quoted token a line.
fn write_afl_dictionary(path: &Path, tokens: &[Vec<u8>]) {
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        out.push_str(&format!("t{i}=\""));
        for &b in token {
            match b {
                b'"' | b'\\' => out.push_str(&format!("\\{}", b as char)),
                0x20..=0x7e => out.push(b as char),
                _ => out.push_str(&format!("\\x{b:02x}")),
            }
        }
        out.push_str("\"\n");
    }
    if let Err(e) = std::fs::write(path, out) {
        eprintln!("{}: {e}", path.display());
        std::process::exit(2);
    }
}

/// xorshift64*: small, fast and reproducible from the printed seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Small numbers far more often than large ones: `0..n`, log-uniform.
    fn small(&mut self, n: usize) -> usize {
        let bits = usize::BITS - n.leading_zeros();
        let cap = 1usize << self.below(bits as usize + 1);
        self.below(cap.min(n).max(1))
    }
}

/// Bytes that make parsers branch: line ends, quotes, brackets, escapes, odd Unicode.
const INTERESTING: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b" ",
    b"\0",
    b"\"",
    b"'",
    b"\\",
    b"[",
    b"]",
    b"(",
    b")",
    b"{",
    b"}",
    b"<",
    b">",
    b"#",
    b"%",
    b":",
    b",",
    b"|",
    b"!",
    b"`",
    b"-",
    b"/",
    b".",
    b"..",
    b"*",
    b"^",
    b"=",
    b"$",
    b"&",
    b"~",
    "é".as_bytes(),
    "e\u{301}".as_bytes(),
    "😀".as_bytes(),
    "\u{2028}".as_bytes(),
    "\u{85}".as_bytes(),
    "\u{feff}".as_bytes(),
    "\u{a0}".as_bytes(),
    "日本".as_bytes(),
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
];

struct Generator<'a> {
    rng: Rng,
    corpus: &'a [Vec<u8>],
    dictionary: &'a [Vec<u8>],
    max_len: usize,
}

impl Generator<'_> {
    fn next(&mut self) -> Vec<u8> {
        let mut data = match self.rng.below(16) {
            0 => self.random_bytes(),
            1 | 2 => self.token_soup(),
            _ => {
                let mut data = self.pick();
                for _ in 0..=self.rng.small(16) {
                    self.mutate(&mut data);
                }
                data
            }
        };
        data.truncate(self.max_len);
        data
    }

    fn pick(&mut self) -> Vec<u8> {
        if self.corpus.is_empty() {
            return Vec::new();
        }
        self.corpus[self.rng.below(self.corpus.len())].clone()
    }

    fn token(&mut self) -> Vec<u8> {
        if !self.dictionary.is_empty() && self.rng.below(3) > 0 {
            return self.dictionary[self.rng.below(self.dictionary.len())].clone();
        }
        INTERESTING[self.rng.below(INTERESTING.len())].to_vec()
    }

    fn random_bytes(&mut self) -> Vec<u8> {
        let len = self.rng.small(512);
        let printable = self.rng.below(2) == 0;
        (0..len)
            .map(|_| {
                let b = self.rng.next() as u8;
                if printable {
                    0x20 + b % 0x5f
                } else {
                    b
                }
            })
            .collect()
    }

    fn token_soup(&mut self) -> Vec<u8> {
        let mut data = Vec::new();
        for _ in 0..=self.rng.small(64) {
            match self.rng.below(4) {
                0 => data.push(b'a' + self.rng.below(26) as u8),
                1 => data.push(b' '),
                _ => data.extend(self.token()),
            }
        }
        data
    }

    fn mutate(&mut self, data: &mut Vec<u8>) {
        let len = data.len();
        let at = |rng: &mut Rng| rng.below(len + 1);
        match self.rng.below(12) {
            0 if len > 0 => {
                let i = self.rng.below(len);
                data[i] ^= 1 << self.rng.below(8);
            }
            1 if len > 0 => {
                let i = self.rng.below(len);
                data[i] = self.rng.next() as u8;
            }
            2 if len > 0 => {
                // Delete a run.
                let start = self.rng.below(len);
                let end = (start + 1 + self.rng.small(len - start)).min(len);
                data.drain(start..end);
            }
            3 if len > 0 => {
                // Copy a run elsewhere.
                let start = self.rng.below(len);
                let end = (start + 1 + self.rng.small(len - start)).min(len);
                let chunk = data[start..end].to_vec();
                let to = at(&mut self.rng);
                data.splice(to..to, chunk);
            }
            4 if len > 0 => {
                // Repeat a run many times: deep nesting, long lines, many items.
                let start = self.rng.below(len);
                let end = (start + 1 + self.rng.small(16)).min(len);
                let chunk = data[start..end].to_vec();
                let times = 2 + self.rng.small(300);
                let repeated: Vec<u8> = chunk
                    .iter()
                    .copied()
                    .cycle()
                    .take(chunk.len() * times)
                    .collect();
                data.splice(end..end, repeated);
            }
            5 => {
                // Splice with another corpus entry.
                let other = self.pick();
                let keep = at(&mut self.rng);
                let from = self.rng.below(other.len() + 1);
                data.truncate(keep);
                data.extend_from_slice(&other[from..]);
            }
            6 if len > 0 => {
                let keep = self.rng.below(len);
                data.truncate(keep);
            }
            7 if len > 0 => {
                // Overwrite with a token.
                let token = self.token();
                let start = self.rng.below(len);
                let end = (start + token.len()).min(len);
                data.splice(start..end, token);
            }
            _ => {
                let token = self.token();
                let to = at(&mut self.rng);
                data.splice(to..to, token);
            }
        }
    }
}
