//! Finding content that can hide text from a reviewer or attack a terminal: ESC and other C0
//! controls (except tab, newline, carriage return), DEL, C1 controls, bidi overrides and
//! isolates, zero-width characters.

/// Whether a character is hostile in agent-written content.
pub fn is_hostile(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}')
        // A BOM is only hostile past the start of the file.
        || c == '\u{feff}'
}

/// The first hostile character at or after `from`: (byte offset, character, how many in all).
///
/// Every hostile character is an ASCII control or starts with one of the lead bytes 0xC2 (C1
/// controls), 0xE2 (U+2000 block) or 0xEF (BOM). The text is checked 32 bytes at a time with a
/// branch-free test the compiler vectorises; only a block holding such a byte is decoded. The
/// choice is made per block, not per file: ordinary dashes and quotes (0xE2 …) are in most
/// files, and a file-wide char-by-char scan for them would be paid by nearly every file of a
/// load (docs/benchmarks.md, "Load figures").
pub fn scan(text: &str, from: usize) -> Option<(usize, char, usize)> {
    let from = from.min(text.len());
    let bytes = text.as_bytes();
    let mut first = None;
    let mut count = 0;
    let mut check_block = |start: usize, block: &[u8]| {
        for (k, &b) in block.iter().enumerate() {
            if !maybe_hostile(b) {
                continue;
            }
            let at = start + k;
            // ASCII and lead bytes always start a character.
            let Some(c) = text[at..].chars().next() else { continue };
            if is_hostile(c) && !(c == '\u{feff}' && at == 0) {
                count += 1;
                first.get_or_insert((at, c));
            }
        }
    };
    const BLOCK: usize = 32;
    let mut blocks = bytes[from..].chunks_exact(BLOCK);
    let mut start = from;
    for block in blocks.by_ref() {
        let block: &[u8; BLOCK] = block.try_into().expect("chunks_exact yields whole blocks");
        // Most blocks are printable ASCII and newlines: one cheap test rules them out, and
        // only blocks with a tab, a CR, a control or a non-ASCII byte take the full test
        // (the full test is dearer, and most blocks of most files need only the cheap one).
        if block.iter().fold(false, |any, &b| any | unusual(b))
            && block.iter().fold(false, |any, &b| any | maybe_hostile(b))
        {
            check_block(start, block);
        }
        start += BLOCK;
    }
    check_block(start, blocks.remainder());
    first.map(|(i, c)| (i, c, count))
}

/// Whether any character of `text` is hostile, a BOM at its start too: `chars().any(is_hostile)`
/// by `scan`'s blocks (a lint report's JSON is escaped for the terminal whole, and decoding
/// every character of it would be a good share of the lint: docs/benchmarks.md, "Lint figures").
pub fn has_hostile(text: &str) -> bool {
    text.starts_with('\u{feff}') || scan(text, 0).is_some()
}

/// Anything but printable ASCII and `\n` (a superset of `maybe_hostile`, tested in fewer steps).
#[inline(always)]
fn unusual(b: u8) -> bool {
    (b.wrapping_sub(0x20) > 0x5e) & (b != b'\n')
}

/// Whether `b` can start a hostile character (bitwise operators keep it branch-free).
#[inline(always)]
fn maybe_hostile(b: u8) -> bool {
    (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r') | (b == 0x7f) | (b == 0xc2) | (b == 0xe2) | (b == 0xef)
}

/// Whether `c` is a zero-width character: invisible, but it neither reorders text (as bidi
/// overrides do) nor drives a terminal (as controls do).
pub fn is_invisible_only(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// The first hostile character at or after `from` that is not merely invisible.
pub fn first_dangerous(text: &str, from: usize) -> Option<(usize, char)> {
    text.get(from..)?.char_indices().map(|(i, c)| (from + i, c)).find(|&(_, c)| is_hostile(c) && !is_invisible_only(c))
}

/// How a hostile character is named in messages.
pub fn describe(c: char) -> String {
    let name = match c {
        '\u{1b}' => "ESC (escape sequence)",
        '\u{7}' => "BEL",
        '\u{8}' => "backspace",
        '\u{0}' => "NUL",
        '\u{80}'..='\u{9f}' => "C1 control",
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => "bidi override",
        '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' => "zero-width character",
        _ => "control character",
    };
    format!("U+{:04X} {name}", c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_escapes_bidi_and_zero_width() {
        assert_eq!(scan("plain text\n\twith tab\r\n", 0), None);
        assert_eq!(scan("a\x1b[2Jb\x1b", 0), Some((1, '\u{1b}', 2)));
        assert_eq!(scan("ok \u{202e}evil", 0), Some((3, '\u{202e}', 1)));
        assert_eq!(scan("x\u{200b}y", 0), Some((1, '\u{200b}', 1)));
        assert_eq!(scan("x\u{9b}y", 0), Some((1, '\u{9b}', 1)));
        assert_eq!(scan("\u{feff}bom at start is fine", 0), None);
        assert_eq!(scan("é — “quotes” … ✓", 0), None);
        let long = format!("{}\u{202e}{}\x1b", "— ab".repeat(20), "c".repeat(40));
        assert_eq!(scan(&long, 0), Some((120, '\u{202e}', 2)));
        assert_eq!(scan(&long, 123), Some((163, '\u{1b}', 1)));
    }

    /// The char-by-char definition the block scan must agree with.
    fn reference(text: &str, from: usize) -> Option<(usize, char, usize)> {
        let hits: Vec<(usize, char)> = text[from..]
            .char_indices()
            .map(|(i, c)| (i + from, c))
            .filter(|&(i, c)| is_hostile(c) && !(c == '\u{feff}' && i == 0))
            .collect();
        hits.first().map(|&(i, c)| (i, c, hits.len()))
    }

    #[test]
    fn unusual_covers_every_byte_that_may_be_hostile() {
        for b in 0..=u8::MAX {
            assert!(!maybe_hostile(b) || unusual(b), "{b:#x}");
        }
        assert!(!unusual(b'\n') && !unusual(b' ') && !unusual(b'~') && unusual(0x7f) && unusual(b'\t'));
    }

    proptest::proptest! {
        #[test]
        fn block_scan_matches_char_scan(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "plain words ", "\n", "\t", "\r\n", "—", "“q”", "é", "\u{1b}", "\u{7f}", "\u{85}",
                "\u{a0}", "\u{200b}", "\u{202e}", "\u{2066}", "\u{2014}", "\u{feff}", "\u{fffd}", "\u{0}",
            ]), 0..80),
            from_frac in 0.0f64..1.0,
        ) {
            let text: String = parts.concat();
            let mut from = (text.len() as f64 * from_frac) as usize;
            while !text.is_char_boundary(from) {
                from -= 1;
            }
            proptest::prop_assert_eq!(scan(&text, from), reference(&text, from));
        }
    }
}
