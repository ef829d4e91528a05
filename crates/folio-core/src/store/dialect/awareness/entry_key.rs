//! The awareness framework's entry key: how it names a curated memory entry in recall logs
//! (`curatedHits`) and `memory.used` events. folio computes it the same way so its ids match
//! the framework's (`normalizeEntryText` and `entryKey` in `src/memory-metrics.js`).
use unicode_normalization::UnicodeNormalization;

/// NFD, combining diacritical marks (U+0300–U+036F) removed, lower-cased, runs of whitespace
/// collapsed to one space, trimmed.
pub fn normalize_entry_text(text: &str) -> String {
    let folded: String = text.nfd().filter(|c| !('\u{300}'..='\u{36f}').contains(c)).collect::<String>().to_lowercase();
    collapse_whitespace(&folded)
}

/// djb2 with XOR over the code points of the normalised text, as an unsigned 32-bit number
/// written in base 36 (JavaScript's `((hash * 33) ^ code) >>> 0` wraps exactly like this).
pub fn entry_key(text: &str) -> String {
    let hash = normalize_entry_text(text).chars().fold(5381u32, |h, c| h.wrapping_mul(33) ^ c as u32);
    base36(hash)
}

/// The looser normalisation the framework uses to match candidates against pruned text
/// (`normalizeSearchText` in `src/text.js`): anything but `a-z 0-9 . _ -` becomes a space.
pub fn normalize_search_text(text: &str) -> String {
    let folded: String = text.nfd().filter(|c| !('\u{300}'..='\u{36f}').contains(c)).collect::<String>().to_lowercase();
    let kept: String = folded
        .chars()
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c) { c } else { ' ' })
        .collect();
    collapse_whitespace(&kept)
}

/// JavaScript's `\s` is Unicode white space plus U+FEFF, which Rust does not count.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

fn collapse_whitespace(s: &str) -> String {
    s.split(is_js_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_the_framework() {
        // "a": (5381 * 33) ^ 97 = 177604 = 3·36³ + 29·36² + 1·36 + 16 → "3t1g".
        assert_eq!(entry_key("a"), "3t1g");
        // The empty text hashes to the seed: 5381 = 4·36² + 5·36 + 17 → "45h".
        assert_eq!(entry_key(""), "45h");
        // Values below were computed with the framework's own `entryKey` under Node.js.
        assert_eq!(entry_key("Prefer local-first memory operations"), "1ncexu6");
        assert_eq!(entry_key("  Café   NAÏVE\tdéjà vu "), "473u8o");
        assert_eq!(entry_key("日本語のテスト 😀"), "1qx4c6j");
    }

    #[test]
    fn normalisation_folds_case_accents_and_spaces() {
        assert_eq!(normalize_entry_text("  Café   NAÏVE\tdéjà\u{feff}vu "), "cafe naive deja vu");
        assert_eq!(entry_key("CAFÉ naive"), entry_key("cafe   Naïve"));
        assert_eq!(normalize_search_text("Use `pnpm`, not npm!"), "use pnpm not npm");
    }

    #[test]
    fn base36_edges() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(u32::MAX), "1z141z3");
    }
}
