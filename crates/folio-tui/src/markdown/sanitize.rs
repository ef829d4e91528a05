//! The one place untrusted store text is made safe for a terminal: control characters, escape
//! sequences, bidi overrides and zero-width characters become visible glyphs, flagged so the
//! view can style them as a warning. Nothing from the store reaches the screen raw.
use folio_core::store::read::hostile::is_hostile;

/// Tabs are expanded to this many spaces (a tab's real width depends on the column).
pub const TAB: &str = "    ";

/// A run of text that is either plain or a visible stand-in for hostile characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub text: String,
    pub hostile: bool,
}

/// How a hostile character is shown: ESC as `␛`, other C0 controls as their control pictures,
/// DEL as `␡`, everything else (C1, bidi, zero-width) as `⟨U+XXXX⟩`.
pub fn glyph(c: char) -> String {
    match c as u32 {
        0x1b => "␛".into(),
        n @ 0..=0x1f => char::from_u32(0x2400 + n).map(String::from).unwrap_or_default(),
        0x7f => "␡".into(),
        n => format!("⟨U+{n:04X}⟩"),
    }
}

/// Split one line of untrusted text into plain and hostile segments. Tabs expand, carriage
/// returns and newlines (callers split lines first) are dropped.
pub fn segments(s: &str) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let mut push = |text: &str, hostile: bool| match out.last_mut() {
        Some(last) if last.hostile == hostile => last.text.push_str(text),
        _ => out.push(Segment { text: text.to_string(), hostile }),
    };
    for c in s.chars() {
        match c {
            '\t' => push(TAB, false),
            '\r' | '\n' => {}
            c if is_hostile(c) => push(&glyph(c), true),
            c => push(c.encode_utf8(&mut [0; 4]), false),
        }
    }
    out
}

/// One line of untrusted text made safe, hostile characters shown as glyphs (for labels,
/// titles and status text where the warning style is not needed).
pub fn line(s: &str) -> String {
    segments(s).into_iter().map(|s| s.text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        let segs = segments("a\x1b[2Jb\tc\u{202e}d\r");
        assert_eq!(
            segs,
            vec![
                Segment { text: "a".into(), hostile: false },
                Segment { text: "␛".into(), hostile: true },
                Segment { text: "[2Jb    c".into(), hostile: false },
                Segment { text: "⟨U+202E⟩".into(), hostile: true },
                Segment { text: "d".into(), hostile: false },
            ]
        );
        assert_eq!(line("bell\x07"), "bell␇");
        assert!(!line("x\u{9b}31m").contains('\u{9b}'));
    }
}
