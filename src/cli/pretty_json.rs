//! Pretty JSON written field by field into one buffer, for output too large for serde's
//! per-field machinery (`review list --json` of a 100k inbox: 57 MB; issue 44). It writes the
//! bytes `serde_json::to_writer_pretty` wrote through `escape::JsonWriter`: two-space indents,
//! serde's escapes in strings, and every other hostile character (DEL, C1, bidi, zero-width)
//! as `\uXXXX`, in the same single pass over each string.
use std::io::Write;

use serde_json::ser::{CompactFormatter, Formatter};

/// Bytes gathered before they are handed to the writer.
const CHUNK: usize = 1 << 16;

pub struct PrettyJson<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// Whether the open array or object at each depth has had no member yet.
    first: Vec<bool>,
    /// serde's `PrettyFormatter::has_value`: a value was written since the last `begin`, so the
    /// closing bracket goes on a line of its own (`[]` and `{}` stay on one).
    has_value: bool,
}

impl PrettyJson<std::io::Sink> {
    /// A writer of one value that another writer puts in `depth` deep (`raw`), written after
    /// what `buf` holds; `into_buf` gives the bytes back.
    pub fn nested(buf: Vec<u8>, depth: usize) -> Self {
        PrettyJson { out: std::io::sink(), buf, first: vec![false; depth], has_value: false }
    }

    pub fn into_buf(self) -> Vec<u8> {
        self.buf
    }
}

impl<W: Write> PrettyJson<W> {
    pub fn new(out: W) -> Self {
        PrettyJson { out, buf: Vec::with_capacity(CHUNK + 4096), first: Vec::new(), has_value: false }
    }

    /// A value put in with `raw`: one rendered apart, at `depth`, by a `nested` writer.
    pub fn raw(&mut self, value: &[u8]) {
        self.buf.extend_from_slice(value);
        self.has_value = true;
    }

    pub fn begin_object(&mut self) {
        self.begin(b'{');
    }

    pub fn end_object(&mut self) {
        self.end(b'}');
    }

    pub fn begin_array(&mut self) {
        self.begin(b'[');
    }

    pub fn end_array(&mut self) {
        self.end(b']');
    }

    /// An object's key (its value follows).
    pub fn key(&mut self, key: &str) {
        self.member();
        string_into(&mut self.buf, &[key]);
        self.buf.extend_from_slice(b": ");
    }

    /// The next element of an array (its value follows).
    pub fn element(&mut self) {
        self.member();
    }

    pub fn str(&mut self, s: &str) {
        self.str_pieces(&[s]);
    }

    /// One string made of `pieces` joined, written without joining them.
    pub fn str_pieces(&mut self, pieces: &[&str]) {
        string_into(&mut self.buf, pieces);
        self.has_value = true;
    }

    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    pub fn u64(&mut self, n: u64) {
        let _ = CompactFormatter.write_u64(&mut self.buf, n);
        self.has_value = true;
    }

    pub fn i64(&mut self, n: i64) {
        let _ = CompactFormatter.write_i64(&mut self.buf, n);
        self.has_value = true;
    }

    /// As serde_json writes an `f64`: shortest round-trip digits, `null` when not finite.
    pub fn f64(&mut self, x: f64) {
        if x.is_finite() {
            let _ = CompactFormatter.write_f64(&mut self.buf, x);
        } else {
            self.buf.extend_from_slice(b"null");
        }
        self.has_value = true;
    }

    pub fn bool(&mut self, b: bool) {
        self.buf.extend_from_slice(if b { b"true" } else { b"false" });
        self.has_value = true;
    }

    pub fn null(&mut self) {
        self.buf.extend_from_slice(b"null");
        self.has_value = true;
    }

    /// Hands what is gathered to the writer once it is a chunk (call between values).
    pub fn write_if_full(&mut self) -> std::io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes what is left, a final newline (as `common::print_json`), and flushes; the writer back.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.buf.push(b'\n');
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn begin(&mut self, open: u8) {
        self.first.push(true);
        self.has_value = false;
        self.buf.push(open);
    }

    fn end(&mut self, close: u8) {
        self.first.pop();
        if self.has_value {
            self.buf.push(b'\n');
            self.indent();
        }
        self.buf.push(close);
        self.has_value = true;
    }

