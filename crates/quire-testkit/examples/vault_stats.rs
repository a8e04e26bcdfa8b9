//! Prints the size and link-style mix of a generated vault, and optionally writes it out:
//! `cargo run --release -p quire-testkit --example vault_stats -- [PAGES] [SEED] [DIR] [HUB]`.

use std::path::Path;
use std::time::Instant;

use quire_testkit::{generate, LinkStyle, VaultSpec};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |index: usize, default: usize| {
        args.get(index)
            .and_then(|text| text.parse().ok())
            .unwrap_or(default)
    };
    let pages = number(0, 10_000);
    let seed = number(1, 1) as u64;
    let hub = number(3, 0);
    let spec = VaultSpec::new(seed, pages).with_hub(hub);

    let started = Instant::now();
    let vault = generate(&spec);
    let elapsed = started.elapsed();

    println!("pages {pages}, seed {seed}: generated in {elapsed:?}");
    println!(
        "{} files, {} bytes ({} in pages)",
        vault.files.len(),
        vault.total_bytes(),
        vault.pages().map(|page| page.content.len()).sum::<usize>()
    );
    let total: usize = LinkStyle::ALL.iter().map(|s| vault.link_count(*s)).sum();
    println!(
        "{total} links, {:.1} per page",
        total as f64 / pages.max(1) as f64
    );
    for style in LinkStyle::ALL {
        let count = vault.link_count(style);
        println!(
            "  {style:?}: {count} ({:.1} %)",
            100.0 * count as f64 / total.max(1) as f64
        );
    }
    if let Some(hub) = vault.hub() {
        println!("hub: {hub}");
    }
    if let Some(dir) = args.get(2).filter(|dir| !dir.is_empty() && *dir != "-") {
        vault.write_to(Path::new(dir))?;
        println!("written to {dir}");
    }
    Ok(())
}
