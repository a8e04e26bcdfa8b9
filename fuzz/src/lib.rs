//! quire's fuzz targets: for each parser, a `run(&[u8])` that feeds it the input and panics when
//! a property fails — not only "no panic" but differential and round-trip properties (the YAML
//! fast path equals the full parser, DQL prints back to itself, link spans cut the page into
//! pieces that join back to it, …).
//!
//! The same `run` is driven three ways ([`target!`]): by the plain [`runner`] on the stable
//! toolchain (corpus, then generated inputs for a budget), by AFL++ (`--features afl`, built
//! with `cargo afl`), and by libFuzzer under `cargo fuzz` (`cfg(fuzzing)`).

pub mod memory;
pub mod runner;
pub mod targets;
pub mod text;

/// What a target is: its name (the binary and the folder of its corpus), the function the
/// drivers call, and tokens that mutations splice in.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
    pub dictionary: fn() -> Vec<Vec<u8>>,
    /// Inputs made at run time (from schemas, say) that the plain runner runs before the
    /// corpus; `--write-seeds` saves them into the corpus.
    pub seeds: fn() -> Vec<Vec<u8>>,
}

/// A target without seeds of its own.
pub fn no_seeds() -> Vec<Vec<u8>> {
    Vec::new()
}

/// The `main` of a fuzz target binary: `target!(targets::syntax::TARGET)`.
#[macro_export]
macro_rules! target {
    ($target:path) => {
        #[cfg(feature = "afl")]
        fn main() {
            let target = &$target;
            ::afl::fuzz(true, |data| (target.run)(data));
        }

        #[cfg(all(fuzzing, not(feature = "afl")))]
        ::libfuzzer_sys::fuzz_target!(|data: &[u8]| ($target.run)(data));

        #[cfg(not(any(fuzzing, feature = "afl")))]
        fn main() {
            $crate::runner::main(&$target)
        }
    };
}
