//! Entity bodies as words, for the rules that compare content (`near_duplicate`,
//! `contradiction_candidates`) and for full-text recall: the body read from disk on demand
//! (bodies are never kept in memory), and one tokenizer so that every content feature agrees on
//! what a word is.
use std::borrow::Cow;
use std::path::Path;

use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx};
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

/// An entity's bytes as read for its body: from the start of its span, the body from `from`
/// (borrowed from the loader's text of the file, or read from disk).
pub struct RawBody<'a> {
    bytes: Cow<'a, [u8]>,
    from: usize,
}

impl<'a> RawBody<'a> {
    /// `bytes`, the file's bytes over `read_range(e)`, as `e`'s body; `None` when they hold a
    /// NUL byte in their first 8 KB (binary).
    fn of(e: &Entity, bytes: Cow<'a, [u8]>) -> Option<RawBody<'a>> {
        if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
            return None;
        }
        let start = e.body_start.max(e.span.start) as usize;
        let from = (start - e.span.start as usize).min(bytes.len());
        Some(RawBody { bytes, from })
    }

    /// The same bytes, owned (no longer borrowing the text they were cut from).
    fn into_owned(self) -> RawBody<'static> {
        RawBody { bytes: Cow::Owned(self.bytes.into_owned()), from: self.from }
    }

    /// The body's text (borrowed when it is valid UTF-8).
    pub fn text(&self) -> Cow<'_, str> {
        let bytes = &self.bytes[self.from..];
        // `from_utf8` checks ASCII a word at a time; the lossy scan goes byte by byte.
        match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        }
    }

    fn first_line(&self, store: &Store, idx: EntityIdx) -> u32 {
        store.entity(idx).line + memchr::memchr_iter(b'\n', &self.bytes[..self.from]).count() as u32
    }
}

/// The bytes of a file that `e`'s body is read from: its span's start up to the span's end, or
/// `BODY_READ_LIMIT` past the body's start. Only the entity's own bytes: reading every entry
/// before it would make a file of many entries quadratic (docs/benchmarks.md, "Lint figures").
fn read_range(e: &Entity) -> (u64, u64) {
    let start = e.body_start.max(e.span.start) as u64;
    (e.span.start as u64, (e.span.end as u64).min(start + BODY_READ_LIMIT))
}

/// The bytes of one entity's body, its files opened through `opener` (entities read in path
/// order share their folder's descriptor); `None` as for `body`.
pub fn body_bytes(store: &Store, idx: EntityIdx, opener: &mut FolderOpener) -> Option<RawBody<'static>> {
    let e = store.entity(idx);
    // A store held in memory (a database's snapshot) has no file to open: its one text is read.
    if store.dialect.in_memory() {
        let text = store.dialect.memory_file(&e.path)??;
        return body_bytes_in(e, &text)?.map(RawBody::into_owned);
    }
    body_bytes_at(e, &store.abs_path(&e.path), opener)
}

/// `body_bytes` of the entity `e` of the file at `path`.
pub fn body_bytes_at(e: &Entity, path: &Path, opener: &mut FolderOpener) -> Option<RawBody<'static>> {
    if e.escapes_root() {
        return None;
    }
    let (from, to) = read_range(e);
    let bytes = fsio::read_range_with(opener, path, from, to).ok()?;
    RawBody::of(e, Cow::Owned(bytes))
}

/// `body_bytes` from `text`, the whole of `e`'s file exactly as it is on disk (read whole,
/// valid UTF-8): the same bytes without reading them again. `None` when `e`'s range does not
/// lie within `text` (then read it with `body_bytes_at`) or, as for `body`, when it is binary.
pub fn body_bytes_in<'t>(e: &Entity, text: &'t str) -> Option<Option<RawBody<'t>>> {
    if e.escapes_root() {
        return Some(None);
    }
    let (from, to) = read_range(e);
    let bytes = text.as_bytes().get(from as usize..to.max(from) as usize)?;
    Some(RawBody::of(e, Cow::Borrowed(bytes)))
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

/// `str::lines` by the `memchr` crate's vectorised search (the standard library's byte search
/// and char searcher are slower, and every body's every line passes here).
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = text.get(at..).filter(|r| !r.is_empty())?;
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(end) => {
                at += end + 1;
                let line = &rest[..end];
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            None => {
                at = text.len();
                Some(rest)
            }
        }
    })
}

/// Longest word that `for_each_key` packs into a `WordKey::Short`.
pub const SHORT_WORD: usize = 16;

/// A lower-case word as `for_each_key` gives it: an ASCII word of at most `SHORT_WORD` bytes
/// packed into one integer (its bytes little-endian, zero-padded: words hold no zero byte, so
/// two words are equal exactly when their keys are), any other word as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordKey<'a> {
    Short(u128),
    Long(&'a str),
}

