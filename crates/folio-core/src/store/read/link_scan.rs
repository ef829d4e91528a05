//! A line scanner for the links in ordinary agent-written markdown: inline `[label](dest)`
//! links and `[[target]]` / `[[target|alias]]` wikilinks, outside fenced code and code spans.
//!
//! It answers only for bodies where it is certain to find exactly what pulldown-cmark finds;
//! anything that needs the full CommonMark machinery — HTML and autolinks (`<`), escapes,
//! entities in links, reference definitions, indented code, fences inside containers, nested
//! brackets, emphasis or line breaks inside labels, link titles, code spans across lines,
//! wikilinks inside tables — returns `None` and the caller runs pulldown-cmark. It exists
//! because the full parse of every body costs several times as much (docs/benchmarks.md,
//! "Link scan figures").
use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::store::model::entity::{Link, LinkSyntax};
use crate::store::model::lines::{find_double, is_blank, position_of, split_lines};

/// Searchers built once: `memmem::find` builds one per call, and these two searches run on
/// every body (docs/benchmarks.md, "Link scan figures").
static FOUR_SPACES: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"    "));
static TILDES: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"~~~"));

/// The links of one file that are kept and followed: a hostile file of a million links would
/// otherwise cost memory and findings in proportion (`too-large` says when a file has more).
pub const MAX_LINKS: usize = 10_000;

/// Links in `text[body_start..]`, or `None` when the body needs the full parser.
///
/// One pass over the lines. What a line holds that matters — a `[` or a backtick, a `|`, a
/// four-space run, `~~~` — is known from cursors on the next occurrence of each in the body
/// (`Next`), so a line holding none of them costs only finding its end: searching every line
/// for each of them would cost every body line four searches (docs/benchmarks.md,
/// "Link scan figures"). Line and column come from counting lines as they pass.
pub fn scan(text: &str, body_start: usize) -> Option<Vec<Link>> {
    // Links are gathered in buffers kept by the thread and made at their exact count, sharing
    // one copy of their texts (a `Vec` grown link by link then shrunk for keeping was three
    // allocations a body, and a text per link one allocation each).
    thread_local! {
        static FOUND: std::cell::RefCell<Found> = std::cell::RefCell::default();
    }
    FOUND.with_borrow_mut(|found| {
        found.texts.clear();
        found.raw.clear();
        scan_into(text, body_start, found).map(|()| found.links())
    })
}

/// The links of a body as they are found: their targets and labels one after another in
/// `texts`, and where each is.
#[derive(Default)]
struct Found {
    texts: String,
    raw: Vec<RawLink>,
}

struct RawLink {
    syntax: LinkSyntax,
    /// Target then label, in `texts`.
    text: std::ops::Range<u32>,
    target_len: u32,
    span: std::ops::Range<u32>,
    line: u32,
    col: u32,
}

impl Found {
    /// Record a link's target and label; the caller places it (`span`, `line`, `col`).
    fn push(&mut self, syntax: LinkSyntax, target: &str, label: &str) {
        let start = self.texts.len() as u32;
        self.texts.push_str(target);
        self.texts.push_str(label);
        let text = start..self.texts.len() as u32;
        self.raw.push(RawLink { syntax, text, target_len: target.len() as u32, span: 0..0, line: 0, col: 0 });
    }

    /// The links found, sharing one copy of `texts`; the buffers keep their capacity.
    fn links(&mut self) -> Vec<Link> {
        if self.raw.is_empty() {
            return Vec::new();
        }
        let all: std::sync::Arc<str> = std::sync::Arc::from(self.texts.as_str());
        self.raw.truncate(MAX_LINKS + 1);
        self.raw
            .drain(..)
            .map(|r| Link::in_shared(r.syntax, &all, r.text, r.target_len, r.span, r.line, r.col))
            .collect()
    }
}

