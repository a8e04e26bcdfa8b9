//! Throughput of the local model and the chunker, single-threaded: `cargo bench -p quire-embed`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use quire_embed::{chunk, Embedder, Local, Purpose};

/// Runs `f` repeatedly for about `budget`; returns calls per second.
fn rate(budget: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < budget {
        f();
        n += 1;
    }
    f64::from(n) / start.elapsed().as_secs_f64()
}

/// A page of `paragraphs` paragraphs of made-up prose: words of one to four syllables drawn
/// with a Zipf-like skew (so, like real text, many repeats and a long tail of rare words),
/// with headings every eight paragraphs and a code block every five.
fn page(paragraphs: usize) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mi", "ne", "sto", "ra", "pel", "ta", "vor", "qui", "dan", "ex", "ul", "bri",
        "gon", "sa", "ther", "ing", "ment", "ous", "pre", "con", "al", "ly",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut word = |out: &mut String| {
        // rank ~ 1/u: small ranks (common words) often, large ranks rarely.
        let u = (next() % 10_000 + 1) as f64 / 10_000.0;
        let mut rank = (1.0 / u) as u64 * 7;
        let syllables = 1 + (next() % 4) as usize;
        for _ in 0..syllables {
            out.push_str(SYLLABLES[(rank % 24) as usize]);
            rank /= 24;
        }
        out.push(' ');
    };
    let mut out = String::from("---\ntitle: Stars\n---\n# Stars\n\n");
    for i in 0..paragraphs {
        if i % 8 == 0 {
            out.push_str(&format!("## Section {i}\n\n"));
        }
        for _ in 0..60 {
            word(&mut out);
        }
        out.push_str("\n\n");
        if i % 5 == 0 {
            out.push_str("```rust\nfn parallax(d: f64) -> f64 {\n    1.0 / d\n}\n```\n\n");
        }
    }
    out
}

fn main() {
    // The single-thread figure: model2vec pools a batch on rayon unless told not to.
    tokenizers::utils::parallelism::set_parallelism(false);
    let budget = Duration::from_secs(3);

    let start = Instant::now();
    let local = Local::load().expect("the model loads");
    println!("load: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);

    let text = page(200);
    let chunks = chunk(&text, 512, 64);
    let long: Vec<&str> = chunks
        .iter()
        .map(|c| c.text.as_str())
        .filter(|t| local.count_tokens(t) > 400)
        .collect();
    let tokens: usize = long.iter().map(|t| local.count_tokens(t)).sum();
    println!(
        "page: {} bytes, {} chunks of 512 tokens (mean {} tokens)",
        text.len(),
        chunks.len(),
        tokens / long.len().max(1)
    );

    let per = rate(budget, || {
        black_box(local.embed(&long, Purpose::Document).expect("embeds"));
    });
    println!(
        "embed 512-token chunks: {:.0} chunks/s",
        per * long.len() as f64
    );

    let queries = [
        "how far away are other suns",
        "parallax",
        "what is the distance to proxima centauri",
    ];
    let per = rate(budget, || {
        for q in queries {
            black_box(local.embed(&[q], Purpose::Query).expect("embeds"));
        }
    });
    println!(
        "embed short queries, one per call: {:.0} queries/s",
        per * queries.len() as f64
    );

    let per = rate(budget, || {
        black_box(chunk(&text, 512, 64));
    });
    println!(
        "chunk (512 tokens, overlap 64): {:.1} MB/s, {:.0} chunks/s",
        per * text.len() as f64 / 1e6,
        per * chunks.len() as f64
    );
}
