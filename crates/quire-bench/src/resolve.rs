//! Resolver: resolving every link of a generated vault, warm.

use quire_vault::{PagePath, Vault};

/// A generated vault of `--pages` pages from `--seed`.
pub use crate::VaultArgs as Args;

pub fn run(args: &Args) -> anyhow::Result<()> {
    let generated = quire_testkit::generate(&quire_testkit::VaultSpec::new(args.seed, args.pages));
    let load = std::time::Instant::now();
    let mut vault = Vault::new();
    for file in &generated.files {
        if file.path.starts_with(".quire/") {
            continue;
        }
        let path = PagePath::new(&file.path)?;
        match file.text() {
            Some(text) if path.is_page() => vault.upsert_page(path, text),
            Some(text) if path.is_canvas() => vault.upsert_canvas(path, text),
            _ => {
                vault.insert_file(path);
            }
        }
    }
    let load = load.elapsed();
    let (took, (links, resolved)) = crate::best_of(5, || {
        let mut links = 0usize;
        let mut resolved = 0usize;
        for (_, _, resolution) in vault.resolved_links() {
            links += 1;
            resolved += usize::from(resolution.is_resolved());
        }
        (links, resolved)
    });
    println!(
        "resolve: {} files, {} links ({} resolve) in {:.1} ms warm, best of 5 (vault built in {:.0} ms)",
        vault.len(),
        links,
        resolved,
        took.as_secs_f64() * 1e3,
        load.as_secs_f64() * 1e3
    );
    Ok(())
}
