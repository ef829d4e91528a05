//! `_log.md`: the append-only activity log, one event per `## [<ISO 8601>] <event-type> | <subject>`
//! heading followed by bullets.
use std::path::Path;

use serde_json::json;

use crate::store::model::history::HistoryEvent;
use crate::store::read::fsio;
use crate::store::read::fsio::MAX_READ;

pub const LOG: &str = "_log.md";

/// The events of the root `_log.md`, in file order (the log is append-only: oldest first).
pub fn read(root: &Path) -> Vec<HistoryEvent> {
    match fsio::read_capped(&root.join(LOG), MAX_READ) {
        Ok((bytes, _)) if memchr::memchr(0, &bytes).is_none() => parse(&String::from_utf8_lossy(&bytes)),
        _ => Vec::new(),
    }
}

/// Events in a log's text. Headings that do not follow the grammar are prose, not events.
pub fn parse(text: &str) -> Vec<HistoryEvent> {
    let mut events: Vec<HistoryEvent> = Vec::new();
    let mut body: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let heading = if in_fence { None } else { event_heading(line) };
        match heading {
            Some((ts, kind, subject)) => {
                finish(events.last_mut(), &body);
                body.clear();
                events.push(HistoryEvent {
                    ts: Some(ts.to_string()),
                    kind: kind.to_string(),
                    entities: Vec::new(),
                    path: LOG.to_string(),
                    line: i as u32 + 1,
                    raw: json!({"subject": subject, "text": line.trim_end()}),
                });
            }
            None if !events.is_empty() => body.push(line),
            None => {}
        }
    }
    finish(events.last_mut(), &body);
    events
}

/// `## [ts] kind | subject` → (ts, kind, subject).
fn event_heading(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("## [")?;
    let (ts, rest) = rest.split_once(']')?;
    let (kind, subject) = rest.split_once('|').unwrap_or((rest, ""));
    let kind = kind.trim();
    (!ts.trim().is_empty() && !kind.is_empty()).then(|| (ts.trim(), kind, subject.trim()))
}

/// Attach the lines after a heading: the raw text, and the `[[slug]]`s its bullets name.
fn finish(event: Option<&mut HistoryEvent>, body: &[&str]) {
    let Some(event) = event else { return };
    let end = body.iter().rposition(|l| !l.trim().is_empty()).map_or(0, |i| i + 1);
    let mut text = event.raw["text"].as_str().unwrap_or_default().to_string();
    for line in &body[..end] {
        text.push('\n');
        text.push_str(line.trim_end());
    }
    event.raw["text"] = json!(text);
    for line in &body[..end] {
        for slug in wikilinks(line) {
            if !event.entities.iter().any(|s| s == slug) {
                event.entities.push(slug.to_string());
            }
        }
    }
}

/// `[[target]]` targets in a line, alias and heading removed.
fn wikilinks(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("[[") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else { break };
        let target = after[..end].split(['|', '#']).next().unwrap_or("").trim();
        if !target.is_empty() {
            out.push(target);
        }
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG_TEXT: &str = "# Activity log\n\n## [2026-04-27T15:30:00Z] ingest | 2026-04-27-investor-call\n\n\
        - Updated [[runway-extension]] (confidence 0.8 → 0.9, +1 source).\n\
        - Created [[lead-investor|Lead]] (entity, 1 source).\n- Again [[runway-extension]].\n\n\
        ## Notes that are not an event\n\n```\n## [2026-01-01] lint | inside a fence\n```\n\
        ## [2026-04-27T16:00:00Z] lint | full-pass\n\n- 0 unsourced\n";

    #[test]
    fn events_with_kinds_subjects_and_entities() {
        let events = parse(LOG_TEXT);
        assert_eq!(events.len(), 2);
        let e = &events[0];
        assert_eq!((e.ts.as_deref(), e.kind.as_str(), e.line), (Some("2026-04-27T15:30:00Z"), "ingest", 3));
        assert_eq!(e.raw["subject"], "2026-04-27-investor-call");
        assert_eq!(e.entities, ["runway-extension", "lead-investor"]);
        assert!(e.raw["text"].as_str().unwrap().ends_with("```"), "prose after an event stays in its text");
        assert_eq!((events[1].kind.as_str(), events[1].line), ("lint", 14));
        assert_eq!(events[1].raw["text"], "## [2026-04-27T16:00:00Z] lint | full-pass\n\n- 0 unsourced");
        assert!(events[1].entities.is_empty());
    }

    #[test]
    fn malformed_headings_are_not_events() {
        assert!(parse("## [unclosed ingest | x\n## [] lint | y\n## [2026] | z\n").is_empty());
        assert_eq!(parse("## [2026-05-01] manual\n")[0].kind, "manual");
    }
}
