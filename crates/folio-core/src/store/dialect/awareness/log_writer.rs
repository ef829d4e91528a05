//! awareness's `memory/events.jsonl`: the framework's own event lines.
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::store::write::audit::{self, AuditEvent};

/// awareness: each memory entry the event moved is one line of the framework's own type and
/// fields (the `entries` detail: `memory.promoted`, `memory.pruned`); whatever else the event
/// is about gets one `folio.<verb>` line.
///
/// An undo adds nothing: the framework has no undo event (a `folio.undo` line is a type it
/// does not know, and its `memory stats` would still count the undone promotion). It takes
/// the undone changeset's lines back out of the log instead, keeping every line anyone added
/// since, so the framework's statistics read as if the decision had never been taken.
pub fn append(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    if event.verb == "undo" {
        return withdrawn(old, event);
    }
    let entries = event.details.get("entries").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = old.to_string();
    let mut covered = Vec::new();
    for entry in &entries {
        let Value::Object(fields) = entry else { continue };
        let mut m = Map::new();
        m.insert("timestamp".into(), json!(awareness_ts(at)));
        for (k, v) in fields.iter().filter(|(k, _)| k.as_str() != "entity") {
            m.insert(k.clone(), v.clone());
        }
        m.insert("by".into(), json!(event.by));
        covered.extend(fields.get("entity").and_then(Value::as_str).map(str::to_string));
        out = audit::json_line(&out, Value::Object(m));
    }
    let mut rest = event.clone();
    rest.entities.retain(|e| !covered.contains(&e.id));
    rest.details.remove("entries");
    if entries.is_empty() || !rest.entities.is_empty() {
        out = audit::json_line(&out, awareness_record(&rest, at));
    }
    out
}

/// `old` without the lines the undone changeset appended (the last place they stand whole).
fn withdrawn(old: &str, event: &AuditEvent) -> String {
    let Some(added) = event.undone_log.as_ref().and_then(|u| u.appended()) else { return old.to_string() };
    match old.rfind(added) {
        Some(at) if at == 0 || old[..at].ends_with('\n') => format!("{}{}", &old[..at], &old[at + added.len()..]),
        _ => old.to_string(),
    }
}

fn awareness_ts(at: OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02} {:02}:{:02} +00:00", at.year(), at.month() as u8, at.day(), at.hour(), at.minute())
}

/// awareness's own line shape: local-style minute timestamp, dotted `type`.
fn awareness_record(event: &AuditEvent, at: OffsetDateTime) -> Value {
    let ts = awareness_ts(at);
    let mut m = Map::new();
    m.insert("timestamp".into(), json!(ts));
    // A dotted verb is already one of the framework's own event types (`memory.promoted`).
    let kind = if event.verb.contains('.') { event.verb.clone() } else { format!("folio.{}", event.verb) };
    m.insert("type".into(), json!(kind));
    m.insert("text".into(), json!(event.summary));
    m.insert("by".into(), json!(event.by));
    if !event.entities.is_empty() {
        m.insert("entities".into(), json!(event.entities.iter().map(|e| e.id.clone()).collect::<Vec<_>>()));
    }
    Value::Object(m)
}
