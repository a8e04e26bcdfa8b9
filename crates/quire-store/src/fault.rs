//! Test-only fault injection: abort the process at a named point to simulate a crash.
//!
//! Points in this crate: `store.write.before_rename` (temp file written, not yet renamed) and
//! `store.commit.before_ref` (tree written, commit not yet made; for a packed commit, the pack
//! written and HEAD not yet moved).

use std::sync::OnceLock;

/// Aborts the process when the environment variable `QUIRE_FAULT` equals `name`. The variable
/// is read once; afterwards a call costs one comparison against `None`.
pub fn point(name: &str) {
    static ARMED: OnceLock<Option<String>> = OnceLock::new();
    let armed = ARMED.get_or_init(|| std::env::var("QUIRE_FAULT").ok());
    if armed.as_deref() == Some(name) {
        eprintln!("quire: fault point {name} reached, aborting");
        std::process::abort();
    }
}
