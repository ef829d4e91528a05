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
pub fn scan(text: &str, from: usize) -> Option<(usize, char, usize)> {
    let bytes = text.as_bytes();
    // Fast path: every hostile character is either an ASCII control or starts with one of the
    // lead bytes 0xC2 (C1 controls), 0xE2 (U+2000 block) or 0xEF (BOM).
    if !bytes[from.min(bytes.len())..].iter().any(|&b| {
        b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r' || b == 0x7f || b == 0xc2 || b == 0xe2 || b == 0xef
    }) {
        return None;
    }
    let mut first = None;
    let mut count = 0;
    for (i, c) in text[from.min(text.len())..].char_indices() {
        if is_hostile(c) && !(c == '\u{feff}' && i + from == 0) {
            count += 1;
            if first.is_none() {
                first = Some((i + from, c));
            }
        }
    }
    first.map(|(i, c)| (i, c, count))
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
    }
}