/// `scan` into `links`.
fn scan_into(text: &str, body_start: usize, links: &mut Found) -> Option<()> {
    let body_start = body_start.min(text.len());
    let body = &text[body_start..];
    let bytes = body.as_bytes();
    // One memchr-crate pass for the three bytes: `str::contains(char)` goes through std's
    // slower memchr, over every whole body (docs/benchmarks.md, "Link scan figures").
    if memchr::memchr3(b'<', b'\\', b'\t', bytes).is_some() {
        return None;
    }
    let mut marks = Next::new(bytes, |b| memchr::memchr2(b'[', b'`', b));
    let mut pipes = Next::new(bytes, |b| memchr::memchr(b'|', b));
    let mut brackets = Next::new(bytes, |b| memchr::memchr(b'[', b));
    let mut four_spaces = Next::new(bytes, |b| FOUR_SPACES.find(b));
    let mut tildes = Next::new(bytes, |b| TILDES.find(b));
    let any_pipe = pipes.any();
    let mut tables = TableCheck::default();
    // The code spans of the line being scanned, in one buffer for the whole body (table rows
    // of backticked names took an allocation each).
    let mut code = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    // An embed's `![` stays open to the end of its paragraph (`embed_closers`).
    let mut embed_open = false;
    let mut offset = 0;
    // Bodies start on a line of their own; a body starting mid-line gets its columns right too.
    let (mut line_no, mut col_base) = position_of(text, body_start);
    col_base -= 1;
    for raw in split_lines(body) {
        let line_start = offset;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line_end = line_start + line.len();
        let at = (line_no, std::mem::take(&mut col_base));
        line_no += 1;
        if is_blank(line) {
            embed_open = false;
        }
        if any_pipe && tables.line(line, pipes.within(line_start, line_end), brackets.within(line_start, line_end)) {
            return None;
        }
        let (fence_char, run) = fence_marker(line);
        if let Some((c, len)) = fence {
            if fence_char == Some(c) && run >= len && is_blank(&line[run..]) {
                fence = None;
            } else if fence_char.is_none() && line.starts_with(' ') && indented_fence(line, c) {
                // A closing fence may be indented up to three spaces: the full parser decides.
                return None;
            }
            continue;
        }
        if let Some(c) = fence_char {
            if c == b'`' && memchr::memchr(b'`', &line.as_bytes()[run..]).is_some() {
                return None;
            }
            fence = Some((c, run));
            continue;
        }
        // Indented code (also after a list marker or `>`), or a fence inside a container
        // (backtick runs are checked with the code spans).
        if four_spaces.within(line_start, line_end) || tildes.within(line_start, line_end) {
            return None;
        }
        if !marks.within(line_start, line_end) {
            if embed_open && memchr::memchr(b']', line.as_bytes()).is_some() {
                return None;
            }
            continue;
        }
        let rest = line.trim_start_matches(' ');
        if rest.starts_with('[') && memchr::memmem::find(rest.as_bytes(), b"]:").is_some() {
            return None;
        }
        scan_line(line, body_start + line_start, at, links, &mut code, &mut embed_open)?;
    }
    if any_pipe && tables.line("", false, false) {
        return None;
    }
    Some(())
}

/// The next occurrence of something in a body, searched for again only once the lines have
/// passed it: a pattern that a body never holds is searched for once, not once per line.
struct Next<'b, F> {
    bytes: &'b [u8],
    find: F,
    /// Offset of the next occurrence at or after the last line asked about (`bytes.len()`
    /// when there is none).
    at: usize,
}

impl<'b, F: Fn(&[u8]) -> Option<usize>> Next<'b, F> {
    fn new(bytes: &'b [u8], find: F) -> Self {
        let at = find(bytes).unwrap_or(bytes.len());
        Next { bytes, find, at }
    }

    fn any(&self) -> bool {
        self.at < self.bytes.len()
    }

    /// Whether an occurrence starts in `start..end`; lines must be asked about in order.
    fn within(&mut self, start: usize, end: usize) -> bool {
        if self.at < start {
            self.at = (self.find)(&self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
        }
        self.at < end
    }
}

/// A GFM table (a delimiter row like `|---|---|`) whose paragraph holds brackets: table cells
/// split at `|` before links parse, which breaks `[[target|alias]]`. Fed every line of the
/// body (fenced ones too) and a blank one at the end; paragraphs are blank-line separated.
#[derive(Default)]
struct TableCheck {
    has_table: bool,
    has_bracket: bool,
}

impl TableCheck {
    /// Whether the paragraph this line ends is a table holding brackets; `pipe` and `bracket`
    /// say whether the line holds a `|` and a `[`.
    fn line(&mut self, line: &str, pipe: bool, bracket: bool) -> bool {
        if is_blank(line) {
            let found = self.has_table && self.has_bracket;
            *self = TableCheck::default();
            return found;
        }
        self.has_table = self.has_table || pipe && is_delimiter_row(line);
        self.has_bracket |= bracket;
        false
    }
}

fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    memchr::memchr(b'-', t.as_bytes()).is_some() && t.bytes().all(|b| matches!(b, b'|' | b'-' | b':' | b' '))
}

