//! A query's words counted in entity texts without a vocabulary: what a text query that is
//! answered once and never cached needs of every description and body (docs/benchmarks.md,
//! "Round: issue 44"), counted while the load holds each file's bytes.
use super::body_text::{self, WordKey};

/// One entity's counts of a query's words in its description and body: (slot in the query's
/// words, count) pairs, and how many words the texts hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordCounts {
    pub counts: Vec<(usize, u32)>,
    pub length: u32,
}

/// A query's words (lower case), each as the key the tokeniser gives a word.
pub struct QueryWords<'w> {
    keys: Vec<WordKey<'w>>,
}

impl<'w> QueryWords<'w> {
    pub fn new(wanted: &'w [String]) -> QueryWords<'w> {
        QueryWords { keys: wanted.iter().map(|w| WordKey::of(w)).collect() }
    }

    /// The counts in `description` and `body` (the text `body_text::body_bytes` gives), word by
    /// word as the term table tokenises them; counts saturate at the table's `u16`.
    pub fn count(&self, description: Option<&str>, body: Option<&str>, scratch: &mut String) -> WordCounts {
        let mut counts: Vec<(usize, u16)> = Vec::new();
        let mut length = 0u32;
        for text in [description.unwrap_or_default(), body.unwrap_or_default()] {
            for line in body_text::lines(text) {
                body_text::for_each_key(line, scratch, |key| {
                    length += 1;
                    if let Some(slot) = self.keys.iter().position(|k| *k == key) {
                        match counts.iter_mut().find(|(s, _)| *s == slot) {
                            Some((_, c)) => *c = c.saturating_add(1),
                            None => counts.push((slot, 1)),
                        }
                    }
                });
            }
        }
        WordCounts { counts: counts.into_iter().map(|(s, c)| (s, u32::from(c))).collect(), length }
    }
}
