//! evolve's `audit.log`: JSON lines; a bulk review becomes one line per entity with its hash.
use serde_json::Value;
use time::OffsetDateTime;

use crate::store::write::audit::{self, AuditEvent};

/// evolve's lines: folio's JSON record, one review line per entity for a bulk decision.
pub fn append(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    if event.details.contains_key("hashes") {
        evolve_lines(old, event, at)
    } else {
        audit::json_line(old, audit::json_record(event, at))
    }
}

/// evolve's review lines name one entity each: a bulk decision (`hashes`, one per entity)
/// becomes one line per entity with its own `hash`.
fn evolve_lines(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let hashes = event.details.get("hashes").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = old.to_string();
    for (i, e) in event.entities.iter().enumerate() {
        let mut one = event.clone();
        one.entities = vec![e.clone()];
        one.details.remove("hashes");
        if let Some(h) = hashes.get(i) {
            one.details.insert("hash".into(), h.clone());
        }
        out = audit::json_line(&out, audit::json_record(&one, at));
    }
    out
}
