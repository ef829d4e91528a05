//! The markdown every file-per-entity format shares: frontmatter in either grammar, the
//! default title and description, body links and the relation keys that become typed edges.
//! The formats' dialects call these; no format is named here.
use crate::store::model::entity::{Edge, Entity, Problem, rule};
use crate::store::read::frontmatter::{self, Block, Fields, Val, View};
use crate::store::read::links;

use super::SourceFile;

/// How a file's frontmatter is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    Yaml,
    /// evolve's `key: value` lines (not YAML: values may hold colons, nothing is quoted).
    KeyValue,
}

/// A markdown file read into fields and a body: the common first step of most dialects.
pub struct Parsed {
    pub entity: Entity,
    /// Frontmatter fields (empty when there is none or it did not parse).
    pub fields: Fields,
    /// Whether a frontmatter block was present and parsed.
    pub has_frontmatter: bool,
    /// 1-based file line where the frontmatter's inner text starts (2 when present).
    pub fm_first_line: u32,
}

/// `Parsed` with the fields as a view over the file text (see `frontmatter::view`): what
/// the dialects on the hot load path (OKF, vault) read.
pub struct ParsedView<'a> {
    pub entity: Entity,
    pub fields: View<'a>,
    pub has_frontmatter: bool,
    pub fm_first_line: u32,
    /// Whether the title is the `title` field or the first heading, not the file stem (a
    /// format with a fallback of its own looks for it only then).
    pub titled: bool,
}

/// Read a file-per-entity markdown file: frontmatter, id (`path` minus `.md`), default title
/// (frontmatter `title`, else first `# ` heading, else the file stem), body links.
pub fn parse_markdown(file: &SourceFile, grammar: Grammar) -> Parsed {
    let p = parse_markdown_view(file, grammar);
    Parsed {
        entity: p.entity,
        fields: p.fields.into_fields(),
        has_frontmatter: p.has_frontmatter,
        fm_first_line: p.fm_first_line,
    }
}

/// `parse_markdown` with the fields as a view borrowing `file.text`.
pub fn parse_markdown_view<'a>(file: &SourceFile<'a>, grammar: Grammar) -> ParsedView<'a> {
    parse_markdown_view_given(file, grammar, None)
}

/// `parse_markdown_view`, with the frontmatter's fields already known (`given`: what parsing
/// the file's frontmatter block gives, built by whoever rendered it) so the block is located
/// but not parsed again. A file without a closed block ignores them.
pub fn parse_markdown_view_given<'a>(
    file: &SourceFile<'a>,
    grammar: Grammar,
    mut given: Option<View<'a>>,
) -> ParsedView<'a> {
    let mut entity = Entity {
        id: file.rel.strip_suffix(".md").unwrap_or(file.rel).to_string(),
        path: file.rel.to_string(),
        line: 1,
        span: 0..file.text.len() as u32,
        problems: file.problems.to_vec(),
        ..Default::default()
    };
    let mut fields = View::new();
    let mut has_frontmatter = false;
    if !file.parseable {
        entity.title = entity.stem().to_string();
        return ParsedView { entity, fields, has_frontmatter, fm_first_line: 2, titled: false };
    }
    let text: &'a str = file.text;
    let mut body_start = 0;
    match frontmatter::locate(text) {
        Block::None => {}
        Block::Unterminated => entity.problems.push(Problem::new(
            rule::INVALID_FRONTMATTER,
            "frontmatter starts with `---` on line 1 but is never closed",
            1,
            1,
        )),
        Block::Closed { inner, body_start: b, .. } => {
            body_start = b;
            let yaml = &text[inner];
            let parsed = match (given.take(), grammar) {
                (Some(known), _) => Ok(known),
                (None, Grammar::Yaml) => frontmatter::parse_yaml_view(yaml),
                (None, Grammar::KeyValue) => Ok(key_values(yaml)),
            };
            match parsed {
                Ok(f) => {
                    fields = f;
                    has_frontmatter = true;
                }
                Err(e) => entity.problems.push(Problem::new(
                    rule::INVALID_FRONTMATTER,
                    format!("frontmatter does not parse: {}", e.message),
                    e.line + 1,
                    e.col.max(1),
                )),
            }
        }
    }
    entity.body_start = body_start as u32;
    let (found, left_out) = links::extract_bounded(text, body_start, file.lines);
    entity.links = found;
    if let Some(why) = left_out {
        entity.problems.push(Problem::new(rule::TOO_LARGE, why, 1, 1));
    }
    let title = fields.str("title").or_else(|| first_heading(&text[body_start..]));
    let titled = title.is_some();
    entity.title = title.unwrap_or_else(|| entity.stem().to_string());
    ParsedView { entity, fields, has_frontmatter, fm_first_line: 2, titled }
}

