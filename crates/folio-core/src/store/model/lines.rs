//! Byte offset → line/column lookup for one file, and the line and byte searches the parsers share.
use std::cell::OnceCell;

/// `s.trim().is_empty()` without decoding characters from both ends: the parsers ask it of
/// every line of every file, and nearly every line answers at its first byte.
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

/// `s.trim()`, answered without decoding when both ends are visible ASCII (most values):
/// the Unicode trim decodes every character, and it is asked of every YAML value and link
/// (docs/benchmarks.md, "Load figures").
pub fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(f), Some(l)) if f.is_ascii_graphic() && l.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// Lines with their `\n` (the memchr crate's search is faster than the standard library's
/// for `split_inclusive`). A plain iterator over the rest of the text: a `memchr_iter` chained
/// with the last line costs more per line than the search (docs/benchmarks.md, "Load figures").
pub fn split_lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

pub struct Lines<'t> {
    rest: &'t str,
}

impl<'t> Iterator for Lines<'t> {
    type Item = &'t str;

    #[inline]
    fn next(&mut self) -> Option<&'t str> {
        if self.rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', self.rest.as_bytes()).map_or(self.rest.len(), |i| i + 1);
        let (line, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(line)
    }
}

/// `text.lines()`: each line without its `\n` or `\r\n`, on `split_lines` (the standard
/// library's per-line search costs more than the short lines of a frontmatter block:
/// docs/benchmarks.md, "Load figures").
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    split_lines(text).map(|line| match line.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => line,
    })
}

/// `s.split_once(c)` for an ASCII `c`, found by memchr (the standard library's search of a
/// short line costs more than the line).
pub fn split_once_ascii(s: &str, c: u8) -> Option<(&str, &str)> {
    debug_assert!(c.is_ascii());
    memchr::memchr(c, s.as_bytes()).map(|i| (&s[..i], &s[i + 1..]))
}

/// Where `bb` (`[[` or `]]`) first starts in `text` at or after `from`: memchr to each `b`
/// instead of `memmem::find`, which builds a searcher per call, and a vault asks once per
/// wikilink (docs/benchmarks.md, "Link scan figures").
pub fn find_double(text: &str, from: usize, b: u8) -> Option<usize> {
    find_pair(text, from, b, b)
}

/// Where the two ASCII bytes `a` then `b` first stand side by side in `text` at or after
/// `from` (`str::find` of a two-byte string, without a searcher built per call).
pub fn find_pair(text: &str, from: usize, a: u8, b: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(i) = memchr::memchr(a, bytes.get(at..)?) {
        let i = at + i;
        if bytes.get(i + 1) == Some(&b) {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// Start offsets of every line of a text, for turning byte offsets into 1-based positions.
/// Built on the first question: most files are parsed without asking for any position (the
/// line scanner counts lines itself), and building one for every file would be paid by
/// every load (docs/benchmarks.md, "Load figures").
#[derive(Debug, Clone, Default)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: OnceCell<Vec<u32>>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        LineIndex { text, starts: OnceCell::new() }
    }

    fn starts(&self) -> &[u32] {
        self.starts.get_or_init(|| {
            let mut starts = Vec::with_capacity(self.text.len() / 40 + 1);
            starts.push(0);
            starts.extend(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i as u32 + 1));
            starts
        })
    }

    /// 1-based (line, column); the column counts bytes from the line start, plus one.
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let starts = self.starts();
        let offset = offset as u32;
        let line = match starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - starts[line] + 1)
    }

    pub fn line_count(&self) -> usize {
        self.starts().len()
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.starts().get(line.checked_sub(1)? as usize).map(|&s| s as usize)
    }
}

