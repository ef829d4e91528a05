//! Obsidian's additions to markdown, as Obsidian users see them in reading view: comments
//! (`%%…%%`, hidden), highlights (`==…==`), callouts (`> [!type]± Title`), embeds (`![[…]]`)
//! and tags (`#tag`). Applied around pulldown-cmark, which knows none of them.
use super::doc::{Block, DocLink, Embed, Inline, InlineStyle};

/// The body without Obsidian comments. Fenced code is kept as written; a comment left open
/// hides the rest of the body, as in Obsidian.
pub fn strip_comments(body: &str) -> std::borrow::Cow<'_, str> {
    if !body.contains("%%") {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    let mut fence: Option<&str> = None;
    let mut in_comment = false;
    for line in body.split_inclusive('\n') {
        let t = line.trim_start();
        if !in_comment {
            if let Some(f) = fence {
                if t.starts_with(f) {
                    fence = None;
                }
                out.push_str(line);
                continue;
            }
            if let Some(f) = ["```", "~~~"].into_iter().find(|f| t.starts_with(f)) {
                fence = Some(f);
                out.push_str(line);
                continue;
            }
        }
        let commented_from_start = in_comment;
        let mut rest = line;
        let mut kept = String::new();
        while !rest.is_empty() {
            match rest.find("%%") {
                Some(at) => {
                    if !in_comment {
                        kept.push_str(&rest[..at]);
                    }
                    in_comment = !in_comment;
                    rest = &rest[at + 2..];
                }
                None => {
                    if !in_comment {
                        kept.push_str(rest);
                    }
                    rest = "";
                }
            }
        }
        // A line that held only a comment leaves no blank line behind.
        if kept.trim().is_empty() && (commented_from_start || line.contains("%%")) {
            continue;
        }
        if in_comment && !kept.ends_with('\n') {
            kept.push('\n');
        }
        out.push_str(&kept);
    }
    std::borrow::Cow::Owned(out)
}

/// Split runs at matched `==` pairs (an opener followed by a non-space, a closer preceded by
/// one), marking the text between as highlighted. Code spans are left alone.
pub fn highlights(runs: Vec<Inline>) -> Vec<Inline> {
    if !runs.iter().any(|r| !r.style.code && r.text.contains("==")) {
        return runs;
    }
    // Positions of `==` delimiters across the non-code runs: (run, byte offset).
    let mut delims = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if r.style.code {
            continue;
        }
        let mut from = 0;
        while let Some(at) = r.text[from..].find("==") {
            delims.push((i, from + at));
            from += at + 2;
        }
    }
    let char_after = |(i, at): (usize, usize)| -> Option<char> {
        runs[i].text[at + 2..].chars().next().or_else(|| runs.get(i + 1).and_then(|r| r.text.chars().next()))
    };
    let char_before = |(i, at): (usize, usize)| -> Option<char> {
        runs[i].text[..at]
            .chars()
            .next_back()
            .or_else(|| i.checked_sub(1).and_then(|j| runs[j].text.chars().next_back()))
    };
    let mut pairs = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    for d in delims {
        match open {
            None if char_after(d).is_some_and(|c| !c.is_whitespace()) => open = Some(d),
            Some(o) if char_before(d).is_some_and(|c| !c.is_whitespace()) => {
                pairs.push((o, d));
                open = None;
            }
            _ => {}
        }
    }
    if pairs.is_empty() {
        return runs;
    }
    let mut cuts: Vec<(usize, usize, bool)> = Vec::new(); // (run, offset, opens)
    for (o, c) in pairs {
        cuts.push((o.0, o.1, true));
        cuts.push((c.0, c.1, false));
    }
    let mut out = Vec::new();
    let mut on = false;
    let mut next = cuts.iter().peekable();
    for (i, r) in runs.into_iter().enumerate() {
        let mut start = 0;
        while let Some(&&(ri, at, opens)) = next.peek() {
            if ri != i {
                break;
            }
            next.next();
            push_run(&mut out, &r.text[start..at], r.style, on);
            on = opens;
            start = at + 2;
        }
        push_run(&mut out, &r.text[start..], r.style, on);
    }
    out
}