impl WordKey<'_> {
    /// The key of a lower-case word: `Short` whenever it fits, so one word has one key.
    pub fn of(word: &str) -> WordKey<'_> {
        if word.len() <= SHORT_WORD && word.is_ascii() {
            let mut packed = [0u8; SHORT_WORD];
            packed[..word.len()].copy_from_slice(word.as_bytes());
            WordKey::Short(u128::from_le_bytes(packed))
        } else {
            WordKey::Long(word)
        }
    }

    /// The bytes of a `Short` key's word.
    pub fn short_bytes(key: u128) -> ([u8; SHORT_WORD], usize) {
        let bytes = key.to_le_bytes();
        (bytes, SHORT_WORD - (key.leading_zeros() / 8) as usize)
    }
}

/// Per byte: its ASCII lower case when it is an ASCII letter or digit, 0 for any other ASCII
/// byte (a word ends there), `NOT_ASCII` for the bytes of other characters.
const FOLD: [u8; 256] = {
    let mut t = [NOT_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { 0 };
        b += 1;
    }
    t
};
const NOT_ASCII: u8 = 0xff;

/// The words of `words`, without offsets, each given as its `WordKey` (lower-cased into one
/// reused buffer when it cannot be packed): ASCII words are cut, lower-cased and packed in one
/// pass over a byte table instead of being decoded, checked and compared as `str`s (the text
/// index's cold build tokenises every word of every body). A word holding any other
/// character goes by `next_word`, from its first byte.
pub fn for_each_key(text: &str, scratch: &mut String, mut each: impl FnMut(WordKey<'_>)) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match FOLD[bytes[at] as usize] {
            0 => {
                at += 1;
                continue;
            }
            NOT_ASCII => {
                general_word(text, &mut at, scratch, &mut each);
                continue;
            }
            _ => {}
        }
        let start = at;
        // The run of letters and digits in the next 16 bytes at once, where the text goes on
        // that far; a byte at a time past them.
        let mut end = match bytes.get(start..start + SHORT_WORD) {
            Some(ahead) => start + word_run(u128::from_le_bytes(ahead.try_into().unwrap_or_default())),
            None => start + 1,
        };
        while end < bytes.len() && !matches!(FOLD[bytes[end] as usize], 0 | NOT_ASCII) {
            end += 1;
        }
        if end < bytes.len() && FOLD[bytes[end] as usize] == NOT_ASCII {
            // The word may go on with a letter of another script: `next_word` decides.
            general_word(text, &mut at, scratch, &mut each);
            continue;
        }
        at = end;
        let len = end - start;
        if len <= SHORT_WORD {
            each(WordKey::Short(pack_ascii(bytes, start, len)));
        } else if len <= MAX_WORD {
            let word = &text[start..end];
            if word.bytes().any(|b| b.is_ascii_uppercase()) {
                scratch.clear();
                scratch.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
                each(WordKey::Long(scratch));
            } else {
                each(WordKey::Long(word));
            }
        }
    }
}

/// How many of the 16 bytes of `chunk` (little-endian), from the first, are ASCII letters or
/// digits — the bytes `FOLD` keeps in a word —, found with a few operations on the whole chunk
/// instead of a table lookup and a branch per byte (the branch at a word's end is mispredicted
/// at every word: docs/benchmarks.md, "Forty-fifth session"). Each byte's bit 7 says whether it
/// is one: its low seven bits plus `0x80 - lo` reach bit 7 exactly when they are at least `lo`,
/// and never carry into the next byte.
fn word_run(chunk: u128) -> usize {
    const fn splat(b: u8) -> u128 {
        u128::from_le_bytes([b; SHORT_WORD])
    }
    const TOP: u128 = splat(0x80);
    let low = chunk & splat(0x7f);
    let at_least = |x: u128, lo: u8| x.wrapping_add(splat(0x80 - lo)) & TOP;
    let digit = at_least(low, b'0') & !at_least(low, b'9' + 1);
    // Setting bit 5 lower-cases the letters, and moves no other byte into `a`..=`z`.
    let folded = low | splat(0x20);
    let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
    // A byte of another character (bit 7 set) is none, whatever its low bits are.
    let word = (digit | letter) & !(chunk & TOP);
    ((!word & TOP).trailing_zeros() / 8) as usize
}

