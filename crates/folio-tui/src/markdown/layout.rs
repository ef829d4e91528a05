//! Document × width → wrapped lines of styled pieces. Pieces carry semantic roles, not colours:
//! the theme maps them to styles when drawing, so one layout serves every theme. All text goes
//! through the sanitiser here.
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::anchors::{self, Anchor};
use super::doc::{Align, Block, Doc, Embed, Inline, InlineStyle, Item};
use super::highlight::{Highlighter, Rgb};
use super::obsidian::{self, CalloutHead};
use super::sanitize;
use super::table;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Text,
    Heading(u8),
    /// Inline code and unhighlighted code blocks.
    Code,
    /// A highlighted code token.
    Syntax(Rgb),
    /// Code block gutter and language label.
    CodeFrame,
    /// List bullets and numbers.
    Marker,
    TaskDone,
    TaskOpen,
    Quote,
    /// A callout's icon and title.
    Callout,
    /// An Obsidian `#tag`.
    Tag,
    Rule,
    TableBorder,
    TableHeader,
    /// A stand-in for a control character or escape sequence from the store.
    Hostile,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub text: String,
    pub role: Role,
    pub style: InlineStyle,
}

impl Piece {
    fn new(text: impl Into<String>, role: Role) -> Piece {
        Piece { text: text.into(), role, style: InlineStyle::default() }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line(pub Vec<Piece>);

impl Line {
    pub fn text(&self) -> String {
        self.0.iter().map(|p| p.text.as_str()).collect()
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Laid {
    pub lines: Vec<Line>,
    /// For each link of the document, the first row it appears on.
    pub link_rows: Vec<Option<usize>>,
    /// Every heading and block id (`^id`) with the row it starts on, for link fragments.
    pub anchors: Vec<Anchor>,
}

pub struct Options<'a> {
    pub width: u16,
    pub highlighter: &'a Highlighter,
    pub syntax_theme: &'a str,
}

pub fn layout(doc: &Doc, opts: &Options) -> Laid {
    let mut w = Writer {
        width: (opts.width as usize).max(8),
        lines: Vec::new(),
        link_rows: vec![None; doc.links.len()],
        anchors: Vec::new(),
        opts,
    };
    w.blocks(&doc.blocks, &[], &[]);
    Laid { lines: w.lines, link_rows: w.link_rows, anchors: w.anchors }
}

struct Writer<'a> {
    width: usize,
    lines: Vec<Line>,
    link_rows: Vec<Option<usize>>,
    anchors: Vec<Anchor>,
    opts: &'a Options<'a>,
}

fn width_of(pieces: &[Piece]) -> usize {
    pieces.iter().map(|p| p.text.width()).sum()
}

/// Inline runs → sanitised word and space tokens with their roles.
fn tokens(inlines: &[Inline], base: Role) -> Vec<Piece> {
    let mut out = Vec::new();
    for inline in inlines {
        let role = if inline.style.code {
            Role::Code
        } else if inline.style.tag {
            Role::Tag
        } else {
            base
        };
        for (i, part) in inline.text.split('\n').enumerate() {
            if i > 0 {
                out.push(Piece { text: "\n".into(), role, style: inline.style });
            }
            for seg in sanitize::segments(part) {
                let role = if seg.hostile { Role::Hostile } else { role };
                let mut word = String::new();
                for c in seg.text.chars() {
                    if c == ' ' {
                        if !word.is_empty() {
                            out.push(Piece { text: std::mem::take(&mut word), role, style: inline.style });
                        }
                        out.push(Piece { text: " ".into(), role, style: inline.style });
                    } else {
                        word.push(c);
                    }
                }
                if !word.is_empty() {
                    out.push(Piece { text: word, role, style: inline.style });
                }
            }
        }
    }
    out
}

impl Writer<'_> {
    fn push_line(&mut self, line: Line) {
        let row = self.lines.len();
        for p in &line.0 {
            if let Some(l) = p.style.link {
                let slot = &mut self.link_rows[l as usize];
                slot.get_or_insert(row);
            }
        }
        self.lines.push(line);
    }

    /// The prefix one nesting level down. Indentation stops growing at two thirds of the pane
    /// (content nested 1,000 deep would otherwise push every line off screen): deeper levels
    /// are drawn at the last indent that fits.
    fn deeper(&self, prefix: &[Piece], piece: Piece) -> Vec<Piece> {
        let mut out = prefix.to_vec();
        if width_of(prefix) + piece.text.width() <= self.width * 2 / 3 {
            out.push(piece);
        }
        out
    }

    fn blank(&mut self, prefix: &[Piece]) {
        let trimmed: Vec<Piece> = prefix
            .iter()
            .filter(|p| !p.text.trim().is_empty())
            .map(|p| Piece::new(p.text.trim_end(), p.role))
            .collect();
        self.push_line(Line(trimmed));
    }

    fn blocks(&mut self, blocks: &[Block], first: &[Piece], rest: &[Piece]) {
        for (i, block) in blocks.iter().enumerate() {
            let prefix = if i == 0 { first } else { rest };
            if i > 0 {
                self.blank(rest);
            }
            self.block(block, prefix, rest);
        }
    }

    fn block(&mut self, block: &Block, first: &[Piece], rest: &[Piece]) {
        match block {
            Block::Heading { level, text } => {
                let marker = Piece::new(format!("{} ", "#".repeat(*level as usize)), Role::Heading(*level));
                let mut toks = vec![marker];
                toks.extend(tokens(text, Role::Heading(*level)));
                self.anchors.push(Anchor { name: super::doc::plain(text).trim().to_string(), row: self.lines.len() });
                self.wrap(first, rest, toks);
            }
            Block::Paragraph(text) => self.paragraph(text, first, rest),
            Block::Code { lang, text } => self.code(lang, text, first, rest),
            Block::Quote(inner) => {
                let bar = Piece::new("▌ ", Role::Quote);
                let f = self.deeper(first, bar.clone());
                let r = self.deeper(rest, bar);
                self.blocks(inner, &f, &r);
            }
            Block::Callout { head, body } => self.callout(head, body, first, rest),
            Block::List { start, items } => {
                for (n, item) in items.iter().enumerate() {
                    let prefix = if n == 0 { first } else { rest };
                    self.item(item, start.map(|s| s + n as u64), prefix, rest);
                }
            }
            Block::Table { align, rows } => self.table(align, rows, first, rest),
            Block::Embed(embed) => self.embed(embed, first, rest),
            Block::Rule => {
                let avail = self.width.saturating_sub(width_of(first)).max(1);
                let mut line = first.to_vec();
                line.push(Piece::new("─".repeat(avail), Role::Rule));
                self.push_line(Line(line));
            }
        }
    }

    /// A paragraph; a trailing Obsidian block id (`^quote-1`) is an anchor, hidden as in
    /// Obsidian's reading view.
    fn paragraph(&mut self, text: &[Inline], first: &[Piece], rest: &[Piece]) {
        let last = text.last().filter(|l| !l.style.code);
        if let Some((kept, id)) = last.and_then(|l| anchors::split_block_id(&l.text)) {
            self.anchors.push(Anchor { name: id.to_string(), row: self.lines.len() });
            let mut text = text.to_vec();
            let n = text.len();
            text[n - 1].text = kept.to_string();
            return self.wrap(first, rest, tokens(&text, Role::Text));
        }
        self.wrap(first, rest, tokens(text, Role::Text))
    }

    /// `╭─ ⧉ note · Target#Section`, the embedded section under a bar, then `╰─`. What is
    /// not a note (a base, a canvas, an image) is a labelled box naming the file and its kind.
    fn embed(&mut self, embed: &Embed, first: &[Piece], rest: &[Piece]) {
        let style = InlineStyle { link: Some(embed.link), embed: true, ..InlineStyle::default() };
        let mut head = vec![Piece::new("╭─ ⧉ ", Role::Quote)];
        head.extend(tokens(&[Inline { text: format!("{} · {}", embed.kind, embed.target), style }], Role::Callout));
        let bar = Piece::new("│ ", Role::Quote);
        self.wrap(first, &self.deeper(rest, bar.clone()), head);
        let end = |text: &str| vec![Piece::new("╰─ ", Role::Quote), Piece::new(text.to_string(), Role::Quote)];
        let closing = match (&embed.content, &embed.missing) {
            (Some(blocks), _) if !blocks.is_empty() => {
                let inner = self.deeper(rest, bar);
                self.blocks(blocks, &inner, &inner);
                end("")
            }
            (Some(_), _) => end("(empty)"),
            (None, Some(why)) => end(why),
            (None, None) if embed.kind == "note" => end("(an embed inside an embed: follow it to read it)"),
            (None, None) => end(&format!("{} file: not shown here", embed.kind)),
        };
        let mut line = rest.to_vec();
        line.extend(closing);
        self.push_line(Line(line));
    }

    /// `▌ ⚠ Title` then the body under the bar. A folded callout (`-`) shows its fold mark
    /// but keeps its body visible: a reviewer must see everything a page says.
    fn callout(&mut self, head: &CalloutHead, body: &[Block], first: &[Piece], rest: &[Piece]) {
        let bar = Piece::new("▌ ", Role::Quote);
        let f = self.deeper(first, bar.clone());
        let r = self.deeper(rest, bar);
        let (icon, default_title) = obsidian::callout_look(&head.kind);
        let fold = match head.folded {
            Some(true) => "▸ ",
            Some(false) => "▾ ",
            None => "",
        };
        let mut toks = vec![Piece::new(format!("{fold}{icon} "), Role::Callout)];
        if head.title.is_empty() {
            let title = if default_title.is_empty() { capitalised(&head.kind) } else { default_title.to_string() };
            toks.extend(tokens(&[Inline { text: title, style: InlineStyle::default() }], Role::Callout));
        } else {
            toks.extend(tokens(&head.title, Role::Callout));
        }
        self.wrap(&f, &r, toks);
        if !body.is_empty() {
            self.blocks(body, &r, &r);
        }
    }

    fn item(&mut self, item: &Item, number: Option<u64>, first: &[Piece], rest: &[Piece]) {
        let (marker, role) = match (item.task, number) {
            (Some(true), _) => ("☑ ".to_string(), Role::TaskDone),
            (Some(false), _) => ("☐ ".to_string(), Role::TaskOpen),
            (None, Some(n)) => (format!("{n}. "), Role::Marker),
            (None, None) => ("• ".to_string(), Role::Marker),
        };
        let indent = " ".repeat(marker.width());
        let f = self.deeper(first, Piece::new(marker, role));
        let r = self.deeper(rest, Piece::new(indent, Role::Text));
        if item.blocks.is_empty() {
            self.push_line(Line(f));
            return;
        }
        // Items of a tight list hold a single paragraph; nested lists follow without a gap.
        for (i, block) in item.blocks.iter().enumerate() {
            let prefix = if i == 0 { &f } else { &r };
            self.block(block, prefix, &r);
        }
    }

    /// Greedy word wrap of tokens; words wider than the line are broken by character.
    fn wrap(&mut self, first: &[Piece], rest: &[Piece], toks: Vec<Piece>) {
        let mut line: Vec<Piece> = first.to_vec();
        let mut used = width_of(first);
        let mut at_start = true;
        let mut prefix_width = used;
        for tok in toks {
            if tok.text == "\n" {
                self.push_line(Line(std::mem::replace(&mut line, rest.to_vec())));
                used = width_of(rest);
                prefix_width = used;
                at_start = true;
                continue;
            }
            let tw = tok.text.width();
            if tok.text == " " {
                if !at_start && used < self.width {
                    used += 1;
                    line.push(tok);
                }
                continue;
            }
            if used + tw > self.width && !at_start {
                while line.last().is_some_and(|p| p.text == " ") {
                    line.pop();
                }
                self.push_line(Line(std::mem::replace(&mut line, rest.to_vec())));
                used = width_of(rest);
                prefix_width = used;
            }
            if used + tw <= self.width {
                used += tw;
                line.push(tok);
            } else {
                // A word longer than a whole line: break it.
                let mut chunk = String::new();
                for c in tok.text.chars() {
                    let cw = c.width().unwrap_or(0);
                    if used + cw > self.width && used > prefix_width {
                        line.push(Piece { text: std::mem::take(&mut chunk), ..tok.clone() });
                        self.push_line(Line(std::mem::replace(&mut line, rest.to_vec())));
                        used = width_of(rest);
                        prefix_width = used;
                    }
                    chunk.push(c);
                    used += cw;
                }
                if !chunk.is_empty() {
                    line.push(Piece { text: chunk, ..tok });
                }
            }
            at_start = false;
        }
        self.push_line(Line(line));
    }

    fn code(&mut self, lang: &str, text: &str, first: &[Piece], rest: &[Piece]) {
        let label = if lang.is_empty() { "code".to_string() } else { sanitize::line(lang) };
        // A fence's info string can be any length: cut it to the pane.
        let room = self.width.saturating_sub(width_of(first) + 2);
        let label = if room == 0 { String::new() } else { fit(&label, room).trim_end().to_string() };
        let mut head = first.to_vec();
        head.push(Piece::new(format!("╭ {label}"), Role::CodeFrame));
        self.push_line(Line(head));
        let highlighted = self.opts.highlighter.get(lang, self.opts.syntax_theme, text);
        let mut gutter = rest.to_vec();
        gutter.push(Piece::new("│ ", Role::CodeFrame));
        let body = text.strip_suffix('\n').unwrap_or(text);
        for (n, src) in body.split('\n').enumerate() {
            let toks: Vec<Piece> = match highlighted.as_ref().and_then(|h| h.get(n)) {
                Some(runs) => runs
                    .iter()
                    .flat_map(|(rgb, t)| {
                        sanitize::segments(t).into_iter().map(move |s| {
                            Piece::new(s.text, if s.hostile { Role::Hostile } else { Role::Syntax(*rgb) })
                        })
                    })
                    .collect(),
                None => sanitize::segments(src)
                    .into_iter()
                    .map(|s| Piece::new(s.text, if s.hostile { Role::Hostile } else { Role::Code }))
                    .collect(),
            };
            self.hard_wrap(&gutter, toks);
        }
        let mut foot = rest.to_vec();
        foot.push(Piece::new("╰", Role::CodeFrame));
        self.push_line(Line(foot));
    }

    /// Lines that keep their spaces (code): cut at the width, continue under the gutter.
    fn hard_wrap(&mut self, prefix: &[Piece], toks: Vec<Piece>) {
        let pw = width_of(prefix);
        let avail = self.width.saturating_sub(pw).max(1);
        let mut line = prefix.to_vec();
        let mut used = 0;
        for tok in toks {
            let mut chunk = String::new();
            for c in tok.text.chars() {
                let cw = c.width().unwrap_or(0);
                if used + cw > avail && used > 0 {
                    line.push(Piece { text: std::mem::take(&mut chunk), ..tok.clone() });
                    self.push_line(Line(std::mem::replace(&mut line, prefix.to_vec())));
                    used = 0;
                }
                chunk.push(c);
                used += cw;
            }
            if !chunk.is_empty() {
                line.push(Piece { text: chunk, ..tok });
            }
        }
        self.push_line(Line(line));
    }

    /// A table: columns as wide as `table::widths` allows, each cell's text wrapped within its
    /// column and aligned as the delimiter row asks; a row as tall as its tallest cell, rows
    /// ruled apart when some cell wraps. Columns that still do not fit are left out on the
    /// right and the cut is marked with `…` after the last border.
    fn table(&mut self, align: &[Align], rows: &[Vec<Vec<Inline>>], first: &[Piece], rest: &[Piece]) {
        let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let cells: Vec<Vec<String>> =
            rows.iter().map(|row| row.iter().map(|cell| sanitize::line(&super::doc::plain(cell))).collect()).collect();
        let mut natural = vec![1usize; cols];
        for row in &cells {
            for (c, text) in row.iter().enumerate() {
                natural[c] = natural[c].max(text.width());
            }
        }
        let avail = self.width.saturating_sub(width_of(rest).max(width_of(first)) + 1);
        let Some((widths, cut)) = table::widths(&natural, avail) else {
            // Not even one column fits beside the indent: say a table is there.
            let mut line = first.to_vec();
            let room = self.width.saturating_sub(width_of(first));
            line.push(Piece::new(fit("▦ table", room).trim_end(), Role::TableBorder));
            self.push_line(Line(line));
            return;
        };
        // Each row's cells, wrapped to their column.
        let wrapped: Vec<Vec<Vec<String>>> = cells
            .iter()
            .map(|row| widths.iter().enumerate().map(|(c, &w)| table::wrap(row.get(c).map_or("", |t| t), w)).collect())
            .collect();
        let ruled = wrapped.iter().skip(1).any(|row| row.iter().any(|cell| cell.len() > 1));
        let rule = |left: &str, end: &str| {
            let bar: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
            Piece::new(format!("{left}{}{end}", bar.join("┼")), Role::TableBorder)
        };
        let mut at_first = true;
        for (r, row) in wrapped.iter().enumerate() {
            let height = row.iter().map(Vec::len).max().unwrap_or(1);
            for k in 0..height {
                let mut line = if std::mem::take(&mut at_first) { first.to_vec() } else { rest.to_vec() };
                for (c, w) in widths.iter().enumerate() {
                    line.push(Piece::new("│ ", Role::TableBorder));
                    let text = row[c].get(k).map_or("", String::as_str);
                    let link = rows[r].get(c).and_then(|cell| cell.iter().find_map(|i| i.style.link));
                    let role = if r == 0 { Role::TableHeader } else { Role::Text };
                    let column = align.get(c).copied().unwrap_or_default();
                    let text = table::aligned(text, *w, column);
                    line.push(Piece { text, role, style: InlineStyle { link, ..InlineStyle::default() } });
                    line.push(Piece::new(" ", Role::Text));
                }
                line.push(Piece::new(if cut { "│…" } else { "│" }, Role::TableBorder));
                self.push_line(Line(line));
            }
            if r == 0 || (ruled && r + 1 < wrapped.len()) {
                let mut sep = rest.to_vec();
                sep.push(rule("├", if cut { "┤…" } else { "┤" }));
                self.push_line(Line(sep));
            }
        }
    }
}

/// Pad or cut (with `…`) to exactly `w` columns.
/// `custom-type` → `Custom-type` (a callout type Obsidian does not know titles itself).
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn fit(s: &str, w: usize) -> String {
    if w == 0 {
        return String::new();
    }
    if s.width() <= w {
        return format!("{s}{}", " ".repeat(w - s.width()));
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw + 1 > w {
            break;
        }
        out.push(c);
        used += cw;
    }
    out.push('…');
    used += 1;
    out + &" ".repeat(w.saturating_sub(used))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::doc::parse;

    fn lay(md: &str, width: u16) -> Laid {
        let h = Highlighter::synchronous();
        layout(&parse(md), &Options { width, highlighter: &h, syntax_theme: "none" })
    }

    fn texts(l: &Laid) -> Vec<String> {
        l.lines.iter().map(Line::text).collect()
    }

    #[test]
    fn wraps_words_and_keeps_prefixes() {
        let l = lay("one two three four five six\n\n> quoted words that wrap\n\n- item one\n- [x] done", 12);
        assert_eq!(
            texts(&l),
            vec![
                "one two",
                "three four",
                "five six",
                "",
                "▌ quoted",
                "▌ words that",
                "▌ wrap",
                "",
                "• item one",
                "☑ done",
            ]
        );
        assert!(l.lines.iter().all(|line| line.text().width() <= 12));
    }

    #[test]
    fn links_are_numbered_with_rows_and_hostile_text_is_flagged() {
        let l = lay("# Head\n\nsee [x](x.md)\n\nevil \x1b[2J here", 40);
        assert_eq!(l.link_rows, vec![Some(2)]);
        assert_eq!(texts(&l)[0], "# Head");
        let evil = &l.lines[4];
        assert_eq!(evil.text(), "evil ␛[2J here");
        assert!(evil.0.iter().any(|p| p.role == Role::Hostile && p.text == "␛"));
    }

    #[test]
    fn long_code_lines_and_tables_fit_the_width() {
        let long = "x".repeat(100);
        let l = lay(&format!("```\n{long}\n```\n\n| name | description |\n|---|---|\n| a | {long} |\n"), 30);
        assert!(l.lines.iter().all(|line| line.text().width() <= 30), "{:#?}", texts(&l));
        assert_eq!(texts(&l)[0], "╭ code");
        // The long cell wraps within its column: every letter of it is shown.
        let table: String =
            texts(&l).iter().skip_while(|t| !t.contains("name")).map(|t| t.replace(['│', ' '], "")).collect();
        assert!(table.contains(&format!("a{long}")), "{:#?}", texts(&l));
    }

    #[test]
    fn long_cells_wrap_within_their_column_and_keep_its_alignment() {
        let md = "| step | policy | tries |\n|:---:|---|---:|\n| 1 | exponential, jittered, capped at thirty seconds | 5 |\n| 2 | none | 12 |\n";
        let l = lay(md, 42);
        let t = texts(&l);
        assert!(l.lines.iter().all(|line| line.text().width() <= 42), "{t:#?}");
        assert_eq!(t[0], "│ step │ policy                  │ tries │");
        assert_eq!(t[2], "│  1   │ exponential, jittered,  │     5 │", "{t:#?}");
        assert_eq!(t[3], "│      │ capped at thirty        │       │", "{t:#?}");
        assert_eq!(t[4], "│      │ seconds                 │       │", "{t:#?}");
        // A wrapped row is ruled off from the next.
        assert!(t[5].starts_with('├'), "{t:#?}");
        assert_eq!(t[6], "│  2   │ none                    │    12 │", "{t:#?}");
    }

    #[test]
    fn wide_tables_shrink_then_cut_columns_on_the_right() {
        // Six columns at four letters each need 43 cells: all fit in 43, the last is cut in 36.
        let head = "| Layer | Horizon | Scope | Audience | Role | AI drive |\n|---|---|---|---|---|---|\n";
        let l = lay(&format!("{head}| a | b | c | d | e | f |\n"), 43);
        assert!(l.lines.iter().all(|line| line.text().width() <= 43), "{:#?}", texts(&l));
        assert!(texts(&l)[0].ends_with('│') && texts(&l)[0].contains("AI"), "{:#?}", texts(&l));
        let l = lay(&format!("{head}| a | b | c | d | e | f |\n"), 36);
        assert!(l.lines.iter().all(|line| line.text().width() <= 36), "{:#?}", texts(&l));
        assert!(texts(&l)[0].ends_with('…') && texts(&l)[0].matches('│').count() < 7, "{:#?}", texts(&l));
        // Thirty columns cannot fit in 20 cells: the right ones are cut.
        let cells = "| x ".repeat(30) + "|\n";
        let sep = "|---".repeat(30) + "|\n";
        let l = lay(&format!("{cells}{sep}{cells}"), 20);
        assert!(l.lines.iter().all(|line| line.text().width() <= 20), "{:#?}", texts(&l));
        assert!(texts(&l).iter().all(|t| t.ends_with('…')), "{:#?}", texts(&l));
    }

    #[test]
    fn tables_fit_every_width() {
        let md = "> | 表表 | b | ccc ccc ccc | d |\n> |:-:|--:|---|---|\n> | x | 表表表 y | a long cell of many words here | |\n> | | z |\n";
        for width in 1..70 {
            let l = lay(md, width);
            let w = usize::from(width).max(8);
            assert!(l.lines.iter().all(|line| line.text().width() <= w), "{width}: {:#?}", texts(&l));
        }
    }

    #[test]
    fn deep_nesting_stops_indenting_at_two_thirds_of_the_pane() {
        let quotes = format!("{}deep text here\n", "> ".repeat(1000));
        let lists: String = (0..200).map(|i| format!("{}- item {i}\n", "  ".repeat(i))).collect();
        for md in [
            quotes,
            lists,
            ["| a | b |", "|---|---|", "| c | d |"].map(|row| format!("{}{row}\n", "> ".repeat(300))).concat(),
        ] {
            let l = lay(&md, 30);
            assert!(l.lines.iter().all(|line| line.text().width() <= 30), "{:#?}", texts(&l));
            assert!(
                texts(&l).iter().any(|t| t.contains("deep") || t.contains("item") || t.contains('│')),
                "{:#?}",
                texts(&l)
            );
        }
    }

    #[test]
    fn callouts_show_icon_title_fold_mark_and_their_whole_body() {
        let l = lay("> [!warning]- Careful now\n> The body stays visible.\n", 40);
        assert_eq!(texts(&l), ["▌ ▸ ⚠ Careful now", "▌ The body stays visible."]);
        assert_eq!(l.lines[0].0[1].role, Role::Callout);
        let l = lay("> [!custom-kind]\n> x\n", 40);
        assert_eq!(texts(&l)[0], "▌ ✎ Custom-kind");
        let l = lay("> [!tip]\n", 40);
        assert_eq!(texts(&l), ["▌ ✦ Tip"]);
    }

    #[test]
    fn highlighted_code_uses_syntax_colours() {
        let h = Highlighter::synchronous();
        let doc = parse("```rust\nfn main() {}\n```\n");
        let l = layout(&doc, &Options { width: 40, highlighter: &h, syntax_theme: "base16-ocean.dark" });
        assert!(l.lines[1].0.iter().any(|p| matches!(p.role, Role::Syntax(_))));
        assert_eq!(l.lines[1].text(), "│ fn main() {}");
    }
}