fn push_run(out: &mut Vec<Inline>, text: &str, style: InlineStyle, highlight: bool) {
    if !text.is_empty() {
        out.push(Inline {
            text: text.to_string(),
            style: InlineStyle { highlight: highlight || style.highlight, ..style },
        });
    }
}

/// A callout's header, read from the first line of a quote: `[!type]`, an optional fold mark
/// (`-` folded, `+` open) and an optional title.
#[derive(Debug, Clone, PartialEq)]
pub struct CalloutHead {
    pub kind: String,
    /// `Some(true)` folded by default (`-`), `Some(false)` foldable and open (`+`).
    pub folded: Option<bool>,
    pub title: Vec<Inline>,
}

/// Turn a quote whose first paragraph starts with `[!type]` into a callout. `soft` marks the
/// runs that were line breaks inside the paragraph (the title ends at the first).
pub fn callout(mut inner: Vec<Block>) -> Block {
    // pulldown-cmark hands `[!tip]` over in pieces (`[`, `!tip`, `]`): join equal runs first.
    if let Some(Block::Paragraph(runs)) = inner.first_mut() {
        *runs = joined(std::mem::take(runs));
    }
    let Some(Block::Paragraph(first)) = inner.first() else { return Block::Quote(inner) };
    let Some(head) = first.first().filter(|r| !r.style.code && r.text.starts_with("[!")) else {
        return Block::Quote(inner);
    };
    let Some(close) = head.text.find(']') else { return Block::Quote(inner) };
    let kind = head.text[2..close].trim().to_lowercase();
    if kind.is_empty() || kind.contains(char::is_whitespace) {
        return Block::Quote(inner);
    }
    let Block::Paragraph(mut runs) = inner.remove(0) else { unreachable!("checked above") };
    let mut after = runs[0].text[close + 1..].to_string();
    let folded = match after.chars().next() {
        Some('-') => Some(true),
        Some('+') => Some(false),
        _ => None,
    };
    if folded.is_some() {
        after.remove(0);
    }
    runs[0].text = after.trim_start().to_string();
    // The title is the rest of the first line; what follows a line break is the body.
    let split = runs.iter().position(|r| r.style.soft_break || r.text.contains('\n')).unwrap_or(runs.len());
    let mut body_runs = runs.split_off(split);
    if let Some(first) = body_runs.first_mut() {
        if first.style.soft_break {
            body_runs.remove(0);
        } else if let Some(at) = first.text.find('\n') {
            let (title_part, body_part) = (first.text[..at].to_string(), first.text[at + 1..].to_string());
            runs.push(Inline { text: title_part, style: first.style });
            first.text = body_part;
        }
    }
    runs.retain(|r| !r.text.is_empty());
    body_runs.retain(|r| !r.text.is_empty());
    let mut body = Vec::new();
    if !body_runs.is_empty() {
        body.push(Block::Paragraph(body_runs));
    }
    body.extend(inner);
    Block::Callout { head: CalloutHead { kind, folded, title: runs }, body }
}

/// Adjacent runs of the same style as one run (line breaks stay runs of their own).
fn joined(runs: Vec<Inline>) -> Vec<Inline> {
    let mut out: Vec<Inline> = Vec::with_capacity(runs.len());
    for r in runs {
        match out.last_mut() {
            Some(last) if last.style == r.style && !r.style.soft_break => last.text.push_str(&r.text),
            _ => out.push(r),
        }
    }
    out
}