/// The YAML frontmatter of a text as fields (empty when absent or broken).
pub fn yaml_fields(text: &str) -> Fields {
    match frontmatter::locate(text) {
        Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner]).unwrap_or_default(),
        _ => Fields::new(),
    }
}

/// evolve's frontmatter grammar: each line `key: value`, split at the first colon, nothing
/// quoted or nested. Lines without a colon are ignored, as evolve's own reader does.
pub fn parse_key_values(text: &str) -> Fields {
    key_values(text).into_fields()
}

/// `parse_key_values` as a view (a repeated key keeps its first place and its last value).
fn key_values(text: &str) -> View<'_> {
    let mut fields = View::new();
    for line in crate::store::model::lines::lines(text) {
        if let Some((k, v)) = crate::store::model::lines::split_once_ascii(line, b':') {
            let key = k.trim();
            if !key.is_empty() {
                fields.set(key, Val::Str(v.trim().into()));
            }
        }
    }
    fields
}

/// Lines of a body that `first_heading` looks through.
const HEADING_LINES: usize = 200;

/// The text of the first ATX `# ` heading in a body's first `HEADING_LINES` lines, if any
/// (outside fenced code). Only a line holding `#`, a backtick or `~` can open a heading or a
/// fence: `memchr3` skips to the next one, where reading every line would cost each body up to
/// `HEADING_LINES` lines even when, as in most stores, it has no `# ` heading.
pub fn first_heading(body: &str) -> Option<String> {
    let bytes = body.as_bytes();
    let (mut in_fence, mut line, mut at) = (false, 0, 0);
    while let Some(found) = memchr::memchr3(b'#', b'`', b'~', &bytes[at..]) {
        let start = memchr::memrchr(b'\n', &bytes[at..at + found]).map_or(at, |i| at + i + 1);
        line += memchr::memchr_iter(b'\n', &bytes[at..start]).count();
        if line >= HEADING_LINES {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        // A `\r` before the line feed is left on: both tests below trim or ignore it.
        let t = body[start..end].trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence && let Some(h) = t.strip_prefix("# ") {
            let h = h.trim().trim_end_matches('#').trim();
            if !h.is_empty() {
                return Some(h.to_string());
            }
        }
        line += 1;
        at = (end + 1).min(bytes.len());
    }
    None
}

/// Longest description folio derives from a body: a description is "a single sentence" (OKF),
/// "one line, ≤ 200 chars" (awareness). Whole first paragraphs would be a large share of each
/// entity's memory, for text that no list shows whole (docs/benchmarks.md, "Load figures").
pub const DERIVED_DESCRIPTION_MAX_CHARS: usize = 200;

/// A description for a file that has none: its first paragraph as one line, cut at a word
/// boundary after `DERIVED_DESCRIPTION_MAX_CHARS` with `…`.
pub fn derived_description(body: &str) -> Option<String> {
    first_paragraph(body).map(|p| shorten(&p, DERIVED_DESCRIPTION_MAX_CHARS))
}

/// `text` cut to at most `max` characters at a word boundary, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    let Some(cut) = nth_char_start(text, max) else {
        return text.to_string();
    };
    let head = &text[..cut];
    let head = head.rfind(' ').filter(|&i| i > 0).map(|i| &head[..i]).unwrap_or(head);
    let head = head.trim_end_matches([' ', ',', ';', ':', '—', '-', '–']);
    let mut short = String::with_capacity(head.len() + '…'.len_utf8());
    short.push_str(head);
    short.push('…');
    short
}

/// The byte index where character `n` (from 0) of `text` starts; `None` when `text` has at
/// most `n` characters. An ASCII head answers at once, where `char_indices().nth(n)` decodes
/// every character (with counting them first, most of what `shorten` costs: docs/benchmarks.md,
/// "Load figures").
pub fn nth_char_start(text: &str, n: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.len() <= n {
        return None;
    }
    if bytes[..n].is_ascii() {
        return Some(n);
    }
    text.char_indices().nth(n).map(|(i, _)| i)
}

