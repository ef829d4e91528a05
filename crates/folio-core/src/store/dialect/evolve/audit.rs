//! `.evolve/audit.log`: evolve's append-only JSON Lines log, read into history events.
//!
//! Rows carry one of two discriminators — `event` (recall, influence, retention,
//! synthesize_skill, folio's review) or `action` (publish, subscribe, unsubscribe, sync); a
//! retention row has both and is a `retention` event. A line that is not such a row is skipped
//! and reported as a store warning; nothing here panics or writes.
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::store::dialect::StoreWarning;
use crate::store::model::history::HistoryEvent;
use crate::store::read::frontmatter::scalar_text;
use crate::store::read::fsio;

/// Warning code for a line of `audit.log` that is not an audit row.
pub const INVALID_AUDIT_LINE: &str = "invalid-audit-line";

/// Malformed lines reported one by one; past this, one summary warning counts the rest.
const MAX_LINE_WARNINGS: usize = 20;

/// How `history` reports the log's path: relative to the store root (`entities/`).
const REL_PATH: &str = "../audit.log";

#[derive(Debug, Default)]
pub struct AuditLog {
    pub events: Vec<HistoryEvent>,
    pub warnings: Vec<StoreWarning>,
}

/// The audit log of the store rooted at `root`: `.evolve/audit.log` beside `entities/`. A
/// published or subscribed repository opened on its own has none (its parent folder is not
/// an `.evolve` folder, so no stray `audit.log` there is read).
pub fn path_for(root: &Path) -> Option<PathBuf> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let evolve_dir = root.parent()?;
    let is_entities = root.file_name().is_some_and(|n| n == "entities");
    let in_evolve = evolve_dir.file_name().is_some_and(|n| n == ".evolve");
    (is_entities && in_evolve).then(|| evolve_dir.join("audit.log"))
}

/// Read the audit log of the store at `root`; a missing log is an empty history.
pub fn read(root: &Path) -> AuditLog {
    let Some(path) = path_for(root) else { return AuditLog::default() };
    let shown = path.display().to_string();
    match fsio::read_capped(&path, fsio::MAX_READ) {
        Ok((bytes, truncated)) => {
            let mut log = parse(&bytes, &shown, truncated);
            if truncated {
                log.warnings.push(warning(
                    "too-large",
                    format!("{shown}: larger than {} bytes; only the events before that were read", fsio::MAX_READ),
                    &shown,
                ));
            }
            log
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => AuditLog::default(),
        Err(e) => AuditLog {
            events: Vec::new(),
            warnings: vec![warning("unreadable", format!("{shown}: cannot read: {e}"), &shown)],
        },
    }
}

/// Parse the bytes of an audit log. `shown` names the file in warnings; when the read was
/// `truncated`, the final partial line is dropped instead of being reported.
pub fn parse(bytes: &[u8], shown: &str, truncated: bool) -> AuditLog {
    let mut log = AuditLog::default();
    let mut bad_lines = 0usize;
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if truncated {
        lines.pop();
    }
    for (i, raw) in lines.into_iter().enumerate() {
        let line_no = i as u32 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match row(raw) {
            Ok((kind, record)) => log.events.push(event(kind, record, line_no)),
            Err(why) => {
                bad_lines += 1;
                if bad_lines <= MAX_LINE_WARNINGS {
                    let message = format!("{shown}:{line_no}: {why}; the line is skipped");
                    log.warnings.push(warning(INVALID_AUDIT_LINE, message, shown));
                }
            }
        }
    }
    if bad_lines > MAX_LINE_WARNINGS {
        let more = bad_lines - MAX_LINE_WARNINGS;
        log.warnings.push(warning(INVALID_AUDIT_LINE, format!("{shown}: {more} more malformed lines skipped"), shown));
    }
    log
}

/// One line as an audit row: its kind and the whole record, or why it is not one.
fn row(raw: &[u8]) -> Result<(String, Value), String> {
    let text = std::str::from_utf8(raw).map_err(|_| "not valid UTF-8".to_string())?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(map) = &value else { return Err("not a JSON object".into()) };
    let kind = ["event", "action"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()))
        .ok_or_else(|| "has neither an `event` nor an `action`".to_string())?;
    Ok((kind.to_string(), value))
}

