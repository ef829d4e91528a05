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
pub fn line(s: &str) -> std::borrow::Cow<'_, str> {
    // Most ids and titles need nothing escaped: borrowed, not copied (`review list` prints 100k).
    if memchr::memchr2(b'\n', b'\t', s.as_bytes()).is_none() {
        return text(s);
    }
    text(s).replace('\n', "\\n").replace('\t', " ").into()
}

/// An id on one line, quoted as JSON quotes it when a reader could not see where it starts or
/// ends or what it holds (`id_as_shown`; `line` would show a tab as a space).
pub fn id(s: &str) -> std::borrow::Cow<'_, str> {
    match folio_core::store::model::entity::id_as_shown(s) {
        std::borrow::Cow::Borrowed(s) => line(s),
        std::borrow::Cow::Owned(quoted) => text(&quoted).into_owned().into(),
    }
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

/// A writer of serialized JSON that passes it through `json` on the way, in chunks: the
/// serializer's many small pieces are gathered first, so the scan for hostile characters runs
/// over large spans (a character split at a chunk's end waits for its rest).
pub struct JsonWriter<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

/// Bytes gathered before they are escaped and written.
const CHUNK: usize = 1 << 16;

impl<W: std::io::Write> JsonWriter<W> {
    pub fn new(inner: W) -> Self {
        JsonWriter { inner, pending: Vec::with_capacity(CHUNK + 1024) }
    }

    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Escape and write what is pending, up to its last whole character (all of it: `all`).
    fn drain(&mut self, all: bool) -> std::io::Result<()> {
        let upto = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            Err(e) if e.error_len().is_none() && !all => e.valid_up_to(),
            // serde_json writes only UTF-8; anything else goes out as it came.
            Err(e) => {
                let (ok, rest) = self.pending.split_at(e.valid_up_to());
                self.inner.write_all(json(std::str::from_utf8(ok).unwrap_or_default()).as_bytes())?;
                self.inner.write_all(rest)?;
                self.pending.clear();
                return Ok(());
            }
        };
        let text = std::str::from_utf8(&self.pending[..upto]).unwrap_or_default();
        self.inner.write_all(json(text).as_bytes())?;
        self.pending.drain(..upto);
        Ok(())
    }
}

impl<W: std::io::Write> std::io::Write for JsonWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= CHUNK {
            self.drain(false)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.drain(true)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_a_reader_could_misread_are_quoted() {
        assert_eq!(id("pb-deploy"), "pb-deploy");
        assert_eq!(id(" pb-deploy "), "\" pb-deploy \"");
        assert_eq!(id(""), "\"\"");
        assert_eq!(id("tab\tid"), "\"tab\\tid\"");
        assert_eq!(id("\tx"), "\"\\tx\"");
        assert_eq!(id(" \u{202e}x"), "\" \\u{202e}x\"", "still escaped");
    }

    proptest::proptest! {
        #[test]
        fn json_written_in_pieces_is_escaped_as_a_whole(text in "(\\PC|[\r\t\n\u{7f}-\u{9f}\u{200b}-\u{200f}\u{2066}\u{feff}\u{2014}]){0,40}", cut in 0usize..200) {
            let whole = serde_json::to_string_pretty(&serde_json::json!({ "text": text })).unwrap();
            let bytes = whole.as_bytes();
            let cut = cut.min(bytes.len());
            let mut w = JsonWriter::new(Vec::new());
            // Past a chunk, so a cut can fall inside a character when the chunk is escaped.
            let pad = " ".repeat(CHUNK - cut.min(CHUNK));
            let whole = format!("{pad}{whole}");
            let bytes = whole.as_bytes();
            let cut = pad.len() + cut;
            std::io::Write::write_all(&mut w, &bytes[..cut]).unwrap();
            std::io::Write::write_all(&mut w, &bytes[cut..]).unwrap();
            std::io::Write::flush(&mut w).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(w.inner).unwrap(), json(&whole).into_owned());
        }

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
        assert_eq!(line("a\tb\x1b[2J"), "a b\\u{1b}[2J");
        assert_eq!(line("\x1b[2J"), "\\u{1b}[2J");
        // Nothing to escape: the text itself, not a copy.
        assert!(matches!(line("plain id"), std::borrow::Cow::Borrowed("plain id")));
    }

    #[test]
    fn json_keeps_the_value_and_escapes_what_serde_leaves_raw() {
        let value = serde_json::json!({"t": "x\u{202e}y\u{9b}z\u{7f}\u{1b}"});
        let printed = json(&serde_json::to_string(&value).unwrap()).into_owned();
        assert_eq!(printed, r#"{"t":"x\u202ey\u009bz\u007f\u001b"}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&printed).unwrap(), value);
    }
}
