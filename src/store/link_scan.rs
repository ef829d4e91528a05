//! A line scanner for the links in ordinary agent-written markdown: inline `[label](dest)`
//! links and `[[target]]` / `[[target|alias]]` wikilinks, outside fenced code and code spans.
//!
//! It answers only for bodies where it is certain to find exactly what pulldown-cmark finds;
//! anything that needs the full CommonMark machinery — HTML and autolinks (`<`), escapes,
//! entities in links, reference definitions, indented code, fences inside containers, nested
//! brackets, emphasis or line breaks inside labels, link titles, code spans across lines,
//! wikilinks inside tables — returns `None` and the caller runs pulldown-cmark. Measured on
//! generated OKF bundles it is ~8× cheaper than the full parse.
use super::entity::{Link, LinkSyntax, Resolution};
use super::lines::LineIndex;

/// Links in `text[body_start..]`, or `None` when the body needs the full parser.
pub fn scan(text: &str, body_start: usize, lines: &LineIndex) -> Option<Vec<Link>> {
    let body = &text[body_start.min(text.len())..];
    // One memchr-crate pass for the three bytes: `str::contains(char)` goes through std's
    // memchr, which was 5 % of `folio stats` instructions from this line (callgrind, 10k).
    if memchr::memchr3(b'<', b'\\', b'\t', body.as_bytes()).is_some() || table_with_links(body) {
        return None;
    }
    // Searched once per body: most bodies have no four-space run, so lines skip that check.
    let four_spaces = memchr::memmem::find(body.as_bytes(), b"    ").is_some();
    let mut links = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = body_start;
    for raw in split_lines(body) {
        let line_start = offset;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (fence_char, run) = fence_marker(line);
        if let Some((c, len)) = fence {
            if fence_char == Some(c) && run >= len && line[run..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if let Some(c) = fence_char {
            if c == b'`' && line[run..].contains('`') {
                return None;
            }
            fence = Some((c, run));
            continue;
        }
        let rest = line.trim_start_matches(' ');
        // Indented code (also after a list marker or `>`), or a fence inside a container
        // (backtick runs are checked with the code spans).
        let bytes = line.as_bytes();
        if four_spaces && memchr::memmem::find(bytes, b"    ").is_some()
            || memchr::memchr(b'~', bytes).is_some() && memchr::memmem::find(bytes, b"~~~").is_some()
        {
            return None;
        }
        if rest.starts_with('[') && rest.contains("]:") {
            return None;
        }
        scan_line(line, line_start, lines, &mut links)?;
    }
    Some(links)
}

/// Lines with their `\n` (the memchr crate's search is several times faster than the
/// standard library's for `split_inclusive`).
pub(crate) fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1).chain(std::iter::once(text.len())).filter_map(
        move |end| {
            let line = (end > start).then(|| &text[start..end]);
            start = end;
            line
        },
    )
}

/// A GFM table (a delimiter row like `|---|---|`) whose paragraph holds brackets: table cells
/// split at `|` before links parse, which breaks `[[target|alias]]`.
fn table_with_links(body: &str) -> bool {
    if memchr::memchr(b'|', body.as_bytes()).is_none() {
        return false;
    }
    let is_delimiter_row = |l: &str| {
        let t = l.trim();
        t.contains('|') && t.contains('-') && t.bytes().all(|b| matches!(b, b'|' | b'-' | b':' | b' '))
    };
    // Paragraph by paragraph (blank-line separated): a table lives inside one.
    let mut para_has_table = false;
    let mut para_has_bracket = false;
    for line in split_lines(body).chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if para_has_table && para_has_bracket {
                return true;
            }
            (para_has_table, para_has_bracket) = (false, false);
            continue;
        }
        para_has_table |= is_delimiter_row(line);
        para_has_bracket |= line.contains('[');
    }
    false
}

/// A fence line at column 0: its character and run length.
fn fence_marker(line: &str) -> (Option<u8>, usize) {
    for c in [b'`', b'~'] {
        let run = line.bytes().take_while(|&b| b == c).count();
        if run >= 3 {
            return (Some(c), run);
        }
    }
    (None, 0)
}

/// Links on one line; `None` when the line holds anything the scanner does not handle.
fn scan_line(line: &str, line_start: usize, lines: &LineIndex, out: &mut Vec<Link>) -> Option<()> {
    let b = line.as_bytes();
    if memchr::memchr2(b'[', b'`', b).is_none() {
        return Some(());
    }
    let code = code_spans(b)?;
    let in_code = |i: usize| code.iter().any(|&(s, e)| i >= s && i < e);
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'[', &b[i..]) {
        let start = i + found;
        if in_code(start) {
            i = start + 1;
            continue;
        }
        if start > 0 && b[start - 1] == b'!' {
            return None;
        }
        let (link, end) = if b.get(start + 1) == Some(&b'[') {
            wikilink(line, start)?
        } else {
            match inline_link(line, start, &code)? {
                Some(found) => found,
                None => {
                    i = start + 1;
                    continue;
                }
            }
        };
        // A code span that starts inside the link and ends outside it changes the parse.
        if code.iter().any(|&(s, e)| s > start && s < end && e > end) {
            return None;
        }
        let (line_no, col) = lines.position(line_start + start);
        out.push(Link { span: (line_start + start) as u32..(line_start + end) as u32, line: line_no, col, ..link });
        i = end;
    }
    Some(())
}

