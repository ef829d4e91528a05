//! The body lines a full-text result shows: those holding the query's words, each word's byte
//! range marked for highlighting; and the phrase test, which reads the body again.
use std::ops::Range;

use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::read::body_text;

/// Longest line shown, in bytes (cut at a character boundary).
const MAX_LINE: usize = 400;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchLine {
    /// 1-based line in the file.
    pub line: u32,
    pub text: String,
    /// Byte ranges of `text` that are query words, in order.
    pub marks: Vec<Range<usize>>,
}

/// The first `max` body lines holding any of `words` (lower case).
pub fn matching_lines(store: &Store, idx: EntityIdx, words: &[String], max: usize) -> Vec<MatchLine> {
    let Some(body) = body_text::body(store, idx) else { return Vec::new() };
    let mut out = Vec::new();
    for (n, line) in body.text.lines().enumerate() {
        if out.len() == max {
            break;
        }
        let mut cut = line.len().min(MAX_LINE);
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        let shown = &line[..cut];
        let marks: Vec<Range<usize>> = body_text::words(shown)
            .filter(|(_, w)| words.iter().any(|q| q == w))
            .map(|(at, _)| at..at + word_len(&shown[at..]))
            .collect();
        if !marks.is_empty() {
            out.push(MatchLine { line: body.first_line + n as u32, text: shown.to_string(), marks });
        }
    }
    out
}

/// Bytes of the word starting `text`.
fn word_len(text: &str) -> usize {
    text.char_indices().find(|(_, c)| !c.is_alphanumeric()).map_or(text.len(), |(i, _)| i)
}

/// Whether the entity's indexed text holds every phrase, word after word.
pub fn holds_phrases(store: &Store, idx: EntityIdx, phrases: &[Vec<String>]) -> bool {
    let text = body_text::indexed_text(store, idx);
    let words: Vec<String> = body_text::words(&text).map(|(_, w)| w.into_owned()).collect();
    super::terms::holds_phrases(&words, phrases)
}