/// `LineIndex::new(text).position(offset)` without building the index: a count of the line
/// breaks before `offset` (for one position in a file, such as where its body starts).
pub fn position_of(text: &str, offset: usize) -> (u32, u32) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = memchr::memchr_iter(b'\n', before).count() as u32 + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    (line, (offset - line_start) as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_double_bracket_is_found_where_str_find_finds_it() {
        for head in ["", "[", "[[", "a[b[[c", "[a]]", "x]]]]", "[[[", "é[[ü]]", "[x[y[[z", "a](b]](", "]]("] {
            for b in [b'[', b']'] {
                let pair = String::from_utf8(vec![b, b]).unwrap();
                for from in 0..=head.len() {
                    let expected = head.get(from..).and_then(|rest| rest.find(&pair)).map(|i| from + i);
                    if head.is_char_boundary(from) {
                        assert_eq!(find_double(head, from, b), expected, "{head:?} from {from}");
                        let pair = format!("{}(", char::from(b));
                        let expected = head.get(from..).and_then(|rest| rest.find(&pair)).map(|i| from + i);
                        assert_eq!(find_pair(head, from, b, b'('), expected, "{head:?} from {from}");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn lines_split_as_split_inclusive(s in "[a\n\r]{0,12}") {
            let ours: Vec<&str> = split_lines(&s).collect();
            let std: Vec<&str> = s.split_inclusive('\n').collect();
            proptest::prop_assert_eq!(ours, std, "{:?}", s);
        }

        #[test]
        fn lines_are_str_lines(s in "[a\n\r]{0,12}") {
            let ours: Vec<&str> = lines(&s).collect();
            let std: Vec<&str> = s.lines().collect();
            proptest::prop_assert_eq!(ours, std, "{:?}", s);
        }

        #[test]
        fn split_once_ascii_is_str_split_once(s in "[a:\n\u{e9}]{0,8}") {
            proptest::prop_assert_eq!(split_once_ascii(&s, b':'), s.split_once(':'));
        }

        #[test]
        fn trim_is_str_trim(s in "[ a\t\n\u{a0}\u{3000}é.]{0,6}") {
            proptest::prop_assert_eq!(trim(&s), s.trim());
        }
    }

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
    fn one_position_without_the_index_is_the_same() {
        let t = "ab\ncd\n\nef\n";
        let idx = LineIndex::new(t);
        for offset in 0..=t.len() {
            assert_eq!(position_of(t, offset), idx.position(offset), "{offset}");
        }
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

/// `new` (an edit of `old`) with the lines it added ending as `old`'s lines end: when `old`
/// ends its first line with `\r\n`, every bare `\n` in the changed middle (what is not `old`'s
/// own prefix or suffix) becomes `\r\n`. A writer that knows only `\n` then keeps a CRLF file
/// CRLF; an LF file (or a new one) is returned as it is.
pub fn follow_line_endings(old: &str, new: String) -> String {
    let crlf = old.find('\n').is_some_and(|i| old[..i].ends_with('\r'));
    if !crlf || !new.contains('\n') {
        return new;
    }
    // The unchanged lines at both ends, cut at line starts so the middle holds whole lines.
    let prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    let start = new[..prefix].rfind('\n').map_or(0, |i| i + 1);
    let room = old.len().min(new.len()) - prefix;
    let suffix = old.bytes().rev().zip(new.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
    let mut end = new.len() - suffix;
    if end > start && new.as_bytes()[end - 1] != b'\n' {
        end = new[end..].find('\n').map_or(new.len(), |i| end + i + 1);
    }
    let (head, rest) = new.split_at(start);
    let (middle, tail) = rest.split_at(end - start);
    let mut out = String::with_capacity(new.len() + middle.matches('\n').count());
    out.push_str(head);
    let mut prev = None;
    for c in middle.chars() {
        if c == '\n' && prev != Some('\r') {
            out.push('\r');
        }
        out.push(c);
        prev = Some(c);
    }
    out.push_str(tail);
    out
}

#[cfg(test)]
mod line_ending_tests {
    use super::follow_line_endings;

    #[test]
    fn added_lines_end_as_the_file_does() {
        let old = "# Log\r\n\r\n## a\r\n- one\r\n";
        let appended = format!("{old}\n## b\n- two\n");
        assert_eq!(follow_line_endings(old, appended), "# Log\r\n\r\n## a\r\n- one\r\n\r\n## b\r\n- two\r\n");
        let inserted = "# Log\r\n\r\n## b\n- two\n\n## a\r\n- one\r\n".to_string();
        assert_eq!(follow_line_endings(old, inserted), "# Log\r\n\r\n## b\r\n- two\r\n\r\n## a\r\n- one\r\n");
        let already = format!("{old}- two\r\n");
        assert_eq!(follow_line_endings(old, already.clone()), already);
        let lf = "# Log\n- one\n";
        assert_eq!(follow_line_endings(lf, format!("{lf}- two\n")), "# Log\n- one\n- two\n");
        assert_eq!(follow_line_endings("", "a\nb\n".into()), "a\nb\n");
        // A whole new text (a regenerated catalog) over a CRLF one: every line.
        assert_eq!(follow_line_endings("# T\r\n* a\r\n", "# T\n* b\n* a\n".into()), "# T\r\n* b\r\n* a\r\n");
        assert_eq!(follow_line_endings("x\r\ny\r\n", "z\n".into()), "z\r\n");
    }
}
