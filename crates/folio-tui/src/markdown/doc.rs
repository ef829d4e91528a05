//! Markdown body → a small document model: blocks of styled inline runs, with every link
//! numbered so the preview can select and follow it. Parsing never fails: whatever
//! pulldown-cmark makes of the text is shown.
use std::iter::Peekable;

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::obsidian::{self, CalloutHead};

/// Inline styling flags; `link` is the index into `Doc::links`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InlineStyle {
    pub strong: bool,
    pub emphasis: bool,
    pub strike: bool,
    pub code: bool,
    pub link: Option<u16>,
    /// Obsidian's `==highlight==`.
    pub highlight: bool,
    /// An Obsidian `#tag`.
    pub tag: bool,
    /// A line break inside a paragraph (drawn as a space; a callout's title ends there).
    pub soft_break: bool,
    /// An Obsidian embed's label (`![[file]]`).
    pub embed: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Inline {
    /// Raw text from the store (sanitised when laid out). `\n` marks a hard break.
    pub text: String,
    pub style: InlineStyle,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Heading {
        level: u8,
        text: Vec<Inline>,
    },
    Paragraph(Vec<Inline>),
    Code {
        lang: String,
        text: String,
    },
    Quote(Vec<Block>),
    /// An Obsidian callout: `> [!type]± Title` and its body.
    Callout {
        head: CalloutHead,
        body: Vec<Block>,
    },
    List {
        start: Option<u64>,
        items: Vec<Item>,
    },
    /// First row is the header; each column's alignment from the delimiter row (`:---:`).
    Table {
        align: Vec<Align>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
    Rule,
    /// An Obsidian embed on a line of its own (`![[note#Section]]`, `![[board.base]]`): a box
    /// naming what it embeds, holding the embedded note's section once it has been read.
    Embed(Embed),
}

/// A table column's alignment, as its delimiter row asks (`---` none, `:--`, `:-:`, `--:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    #[default]
    None,
    Left,
    Center,
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Embed {
    /// Index into `Doc::links`.
    pub link: u16,
    /// As written: `note#Section`, `board.base`.
    pub target: String,
    /// `note`, `image`, `base`, … (`obsidian::embed_kind`).
    pub kind: &'static str,
    /// The embedded note's blocks (its section when the target names one); `None` until read,
    /// or when it is not a note, or could not be read (then `missing` says why).
    pub content: Option<Vec<Block>>,
    pub missing: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// `Some(done)` for task-list items.
    pub task: Option<bool>,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DocLink {
    /// The target as written (wikilink target without alias).
    pub target: String,
    pub wiki: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    pub blocks: Vec<Block>,
    pub links: Vec<DocLink>,
}

/// Links beyond this many are shown as text (a 10 000-link index must not grow the model).
const MAX_LINKS: usize = u16::MAX as usize;

pub fn parse(body: &str) -> Doc {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_WIKILINKS
        | Options::ENABLE_FOOTNOTES;
    let body = obsidian::strip_comments(body);
    let mut events = Parser::new_ext(&body, options).peekable();
    let mut b = Builder { links: Vec::new(), task: None, depth: 0, flattened: 0 };
    let blocks = b.blocks(&mut events, None);
    Doc { blocks, links: b.links }
}

struct Builder {
    links: Vec<DocLink>,
    /// A task marker seen at the start of the current list item.
    task: Option<bool>,
    /// Open quotes and list items around the current block.
    depth: usize,
    /// Containers opened deeper than `MAX_DEPTH`, drawn flat at that depth (their ends are
    /// skipped so they do not close an outer container).
    flattened: usize,
}

/// Quotes and lists nest at most this deep in the preview; deeper content is drawn at this
/// depth (pulldown-cmark accepts any depth, and recursion per level would exhaust the stack).
const MAX_DEPTH: usize = 32;

type Events<'a> = Peekable<Parser<'a>>;

impl Builder {
    /// Blocks until `end` (or the end of input). Loose inline content becomes a paragraph.
    fn blocks(&mut self, ev: &mut Events, end: Option<TagEnd>) -> Vec<Block> {
        let mut out = Vec::new();
        let mut loose: Vec<Inline> = Vec::new();
        let mut style = InlineStyle::default();
        while let Some(e) = ev.next() {
            match e {
                Event::Start(Tag::BlockQuote(_) | Tag::List(_) | Tag::Item) if self.depth >= MAX_DEPTH => {
                    flush(&mut out, &mut loose);
                    self.flattened += 1;
                }
                Event::End(TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item) if self.flattened > 0 => {
                    flush(&mut out, &mut loose);
                    self.flattened -= 1;
                }
                Event::End(t) if Some(t) == end => break,
                Event::Start(Tag::Paragraph) => {
                    flush(&mut out, &mut loose);
                    let inlines = self.inlines(ev, TagEnd::Paragraph);
                    out.extend(obsidian::paragraph_or_embeds(inlines, &self.links));
                }
                Event::Start(Tag::Heading { level, .. }) => {
                    flush(&mut out, &mut loose);
                    let text = self.inlines(ev, TagEnd::Heading(level));
                    out.push(Block::Heading { level: level as u8, text });
                }
                Event::Start(Tag::BlockQuote(_)) => {
                    flush(&mut out, &mut loose);
                    self.depth += 1;
                    let inner = self.blocks(ev, Some(TagEnd::BlockQuote(None)));
                    self.depth -= 1;
                    out.push(obsidian::callout(inner));
                }
                Event::Start(Tag::CodeBlock(kind)) => {
                    flush(&mut out, &mut loose);
                    let lang = match kind {
                        CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or("").to_string(),
                        CodeBlockKind::Indented => String::new(),
                    };
                    let mut text = String::new();
                    for e in ev.by_ref() {
                        match e {
                            Event::Text(t) => text.push_str(&t),
                            Event::End(TagEnd::CodeBlock) => break,
                            _ => {}
                        }
                    }
                    out.push(Block::Code { lang, text });
                }
                Event::Start(Tag::HtmlBlock) => {
                    flush(&mut out, &mut loose);
                    let mut text = String::new();
                    for e in ev.by_ref() {
                        match e {
                            Event::Html(t) | Event::Text(t) => text.push_str(&t),
                            Event::End(TagEnd::HtmlBlock) => break,
                            _ => {}
                        }
                    }
                    out.push(Block::Code { lang: "html".into(), text });
                }
                Event::Start(Tag::List(start)) => {
                    flush(&mut out, &mut loose);
                    let mut items = Vec::new();
                    while let Some(e) = ev.next() {
                        match e {
                            Event::Start(Tag::Item) => {
                                let saved = self.task.take();
                                self.depth += 1;
                                let blocks = self.blocks(ev, Some(TagEnd::Item));
                                self.depth -= 1;
                                items.push(Item { task: self.task.take(), blocks });
                                self.task = saved;
                            }
                            Event::End(TagEnd::List(_)) => break,
                            _ => {}
                        }
                    }
                    out.push(Block::List { start, items });
                }
                Event::Start(Tag::Table(columns)) => {
                    flush(&mut out, &mut loose);
                    let align = columns
                        .iter()
                        .map(|a| match a {
                            pulldown_cmark::Alignment::None => Align::None,
                            pulldown_cmark::Alignment::Left => Align::Left,
                            pulldown_cmark::Alignment::Center => Align::Center,
                            pulldown_cmark::Alignment::Right => Align::Right,
                        })
                        .collect();
                    out.push(Block::Table { align, rows: self.table(ev) });
                }
                Event::Rule => {
                    flush(&mut out, &mut loose);
                    out.push(Block::Rule);
                }
                Event::TaskListMarker(done) => self.task = Some(done),
                Event::Start(Tag::FootnoteDefinition(label)) => {
                    flush(&mut out, &mut loose);
                    loose.push(Inline { text: format!("[^{label}]: "), style: InlineStyle::default() });
                }
                other => self.inline_event(other, ev, &mut loose, &mut style),
            }
        }
        flush(&mut out, &mut loose);
        out
    }

    fn table(&mut self, ev: &mut Events) -> Vec<Vec<Vec<Inline>>> {
        let mut rows = Vec::new();
        let mut row = Vec::new();
        while let Some(e) = ev.next() {
            match e {
                Event::Start(Tag::TableCell) => row.push(self.inlines(ev, TagEnd::TableCell)),
                Event::End(TagEnd::TableHead) | Event::End(TagEnd::TableRow) => rows.push(std::mem::take(&mut row)),
                Event::End(TagEnd::Table) => break,
                _ => {}
            }
        }
        rows
    }

    fn inlines(&mut self, ev: &mut Events, end: TagEnd) -> Vec<Inline> {
        let mut out = Vec::new();
        let mut style = InlineStyle::default();
        while let Some(e) = ev.next() {
            match e {
                Event::End(t) if t == end => break,
                other => self.inline_event(other, ev, &mut out, &mut style),
            }
        }
        obsidian_inlines(out)
    }

    fn inline_event(&mut self, e: Event, ev: &mut Events, out: &mut Vec<Inline>, style: &mut InlineStyle) {
        let mut push = |text: &str, style: InlineStyle| out.push(Inline { text: text.to_string(), style });
        match e {
            Event::Text(t) | Event::InlineHtml(t) | Event::Html(t) => push(&t, *style),
            Event::Code(t) => push(&t, InlineStyle { code: true, ..*style }),
            Event::InlineMath(t) | Event::DisplayMath(t) => push(&t, InlineStyle { code: true, ..*style }),
            Event::SoftBreak => push(" ", InlineStyle { soft_break: true, ..*style }),
            Event::HardBreak => push("\n", *style),
            Event::FootnoteReference(l) => push(&format!("[^{l}]"), *style),
            Event::TaskListMarker(done) => self.task = Some(done),
            Event::Start(Tag::Emphasis) => style.emphasis = true,
            Event::End(TagEnd::Emphasis) => style.emphasis = false,
            Event::Start(Tag::Strong) => style.strong = true,
            Event::End(TagEnd::Strong) => style.strong = false,
            Event::Start(Tag::Strikethrough) => style.strike = true,
            Event::End(TagEnd::Strikethrough) => style.strike = false,
            Event::Start(Tag::Link { link_type, dest_url, .. }) if self.links.len() < MAX_LINKS => {
                style.link = Some(self.links.len() as u16);
                let wiki = matches!(link_type, LinkType::WikiLink { .. });
                self.links.push(DocLink { target: dest_url.to_string(), wiki });
            }
            Event::End(TagEnd::Link) => style.link = None,
            // `![[file]]`: an embed, followed like a link and labelled with what it embeds.
            Event::Start(Tag::Image { link_type: LinkType::WikiLink { .. }, dest_url, .. })
                if self.links.len() < MAX_LINKS =>
            {
                for e in ev.by_ref() {
                    if let Event::End(TagEnd::Image) = e {
                        break;
                    }
                }
                let link = Some(self.links.len() as u16);
                self.links.push(DocLink { target: dest_url.to_string(), wiki: true });
                let label = format!("⧉ {}: {dest_url}", obsidian::embed_kind(&dest_url));
                push(&label, InlineStyle { link, embed: true, ..*style });
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                let mut alt = String::new();
                for e in ev.by_ref() {
                    match e {
                        Event::Text(t) => alt.push_str(&t),
                        Event::End(TagEnd::Image) => break,
                        _ => {}
                    }
                }
                push(&format!("[image: {} ({dest_url})]", if alt.is_empty() { "?" } else { &alt }), *style);
            }
            _ => {}
        }
    }
}

fn flush(out: &mut Vec<Block>, loose: &mut Vec<Inline>) {
    if !loose.is_empty() {
        out.push(Block::Paragraph(obsidian_inlines(std::mem::take(loose))));
    }
}

/// Obsidian's inline additions over a run of inlines: highlights, then tags.
fn obsidian_inlines(runs: Vec<Inline>) -> Vec<Inline> {
    obsidian::tags(obsidian::highlights(runs))
}

/// The plain text of a run of inlines (for tests and widths).
pub fn plain(inlines: &[Inline]) -> String {
    inlines.iter().map(|i| i.text.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_links_and_tasks() {
        let doc = parse(
            "# Title\n\nSome **bold** and [a link](x.md) and [[Wiki|alias]].\n\n- [x] done\n- [ ] open\n\n> quoted\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n",
        );
        assert_eq!(
            doc.links,
            vec![DocLink { target: "x.md".into(), wiki: false }, DocLink { target: "Wiki".into(), wiki: true }]
        );
        let kinds: Vec<&str> = doc
            .blocks
            .iter()
            .map(|b| match b {
                Block::Heading { .. } => "h",
                Block::Paragraph(_) => "p",
                Block::List { .. } => "list",
                Block::Quote(_) => "quote",
                Block::Callout { .. } => "callout",
                Block::Code { .. } => "code",
                Block::Table { .. } => "table",
                Block::Rule => "rule",
                Block::Embed(_) => "embed",
            })
            .collect();
        assert_eq!(kinds, vec!["h", "p", "list", "quote", "code", "table", "rule"]);
        let Block::List { items, .. } = &doc.blocks[2] else { panic!() };
        assert_eq!(items.iter().map(|i| i.task).collect::<Vec<_>>(), vec![Some(true), Some(false)]);
        let Block::Paragraph(p) = &doc.blocks[1] else { panic!() };
        assert!(p.iter().any(|i| i.text == "bold" && i.style.strong));
        assert!(p.iter().any(|i| i.text == "alias" && i.style.link == Some(1)));
        let Block::Code { lang, text } = &doc.blocks[4] else { panic!() };
        assert_eq!((lang.as_str(), text.as_str()), ("rust", "fn main() {}\n"));
        let Block::Table { rows, .. } = &doc.blocks[5] else { panic!() };
        assert_eq!(rows.len(), 2);
        assert_eq!(plain(&rows[1][1]), "2");
    }

    #[test]
    fn garbage_never_panics() {
        for s in ["", "\u{0}\u{1b}[2J", "|||\n|-|\n", "> > > - [ ]", "[[", "```", "* * *\n\n1. a\n   > b"] {
            let _ = parse(s);
        }
    }
}