/// The first paragraph of a body as one line.
pub fn first_paragraph(body: &str) -> Option<String> {
    let mut out = String::new();
    let mut in_fence = false;
    for line in crate::store::model::lines::lines(body) {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || t.starts_with('#') || t.starts_with("<!--") {
            if !out.is_empty() {
                break;
            }
            continue;
        }
        if t.is_empty() {
            if !out.is_empty() {
                break;
            }
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
        if out.len() > 400 {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Typed edge keys shared across formats (opendray's closed vocabulary, AIP-10's and the
/// LLM wiki's relation lists). A dialect may add its own.
pub const EDGE_KEYS: &[&str] = &[
    "supersedes",
    "contradicts",
    "derived_from",
    "about",
    "uses",
    "runs_on",
    "part_of",
    "depends_on",
    "used_by",
    "related",
    "merged_from",
];

/// Edges named by `keys` (each a list or a single string), plus a `relations:` mapping of
/// edge type → targets. `[[Target]]` wrappers are removed.
pub fn edges_from_fields(fields: &Fields, keys: &[&str]) -> Vec<Edge> {
    edges_from_view(&View::of(fields), keys)
}

/// `edges_from_fields` over a view.
pub fn edges_from_view(fields: &View, keys: &[&str]) -> Vec<Edge> {
    let mut edges = Vec::new();
    for key in keys {
        if let Some(targets) = fields.get(key) {
            targets.each_text(|target| edges.push(edge(key, target)));
        }
    }
    if let Some(Val::Map(rel)) = fields.get("relations") {
        for (kind, targets) in rel.iter() {
            targets.each_text(|target| edges.push(edge(kind, target)));
        }
    }
    edges
}

fn edge(kind: &str, target: &str) -> Edge {
    let t = target.trim();
    let t = t.strip_prefix("[[").and_then(|t| t.strip_suffix("]]")).unwrap_or(t);
    let t = t.split('|').next().unwrap_or(t).trim();
    Edge { kind: kind.to_string(), target: t.to_string(), resolved: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;

    fn file<'a>(rel: &'a str, text: &'a str, lines: &'a LineIndex) -> SourceFile<'a> {
        SourceFile { rel, text, lines, problems: &[], parseable: true }
    }

    #[test]
    fn markdown_file_with_yaml() {
        let t = "---\ntitle: Users\ntype: Table\n---\n# Heading\nSee [x](x.md)\n";
        let l = LineIndex::new(t);
        let p = parse_markdown(&file("tables/users.md", t, &l), Grammar::Yaml);
        assert_eq!(p.entity.id, "tables/users");
        assert_eq!(p.entity.title, "Users");
        assert_eq!(p.entity.links.len(), 1);
        assert_eq!(p.entity.links[0].line, 6);
        assert!(p.has_frontmatter);
    }

    #[test]
    fn title_falls_back_to_heading_then_stem() {
        let t = "intro\n# The Heading\n";
        let l = LineIndex::new(t);
        assert_eq!(parse_markdown(&file("a/b.md", t, &l), Grammar::Yaml).entity.title, "The Heading");
        let t = "no heading";
        let l = LineIndex::new(t);
        assert_eq!(parse_markdown(&file("a/My Note.md", t, &l), Grammar::Yaml).entity.title, "My Note");
    }

    #[test]
    fn broken_yaml_is_a_problem_not_a_failure() {
        let t = "---\ntitle: [unclosed\n---\nbody [[x]]\n";
        let l = LineIndex::new(t);
        let p = parse_markdown(&file("x.md", t, &l), Grammar::Yaml);
        assert_eq!(p.entity.problems.len(), 1);
        assert_eq!(p.entity.problems[0].rule, rule::INVALID_FRONTMATTER);
        assert_eq!(p.entity.links.len(), 1);
        assert!(!p.has_frontmatter);
    }

    #[test]
    fn key_values_keep_colons_in_values() {
        let f = parse_key_values("type: guideline\ntrigger: When a: b happens\nnoise\n");
        assert_eq!(frontmatter::get_str(&f, "trigger").as_deref(), Some("When a: b happens"));
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn edges_from_lists_relations_and_wikilinks() {
        let f = frontmatter::parse_yaml(
            "supersedes: [old]\nrelated: [\"[[Some Page|x]]\"]\nrelations: { runs_on: [host-a], used_by: p }\n",
        )
        .unwrap();
        let e = edges_from_fields(&f, EDGE_KEYS);
        let pairs: Vec<_> = e.iter().map(|e| (e.kind.as_str(), e.target.as_str())).collect();
        assert_eq!(pairs, [("supersedes", "old"), ("related", "Some Page"), ("runs_on", "host-a"), ("used_by", "p")]);
    }

    #[test]
    fn derived_descriptions_stop_at_a_word_after_the_limit() {
        let short = "A short first paragraph.\n\nSecond.";
        assert_eq!(derived_description(short).as_deref(), Some("A short first paragraph."));
        let long = format!("{} tail words here", "word ".repeat(60));
        let d = derived_description(&long).unwrap();
        assert!(d.ends_with("word…") && d.chars().count() <= DERIVED_DESCRIPTION_MAX_CHARS + 1, "{d}");
        assert_eq!(derived_description("# Only a heading\n"), None);
    }

    #[test]
    fn first_paragraph_skips_headings_and_code() {
        let b = "# T\n\n```\ncode\n```\nFirst line\ncontinues.\n\nSecond.";
        assert_eq!(first_paragraph(b).as_deref(), Some("First line continues."));
    }

    /// The first heading as reading every line finds it: fences, headings in code, `#` and
    /// fence characters inside lines, CRLF, Unicode indentation, and the line limit.
    #[test]
    fn the_first_heading_is_found_as_by_reading_every_line() {
        let by_line = |body: &str| -> Option<String> {
            let mut in_fence = false;
            for line in body.lines().take(HEADING_LINES) {
                let t = line.trim_start();
                if t.starts_with("```") || t.starts_with("~~~") {
                    in_fence = !in_fence;
                    continue;
                }
                if !in_fence && let Some(h) = t.strip_prefix("# ") {
                    let h = h.trim().trim_end_matches('#').trim();
                    if !h.is_empty() {
                        return Some(h.to_string());
                    }
                }
            }
            None
        };
        let pieces = [
            "text # not a heading\n",
            "# Title #\n",
            "#\n",
            "# \r\n",
            "```\n",
            "~~~ rust\n",
            "  ```x\n",
            "\u{3000}# Wide\n",
            "# Crlf\r\n",
            "## Two\n",
            "a`b~c\n",
            "\n",
            "#NoSpace\n",
            "# Last",
        ];
        let mut bodies: Vec<String> = Vec::new();
        for a in &pieces {
            for b in &pieces {
                for c in &pieces {
                    bodies.push(format!("{a}{b}{c}"));
                }
            }
        }
        let filler = "plain line\n".repeat(HEADING_LINES - 1);
        bodies.push(format!("{filler}# At the limit\n"));
        bodies.push(format!("{filler}x\n# Past the limit\n"));
        bodies.push(format!("{filler}```\n# In code\n"));
        for body in &bodies {
            assert_eq!(first_heading(body), by_line(body), "{body:?}");
        }
        assert_eq!(first_heading(&format!("{filler}# At the limit\n")).as_deref(), Some("At the limit"));
    }

    /// `nth_char_start` is `char_indices().nth(n)`, and `shorten` cuts where counting every
    /// character cut, around the bound, with multi-byte characters before, at and after it.
    #[test]
    fn the_nth_character_is_found_as_by_decoding_every_one() {
        let counted = |text: &str, max: usize| -> String {
            if text.chars().count() <= max {
                return text.to_string();
            }
            let cut = text.char_indices().nth(max).map(|(i, _)| i).unwrap_or(text.len());
            let head = &text[..cut];
            let head = head.rfind(' ').filter(|&i| i > 0).map(|i| &head[..i]).unwrap_or(head);
            format!("{}…", head.trim_end_matches([' ', ',', ';', ':', '—', '-', '–']))
        };
        for unit in ["a", "é", "ab — ", "x, ", "日本 ", "word "] {
            for len in 0..14 {
                let text: String = unit.chars().cycle().take(len).collect();
                for n in 0..12 {
                    assert_eq!(nth_char_start(&text, n), text.char_indices().nth(n).map(|(i, _)| i), "{text:?} {n}");
                    assert_eq!(shorten(&text, n), counted(&text, n), "{text:?} {n}");
                }
            }
        }
    }
}
