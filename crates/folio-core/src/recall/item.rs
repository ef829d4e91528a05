//! What recall matches: one item per entity (title, id, aliases, tags, description in one
//! haystack) and, when switched on, one item per H2 section of the body (as EloPhanto chunks
//! its documents).
use nucleo::Utf32String;

use super::bound::Sketch;

use crate::store::model::entity::{Entity, EntityIdx};

/// Descriptions and section texts beyond this many characters do not take part in matching:
/// long haystacks slow every keystroke and rarely decide a ranking.
const MAX_TEXT: usize = 240;

/// Separates the fields of a haystack; shown as is in the result list. ASCII on purpose: an
/// all-ASCII haystack takes nucleo's byte path, markedly cheaper than its `char` path.
pub const SEPARATOR: &str = "  |  ";
/// Between an entity's title and a section heading in a section item.
pub const SECTION_MARK: &str = " > ";

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub heading: String,
    /// 1-based line of the heading in the file.
    pub line: u32,
}

#[derive(Debug, Clone)]
pub struct RecallItem {
    pub idx: EntityIdx,
    pub section: Option<Section>,
    pub haystack: Utf32String,
    /// What the cheapest score bound needs of the haystack (`bound::Sketch`).
    pub sketch: Sketch,
}

impl RecallItem {
    pub fn entity(idx: EntityIdx, e: &Entity) -> RecallItem {
        let mut parts = vec![e.title.clone()];
        if e.id != e.title {
            parts.push(e.id.clone());
        }
        parts.extend(e.aliases.iter().cloned());
        if !e.tags.is_empty() {
            parts.push(e.tags.iter().map(|t| format!("#{t}")).collect::<Vec<_>>().join(" "));
        }
        if let Some(d) = e.description.as_deref().filter(|d| !d.is_empty()) {
            parts.push(clip(d));
        }
        RecallItem::new(idx, None, flatten(&parts.join(SEPARATOR)))
    }

    pub fn section(idx: EntityIdx, e: &Entity, section: Section, text: &str) -> RecallItem {
        let hay = format!("{}{SECTION_MARK}{}{SEPARATOR}{}", e.title, section.heading, clip(text));
        RecallItem::new(idx, Some(section), flatten(&hay))
    }

    fn new(idx: EntityIdx, section: Option<Section>, text: String) -> RecallItem {
        let haystack = Utf32String::from(text);
        let sketch = Sketch::new(haystack.slice(..));
        RecallItem { idx, section, haystack, sketch }
    }

    /// The haystack as text (for display and highlight positions, which are char indices).
    pub fn text(&self) -> String {
        self.haystack.slice(..).chars().collect()
    }
}

fn clip(s: &str) -> String {
    s.chars().take(MAX_TEXT).collect()
}

/// One line: newlines, tabs and control characters become spaces.
fn flatten(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// The H2 sections of a markdown body: (heading, 1-based line within `body` plus `first_line - 1`,
/// text up to the next H2). Fenced code is skipped so `## ` inside it is not a heading.
pub fn h2_sections(body: &str, first_line: u32) -> Vec<(Section, String)> {
    let mut out: Vec<(Section, String)> = Vec::new();
    let mut fence: Option<&str> = None;
    for (n, line) in body.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
        } else if let Some(h) = line.strip_prefix("## ") {
            let section =
                Section { heading: h.trim().trim_end_matches('#').trim().to_string(), line: first_line + n as u32 };
            out.push((section, String::new()));
            continue;
        }
        if let Some((_, text)) = out.last_mut()
            && text.len() < MAX_TEXT * 4
        {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(line.trim());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_haystack_holds_every_field_once() {
        let e = Entity {
            id: "metrics/margin".into(),
            title: "Gross margin".into(),
            aliases: vec!["GM".into()],
            tags: vec!["finance".into()],
            description: Some("Revenue\nminus cost".into()),
            ..Entity::default()
        };
        let item = RecallItem::entity(3, &e);
        assert_eq!(item.text(), "Gross margin  |  metrics/margin  |  GM  |  #finance  |  Revenue minus cost");
        assert_eq!(item.idx, 3);
        assert!(matches!(item.haystack, Utf32String::Ascii(_)), "ASCII fields give an ASCII haystack");
    }

    #[test]
    fn sections_split_at_h2_outside_code() {
        let body = "intro\n## One\nalpha\n```\n## not a heading\n```\n## Two ##\nbeta\n### deeper\ngamma\n";
        let s = h2_sections(body, 5);
        let got: Vec<(&str, u32, &str)> = s.iter().map(|(h, t)| (h.heading.as_str(), h.line, t.as_str())).collect();
        assert_eq!(got, [("One", 6, "alpha ``` ## not a heading ```"), ("Two", 11, "beta ### deeper gamma")]);
    }
}
