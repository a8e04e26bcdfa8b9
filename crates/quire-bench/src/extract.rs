//! Link extraction throughput: `quire_syntax::parse` over every page of a generated vault.

/// A generated vault of `--pages` pages from `--seed`.
pub use crate::VaultArgs as Args;

pub fn run(args: &Args) -> anyhow::Result<()> {
    let vault = quire_testkit::generate(&quire_testkit::VaultSpec::new(args.seed, args.pages));
    let texts: Vec<&str> = vault.pages().filter_map(|f| f.text()).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let (took, links) = crate::best_of(5, || {
        texts
            .iter()
            .map(|t| quire_syntax::parse(t).links.len())
            .sum::<usize>()
    });
    let mb_s = bytes as f64 / 1e6 / took.as_secs_f64();
    println!(
        "extract: {} pages, {:.1} MB, {} links parsed in {:.1} ms on one thread = {:.0} MB/s",
        texts.len(),
        bytes as f64 / 1e6,
        links,
        took.as_secs_f64() * 1e3,
        mb_s
    );
    Ok(())
}
