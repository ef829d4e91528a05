//! Audit events: one per changeset, appended to the log in the dialect's own format.
//!
//! Each format writes its log in its own folder (`Format::log_path`, `Format::append_event`):
//! OKF `log.md`, evolve `audit.log`, AIP-10 `_log.md`, awareness `memory/events.jsonl`; the
//! others get folio's own `.folio/audit.jsonl`, JSON lines written here.
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use super::state::State;
use crate::store::dialect::DialectKind;
use crate::store::model::history::HistoryEvent;

/// An entity an event is about.
#[derive(Debug, Clone, PartialEq)]
pub struct EventEntity {
    pub id: String,
    pub title: String,
    /// File path relative to the store root.
    pub path: String,
}

/// What one changeset did, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    /// Lower-case verb: `set`, `unset`, `move`, `migrate`, `undo`, `approve`, `fix`, …
    pub verb: String,
    /// Who: `human:<id>` (or `agent:<id>`).
    pub by: String,
    pub entities: Vec<EventEntity>,
    /// One line of prose: what changed.
    pub summary: String,
    /// Extra machine-readable fields for JSON logs (`key`, `value`, `from`, `to`, …).
    pub details: Map<String, Value>,
    /// AIP-10 `_log.md` heading `## [ISO] <event type> | <subject>`: the event type (the
    /// spec's closed set: ingest, query, lint, manual; `manual` when unset) and its subject.
    pub log_heading: Option<(String, String)>,
    /// Bullets under the AIP-10 heading, replacing the default ones (e.g. a lint pass's counts).
    pub bullets: Vec<String>,
    /// When the event is logged (None: at the write). A previewed plan fixes it, so the log
    /// bytes the preview shows are the ones written.
    pub at: Option<OffsetDateTime>,
    /// For an undo: the log as the undone changeset found it and as it left it, so a format
    /// whose own tools know no undo event takes that changeset's lines back out instead of
    /// adding one (awareness).
    pub undone_log: Option<UndoneLog>,
}

/// The log before and after the changeset an undo reverts.
#[derive(Debug, Clone, PartialEq)]
pub struct UndoneLog {
    pub before: String,
    pub after: String,
}

impl UndoneLog {
    /// The text the changeset added to the log, when it only appended (the awareness log).
    pub fn appended(&self) -> Option<&str> {
        self.after.strip_prefix(self.before.as_str()).filter(|a| !a.is_empty())
    }
}

impl AuditEvent {
    pub fn new(verb: &str, by: &str, summary: impl Into<String>) -> Self {
        AuditEvent {
            verb: verb.to_string(),
            by: by.to_string(),
            entities: Vec::new(),
            summary: summary.into(),
            details: Map::new(),
            log_heading: None,
            bullets: Vec::new(),
            at: None,
            undone_log: None,
        }
    }

    /// Log under an AIP-10 heading other than `manual | <verb> <subject>`.
    pub fn heading(mut self, event_type: &str, subject: &str) -> Self {
        self.log_heading = Some((event_type.to_string(), subject.to_string()));
        self
    }

    pub fn bullet(mut self, line: impl Into<String>) -> Self {
        self.bullets.push(line.into());
        self
    }

    pub fn entity(mut self, id: &str, title: &str, path: &str) -> Self {
        self.entities.push(EventEntity { id: id.into(), title: title.into(), path: path.into() });
        self
    }

    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }
}

/// The default actor: `human:$USER` (`human:unknown` when unset or empty).
pub fn default_actor() -> String {
    let set = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let user = set("USER").or_else(|| set("USERNAME")).unwrap_or_else(|| "unknown".into());
    format!("human:{user}")
}

pub use crate::store::model::timestamp::{iso, now, now_iso};

/// Where the event log of a store of `kind` at `root` lives (the format says; folio's own
/// `audit.jsonl` in its state folder for formats without a log).
pub fn log_path(root: &Path, kind: DialectKind) -> PathBuf {
    kind.format().log_path(root)
}

/// The log's new content with `event` added at time `at`, in the format's own grammar and the
/// log's own line endings.
pub fn append(kind: DialectKind, old: Option<&str>, event: &AuditEvent, at: OffsetDateTime) -> String {
    let old = old.unwrap_or("");
    crate::store::model::lines::follow_line_endings(old, kind.format().append_event(old, event, at))
}

/// folio's own log: one JSON line per event, in the format's state folder.
pub fn own_log_path(root: &Path, kind: DialectKind) -> PathBuf {
    State::for_store(root, kind).dir.join("audit.jsonl")
}

pub fn json_line(old: &str, record: Value) -> String {
    let sep = if old.is_empty() || old.ends_with('\n') { "" } else { "\n" };
    format!("{old}{sep}{record}\n")
}

/// `{"event": verb, "entity"|"entities": …, "by": …, "summary": …, details…, "ts": "…Z"}`.
pub fn json_record(event: &AuditEvent, at: OffsetDateTime) -> Value {
    let mut m = Map::new();
    m.insert("event".into(), json!(event.verb));
    match event.entities.as_slice() {
        [one] => {
            m.insert("entity".into(), json!(one.id));
        }
        many => {
            m.insert("entities".into(), json!(many.iter().map(|e| e.id.clone()).collect::<Vec<_>>()));
        }
    }
    m.insert("by".into(), json!(event.by));
    m.insert("summary".into(), json!(event.summary));
    for (k, v) in &event.details {
        m.entry(k.clone()).or_insert_with(|| v.clone());
    }
    m.insert("ts".into(), json!(iso(at)));
    Value::Object(m)
}

