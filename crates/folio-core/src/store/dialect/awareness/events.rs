//! `memory/events.jsonl`: the append-only audit log of memory operations, one JSON object per
//! line (`{"timestamp": "YYYY-MM-DD HH:MM ±HH:MM", "type": …, …}`).
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value;

use super::entry_key::entry_key;
use crate::store::dialect::StoreWarning;
use crate::store::model::history::HistoryEvent;
use crate::store::read::fsio;

pub const EVENTS_PATH: &str = "memory/events.jsonl";

/// The log as read: its text, where its events are, and what could not be read. Events are
/// made from the text when asked for (`events`): each kept as a JSON value would be a large
/// share of a home's peak memory, for the one count `stats` prints (docs/benchmarks.md,
/// "awareness figures").
#[derive(Debug, Default, Clone)]
pub struct EventLog {
    text: String,
    /// Each event's line number and its bytes in `text`, in file order.
    lines: Vec<(u32, Range<usize>)>,
    pub warnings: Vec<StoreWarning>,
}

impl EventLog {
    /// Read the log under `root`; a missing log is an empty history.
    pub fn read(root: &Path) -> EventLog {
        match fsio::read_capped(&root.join(EVENTS_PATH), fsio::MAX_READ) {
            Ok((bytes, truncated)) => {
                // Kept as read when it is UTF-8 (no second copy of a log up to 16 MB).
                let text =
                    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                let mut log = EventLog::parse(text);
                if truncated {
                    log.warnings
                        .push(warning(None, format!("larger than {} bytes; the rest is not read", fsio::MAX_READ)));
                }
                log
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => EventLog::default(),
            Err(e) => EventLog { warnings: vec![warning(None, format!("cannot read: {e}"))], ..EventLog::default() },
        }
    }

    /// Lines are checked in parallel (a home's log grows by every memory operation, and a long
    /// one is most of a cached open: docs/benchmarks.md, "awareness figures"), then gathered in
    /// file order.
    pub fn parse(text: String) -> EventLog {
        let lines: Vec<(u32, Range<usize>)> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                let at = offset_in(&text, line);
                (i as u32 + 1, at..at + line.len())
            })
            .collect();
        let checked: Vec<Option<StoreWarning>> =
            lines.par_iter().map(|(n, r)| record(*n, &text[r.clone()]).err()).collect();
        let mut log = EventLog { text, ..EventLog::default() };
        for (line, problem) in lines.into_iter().zip(checked) {
            match problem {
                None => log.lines.push(line),
                Some(w) => log.warnings.push(w),
            }
        }
        log.lines.shrink_to_fit();
        log
    }

    /// How many events the log holds.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The events, in file order.
    pub fn events(&self) -> Vec<HistoryEvent> {
        self.lines.par_iter().filter_map(|(n, r)| record(*n, &self.text[r.clone()]).ok()).collect()
    }
}

/// Where `part`, a slice of `text`, starts in it.
fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// One line of the log (numbered `n`) as an event, or why it is not one.
fn record(n: u32, line: &str) -> Result<HistoryEvent, StoreWarning> {
    match serde_json::from_str::<Value>(line) {
        Ok(raw @ Value::Object(_)) => match raw.get("type").and_then(Value::as_str).filter(|k| !k.is_empty()) {
            Some(kind) => Ok(HistoryEvent {
                ts: raw.get("timestamp").and_then(Value::as_str).map(str::to_string),
                kind: kind.to_string(),
                entities: entity_ids(&raw),
                path: EVENTS_PATH.into(),
                line: n,
                raw,
            }),
            None => Err(warning(Some(n), "record has no `type`".into())),
        },
        Ok(_) => Err(warning(Some(n), "not a JSON object".into())),
        Err(e) => Err(warning(Some(n), format!("not valid JSON: {e}"))),
    }
}

/// The entities an event is about: the entry named by `key` (`memory.used`) or by `text`
/// (hashed like the entry), or the evaluation file of `evaluation.created`.
fn entity_ids(record: &Value) -> Vec<String> {
    let s = |k: &str| record.get(k).and_then(Value::as_str).filter(|v| !v.trim().is_empty());
    if let Some(key) = s("key") {
        return vec![key.to_string()];
    }
    if let Some(text) = s("text") {
        return vec![entry_key(text)];
    }
    if let Some(file) = s("file").and_then(evaluation_id) {
        return vec![file];
    }
    Vec::new()
}

/// `/home/u/.agents/evaluations/2026-08-11.md` → `evaluations/2026-08-11` (the framework logs
/// the absolute path it wrote).
fn evaluation_id(file: &str) -> Option<String> {
    let file = file.replace('\\', "/");
    let at = file.rfind("evaluations/")?;
    let rel = &file[at..];
    Some(rel.strip_suffix(".md").unwrap_or(rel).to_string())
}

fn warning(line: Option<u32>, message: String) -> StoreWarning {
    let place = line.map(|n| format!("{EVENTS_PATH}:{n}")).unwrap_or_else(|| EVENTS_PATH.to_string());
    StoreWarning {
        code: "invalid-event-line".into(),
        message: format!("{place}: {message}"),
        path: Some(EVENTS_PATH.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_name_their_entries() {
        let log = EventLog::parse(String::from(concat!(
            r#"{"timestamp":"2099-01-02 12:34 +00:00","type":"memory.promoted","kind":"preference","section":"Preferences","text":"a","evidence":"e"}"#,
            "\n\n",
            r#"{"timestamp":"2099-01-02 12:35 +00:00","type":"memory.used","key":"zz","section":"Preferences","text":"a","note":"n"}"#,
            "\n",
            r#"{"timestamp":"2099-01-02 12:36 +00:00","type":"evaluation.created","file":"/h/.agents/evaluations/2099-01-02.md","status":"written"}"#,
            "\n",
        )));
        assert!(log.warnings.is_empty());
        let events = log.events();
        assert_eq!(log.len(), 3);
        let got: Vec<_> = events.iter().map(|e| (e.kind.as_str(), e.entities.clone(), e.line)).collect();
        assert_eq!(
            got,
            [
                ("memory.promoted", vec!["3t1g".to_string()], 1),
                ("memory.used", vec!["zz".to_string()], 3),
                ("evaluation.created", vec!["evaluations/2099-01-02".to_string()], 4),
            ]
        );
        assert_eq!(events[0].ts.as_deref(), Some("2099-01-02 12:34 +00:00"));
        assert_eq!(events[0].raw["evidence"], "e");
    }

    #[test]
    fn malformed_lines_are_warnings_with_their_line() {
        let log = EventLog::parse(
            "{\"type\":\"memory.pruned\",\"text\":\"x\"}\nnot json\n[1,2]\n{\"text\":\"no type\"}\n".into(),
        );
        assert_eq!(log.events().len(), 1);
        assert_eq!(log.len(), 1);
        let w: Vec<_> = log.warnings.iter().map(|w| w.message.split(':').nth(1).unwrap().to_string()).collect();
        assert_eq!(w, ["2", "3", "4"]);
        assert!(log.warnings.iter().all(|w| w.code == "invalid-event-line"));
    }
}
