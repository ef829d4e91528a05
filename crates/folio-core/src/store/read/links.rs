//! Extracting links from a markdown body with pulldown-cmark: markdown links and wikilinks,
//! outside code spans and code blocks, with byte spans and positions.
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::store::model::entity::{Link, LinkSyntax};
use crate::store::model::lines::LineIndex;

pub use super::link_scan::MAX_LINKS;

/// How much of a body the full markdown parser reads: its tree costs many times the text, so
/// a hostile multi-megabyte body the line scanner cannot take is parsed only this far.
pub const MAX_PARSED_BODY: usize = 1 << 20;

/// Links in `text[body_start..]`. Spans are offsets into `text`.
pub fn extract(text: &str, body_start: usize, lines: &LineIndex) -> Vec<Link> {
    extract_bounded(text, body_start, lines).0
}

/// `extract`, with what was left out when the body is past the bounds (`MAX_LINKS` links, or
/// `MAX_PARSED_BODY` bytes for the full parser), said as a sentence for a `too-large` problem.
pub fn extract_bounded(text: &str, body_start: usize, lines: &LineIndex) -> (Vec<Link>, Option<String>) {
    let body = &text[body_start.min(text.len())..];
    // Most of the cost of link extraction is the markdown parse; a body without `[` or `<`
    // cannot hold a link, so it is skipped outright, and ordinary bodies take the line
    // scanner, which gives the same links far cheaper.
    if memchr::memchr2(b'[', b'<', body.as_bytes()).is_none() {
        return (Vec::new(), None);
    }
    let (mut links, mut note) = match super::link_scan::scan(text, body_start) {
        Some(links) => (links, None),
        None if body.len() > MAX_PARSED_BODY => {
            let mut cut = body_start.min(text.len()) + MAX_PARSED_BODY;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let note = format!(
                "its body needs the full markdown parser and is {} bytes; only links in the first {} are followed",
                body.len(),
                MAX_PARSED_BODY
            );
            (extract_with_pulldown(&text[..cut], body_start, lines), Some(note))
        }
        None => (extract_with_pulldown(text, body_start, lines), None),
    };
    if links.len() > MAX_LINKS {
        links.truncate(MAX_LINKS);
        let many = format!("holds more than {MAX_LINKS} links; only the first {MAX_LINKS} are followed");
        note = Some(note.map_or(many.clone(), |n| format!("{n}; {many}")));
    }
    (links, note)
}

/// Links found by a full CommonMark parse (pulldown-cmark): the reference behaviour.
pub fn extract_with_pulldown(text: &str, body_start: usize, lines: &LineIndex) -> Vec<Link> {
    let body = &text[body_start.min(text.len())..];
    let mut links = Vec::new();
    // The link without its label, and the label as the text events arrive.
    let mut open: Option<(Link, String)> = None;
    // Whether the open link is an embed, which an image's end closes (a link's end otherwise).
    let mut embed = false;
    let parser = Parser::new_ext(body, Options::ENABLE_WIKILINKS | Options::ENABLE_TABLES);
    for (event, range) in parser.into_offset_iter() {
        match event {
            // An embed (`![[note]]`, `![[diagram.png]]`) links its target as a wikilink does.
            Event::Start(tag @ (Tag::Link { .. } | Tag::Image { link_type: LinkType::WikiLink { .. }, .. })) => {
                embed = matches!(tag, Tag::Image { .. });
                let (Tag::Link { link_type, dest_url, .. } | Tag::Image { link_type, dest_url, .. }) = tag else {
                    continue;
                };
                let syntax = match link_type {
                    LinkType::WikiLink { .. } => LinkSyntax::Wiki,
                    LinkType::Email => continue,
                    _ => LinkSyntax::Markdown,
                };
                // `[[B\|bee]]` in a table: the backslash escapes the cell's pipe, not the name.
                let dest_url = match dest_url.strip_suffix('\\') {
                    Some(name) if syntax == LinkSyntax::Wiki => name.to_string().into(),
                    _ => dest_url,
                };
                let start = body_start + range.start;
                let (line, col) = lines.position(start);
                let span = start as u32..(body_start + range.end) as u32;
                open = Some((Link::new(syntax, &dest_url, None, span, line, col), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, label)) = open.as_mut() {
                    label.push_str(&t);
                }
            }
            Event::End(end @ (TagEnd::Link | TagEnd::Image)) if embed == (end == TagEnd::Image) => {
                if let Some((link, label)) = open.take() {
                    let label = label.trim();
                    let same_as_target = link.syntax == LinkSyntax::Wiki && label == link.target();
                    if label.is_empty() || same_as_target {
                        links.push(link);
                    } else {
                        let span = link.span.clone();
                        links.push(Link::new(link.syntax, link.target(), Some(label), span, link.line, link.col));
                    }
                }
            }
            _ => {}
        }
        if links.len() > MAX_LINKS {
            break;
        }
    }
    links
}