/// The icon and default title of a callout type (Obsidian's types and their aliases).
pub fn callout_look(kind: &str) -> (&'static str, &'static str) {
    match kind {
        "note" => ("✎", "Note"),
        "abstract" | "summary" | "tldr" => ("≡", "Abstract"),
        "info" => ("ℹ", "Info"),
        "todo" => ("☐", "Todo"),
        "tip" | "hint" | "important" => ("✦", "Tip"),
        "success" | "check" | "done" => ("✔", "Success"),
        "question" | "help" | "faq" => ("?", "Question"),
        "warning" | "caution" | "attention" => ("⚠", "Warning"),
        "failure" | "fail" | "missing" => ("✘", "Failure"),
        "danger" | "error" => ("⚡", "Danger"),
        "bug" => ("🐞", "Bug"),
        "example" => ("◆", "Example"),
        "quote" | "cite" => ("❝", "Quote"),
        _ => ("✎", ""),
    }
}

/// What an embedded file is, by its extension (Obsidian's accepted file types).
pub fn embed_kind(target: &str) -> &'static str {
    let name = target.split(['#', '|']).next().unwrap_or(target);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "" | "md" => "note",
        "png" | "jpg" | "jpeg" | "gif" | "bmp" | "svg" | "webp" | "avif" => "image",
        "pdf" => "PDF",
        "canvas" => "canvas",
        "base" => "base",
        "mp3" | "wav" | "m4a" | "ogg" | "3gp" | "flac" => "audio",
        "mp4" | "webm" | "ogv" | "mov" | "mkv" => "video",
        _ => "file",
    }
}

/// A paragraph that holds nothing but embeds (one per line, as people write them) becomes one
/// embed box each; any other paragraph stays a paragraph, its embeds inline labels.
pub fn paragraph_or_embeds(inlines: Vec<Inline>, links: &[DocLink]) -> Vec<Block> {
    let only_embeds = inlines.iter().any(|i| i.style.embed)
        && inlines.iter().all(|i| (i.style.embed && i.style.link.is_some()) || i.text.trim().is_empty());
    if !only_embeds {
        return vec![Block::Paragraph(inlines)];
    }
    inlines
        .iter()
        .filter_map(|i| i.style.link)
        .filter_map(|l| links.get(l as usize).map(|d| (l, d)))
        .map(|(link, d)| {
            Block::Embed(Embed {
                link,
                target: d.target.clone(),
                kind: embed_kind(&d.target),
                content: None,
                missing: None,
            })
        })
        .collect()
}

/// Split `#tags` out of a text run (a `#` at a word start followed by a letter, digit, `_`,
/// `-` or `/`, not only digits, as Obsidian reads them).
pub fn tags(runs: Vec<Inline>) -> Vec<Inline> {
    let mut out = Vec::with_capacity(runs.len());
    for r in runs {
        if r.style.code || r.style.link.is_some() || !r.text.contains('#') {
            out.push(r);
            continue;
        }
        let text = r.text.as_str();
        let mut start = 0;
        let mut i = 0;
        let bytes = text.as_bytes();
        while i < bytes.len() {
            let at_word_start = i == 0 || bytes[i - 1].is_ascii_whitespace() || bytes[i - 1] == b'(';
            if bytes[i] == b'#' && at_word_start {
                let end = text[i + 1..]
                    .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
                    .map_or(text.len(), |n| i + 1 + n);
                let tag = &text[i + 1..end];
                if !tag.is_empty() && !tag.chars().all(|c| c.is_ascii_digit()) {
                    push_styled(&mut out, &text[start..i], r.style);
                    push_styled(&mut out, &text[i..end], InlineStyle { tag: true, ..r.style });
                    start = end;
                    i = end;
                    continue;
                }
            }
            i += 1;
        }
        push_styled(&mut out, &text[start..], r.style);
    }
    out
}

