//! The local model: a static embedding table distilled from all-MiniLM-L6-v2 (see
//! `model/README.md`), compiled into the binary so vector search works offline.
//!
//! A text's vector is the mean of its tokens' rows, normalised to unit length: no neural
//! network runs at query time, which is what makes it fast enough to embed every page on start.

use std::sync::OnceLock;

use model2vec_rs::model::StaticModel;
use tokenizers::Tokenizer;

use crate::{EmbedError, Embedder, Purpose};

const TOKENIZER: &[u8] = include_bytes!("../model/tokenizer.json");
const WEIGHTS: &[u8] = include_bytes!("../model/model.safetensors");
const CONFIG: &[u8] = include_bytes!("../model/config.json");

/// The name [`Local`] reports as its model.
pub const LOCAL_MODEL: &str = "quire-minilm-static-256";

/// Texts longer than this many tokens are cut: a chunk is far shorter, and a query longer than
/// this is not a query.
const MAX_TOKENS: usize = 8192;

/// The static model shipped with quire. Cheap to share: embedding takes `&self`.
pub struct Local {
    model: StaticModel,
    tokens: Tokens,
}

impl std::fmt::Debug for Local {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Local")
            .field("model", &LOCAL_MODEL)
            .field("dimensions", &self.model.dim())
            .finish()
    }
}

impl Local {
    /// Parses the compiled-in model (tens of milliseconds; call once and share).
    ///
    /// # Errors
    /// [`EmbedError::Config`] if the vendored files do not parse, which a test rules out.
    pub fn load() -> Result<Local, EmbedError> {
        let model = StaticModel::from_bytes(TOKENIZER, WEIGHTS, CONFIG, Some(true))
            .map_err(|e| EmbedError::Config(format!("local model: {e:#}")))?;
        Ok(Local {
            model,
            tokens: Tokens::load()?,
        })
    }

    /// The number of tokens the model sees in `text` (special tokens not counted).
    pub fn count_tokens(&self, text: &str) -> usize {
        self.tokens.count(text)
    }

    /// The tokenizer of this model, for callers that count tokens without embedding.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }
}

impl Embedder for Local {
    fn model(&self) -> &str {
        LOCAL_MODEL
    }

    fn dimensions(&self) -> usize {
        self.model.dim()
    }

    /// Documents and queries are embedded alike: a static model has no instruction prefix.
    /// A text with no known token (empty, or only unknown characters) gets the zero vector.
    fn embed(&self, texts: &[&str], _purpose: Purpose) -> Result<Vec<Vec<f32>>, EmbedError> {
        let owned: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
        // One batch: model2vec pools the texts of a batch in parallel.
        Ok(self
            .model
            .encode_with_args(&owned, Some(MAX_TOKENS), owned.len().max(1)))
    }
}

/// The local model's tokenizer: counts tokens the way [`Local`] sees them.
#[derive(Clone)]
pub struct Tokens {
    tokenizer: Tokenizer,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens(bert-base-uncased wordpiece)")
    }
}

impl Tokens {
    /// Parses the compiled-in tokenizer.
    ///
    /// # Errors
    /// [`EmbedError::Config`] if the vendored tokenizer does not parse.
    pub fn load() -> Result<Tokens, EmbedError> {
        let tokenizer = Tokenizer::from_bytes(TOKENIZER)
            .map_err(|e| EmbedError::Config(format!("local tokenizer: {e}")))?;
        Ok(Tokens { tokenizer })
    }

    /// The process-wide tokenizer, parsed on first use.
    ///
    /// # Panics
    /// If the vendored tokenizer does not parse (a build defect a test rules out).
    pub fn shared() -> &'static Tokens {
        static SHARED: OnceLock<Tokens> = OnceLock::new();
        SHARED.get_or_init(|| Tokens::load().expect("the vendored tokenizer parses"))
    }

    /// The number of word pieces in `text`, without [CLS]/[SEP].
    pub fn count(&self, text: &str) -> usize {
        // Tokenizing never fails for this WordPiece pipeline; if it ever did, fall back to a
        // generous estimate so a chunk errs on the small side rather than on the large one.
        self.tokenizer
            .encode_fast(text, false)
            .map(|e| e.len())
            .unwrap_or_else(|_| text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn loads_fast_and_embeds_unit_vectors_of_256() {
        let start = std::time::Instant::now();
        let local = Local::load().expect("the vendored model loads");
        // Debug builds are slower; the release figure is in the bench.
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
        assert_eq!(local.model(), LOCAL_MODEL);
        assert_eq!(local.dimensions(), 256);
        let v = local
            .embed(
                &["stars", "a longer sentence about bread"],
                Purpose::Document,
            )
            .expect("embeds");
        assert_eq!(v.len(), 2);
        for v in &v {
            assert_eq!(v.len(), 256);
            assert!((cos(v, v) - 1.0).abs() < 1e-4);
        }
    }

    #[test]
    fn related_texts_are_closer_than_unrelated_ones() {
        let local = Local::load().expect("loads");
        let v = local
            .embed(
                &[
                    "how far away are other suns",
                    "stellar distances and parallax",
                    "baking sourdough bread",
                ],
                Purpose::Query,
            )
            .expect("embeds");
        assert!(
            cos(&v[0], &v[1]) > cos(&v[0], &v[2]) + 0.1,
            "{} vs {}",
            cos(&v[0], &v[1]),
            cos(&v[0], &v[2])
        );
    }

    #[test]
    fn an_empty_text_is_the_zero_vector() {
        let local = Local::load().expect("loads");
        let v = local.embed(&[""], Purpose::Query).expect("embeds");
        assert!(v[0].iter().all(|x| *x == 0.0));
        assert!(local.embed(&[], Purpose::Query).expect("embeds").is_empty());
    }

    #[test]
    fn counts_word_pieces_without_special_tokens() {
        let local = Local::load().expect("loads");
        assert_eq!(local.count_tokens(""), 0);
        assert_eq!(local.count_tokens("the"), 1);
        assert!(local.count_tokens("parallaxes unbelievably") > 2);
        assert_eq!(Tokens::shared().count("the river"), 2);
    }

    #[test]
    fn is_shared_across_threads() {
        let local = std::sync::Arc::new(Local::load().expect("loads"));
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let local = local.clone();
                std::thread::spawn(move || {
                    local
                        .embed(&[&format!("text {i}")], Purpose::Document)
                        .map(|v| v.len())
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().expect("no panic").expect("embeds"), 1);
        }
    }
}