fn event(kind: String, record: Value, line: u32) -> HistoryEvent {
    let ts = record.get("ts").filter(|v| !v.is_null()).map(scalar_text);
    let mut entities = Vec::new();
    if let Some(Value::String(id)) = record.get("entity") {
        entities.push(id.clone());
    }
    if let Some(Value::Array(ids)) = record.get("entities") {
        entities.extend(ids.iter().filter_map(Value::as_str).map(str::to_string));
    }
    HistoryEvent { ts, kind, entities, path: REL_PATH.to_string(), line, raw: record }
}

fn warning(code: &str, message: String, path: &str) -> StoreWarning {
    StoreWarning { code: code.to_string(), message, path: Some(path.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS: &str = r#"{"event": "recall", "session_id": "s1", "entities": ["guideline/foo", "project/bar"], "ts": "2026-08-19T18:23:34.123456Z"}
{"event": "influence", "session_id": "s1", "entity": "guideline/foo", "verdict": "followed", "evidence": "ran uv", "ts": "2026-08-19T18:30:00.000001Z"}
{"event": "retention", "action": "flag", "entity": "guideline/foo", "reason": "age", "rule": "stale-guidelines", "ts": "2026-08-20T00:00:00Z"}

{"action": "publish", "actor": "alice", "entity": "foo.md", "repo": "team", "ts": "2026-08-21T00:00:00Z"}
{"action": "sync", "actor": "alice", "delta": 3}
not json at all
["an", "array"]
{"session_id": "no kind"}
"#;

    #[test]
    fn rows_become_events_in_file_order() {
        let log = parse(ROWS.as_bytes(), "/p/.evolve/audit.log", false);
        let kinds: Vec<_> = log.events.iter().map(|e| (e.kind.as_str(), e.line)).collect();
        assert_eq!(kinds, [("recall", 1), ("influence", 2), ("retention", 3), ("publish", 5), ("sync", 6)]);
        assert_eq!(log.events[0].entities, ["guideline/foo", "project/bar"]);
        assert_eq!(log.events[0].ts.as_deref(), Some("2026-08-19T18:23:34.123456Z"));
        assert_eq!(log.events[2].raw["action"], "flag");
        assert_eq!(log.events[3].entities, ["foo.md"]);
        assert_eq!(log.events[4].ts, None);
        assert_eq!(log.events[4].path, "../audit.log");
    }

    #[test]
    fn malformed_lines_are_warnings_naming_file_and_line() {
        let log = parse(ROWS.as_bytes(), "/p/.evolve/audit.log", false);
        let messages: Vec<_> = log.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(messages.len(), 3);
        assert!(messages[0].starts_with("/p/.evolve/audit.log:7: not JSON"), "{}", messages[0]);
        assert_eq!(messages[1], "/p/.evolve/audit.log:8: not a JSON object; the line is skipped");
        assert_eq!(messages[2], "/p/.evolve/audit.log:9: has neither an `event` nor an `action`; the line is skipped");
        assert!(log.warnings.iter().all(|w| w.code == INVALID_AUDIT_LINE));
    }

    #[test]
    fn hostile_bytes_never_panic_and_floods_are_summarised() {
        let mut bytes = b"\xff\xfe{\"event\"\n{\"event\": \"recall\"}\n".to_vec();
        bytes.extend(std::iter::repeat_n(&b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"[..], 30).flatten());
        let log = parse(&bytes, "a.log", false);
        assert_eq!(log.events.len(), 1);
        assert_eq!(log.warnings.len(), MAX_LINE_WARNINGS + 1);
        assert_eq!(log.warnings.last().unwrap().message, "a.log: 11 more malformed lines skipped");
    }

    #[test]
    fn a_truncated_read_drops_the_partial_last_line() {
        let log = parse(b"{\"event\": \"recall\"}\n{\"event\": \"rec", "a.log", true);
        assert_eq!((log.events.len(), log.warnings.len()), (1, 0));
    }

    #[test]
    fn only_an_evolve_entities_root_has_a_log() {
        let t = tempfile::tempdir().unwrap();
        let entities = t.path().join("proj/.evolve/entities");
        std::fs::create_dir_all(&entities).unwrap();
        assert_eq!(read(&entities).events.len(), 0);
        std::fs::write(t.path().join("proj/.evolve/audit.log"), "{\"action\": \"sync\", \"delta\": 1}\n").unwrap();
        assert_eq!(read(&entities).events.len(), 1);
        // A published repository beside a stray audit.log does not pick it up.
        let published = t.path().join("repo");
        std::fs::create_dir_all(&published).unwrap();
        std::fs::write(t.path().join("audit.log"), "{\"action\": \"sync\"}\n").unwrap();
        assert!(path_for(&published).is_none());
        assert_eq!(read(&published).events.len(), 0);
    }
}