/// A fence line at column 0: its character and run length.
fn fence_marker(line: &str) -> (Option<u8>, usize) {
    let b = line.as_bytes();
    match b.first() {
        Some(&c @ (b'`' | b'~')) => {
            let run = b.iter().take_while(|&&x| x == c).count();
            if run >= 3 { (Some(c), run) } else { (None, 0) }
        }
        _ => (None, 0),
    }
}

/// A run of the fence character after one to three spaces (a possibly closing fence).
fn indented_fence(line: &str, c: u8) -> bool {
    let rest = line.trim_start_matches(' ');
    let indent = line.len() - rest.len();
    (1..=3).contains(&indent) && rest.as_bytes().starts_with(&[c; 3])
}

/// Links on one line: `at` is its 1-based number in the file and the column its first byte
/// is in, minus one. `None` when the line holds anything the scanner does not handle.
/// `embed_open` says whether an embed earlier in the paragraph is open, and is set when this
/// line holds one.
fn scan_line(
    line: &str,
    line_start: usize,
    at: (u32, u32),
    out: &mut Found,
    code: &mut Vec<(usize, usize)>,
    embed_open: &mut bool,
) -> Option<()> {
    let b = line.as_bytes();
    if memchr::memchr2(b'[', b'`', b).is_none() {
        return Some(());
    }
    code_spans(b, code)?;
    let code = &*code;
    let in_code = |i: usize| code.iter().any(|&(s, e)| i >= s && i < e);
    // From where on this line a `]` no construct accounts for would meet an open embed, and
    // how many `]` the constructs from there account for.
    let mut embed_from = embed_open.then_some(0);
    let mut accounted = 0;
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'[', &b[i..]) {
        let start = i + found;
        if in_code(start) {
            i = start + 1;
            continue;
        }
        // `![[note]]`, an Obsidian embed, is a wikilink whose span starts at the `!`; other
        // images (`![alt](x.png)`) and escaped bangs are left to pulldown-cmark.
        let embed = start > 0 && b[start - 1] == b'!';
        if embed && (b.get(start + 1) != Some(&b'[') || (start > 1 && b[start - 2] == b'\\')) {
            return None;
        }
        let end = if b.get(start + 1) == Some(&b'[') {
            wikilink(line, start, out)?
        } else {
            match inline_link(line, start, code, out)? {
                Some(end) => end,
                None => {
                    // Plain brackets: their `]` closes their own `[`, not an embed's.
                    if embed_from.is_some() {
                        accounted += 1;
                    }
                    i = start + 1;
                    continue;
                }
            }
        };
        if embed_from.is_some() {
            accounted += closers(b, start, end, code);
        }
        if embed && embed_from.is_none() {
            embed_from = Some(end);
        }
        // A code span that starts inside the link and ends outside it changes the parse.
        if code.iter().any(|&(s, e)| s > start && s < end && e > end) {
            return None;
        }
        let link = out.raw.last_mut()?;
        let from = if embed { start - 1 } else { start };
        (link.span, link.line, link.col) =
            ((line_start + from) as u32..(line_start + end) as u32, at.0, at.1 + from as u32 + 1);
        i = end;
    }
    // pulldown-cmark keeps an embed's `![` open as an image opener to the end of its
    // paragraph: a `]` that closes no bracket of its own pops it (`![[x]] ](y)` is an image
    // holding the embed, `![[x]]` then `more ](y)` on the next line too), so the full parser
    // decides; `]` that close links and plain brackets after the embed leave it alone.
    if let Some(from) = embed_from {
        if closers(b, from, b.len(), code) > accounted {
            return None;
        }
        *embed_open = true;
    }
    Some(())
}

/// How many `]` in `b[from..to]` lie outside code spans.
fn closers(b: &[u8], from: usize, to: usize, code: &[(usize, usize)]) -> usize {
    memchr::memchr_iter(b']', &b[from..to])
        .filter(|&k| !code.iter().any(|&(s, e)| from + k >= s && from + k < e))
        .count()
}

/// Backtick code spans on one line as byte ranges, into `spans`; `None` when a run is left
/// open (it might close on a later line of the paragraph).
fn code_spans(b: &[u8], spans: &mut Vec<(usize, usize)>) -> Option<()> {
    spans.clear();
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'`', &b[i..]) {
        let open = i + found;
        let run = b[open..].iter().take_while(|&&c| c == b'`').count();
        if run >= 3 {
            // A fence marker after a list marker or `>`: a code block inside a container.
            return None;
        }
        let mut j = open + run;
        let mut close = None;
        while let Some(f) = memchr::memchr(b'`', &b[j..]) {
            let s = j + f;
            let r = b[s..].iter().take_while(|&&c| c == b'`').count();
            if r >= 3 {
                return None;
            }
            if r == run {
                close = Some(s + r);
                break;
            }
            j = s + r;
        }
        let end = close?;
        spans.push((open, end));
        i = end;
    }
    Some(())
}