pub fn capitalised(verb: &str) -> String {
    let mut c = verb.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// folio's own events from `.folio/audit.jsonl` (the log of dialects that have none).
pub fn folio_history(root: &Path, kind: DialectKind) -> Vec<HistoryEvent> {
    if log_path(root, kind) != own_log_path(root, kind) {
        return Vec::new();
    }
    let path = log_path(root, kind);
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    // Relative to the root, also when the state is kept beside it (evolve, a database's views).
    let rel = crate::store::model::relpath::from_root(root, &path);
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let v: Value = serde_json::from_str(l).ok()?;
            let entities = match (v.get("entity"), v.get("entities")) {
                (Some(Value::String(e)), _) => vec![e.clone()],
                (_, Some(Value::Array(a))) => a.iter().filter_map(|x| x.as_str().map(String::from)).collect(),
                _ => Vec::new(),
            };
            Some(HistoryEvent {
                ts: v.get("ts").and_then(|t| t.as_str()).map(String::from),
                kind: v.get("event").and_then(|t| t.as_str()).unwrap_or("event").to_string(),
                entities,
                path: rel.clone(),
                line: i as u32 + 1,
                raw: v,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn ev() -> AuditEvent {
        AuditEvent::new("set", "human:ann", "status = stable").entity("tables/users", "Users", "tables/users.md")
    }

    #[test]
    fn okf_newest_first_under_todays_heading() {
        let at = datetime!(2026-05-22 10:00 UTC);
        let fresh = append(crate::store::dialect::okf::KIND, None, &ev(), at);
        assert_eq!(
            fresh,
            "# Directory Update Log\n\n## 2026-05-22\n* **Set**: [Users](/tables/users.md): status = stable (human:ann)\n"
        );
        let old = "---\ntype: Log\n---\n# Log\n\n## 2026-05-22\n\n* **Update**: x\n\n## 2026-05-15\n* **Init**: y\n";
        let out = append(crate::store::dialect::okf::KIND, Some(old), &ev(), at);
        assert!(out.starts_with("---\ntype: Log\n---\n# Log\n\n## 2026-05-22\n\n* **Set**: [Users]"), "{out}");
        assert!(out.ends_with("(human:ann)\n* **Update**: x\n\n## 2026-05-15\n* **Init**: y\n"), "{out}");
        let next_day = append(crate::store::dialect::okf::KIND, Some(old), &ev(), datetime!(2026-05-23 1:00 UTC));
        assert!(next_day.starts_with("---\ntype: Log\n---\n# Log\n\n## 2026-05-23\n\n* **Set**"), "{next_day}");
        assert!(next_day.contains("(human:ann)\n\n## 2026-05-22\n\n* **Update**"), "{next_day}");
    }

    #[test]
    fn okf_follows_the_logs_bullets() {
        let old = "# Log\n\n## 2026-01-01\n\n- **Verified** x\n";
        let out = append(crate::store::dialect::okf::KIND, Some(old), &ev(), datetime!(2026-05-23 1:00 UTC));
        assert_eq!(
            out,
            "# Log\n\n## 2026-05-23\n\n- **Set**: [Users](/tables/users.md): status = stable (human:ann)\n\n## 2026-01-01\n\n- **Verified** x\n"
        );
    }

    #[test]
    fn json_and_markdown_logs() {
        let at = datetime!(2026-08-19 18:23:34.123456789 UTC);
        let line = append(
            crate::store::dialect::evolve::KIND,
            Some("{\"event\":\"recall\"}"),
            &ev().detail("key", "status"),
            at,
        );
        let last: Value = serde_json::from_str(line.lines().last().unwrap()).unwrap();
        assert_eq!(line.lines().count(), 2);
        assert_eq!(last["event"], "set");
        assert_eq!(last["entity"], "tables/users");
        assert_eq!(last["key"], "status");
        assert_eq!(last["ts"], "2026-08-19T18:23:34.123456Z");
        let bulk = ev()
            .entity("tables/orders", "Orders", "tables/orders.md")
            .detail("hashes", json!(["sha256:a", "sha256:b"]));
        let lines = append(crate::store::dialect::evolve::KIND, None, &bulk, at);
        let lines: Vec<Value> = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[1]["entity"].as_str(), lines[1]["hash"].as_str()), (Some("tables/orders"), Some("sha256:b")));
        assert!(lines[0].get("hashes").is_none());
        let aware = append(crate::store::dialect::awareness::KIND, None, &ev(), at);
        let v: Value = serde_json::from_str(aware.trim()).unwrap();
        assert_eq!(v["timestamp"], "2026-08-19 18:23 +00:00");
        assert_eq!(v["type"], "folio.set");
        let aip = append(crate::store::dialect::aip10::KIND, Some("# Log\n"), &ev(), at);
        assert_eq!(
            aip,
            "# Log\n\n## [2026-08-19T18:23:34Z] manual | set tables/users\n\n- Set [[tables/users]].\n- status = stable (by human:ann).\n"
        );
    }
}
