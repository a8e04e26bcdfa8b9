//! Link extraction throughput: `quire_syntax::parse` over every page of a generated vault.

use clap::Args as ClapArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// Pages in the generated vault.
    #[arg(long, default_value_t = 10_000)]
    pub pages: usize,
    /// Vault generator seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            pages: 10_000,
            seed: 42,
        }
    }
}

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
