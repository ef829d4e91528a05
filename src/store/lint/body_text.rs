//! Entity bodies as words, for the rules that compare content (`near_duplicate`,
//! `contradiction_candidates`) and for full-text recall: the body read from disk on demand
//! (bodies are never kept in memory), and one tokenizer so that every content feature agrees on
//! what a word is.
use std::borrow::Cow;

use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::read::fsio::{self, FolderOpener};

/// Largest body read for content features; what lies beyond is not compared or indexed.
pub const BODY_READ_LIMIT: u64 = 512 * 1024;

/// Longest word kept: longer runs are hashes, base64 and the like, never searched for.
pub const MAX_WORD: usize = 40;

/// An entity's body (its text after the frontmatter) and the 1-based file line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    pub text: String,
    pub first_line: u32,
}

/// The body of one entity; `None` when the file escapes the root, is unreadable or binary.
pub fn body(store: &Store, idx: EntityIdx) -> Option<Body> {
    let raw = body_bytes(store, idx, &mut FolderOpener::default())?;
    let first_line = raw.first_line(store, idx);
    Some(Body { text: raw.text().into_owned(), first_line })
}

/// An entity's bytes as read for its body: from the start of its span, the body from `from`.
pub struct RawBody {
    bytes: Vec<u8>,
    from: usize,
}

impl RawBody {
    /// The body's text (borrowed when it is valid UTF-8).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes[self.from..])
    }

    fn first_line(&self, store: &Store, idx: EntityIdx) -> u32 {
        store.entity(idx).line + memchr::memchr_iter(b'\n', &self.bytes[..self.from]).count() as u32
    }
}

/// The bytes of one entity's body, its files opened through `opener` (entities read in path
/// order share their folder's descriptor); `None` as for `body`.
pub fn body_bytes(store: &Store, idx: EntityIdx, opener: &mut FolderOpener) -> Option<RawBody> {
    let e = store.entity(idx);
    if e.escapes_root() {
        return None;
    }
    let start = e.body_start.max(e.span.start) as u64;
    let cap = (e.span.end as u64).min(start + BODY_READ_LIMIT);
    // Only the entity's own bytes: reading every entry before it made a file of 100k entries
    // quadratic (awareness lint at 100k: 96 s).
    let bytes = fsio::read_range_with(opener, &store.abs_path(&e.path), e.span.start as u64, cap).ok()?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return None;
    }
    let from = ((start - e.span.start as u64) as usize).min(bytes.len());
    Some(RawBody { bytes, from })
}

/// The text of an entity that content features read: title, description and body.
pub fn indexed_text(store: &Store, idx: EntityIdx) -> String {
    let e = store.entity(idx);
    let mut text = e.title.clone();
    if let Some(d) = e.description.as_deref() {
        text.push('\n');
        text.push_str(d);
    }
    if let Some(b) = body(store, idx) {
        text.push('\n');
        text.push_str(&b.text);
    }
    text
}

/// What an entity says, for comparing it with others: description and body. The title is left
/// out: formats that derive it from the file name would make two copies differ.
pub fn compared_text(store: &Store, idx: EntityIdx) -> String {
    let e = store.entity(idx);
    let mut text = e.description.as_deref().unwrap_or_default().to_string();
    if let Some(b) = body(store, idx) {
        text.push('\n');
        text.push_str(&b.text);
    }
    text
}

/// The words of `text` with their byte offsets: runs of letters and digits, lower-cased
/// (borrowed when already lower case). `GITHUB_TOKEN` is two words, `PIL/Pillow` two.
pub fn words(text: &str) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let w = next_word(text, &mut at)?;
        let word = &text[w.start..w.end];
        let lower = if w.ascii {
            if w.upper { Cow::Owned(word.to_ascii_lowercase()) } else { Cow::Borrowed(word) }
        } else if word.chars().any(char::is_uppercase) {
            Cow::Owned(word.to_lowercase())
        } else {
            Cow::Borrowed(word)
        };
        Some((w.start, lower))
    })
}

/// `words` without their offsets, each lower-cased into one reused buffer instead of a new
/// `String` per capitalised word (the content rules tokenise every body: 34 million words at
/// 100k OKF).
pub fn for_each_word(text: &str, scratch: &mut String, mut each: impl FnMut(&str)) {
    let mut at = 0;
    while let Some(w) = next_word(text, &mut at) {
        let word = &text[w.start..w.end];
        if !w.upper && (w.ascii || !word.chars().any(char::is_uppercase)) {
            each(word);
            continue;
        }
        scratch.clear();
        if w.ascii {
            scratch.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            scratch.push_str(&word.to_lowercase());
        }
        each(scratch);
    }
}

/// One word found by `next_word`: its bytes, whether it is all ASCII and whether an ASCII
/// upper-case letter occurs in it.
struct Found {
    start: usize,
    end: usize,
    ascii: bool,
    upper: bool,
}