/// `[label](dest)` at `start`, recorded in `found`: where it ends, `Some(None)` when the
/// brackets are plain text (no `(` right after them), `None` when the construct is beyond
/// the scanner.
fn inline_link(line: &str, start: usize, code: &[(usize, usize)], found: &mut Found) -> Option<Option<usize>> {
    let b = line.as_bytes();
    let close = start + 1 + memchr::memchr(b']', &b[start + 1..])?;
    if code.iter().any(|&(s, e)| close >= s && close < e) {
        // The bracket that seems to close is code: the real label runs further.
        return None;
    }
    let label = &line[start + 1..close];
    if memchr::memchr(b'[', label.as_bytes()).is_some() {
        return None;
    }
    if b.get(close + 1) != Some(&b'(') {
        // `[text]` with no definitions in the body (those fall back) is just text.
        return Some(None);
    }
    let dest_start = close + 2;
    let dest_end = dest_start + memchr::memchr(b')', &b[dest_start..])?;
    let dest = &line[dest_start..dest_end];
    // A fold that vectorises: `any` goes byte by byte, and every link destination passes here.
    let odd = dest.bytes().fold(false, |any, c| any | matches!(c, b' ' | b'(' | b'&' | b'"' | b'\''));
    if odd || !plain_label(label) {
        return None;
    }
    found.push(LinkSyntax::Markdown, dest, &label_text(label));
    Some(Some(dest_end + 1))
}

/// `[[target]]` or `[[target|alias]]` at `start`, recorded in `found`: where it ends.
fn wikilink(line: &str, start: usize, found: &mut Found) -> Option<usize> {
    let inner_start = start + 2;
    let close = find_double(line, inner_start, b']')?;
    let inner = &line[inner_start..close];
    let after = line.as_bytes().get(close + 2);
    if inner.is_empty()
        || inner.bytes().any(|c| matches!(c, b'[' | b']' | b'`'))
        || after == Some(&b'(')
        || after == Some(&b']')
    {
        return None;
    }
    let (target, alias) = match memchr::memchr(b'|', inner.as_bytes()) {
        Some(bar) if memchr::memchr(b'|', &inner.as_bytes()[bar + 1..]).is_none() => {
            (&inner[..bar], Some(&inner[bar + 1..]))
        }
        Some(_) => return None,
        None => (inner, None),
    };
    if target.is_empty() || alias.is_some_and(|a| a.is_empty() || !plain_label(a)) || !plain_label(target) {
        return None;
    }
    // `[[B\|bee]]` in a table: the backslash escapes the cell's pipe, not the name.
    let target = target.strip_suffix('\\').unwrap_or(target);
    if target.is_empty() {
        return None;
    }
    let label = alias.map(str::trim).filter(|a| !a.is_empty() && *a != target);
    found.push(LinkSyntax::Wiki, target, label.unwrap_or_default());
    Some(close + 2)
}

/// Label text pulldown-cmark reports verbatim (no emphasis, entities or trailing spaces).
fn plain_label(s: &str) -> bool {
    let b = s.as_bytes();
    // A test that vectorises, and `trim` only when an end is not ASCII (ASCII ends decide
    // by themselves whether there is white space to trim).
    let special = b.iter().fold(false, |any, &c| any | matches!(c, b'*' | b'_' | b'&' | b'!' | b'~' | b'<'));
    let ascii_space = |c: u8| matches!(c, b'\t'..=b'\r' | b' ');
    !special
        && match (b.first(), b.last()) {
            (Some(&f), Some(&l)) if f.is_ascii() && l.is_ascii() => !ascii_space(f) && !ascii_space(l),
            _ => s.trim() == s,
        }
}

