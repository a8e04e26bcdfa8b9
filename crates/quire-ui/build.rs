//! Compiles every file of `ui/dist` (the committed build of the web UI) into the crate: one
//! `include_bytes!` per file, in a table sorted by path. A missing `ui/dist` gives an empty
//! table, and the server answers that the UI was not built.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dist = manifest.join("../../ui/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut files = Vec::new();
    if dist.is_dir() {
        collect(&dist, &dist, &mut files);
    }
    files.sort();
    let mut out = String::from("/// Every file of `ui/dist`: (path below it with `/`, bytes).\n");
    out.push_str("pub static FILES: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        out.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("dist.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir).expect("ui/dist is readable");
    for entry in entries {
        let path = entry.expect("ui/dist is readable").path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            let name = path
                .strip_prefix(root)
                .expect("below the root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let absolute = path.canonicalize().expect("an existing file");
            out.push((name, absolute));
        }
    }
}