/// The next word of `text` at or after `*at`, moving `*at` past it.
fn next_word(text: &str, at: &mut usize) -> Option<Found> {
    let bytes = text.as_bytes();
    while *at < bytes.len() {
        let start = *at;
        let b = bytes[start];
        // ASCII bytes decide at once; anything else goes by `char`.
        let (alnum, width) = if b.is_ascii() {
            (b.is_ascii_alphanumeric(), 1)
        } else {
            let c = text[start..].chars().next().unwrap_or(' ');
            (c.is_alphanumeric(), c.len_utf8())
        };
        *at += width;
        if !alnum {
            continue;
        }
        let (mut upper, mut ascii) = (b.is_ascii_uppercase(), b.is_ascii());
        while *at < bytes.len() {
            let b = bytes[*at];
            if b.is_ascii() {
                if !b.is_ascii_alphanumeric() {
                    break;
                }
                upper |= b.is_ascii_uppercase();
                *at += 1;
            } else {
                let c = text[*at..].chars().next().unwrap_or(' ');
                if !c.is_alphanumeric() {
                    break;
                }
                ascii = false;
                *at += c.len_utf8();
            }
        }
        let word = &text[start..*at];
        if word.len() > MAX_WORD && word.chars().count() > MAX_WORD {
            continue;
        }
        return Some(Found { start, end: *at, ascii, upper });
    }
    None
}

/// Common English function words: they carry no topic, so the content rules ignore them.
pub fn is_stopword(word: &str) -> bool {
    const STOP: &[&str] = &[
        "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
        "both", "but", "by", "can", "could", "do", "does", "each", "for", "from", "had", "has", "have", "he", "her",
        "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "may", "more", "most", "must", "my", "no",
        "not", "of", "on", "one", "only", "or", "other", "our", "out", "over", "same", "she", "should", "so", "some",
        "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through",
        "to", "too", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "will",
        "with", "would", "you", "your",
    ];
    STOP.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_cased_runs_of_letters_and_digits() {
        let got: Vec<(usize, String)> = words("Use `pip install Pillow` — PIL/Pillow, GITHUB_TOKEN 3.11 Ünïcode")
            .map(|(i, w)| (i, w.into()))
            .collect();
        let want = [
            (0, "use"),
            (5, "pip"),
            (9, "install"),
            (17, "pillow"),
            (29, "pil"),
            (33, "pillow"),
            (41, "github"),
            (48, "token"),
            (54, "3"),
            (56, "11"),
            (59, "ünïcode"),
        ];
        assert_eq!(got, want.map(|(i, w)| (i, w.to_string())));
        assert_eq!(words(&"x".repeat(MAX_WORD + 1)).count(), 0, "overlong runs are not words");
        // The table's tokeniser sees the same words, lower-cased in its one buffer.
        for text in ["Use `pip install Pillow` — PIL/Pillow, GITHUB_TOKEN 3.11 Ünïcode ÉTÉ straße İx", "", "  ..."]
        {
            let mut seen = Vec::new();
            for_each_word(text, &mut String::new(), |w| seen.push(w.to_string()));
            assert_eq!(seen, words(text).map(|(_, w)| w.into_owned()).collect::<Vec<_>>(), "{text}");
        }
    }

    /// The body and its first line as reading the whole file up to the entity finds them, in
    /// every fixture store (entries sharing a file, frontmatter, CRLF, headings as entities).
    #[test]
    fn an_entitys_body_is_what_the_whole_file_holds_at_its_place() {
        let mut checked = 0;
        for (root, store) in crate::store::fixture_stores::all() {
            for (idx, e) in store.entities.iter().enumerate() {
                let idx = idx as EntityIdx;
                let Ok(whole) = std::fs::read(store.abs_path(&e.path)) else { continue };
                let start = (e.body_start.max(e.span.start) as usize).min(whole.len());
                let end = (e.span.end as usize).min(whole.len()).min(start + BODY_READ_LIMIT as usize);
                let want_line = 1 + memchr::memchr_iter(b'\n', &whole[..start]).count() as u32;
                let Some(got) = body(&store, idx) else { continue };
                assert_eq!(got.first_line, want_line, "{} in {}", e.id, root.display());
                assert_eq!(got.text, String::from_utf8_lossy(&whole[start..end]), "{}", e.id);
                checked += 1;
            }
        }
        assert!(checked > 100, "the fixtures hold many entities: {checked}");
    }

    #[test]
    fn stopwords_are_sorted_for_the_binary_search() {
        assert!(is_stopword("the") && is_stopword("a") && is_stopword("your") && !is_stopword("pillow"));
    }

    #[test]
    fn body_starts_after_the_frontmatter_with_its_file_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "---\ntitle: A\n---\n# A\n\nbody text\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let b = body(&store, 0).unwrap();
        assert_eq!(b.first_line, 4);
        assert!(b.text.starts_with("# A\n") && b.text.ends_with("body text\n"), "{:?}", b.text);
    }
}
