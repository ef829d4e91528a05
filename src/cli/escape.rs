//! Making untrusted text safe to print: agent-written content never reaches the terminal as
//! control sequences. Controls, bidi overrides and zero-width characters become visible escapes.

/// Characters that can hide text from a reader or drive a terminal (carriage returns too:
/// they can overwrite a printed line).
pub fn is_hostile(c: char) -> bool {
    c == '\r' || folio_core::store::read::hostile::is_hostile(c)
}

/// `s.chars().any(is_hostile)`, by the loader's block scan.
fn any_hostile(s: &str) -> bool {
    memchr::memchr(b'\r', s.as_bytes()).is_some() || folio_core::store::read::hostile::has_hostile(s)
}

/// Text with every hostile character shown as `\u{…}` (newlines and tabs kept).
pub fn text(s: &str) -> std::borrow::Cow<'_, str> {
    if !any_hostile(s) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hostile(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// One line: like `text`, and newlines and tabs escaped too.
pub fn line(s: &str) -> String {
    text(s).replace('\n', "\\n").replace('\t', " ")
}

/// Serialized JSON with every hostile character left raw by the serializer (DEL, C1, bidi,
/// zero-width) written as a `\uXXXX` escape: the same JSON value, safe on a terminal.
/// They can only occur inside strings, where the escape means the same character.
pub fn json(serialized: &str) -> std::borrow::Cow<'_, str> {
    if !any_hostile(serialized) {
        return serialized.into();
    }
    let mut out = String::with_capacity(serialized.len() + 16);
    for c in serialized.chars() {
        if is_hostile(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn any_hostile_is_any_hostile_char(text in "(\\PC|[\r\t\n\u{7f}-\u{9f}\u{200b}-\u{200f}\u{2066}\u{feff}\u{2014}]){0,80}") {
            proptest::prop_assert_eq!(any_hostile(&text), text.chars().any(is_hostile));
        }
    }

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(text("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(text("x\u{202e}y\u{200b}"), "x\\u{202e}y\\u{200b}");
        assert_eq!(text("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(text("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(line("a\nb"), "a\\nb");
    }

    #[test]
    fn json_keeps_the_value_and_escapes_what_serde_leaves_raw() {
        let value = serde_json::json!({"t": "x\u{202e}y\u{9b}z\u{7f}\u{1b}"});
        let printed = json(&serde_json::to_string(&value).unwrap()).into_owned();
        assert_eq!(printed, r#"{"t":"x\u202ey\u009bz\u007f\u001b"}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&printed).unwrap(), value);
    }
}
