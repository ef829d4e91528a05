//! Byte offset → line/column lookup for one file, and line tests the parsers share.

/// `s.trim().is_empty()` without decoding characters from both ends: the parsers ask it of
/// every line (a million times per 10k files), and nearly every line answers at its first byte.
pub fn is_blank(s: &str) -> bool {
    // The ASCII characters `char::is_whitespace` accepts: U+0009..U+000D and the space.
    let ascii_blank = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
    match s.bytes().find(|b| !ascii_blank(b)) {
        None => true,
        Some(b) if b.is_ascii() => false,
        // Unicode whitespace (NBSP, NEL, em space…) counts too, as for `trim`.
        Some(_) => s.trim().is_empty(),
    }
}

/// Start offsets of every line of a text, for turning byte offsets into 1-based positions.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1));
        LineIndex { starts }
    }

    /// 1-based (line, column); the column counts bytes from the line start, plus one.
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset as u32;
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - self.starts[line] + 1)
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.starts.get(line.checked_sub(1)? as usize).map(|&s| s as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        let idx = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(idx.position(0), (1, 1));
        assert_eq!(idx.position(1), (1, 2));
        assert_eq!(idx.position(3), (2, 1));
        assert_eq!(idx.position(6), (3, 1));
        assert_eq!(idx.position(8), (4, 2));
        assert_eq!(idx.line_count(), 4);
        assert_eq!(idx.line_start(2), Some(3));
        assert_eq!(idx.line_start(9), None);
    }

    #[test]
    fn blank_means_what_trim_means() {
        for s in
            ["", " ", "\t \r", "\x0b\x0c", "\u{a0}", " \u{2003}\u{85} ", "a", " a ", "\u{a0}x", "é", "\x00", "\x1f "]
        {
            assert_eq!(is_blank(s), s.trim().is_empty(), "{s:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn blank_matches_trim(s in "[ \t\r\x0b\x0c\x00a\u{a0}\u{2003}\u{85}é]{0,8}") {
            proptest::prop_assert_eq!(is_blank(&s), s.trim().is_empty());
        }
    }
}