/// Decode `%XX` escapes in a link destination (`My%20Note.md`); invalid escapes stay as written.
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_bomb_is_bounded_and_says_so() {
        // A million-link line: the line scanner's way, then the full parser's (a `<` sends it).
        for tail in ["", " <b>"] {
            let body: String = (0..30_000).map(|i| format!("[[gone-{i}]]{tail} ")).collect();
            let text = format!("# Bomb\n\n{body}\n");
            let (links, note) = extract_bounded(&text, 0, &LineIndex::new(&text));
            assert_eq!(links.len(), MAX_LINKS, "{tail:?}");
            assert_eq!(links[0].target(), "gone-0");
            assert!(note.unwrap().contains("only the first 10000 are followed"));
        }
        let (links, note) = extract_bounded("see [[a]]\n", 0, &LineIndex::new("see [[a]]\n"));
        assert_eq!((links.len(), note), (1, None));
    }

    #[test]
    fn a_huge_body_the_scanner_cannot_take_is_parsed_only_so_far() {
        let block = "<div>x</div> [[far]]\n\n";
        let text = block.repeat(MAX_PARSED_BODY / block.len() + 10);
        let (links, note) = extract_bounded(&text, 0, &LineIndex::new(&text));
        assert!(links.len() < text.len() / block.len(), "links past the bound are not read");
        assert!(note.unwrap().contains("only links in the first 1048576 are followed"));
    }

    fn links(text: &str) -> Vec<Link> {
        extract(text, 0, &LineIndex::new(text))
    }

    #[test]
    fn an_embed_span_opens_at_its_bang_whichever_reader_takes_the_body() {
        // The scanner's line (an embed then a link, which it now answers) and the full
        // parser's (a `<` sends it there): the embed's span is `![[…]]` either way. The fuzz
        // target `links` checks every span's opening (fuzz/regressions/links holds its case).
        for tail in ["", " <b>"] {
            let t = format!("Monthly ![[monthly-template]] then [a](b.md){tail}\n");
            let spans: Vec<&str> = links(&t).iter().map(|l| &t[l.span.start as usize..l.span.end as usize]).collect();
            assert_eq!(spans, ["![[monthly-template]]", "[a](b.md)"], "{tail:?}");
        }
    }

    #[test]
    fn markdown_and_wiki_links_with_positions() {
        let t = "See [users](/tables/users.md) and\n[[other-note|the other]] plus [[plain]].\n";
        let l = links(t);
        assert_eq!(l.len(), 3);
        assert_eq!(l[0].syntax, LinkSyntax::Markdown);
        assert_eq!(l[0].target(), "/tables/users.md");
        assert_eq!(l[0].label(), Some("users"));
        assert_eq!((l[0].line, l[0].col), (1, 5));
        assert_eq!(&t[l[0].span.start as usize..l[0].span.end as usize], "[users](/tables/users.md)");
        assert_eq!(l[1].syntax, LinkSyntax::Wiki);
        assert_eq!(l[1].target(), "other-note");
        assert_eq!(l[1].label(), Some("the other"));
        assert_eq!((l[1].line, l[1].col), (2, 1));
        assert_eq!(l[2].target(), "plain");
        assert_eq!(l[2].label(), None);
    }

    /// Obsidian: embeds link what they show; `\|` in a table escapes the cell's pipe.
    #[test]
    fn embeds_and_table_aliases() {
        let t = "| a | b |\n|---|---|\n| [[B\\|bee]] | ![[dashboard.base]] |\n\n![[Note#Part]] and ![img](x.png) and [![i](y.png)](z.md)\n";
        let l = links(t);
        let got: Vec<(&str, Option<&str>)> = l.iter().map(|l| (l.target(), l.label())).collect();
        assert_eq!(got, [("B", Some("bee")), ("dashboard.base", None), ("Note#Part", None), ("z.md", Some("i"))]);
        assert!(l[..3].iter().all(|l| l.syntax == LinkSyntax::Wiki));
        assert_eq!(&t[l[1].span.start as usize..l[1].span.end as usize], "![[dashboard.base]]");
    }

    #[test]
    fn links_in_code_are_ignored() {
        let t = "`[[no]]` and\n\n```\n[x](y.md)\n```\n\n    [[indented]]\n";
        assert!(links(t).is_empty());
    }

    #[test]
    fn body_offset_is_applied() {
        let t = "---\na: 1\n---\n[x](y.md)\n";
        let l = extract(t, 13, &LineIndex::new(t));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].line, 4);
        assert_eq!(l[0].span.start, 13);
    }

    #[test]
    fn reference_links_and_autolinks() {
        let t = "[a][ref] <https://x.org>\n\n[ref]: other.md\n";
        let l = links(t);
        assert_eq!(l.iter().map(|l| l.target()).collect::<Vec<_>>(), ["other.md", "https://x.org"]);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("My%20Note.md"), "My Note.md");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }
}