/// Backtick code spans on one line as byte ranges; `None` when a run is left open (it might
/// close on a later line of the paragraph).
fn code_spans(b: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut spans = Vec::new();
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
    Some(spans)
}

/// `[label](dest)` at `start`: `Some(None)` when the brackets are plain text (no `(` right
/// after them), `None` when the construct is beyond the scanner.
fn inline_link(line: &str, start: usize, code: &[(usize, usize)]) -> Option<Option<(Link, usize)>> {
    let b = line.as_bytes();
    let close = start + 1 + memchr::memchr(b']', &b[start + 1..])?;
    if code.iter().any(|&(s, e)| close >= s && close < e) {
        // The bracket that seems to close is code: the real label runs further.
        return None;
    }
    let label = &line[start + 1..close];
    if label.contains('[') {
        return None;
    }
    if b.get(close + 1) != Some(&b'(') {
        // `[text]` with no definitions in the body (those fall back) is just text.
        return Some(None);
    }
    let dest_start = close + 2;
    let dest_end = dest_start + memchr::memchr(b')', &b[dest_start..])?;
    let dest = &line[dest_start..dest_end];
    if dest.contains([' ', '(', '&', '"', '\'']) || !plain_label(label) {
        return None;
    }
    let label = label_text(label);
    let link = Link {
        syntax: LinkSyntax::Markdown,
        target: dest.to_string(),
        label: (!label.is_empty()).then_some(label),
        span: 0..0,
        line: 0,
        col: 0,
        resolution: Resolution::Pending,
    };
    Some(Some((link, dest_end + 1)))
}

/// `[[target]]` or `[[target|alias]]` at `start`.
fn wikilink(line: &str, start: usize) -> Option<(Link, usize)> {
    let inner_start = start + 2;
    let close = inner_start + line[inner_start..].find("]]")?;
    let inner = &line[inner_start..close];
    let after = line.as_bytes().get(close + 2);
    if inner.is_empty() || inner.contains(['[', ']', '`']) || after == Some(&b'(') || after == Some(&b']') {
        return None;
    }
    let (target, alias) = match inner.split_once('|') {
        Some((t, a)) if !a.contains('|') => (t, Some(a)),
        Some(_) => return None,
        None => (inner, None),
    };
    if target.is_empty() || alias.is_some_and(|a| a.is_empty() || !plain_label(a)) || !plain_label(target) {
        return None;
    }
    let label = alias.map(str::trim).filter(|a| !a.is_empty() && *a != target).map(str::to_string);
    let link = Link {
        syntax: LinkSyntax::Wiki,
        target: target.to_string(),
        label,
        span: 0..0,
        line: 0,
        col: 0,
        resolution: Resolution::Pending,
    };
    Some((link, close + 2))
}

/// Label text pulldown-cmark reports verbatim (no emphasis, entities or trailing spaces).
fn plain_label(s: &str) -> bool {
    !s.contains(['*', '_', '&', '!', '~', '<']) && s.trim() == s
}

/// The label as pulldown-cmark's text and code events spell it: code spans without backticks.
fn label_text(label: &str) -> String {
    if !label.contains('`') {
        return label.trim().to_string();
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
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(text: &str) -> Vec<Link> {
        super::super::links::extract_with_pulldown(text, 0, &LineIndex::new(text))
    }

    fn fast(text: &str) -> Option<Vec<Link>> {
        scan(text, 0, &LineIndex::new(text))
    }

    #[test]
    fn agrees_with_pulldown_on_ordinary_bodies() {
        for t in [
            "See [users](/tables/users.md) and\n[[other-note|the other]] plus [[plain]].\n",
            "# H [x](a.md)\n\n- item [y](../b.md#anchor)\n- [`code label`](./c.md) and `[not](link.md)`\n",
            "```sql\n[x](inside.md)\n```\n\nafter [z](z.md) [](empty.md) [t]() [[Daily Order 12]]\n",
            "text [plain brackets] and [x] (y) no links\n~~~\n[[no]]\n~~~\n",
            "unclosed fence\n```\n[a](b.md)\n",
        ] {
            assert_eq!(fast(t).as_ref(), Some(&full(t)), "{t:?}");
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
        ] {
            assert_eq!(fast(t), None, "{t:?}");
        }
    }

    fn piece() -> impl proptest::strategy::Strategy<Value = &'static str> {
        proptest::sample::select(vec![
            "[a](b.md)",
            "[[x]]",
            "[[x|y]]",
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
            "&amp;",
            "1. ",
            "\r\n",
        ])
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