fn push_styled(out: &mut Vec<Inline>, text: &str, style: InlineStyle) {
    if !text.is_empty() {
        out.push(Inline { text: text.to_string(), style });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::doc::{Block, parse, plain};

    fn callout_of(md: &str) -> (CalloutHead, Vec<Block>) {
        match parse(md).blocks.into_iter().next() {
            Some(Block::Callout { head, body }) => (head, body),
            other => panic!("not a callout: {other:?}"),
        }
    }

    #[test]
    fn callouts_read_type_fold_title_and_body() {
        let (head, body) = callout_of("> [!tip] Use the **cache**\n> It is warm after the first run.\n");
        assert_eq!((head.kind.as_str(), head.folded), ("tip", None));
        assert_eq!(plain(&head.title), "Use the cache");
        assert!(head.title.iter().any(|r| r.text == "cache" && r.style.strong));
        let [Block::Paragraph(p)] = body.as_slice() else { panic!("{body:?}") };
        assert_eq!(plain(p), "It is warm after the first run.");

        let (head, body) = callout_of("> [!WARNING]-\n> Folded by default.\n>\n> - a list\n");
        assert_eq!((head.kind.as_str(), head.folded, head.title.len()), ("warning", Some(true), 0));
        assert_eq!(body.len(), 2, "{body:?}");
        let (head, _) = callout_of("> [!faq]+ Open\n");
        assert_eq!((head.folded, plain(&head.title).as_str()), (Some(false), "Open"));
    }

    #[test]
    fn plain_quotes_and_bracketed_text_stay_quotes() {
        for md in ["> just a quote\n", "> [not a callout] x\n", "> [! ] x\n", "> `[!tip]` code\n"] {
            assert!(matches!(parse(md).blocks[0], Block::Quote(_)), "{md}");
        }
    }

    #[test]
    fn comments_are_hidden_but_not_inside_code() {
        let body = "a %%hidden%% b\n%%\nblock comment\n%%\nc\n```\n%% kept %%\n```\n";
        assert_eq!(strip_comments(body), "a  b\nc\n```\n%% kept %%\n```\n");
        assert_eq!(strip_comments("no comments"), "no comments");
        assert_eq!(strip_comments("open %% rest\nof it\n"), "open \n");
    }

    #[test]
    fn highlights_need_tight_delimiters() {
        let Block::Paragraph(p) = &parse("keep ==this== and a == b == c\n").blocks[0] else { panic!() };
        let lit: Vec<_> = p.iter().filter(|r| r.style.highlight).map(|r| r.text.as_str()).collect();
        assert_eq!(lit, ["this"]);
        assert_eq!(plain(p), "keep this and a == b == c");
        let Block::Paragraph(p) = &parse("==**bold** inside==\n").blocks[0] else { panic!() };
        assert!(p.iter().all(|r| r.style.highlight), "{p:?}");
        let Block::Paragraph(p) = &parse("`a==b` ==x\n").blocks[0] else { panic!() };
        assert!(p.iter().all(|r| !r.style.highlight), "unmatched and code delimiters do nothing");
    }

    #[test]
    fn embeds_are_labelled_links() {
        let doc =
            parse("See ![[dashboard.base]] and ![[Wiki Map.canvas]] and ![[pic.png]] and ![[Other note#Part]].\n");
        let Block::Paragraph(p) = &doc.blocks[0] else { panic!() };
        let text = plain(p);
        for label in
            ["⧉ base: dashboard.base", "⧉ canvas: Wiki Map.canvas", "⧉ image: pic.png", "⧉ note: Other note#Part"]
        {
            assert!(text.contains(label), "{text}");
        }
        assert_eq!(doc.links.len(), 4);
        assert!(doc.links.iter().all(|l| l.wiki));
        assert_eq!(embed_kind("report.PDF"), "PDF");
        assert_eq!(embed_kind("clip.mp4"), "video");
    }

    #[test]
    fn tags_are_marked_but_not_headings_numbers_or_anchors() {
        let Block::Paragraph(p) = &parse("Filed under #agents/memory and #todo, issue #42, a#b.\n").blocks[0] else {
            panic!()
        };
        let tags: Vec<_> = p.iter().filter(|r| r.style.tag).map(|r| r.text.as_str()).collect();
        assert_eq!(tags, ["#agents/memory", "#todo"]);
    }
}
