//! The store's own log and folio's journal of events, merged newest first, and which of them
//! name one entity (what `folio log` lists and what an entity's history merges with git's).
use crate::store::Store;
use crate::store::model::history::HistoryEvent;
use crate::store::model::timestamp;
use crate::store::write::audit;

/// Every event of the store, newest first (events without a time last, in file order).
pub fn all(store: &Store) -> Vec<HistoryEvent> {
    let mut all = store.dialect.history(&store.root);
    all.extend(audit::folio_history(&store.root, store.kind()));
    // Oldest-first input reversed, then a stable sort on the time keeps same-time order newest first.
    all.reverse();
    all.sort_by_key(|e| std::cmp::Reverse(sort_key(e)));
    all
}

/// Timestamps differ per format (`2026-05-22`, `…T…Z`, `YYYY-MM-DD HH:MM ±HH:MM`): compare
/// their date-and-time prefix.
pub fn sort_key(e: &HistoryEvent) -> String {
    e.ts.as_deref().map(key_of).unwrap_or_default()
}

/// `YYYY-MM-DD HH:MM:SS` (or the shorter prefix a format wrote) of a timestamp.
pub fn key_of(ts: &str) -> String {
    ts.replace('T', " ").chars().take(19).collect()
}

/// An event's time in seconds since the epoch, when its timestamp reads as one (with or without
/// an offset; a space for the `T` as some logs write it).
pub fn unix_time(e: &HistoryEvent) -> Option<i64> {
    let ts = e.ts.as_deref()?.trim();
    timestamp::parse_instant(ts)
        .or_else(|| timestamp::parse_instant(&ts.replacen(' ', "T", 1)))
        .or_else(|| timestamp::parse_instant(&key_of(ts).replacen(' ', "T", 1)))
        .map(|t| t.unix_timestamp())
}

/// The event in one line: the first of its summary, text, reason or evidence.
pub fn describe(e: &HistoryEvent) -> String {
    let raw = &e.raw;
    for key in ["summary", "text", "reason", "evidence"] {
        if let Some(s) = raw.get(key).and_then(|v| v.as_str()) {
            return s.to_string();
        }
    }
    String::new()
}

/// Who the event says acted (`by`, `agent`, `actor`, `author`), when it says.
pub fn actor(e: &HistoryEvent) -> Option<String> {
    ["by", "agent", "actor", "author"]
        .iter()
        .find_map(|k| e.raw.get(*k).and_then(|v| v.as_str()).filter(|s| !s.is_empty()).map(str::to_string))
}

/// Whether an event names the entity: logs name it by id, some by its path (with or without
/// the `.md` extension or a leading slash).
pub fn names(e: &HistoryEvent, id: &str, path: &str) -> bool {
    let stem = path.strip_suffix(".md").unwrap_or(path);
    e.entities.iter().any(|n| {
        let n = n.trim_start_matches('/');
        n == id || n == path || n == stem
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(ts: Option<&str>, entities: &[&str]) -> HistoryEvent {
        HistoryEvent {
            ts: ts.map(str::to_string),
            kind: "set".into(),
            entities: entities.iter().map(|s| s.to_string()).collect(),
            path: crate::store::dialect::okf::spec::LOG.into(),
            line: 1,
            raw: json!({"by": "agent:scout", "summary": "set title"}),
        }
    }

    #[test]
    fn names_by_id_path_or_stem() {
        assert!(names(&ev(None, &["a"]), "a", "x/a.md"));
        assert!(names(&ev(None, &["/x/a"]), "id", "x/a.md"));
        assert!(names(&ev(None, &["x/a.md"]), "id", "x/a.md"));
        assert!(!names(&ev(None, &["b"]), "a", "x/a.md"));
    }

    #[test]
    fn times_read_in_every_shape_the_formats_write() {
        let t = |s: &str| unix_time(&ev(Some(s), &[]));
        assert_eq!(t("2026-05-22T10:00:00Z"), Some(1_779_444_000));
        assert_eq!(t("2026-05-22 10:00:00"), Some(1_779_444_000));
        assert_eq!(t("2026-05-22T12:00:00+02:00"), Some(1_779_444_000));
        assert_eq!(t("2026-05-22"), Some(1_779_408_000));
        assert_eq!(t("yesterday"), None);
        assert_eq!(actor(&ev(None, &[])).as_deref(), Some("agent:scout"));
        assert_eq!(describe(&ev(None, &[])), "set title");
    }
}
