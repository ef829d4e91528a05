//! Reading an LLM wiki's `log.md` (Karpathy's pattern, claude-obsidian): one `## [date] op |
//! subject` heading per event, details below it until the next heading.
use std::path::Path;

use crate::store::model::history::HistoryEvent;
use crate::store::read::fsio;

/// The events of the vault's LLM-wiki log: `log.md` at the root, else in a folder just below it
/// (a wiki kept in `wiki/` of a repository opened at its root), oldest first.
pub fn history(root: &Path) -> Vec<HistoryEvent> {
    let mut candidates = vec!["log.md".to_string()];
    if let Ok(dir) = std::fs::read_dir(root) {
        let mut below: Vec<String> = dir
            .flatten()
            .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|d| d.file_name().to_str().map(str::to_string))
            .filter(|n| !n.starts_with('.'))
            .map(|n| format!("{n}/log.md"))
            .collect();
        below.sort();
        candidates.extend(below);
    }
    for rel in candidates {
        let Ok((bytes, _)) = fsio::read_capped_inside(root, &rel, fsio::MAX_READ) else { continue };
        let events = parse(&String::from_utf8_lossy(&bytes), &rel);
        if !events.is_empty() {
            return events;
        }
    }
    Vec::new()
}

/// The events of one log (`rel` names it in each event), oldest first.
pub fn parse(text: &str, rel: &str) -> Vec<HistoryEvent> {
    let mut out: Vec<HistoryEvent> = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some((date, op, subject)) = heading(line) {
            out.push(HistoryEvent {
                ts: Some(date.to_string()),
                kind: op.to_lowercase(),
                entities: wikilinks(subject),
                path: rel.to_string(),
                line: i as u32 + 1,
                raw: serde_json::json!({ "text": subject }),
            });
        } else if line.starts_with("## ") || line.starts_with("# ") {
            // Another section: its lines belong to no event.
            if let Some(last) = out.last_mut() {
                last.raw["closed"] = serde_json::Value::Bool(true);
            }
        } else if let Some(last) = out.last_mut().filter(|e| e.raw.get("closed").is_none()) {
            for id in wikilinks(line) {
                if !last.entities.contains(&id) {
                    last.entities.push(id);
                }
            }
        }
    }
    for e in &mut out {
        if let Some(obj) = e.raw.as_object_mut() {
            obj.remove("closed");
        }
    }
    // Logs written newest first are turned round; within a day the file's order stands.
    if out.first().zip(out.last()).is_some_and(|(a, b)| a.ts > b.ts) {
        out.reverse();
    }
    out
}

/// `## [2026-04-07] ingest | Article title` → (date, op, subject).
fn heading(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("## ")?.trim_start().strip_prefix('[')?;
    let (date, rest) = rest.split_once(']')?;
    let date = date.trim();
    let b = date.as_bytes();
    let dated = b.len() >= 10 && b[4] == b'-' && b[7] == b'-' && date[..4].bytes().all(|c| c.is_ascii_digit());
    let (op, subject) = rest.split_once('|')?;
    let op = op.trim();
    (dated && !op.is_empty()).then_some((date, op, subject.trim()))
}

/// Targets of `[[…]]` links in `text`, without alias or heading.
fn wikilinks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("[[") {
        let after = &rest[at + 2..];
        let Some(end) = after.find("]]") else { break };
        let target = after[..end].split(['|', '#']).next().unwrap_or("").trim_end_matches('\\').trim();
        if !target.is_empty() && !out.iter().any(|t| t == target) {
            out.push(target.to_string());
        }
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "---\ntype: meta\n---\n# Wiki Log\n\n## [2026-04-07] ingest | [[Karpathy LLM Wiki]]\n- Created [[LLM Wiki Pattern]]\n- Updated [[index]]\n\n## [2026-04-08] query | What is a hot cache?\n\n```\n## [2026-01-01] fake | inside a fence\n```\n## [2026-04-09] lint | weekly pass\n";

    #[test]
    fn headings_are_events_with_the_pages_they_name() {
        let ev = parse(LOG, "wiki/log.md");
        assert_eq!(ev.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(), ["ingest", "query", "lint"]);
        assert_eq!(ev[0].ts.as_deref(), Some("2026-04-07"));
        assert_eq!(ev[0].entities, ["Karpathy LLM Wiki", "LLM Wiki Pattern", "index"]);
        assert_eq!(ev[0].line, 6);
        assert_eq!(ev[1].raw["text"], "What is a hot cache?");
        assert!(ev[1].entities.is_empty());
    }

    #[test]
    fn newest_first_logs_come_back_oldest_first() {
        let ev = parse("## [2026-05-02] edit | b\n## [2026-05-01] create | a\n", "log.md");
        assert_eq!(ev.iter().map(|e| e.raw["text"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn other_markdown_is_no_event() {
        assert!(parse("# Log\n## 2026-05-01\n* **Create**: x\n## [not a date] op | s\n", "log.md").is_empty());
    }
}
