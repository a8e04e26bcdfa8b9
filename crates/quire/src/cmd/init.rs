//! `quire init [DIR]`.

use std::path::PathBuf;

use clap::Args as ClapArgs;

#[derive(ClapArgs)]
pub struct Args {
    /// Folder of the new knowledge root (created when missing).
    #[arg(default_value = "knowledge")]
    dir: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let done = quire_service::init_root(&args.dir)?;
    if done.wrote_config {
        println!(
            "Initialised a knowledge root in {} (configuration: .quire/config.toml).",
            done.root.display()
        );
    } else {
        println!(
            "{} is already a knowledge root; its configuration was kept.",
            done.root.display()
        );
    }
    println!("Serve it with: quire serve --root {}", args.dir.display());
    Ok(())
}
