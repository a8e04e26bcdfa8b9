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

fn page(paragraphs: usize) -> String {
    let sentence =
        "Stellar parallax measures the distance to nearby stars from the apparent shift of \
                    their position as the Earth moves around the Sun, in arcseconds.";
    let mut out = String::from("---\ntitle: Stars\n---\n# Stars\n\n");
    for i in 0..paragraphs {
        if i % 8 == 0 {
            out.push_str(&format!("## Section {i}\n\n"));
        }
        for _ in 0..3 {
            out.push_str(sentence);
            out.push(' ');
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