/// The label as pulldown-cmark's text and code events spell it: code spans without backticks.
fn label_text(label: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr(b'`', label.as_bytes()).is_none() {
        // Already trimmed: callers take only labels `plain_label` accepts.
        return label.into();
    }
    let mut out = String::with_capacity(label.len());
    for (k, part) in label.split('`').enumerate() {
        // Odd parts are code span contents; a leading and trailing space pair is stripped.
        if k % 2 == 1 && part.len() >= 2 && part.starts_with(' ') && part.ends_with(' ') && part.trim() != "" {
            out.push_str(&part[1..part.len() - 1]);
        } else {
            out.push_str(part);
        }
    }
    out.trim().to_string().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;

    fn full(text: &str) -> Vec<Link> {
        super::super::links::extract_with_pulldown(text, 0, &LineIndex::new(text))
    }

    fn fast(text: &str) -> Option<Vec<Link>> {
        scan(text, 0)
    }

    #[test]
    fn agrees_with_pulldown_on_ordinary_bodies() {
        for t in [
            "See [users](/tables/users.md) and\n[[other-note|the other]] plus [[plain]].\n",
            "# H [x](a.md)\n\n- item [y](../b.md#anchor)\n- [`code label`](./c.md) and `[not](link.md)`\n",
            "```sql\n[x](inside.md)\n```\n\nafter [z](z.md) [](empty.md) [t]() [[Daily Order 12]]\n",
            "text [plain brackets] and [x] (y) no links\n~~~\n[[no]]\n~~~\n",
            "unclosed fence\n```\n[a](b.md)\n",
            // An embed, then links and plain brackets whose `]` close their own `[`.
            "See ![[p.png]]. See [a](b.md), [[c|d]] and [plain] text.\nmore [e](f.md)\n\n] ](x)\n",
        ] {
            assert_eq!(fast(t).as_ref(), Some(&full(t)), "{t:?}");
        }
    }

    #[test]
    fn positions_match_pulldown_from_any_body_start() {
        let t = "---\na: 1\n---\nx [a](b.md) [[c|d]]\n\nmore [[e]]\r\n[f](g.md)";
        for start in [0, 13, 15, 16, t.len()] {
            let fast = scan(t, start);
            assert_eq!(fast.as_ref(), Some(&super::super::links::extract_with_pulldown(t, start, &LineIndex::new(t))));
        }
    }

    #[test]
    fn hard_bodies_fall_back() {
        for t in [
            "<https://x.org>\n",
            "[a][ref]\n\n[ref]: x.md\n",
            "    [[indented]]\n",
            "> ```\n> [a](b.md)\n",
            "[a\nb](c.md)\n",
            "[*em*](x.md)\n",
            "[a](x.md \"title\")\n",
            "![img](x.png)\n",
            "`open [a](b.md)\nclose`\n",
            "| a | b |\n|---|---|\n| [[x|y]] | z |\n",
            "[a](x\\).md)\n",
            // An embed followed on its line by `](`: pulldown-cmark reads an image there.
            "![[x]]  ]()\n",
            "![[x]] [a] ](y)\n",
            // The embed's `![` is open to the end of the paragraph, on the lines after it too.
            "![[x]]\nmore ](y)\n",
            "![[x]] [a](b.md)\nmore ] ](y)\n",
        ] {
            assert_eq!(fast(t), None, "{t:?}");
        }
    }

    fn piece() -> impl proptest::strategy::Strategy<Value = &'static str> {
        proptest::sample::select(vec![
            "[a](b.md)",
            "[[x]]",
            "[[x|y]]",
            "[[x\\|y]]",
            "![[x]]",
            "![[x|y]]",
            "![[p.png]]",
            "![a](b.png)",
            "| [[B\\|bee]] |",
            "|---|",
            "\\",
            "[[x\\]]",
            "[[Two Words]]",
            "[l](/p/q.md#h)",
            "`",
            "``",
            "```",
            "~~~",
            "\n",
            "\n\n",
            "    ",
            "  ",
            "- ",
            "> ",
            "# ",
            "|",
            "---",
            "[",
            "]",
            "(",
            ")",
            "*",
            "_",
            "word",
            " ",
            "[x]",
            "[^f]",
            "]:",
            "!",
            "[`c`](d.md)",
            "[a]()",
            "](y)",
            "&amp;",
            "1. ",
            "\r\n",
        ])
    }

    proptest::proptest! {
        #[test]
        fn plain_label_is_the_byte_and_trim_test(s in "[ a*_\t\u{a0}\u{3000}é]{0,8}") {
            let reference = !s.bytes().any(|c| matches!(c, b'*' | b'_' | b'&' | b'!' | b'~' | b'<')) && s.trim() == s;
            proptest::prop_assert_eq!(plain_label(&s), reference, "{:?}", s);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Whenever the scanner answers, pulldown-cmark finds exactly the same links.
        #[test]
        fn agrees_with_pulldown_whenever_it_answers(pieces in proptest::collection::vec(piece(), 0..40)) {
            let text: String = pieces.concat();
            if let Some(links) = fast(&text) {
                proptest::prop_assert_eq!(links, full(&text), "{:?}", text);
            }
        }
    }
}
