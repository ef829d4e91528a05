//! `knowledge/system/changelog.md`: EloPhanto's only log. Each `## ` entry (`## YYYY-MM-DD —
//! Title`, or `## Phase 1 — Title (YYYY-MM-DD)` in older parts) followed by bullets becomes one
//! history event. The file is newest-first; history is oldest-first.
use std::path::Path;

use serde_json::json;

use crate::store::model::history::HistoryEvent;
use crate::store::read::frontmatter::{self, Block};
use crate::store::read::fsio;

/// The changelog, relative to the knowledge root.
pub const CHANGELOG: &str = "system/changelog.md";

/// Event kind of a changelog entry.
const KIND: &str = "changelog";

/// The changelog's entries, oldest first; none when there is no readable changelog.
pub fn read(root: &Path) -> Vec<HistoryEvent> {
    let Ok((bytes, _)) = fsio::read_capped(&root.join(CHANGELOG), fsio::MAX_READ) else { return Vec::new() };
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Vec::new();
    }
    parse(&String::from_utf8_lossy(&bytes))
}

/// One `## ` entry while it is being collected.
struct Entry {
    heading: String,
    line: u32,
    text: Vec<String>,
}

pub fn parse(text: &str) -> Vec<HistoryEvent> {
    let (body_start, first_line) = match frontmatter::locate(text) {
        Block::Closed { body_start, close_line, .. } => (body_start, close_line + 1),
        _ => (0, 1),
    };
    let mut entries: Vec<Entry> = Vec::new();
    let mut in_fence = false;
    // Whether lines belong to the last entry (a `# ` section after it ends it).
    let mut collecting = false;
    for (i, line) in text[body_start..].lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if !in_fence && let Some(heading) = t.strip_prefix("## ") {
            entries.push(Entry { heading: heading.trim().to_string(), line: first_line + i as u32, text: Vec::new() });
            collecting = true;
        } else if !in_fence && t.starts_with("# ") {
            collecting = false;
        } else if collecting && let Some(last) = entries.last_mut() {
            last.text.push(line.to_string());
        }
    }
    let mut events: Vec<HistoryEvent> = entries.into_iter().map(event).collect();
    let dates: Vec<&str> = events.iter().filter_map(|e| e.ts.as_deref()).collect();
    if dates.first() > dates.last() {
        events.reverse();
    }
    events
}

fn event(entry: Entry) -> HistoryEvent {
    let date = find_date(&entry.heading);
    let body = entry.text.join("\n").trim().to_string();
    HistoryEvent {
        ts: date.map(str::to_string),
        kind: KIND.to_string(),
        entities: wikilink_ids(&body),
        path: CHANGELOG.to_string(),
        line: entry.line,
        raw: json!({"title": entry.heading, "text": body}),
    }
}

/// The first `YYYY-MM-DD` in a heading that is a real date.
fn find_date(heading: &str) -> Option<&str> {
    let bytes = heading.as_bytes();
    (0..bytes.len().saturating_sub(9)).find_map(|i| {
        let candidate = heading.get(i..i + 10)?;
        let boundary = i == 0 || !bytes[i - 1].is_ascii_digit();
        (boundary && super::checks::is_iso_date(candidate)).then_some(candidate)
    })
}

/// Entity ids named by `[[path/to/file.md]]` links in an entry.
fn wikilink_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else { break };
        let target = after[..close].split(['|', '#']).next().unwrap_or("").trim();
        let id = target.trim_start_matches('/').trim_end_matches(".md");
        if !id.is_empty() && !ids.iter().any(|i| i == id) {
            ids.push(id.to_string());
        }
        rest = &after[close + 2..];
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "---\ntitle: Changelog\nscope: system\n---\n\n# Changelog\n\n## 2026-02-26 — Smart Skill Matching\n\n- Redesigned matching\n- See [[learned/lessons/a.md]] and [[system/b.md|b]]\n\n```\n## not a heading\n```\n\n## Phase 1 — Knowledge & Memory (2026-02-17)\n\n- Indexer\n\n## Unreleased ideas\n";

    #[test]
    fn entries_oldest_first_with_dates_lines_and_links() {
        let events = parse(LOG);
        let summary: Vec<_> = events.iter().map(|e| (e.ts.as_deref(), e.line)).collect();
        assert_eq!(summary, [(None, 21), (Some("2026-02-17"), 17), (Some("2026-02-26"), 8)]);
        let newest = &events[2];
        assert_eq!(newest.kind, "changelog");
        assert_eq!(newest.path, "system/changelog.md");
        assert_eq!(newest.raw["title"], "2026-02-26 — Smart Skill Matching");
        assert!(newest.raw["text"].as_str().unwrap().starts_with("- Redesigned matching\n"));
        assert_eq!(newest.entities, ["learned/lessons/a", "system/b"]);
        assert_eq!(events[1].raw["text"], "- Indexer");
    }

    #[test]
    fn an_oldest_first_changelog_keeps_its_order() {
        let events = parse("## 2026-01-01 — A\n## 2026-02-01 — B\n");
        assert_eq!(events.iter().map(|e| e.ts.as_deref().unwrap()).collect::<Vec<_>>(), ["2026-01-01", "2026-02-01"]);
    }

    #[test]
    fn dates_must_be_real() {
        assert_eq!(find_date("2026-13-01 — nope"), None);
        assert_eq!(find_date("v12026-01-01"), None);
        assert_eq!(find_date("Phase 0 (2026-02-17)"), Some("2026-02-17"));
        assert_eq!(find_date("é2026-02-17"), Some("2026-02-17"));
        assert!(parse("no entries at all\n").is_empty());
        let after_section = parse("## 2026-01-01 — A\n- a\n# Appendix\nnot part of A\n");
        assert_eq!(after_section[0].raw["text"], "- a");
    }

    #[test]
    fn missing_or_binary_changelog_is_no_history() {
        let t = tempfile::tempdir().unwrap();
        assert!(read(t.path()).is_empty());
        std::fs::create_dir_all(t.path().join("system")).unwrap();
        std::fs::write(t.path().join(CHANGELOG), b"## 2026-01-01 \x00\x01").unwrap();
        assert!(read(t.path()).is_empty());
    }
}