/// The short key of the ASCII letters and digits `bytes[start..start + len]` (`len` at most
/// `SHORT_WORD`), built in a register: one unaligned load where the text goes on for 16 bytes
/// (filling an array byte by byte and loading it whole stalled on every word). Setting bit 5
/// lower-cases ASCII letters and leaves digits as they are.
fn pack_ascii(bytes: &[u8], start: usize, len: usize) -> u128 {
    let mask = if len == SHORT_WORD { u128::MAX } else { (1u128 << (8 * len)) - 1 };
    let raw = match bytes.get(start..start + SHORT_WORD) {
        Some(ahead) => u128::from_le_bytes(ahead.try_into().unwrap_or_default()),
        None => bytes[start..start + len].iter().rev().fold(0u128, |key, &b| (key << 8) | u128::from(b)),
    };
    (raw | u128::from_le_bytes([0x20; SHORT_WORD])) & mask
}

/// The next word from `*at` as `words` gives it, as its key.
fn general_word(text: &str, at: &mut usize, scratch: &mut String, each: &mut impl FnMut(WordKey<'_>)) {
    let Some(w) = next_word(text, at) else { return };
    let word = &text[w.start..w.end];
    if !w.upper && (w.ascii || !word.chars().any(char::is_uppercase)) {
        return each(WordKey::of(word));
    }
    scratch.clear();
    if w.ascii {
        scratch.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        scratch.push_str(&word.to_lowercase());
    }
    each(WordKey::of(scratch));
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

    /// `word_run` counts the bytes `FOLD` keeps in a word, for every byte value at every place
    /// behind a run, and for chunks of bytes drawn at random.
    #[test]
    fn a_chunks_word_run_is_the_tables() {
        let by_table =
            |chunk: [u8; SHORT_WORD]| chunk.iter().take_while(|&&b| !matches!(FOLD[b as usize], 0 | NOT_ASCII)).count();
        let check =
            |chunk: [u8; SHORT_WORD]| assert_eq!(word_run(u128::from_le_bytes(chunk)), by_table(chunk), "{chunk:?}");
        for b in 0..=255u8 {
            for at in 0..SHORT_WORD {
                for fill in [b'a', b'Z', b'7'] {
                    let mut chunk = [fill; SHORT_WORD];
                    chunk[at] = b;
                    check(chunk);
                }
            }
        }
        // Bytes drawn from the edges of the classes (and the high ones), mostly word bytes.
        let pool = b"09azAZ/:@[`{\x7f\x80\xc3\xff \n_-";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            let mut chunk = [0u8; SHORT_WORD];
            for byte in &mut chunk {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *byte = if state.is_multiple_of(3) {
                    pool[(state >> 8) as usize % pool.len()]
                } else {
                    b'a' + (state >> 20) as u8 % 26
                };
            }
            check(chunk);
        }
    }

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
        for text in ["Use `pip install Pillow` — PIL/Pillow, GITHUB_TOKEN 3.11 Ünïcode ÉTÉ straße İx", "", "  ..."]
        {
            assert_eq!(keys(text), want_keys(text), "{text}");
        }
    }

    /// What `for_each_key` gives, each key back as its word.
    fn keys(text: &str) -> Vec<String> {
        let mut seen = Vec::new();
        for_each_key(text, &mut String::new(), |k| {
            seen.push(match k {
                WordKey::Short(key) => {
                    let (bytes, n) = WordKey::short_bytes(key);
                    assert!(n > 0 && bytes[n..].iter().all(|&b| b == 0), "{bytes:?}");
                    String::from_utf8(bytes[..n].to_vec()).unwrap()
                }
                WordKey::Long(w) => {
                    assert!(w.len() > SHORT_WORD || !w.is_ascii(), "{w} fits a short key");
                    w.to_string()
                }
            })
        });
        seen
    }

    fn want_keys(text: &str) -> Vec<String> {
        words(text).map(|(_, w)| w.into_owned()).collect()
    }

    /// The table's tokeniser sees exactly `words`, at every word length around the short key's
    /// and the longest word's, whatever a word starts, ends or is cut by.
    #[test]
    fn the_keyed_words_are_the_words() {
        for n in [1, SHORT_WORD - 1, SHORT_WORD, SHORT_WORD + 1, MAX_WORD, MAX_WORD + 1] {
            for (pre, post) in [("", ""), (" ", "."), ("é", "é"), ("—", "—"), ("x", "K"), ("\u{212a}", "İ")] {
                let text = format!("{pre}{}{post} {}Z", "aB3".repeat(n).get(..n).unwrap(), "q".repeat(n));
                assert_eq!(keys(&text), want_keys(&text), "{text:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn lines_are_str_lines(text in "[a\r\n]{0,12}") {
            proptest::prop_assert_eq!(lines(&text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>());
        }

        #[test]
        fn keyed_words_are_words_on_any_text(text in "([a-zA-Z0-9]{1,20}|[ _.\n—]|[éÉßİ\u{212a}\u{3000}日本]|\\PC){0,40}") {
            proptest::prop_assert_eq!(keys(&text), want_keys(&text));
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
                let Ok(whole) = store.storage().read(&e.path) else { continue };
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