    fn member(&mut self) {
        let first = self.first.last_mut().map(|f| std::mem::replace(f, false)).unwrap_or(true);
        self.buf.extend_from_slice(if first { b"\n" } else { b",\n" });
        self.indent();
    }

    fn indent(&mut self) {
        for _ in 0..self.first.len() {
            self.buf.extend_from_slice(b"  ");
        }
    }
}

/// Whether byte `b` is copied as it is inside a JSON string: not a control, quote, backslash
/// or DEL, and not the first byte of a possibly hostile character (every one above DEL starts
/// with 0xC2, 0xE2 or 0xEF: `read::hostile`). A continuation byte never equals those.
#[inline(always)]
fn plain(b: u8) -> bool {
    (b >= 0x20) & (b != b'"') & (b != b'\\') & (b != 0x7f) & (b != 0xc2) & (b != 0xe2) & (b != 0xef)
}

/// `"pieces joined"`, escaped as serde_json escapes a string and `escape::json` the characters
/// serde leaves raw.
fn string_into(buf: &mut Vec<u8>, pieces: &[&str]) {
    buf.push(b'"');
    for piece in pieces {
        escaped_into(buf, piece);
    }
    buf.push(b'"');
}

fn escaped_into(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    buf.reserve(bytes.len());
    let mut start = 0;
    let mut i = 0;
    loop {
        i = plain_run(bytes, i);
        if i >= bytes.len() {
            break;
        }
        buf.extend_from_slice(&bytes[start..i]);
        // Not plain, so ASCII or a lead byte: `i` is on a character's boundary.
        let c = s[i..].chars().next().unwrap_or_default();
        let short: Option<&[u8]> = match c {
            '"' => Some(b"\\\""),
            '\\' => Some(b"\\\\"),
            '\n' => Some(b"\\n"),
            '\r' => Some(b"\\r"),
            '\t' => Some(b"\\t"),
            '\u{8}' => Some(b"\\b"),
            '\u{c}' => Some(b"\\f"),
            _ => None,
        };
        if let Some(short) = short {
            buf.extend_from_slice(short);
        } else if c < ' ' || super::escape::is_hostile(c) {
            // Every hostile character is in the Basic Multilingual Plane: four digits.
            let n = c as u32;
            buf.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                buf.push(HEX[(n >> shift) as usize & 15]);
            }
        } else {
            buf.extend_from_slice(&bytes[i..i + c.len_utf8()]);
        }
        i += c.len_utf8().max(1);
        start = i;
    }
    buf.extend_from_slice(&bytes[start..]);
}

