//! The seeded pseudo-random generator (splitmix64) behind every choice the generator makes.
//!
//! Only integer arithmetic is used, so a seed yields the same sequence on every machine.

/// A splitmix64 stream. Small, fast and good enough for picking words and link styles.
#[derive(Clone, Debug)]
pub(crate) struct Rng {
    state: u64,
}

/// The splitmix64 output function; also used to derive independent streams.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl Rng {
    /// A stream for one purpose (`stream`) under one vault seed. Streams with different
    /// numbers are independent, so each page's text depends only on the seed and its index.
    pub(crate) fn stream(seed: u64, stream: u64) -> Self {
        Rng {
            state: mix(seed) ^ mix(stream.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA)),
        }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix(self.state)
    }

    /// A number in `0..n`; `n` must not be zero. Multiply-shift keeps it branch-free; the
    /// tiny bias does not matter for test data.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    pub(crate) fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with the given probability in percent.
    pub(crate) fn percent(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A word from a static word list.
    pub(crate) fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }

    /// An index into `weights`, chosen in proportion to the weights.
    pub(crate) fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut roll = self.below(total as usize) as u32;
        for (index, &weight) in weights.iter().enumerate() {
            if roll < weight {
                return index;
            }
            roll -= weight;
        }
        weights.len() - 1
    }

    /// An item of `(item, weight)` pairs, chosen in proportion to the weights.
    pub(crate) fn weighted_pick<T: Copy>(&mut self, items: &[(T, u32)]) -> T {
        let total: u32 = items.iter().map(|(_, weight)| weight).sum();
        let mut roll = self.below(total as usize) as u32;
        for &(item, weight) in items {
            if roll < weight {
                return item;
            }
            roll -= weight;
        }
        items[items.len() - 1].0
    }

    /// `count` distinct indices from `0..n` (fewer when `n` is smaller), in random order.
    pub(crate) fn sample(&mut self, n: usize, count: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        let count = count.min(n);
        for i in 0..count {
            let j = i + self.below(n - i);
            all.swap(i, j);
        }
        all.truncate(count);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_stream_give_same_sequence() {
        let mut a = Rng::stream(7, 3);
        let mut b = Rng::stream(7, 3);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_streams_differ() {
        let mut a = Rng::stream(7, 3);
        let mut b = Rng::stream(7, 4);
        let a: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let b: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn sequence_is_pinned_across_machines() {
        // Pins the exact output so a change to the generator is a deliberate one.
        let mut rng = Rng::stream(0, 0);
        let first = rng.next_u64();
        let mut again = Rng::stream(0, 0);
        assert_eq!(first, again.next_u64());
        assert_eq!(mix(0), 0);
        assert_eq!(mix(GOLDEN_GAMMA), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn below_stays_in_range_and_sample_is_distinct() {
        let mut rng = Rng::stream(1, 1);
        for n in 1..50 {
            assert!(rng.below(n) < n);
        }
        let mut picked = rng.sample(30, 10);
        assert_eq!(picked.len(), 10);
        picked.sort_unstable();
        picked.dedup();
        assert_eq!(picked.len(), 10);
        assert_eq!(rng.sample(3, 10).len(), 3);
    }

    #[test]
    fn weighted_never_picks_zero_weight() {
        let mut rng = Rng::stream(2, 2);
        for _ in 0..200 {
            assert_ne!(rng.weighted(&[5, 0, 5]), 1);
        }
    }
}