/// The end of the run of `plain` bytes from `i` on: sixteen bytes at a time, which the
/// compiler tests with vector compares (ids, titles, paths and findings are mostly plain; a
/// byte at a time was a third of `review list --json`'s rendering, docs/benchmarks.md).
fn plain_run(bytes: &[u8], mut i: usize) -> usize {
    const LANES: usize = 16;
    while let Some(chunk) = bytes[i..].first_chunk::<LANES>() {
        if !chunk.iter().fold(true, |all, &b| all & plain(b)) {
            break;
        }
        i += LANES;
    }
    while i < bytes.len() && plain(bytes[i]) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `common::print_json` writes of `value`.
    fn by_serde(value: &serde_json::Value) -> String {
        let mut w = super::super::escape::JsonWriter::new(Vec::new());
        serde_json::to_writer_pretty(&mut w, value).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
        String::from_utf8(w.into_inner()).unwrap()
    }

    /// `value` written by `PrettyJson`, member by member.
    fn by_hand(value: &serde_json::Value) -> String {
        fn put(p: &mut PrettyJson<Vec<u8>>, v: &serde_json::Value) {
            use serde_json::Value::*;
            match v {
                Null => p.null(),
                Bool(b) => p.bool(*b),
                Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                    (Some(u), _, _) => p.u64(u),
                    (_, Some(i), _) => p.i64(i),
                    (_, _, Some(x)) => p.f64(x),
                    _ => p.null(),
                },
                String(s) => p.str(s),
                Array(a) => {
                    p.begin_array();
                    for x in a {
                        p.element();
                        put(p, x);
                    }
                    p.end_array();
                }
                Object(o) => {
                    p.begin_object();
                    for (k, x) in o {
                        p.key(k);
                        put(p, x);
                    }
                    p.end_object();
                }
            }
        }
        let mut p = PrettyJson::new(Vec::new());
        put(&mut p, value);
        String::from_utf8(p.finish().unwrap()).unwrap()
    }

    /// Text with every kind of character serde or the terminal escape treats apart.
    const TEXT: &str = "(\\PC|[\u{0}-\u{1f}\"\\\\\u{7f}-\u{a0}\u{ad}\u{200b}-\u{200f}\u{2028}\u{2029}\u{202a}-\u{202e}\u{2060}-\u{2069}\u{feff}\u{fffd}\u{2014}\u{e9}\u{1f600}]){0,40}";

    fn leaf() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            TEXT.prop_map(serde_json::Value::from),
        ]
    }

    fn value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                proptest::collection::vec((TEXT, inner), 0..6)
                    .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn a_string_is_written_as_serde_and_the_terminal_escape_wrote_it(text in TEXT) {
            let value = serde_json::Value::from(text);
            proptest::prop_assert_eq!(by_hand(&value), by_serde(&value));
        }

        #[test]
        fn a_document_is_written_as_serde_wrote_it(value in value()) {
            proptest::prop_assert_eq!(by_hand(&value), by_serde(&value));
        }

        #[test]
        fn a_string_in_pieces_is_the_string_joined(a in TEXT, b in TEXT) {
            let mut whole = Vec::new();
            string_into(&mut whole, &[&format!("{a}{b}")]);
            let mut pieces = Vec::new();
            string_into(&mut pieces, &[&a, &b]);
            proptest::prop_assert_eq!(pieces, whole);
        }
    }

    #[test]
    fn escapes_controls_quotes_and_hostile_characters() {
        let value = serde_json::json!({
            "t": "a\"b\\c\nd\re\tf\u{8}\u{c}\u{0}\u{1b}[2J\u{7f}\u{85}\u{9b}\u{a0}é\u{200b}\u{202e}\u{2066}\u{feff}\u{2014}😀",
            "empty": [], "none": {}, "n": [1, -2, 0.5, 1e300],
        });
        let hand = by_hand(&value);
        assert_eq!(hand, by_serde(&value));
        assert!(hand.contains(r#""a\"b\\c\nd\re\tf\b\f\u0000\u001b[2J\u007f\u0085\u009b"#), "{hand}");
        assert!(hand.contains("\u{a0}é\\u200b\\u202e\\u2066\\ufeff\u{2014}😀\""), "{hand}");
        assert!(hand.contains("\"empty\": [],\n  \"none\": {},"), "{hand}");
    }

    #[test]
    fn indents_deep_nesting_and_long_plain_runs_alike() {
        let mut value = serde_json::json!(["x".repeat(100), format!("{}\u{1b}{}", "y".repeat(40), "z".repeat(31))]);
        for depth in 0..24 {
            value = serde_json::json!({ format!("level {depth}"): [value, "a\u{202e}b".repeat(depth)] });
        }
        assert_eq!(by_hand(&value), by_serde(&value));
    }

    #[test]
    fn a_character_to_escape_is_found_at_every_place_in_a_long_plain_run() {
        for special in ["\"", "\\", "\n", "\u{0}", "\u{7f}", "\u{85}", "\u{202e}", "\u{feff}", "\u{a0}", "é", "😀"] {
            for at in 0..40 {
                let text = format!("{}{special}{}", "x".repeat(at), "y".repeat(40 - at));
                let value = serde_json::Value::from(text.clone());
                assert_eq!(by_hand(&value), by_serde(&value), "{special:?} after {at} plain bytes");
            }
        }
    }

    #[test]
    fn writes_in_chunks_as_it_goes() {
        let mut p = PrettyJson::new(Vec::new());
        p.begin_array();
        let long = "x".repeat(1000);
        for _ in 0..100 {
            p.element();
            p.str(&long);
            p.write_if_full().unwrap();
        }
        assert!(!p.out.is_empty() && p.buf.len() < CHUNK, "a chunk was handed over");
        p.end_array();
        let written = String::from_utf8(p.finish().unwrap()).unwrap();
        assert_eq!(written, by_serde(&serde_json::json!(vec![long; 100])));
    }
}
