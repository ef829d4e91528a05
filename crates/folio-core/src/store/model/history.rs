//! A store's own event history (evolve `audit.log`, AIP-10 `_log.md`, awareness
//! `events.jsonl`, OKF `log.md`), read into one shape.

/// One event from a store's log, as the format wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEvent {
    /// Timestamp as written (formats disagree on its shape; it is not normalised).
    pub ts: Option<String>,
    /// Event type: evolve `event`/`action`, AIP-10 event-type, awareness `type`, OKF verb.
    pub kind: String,
    /// Entity ids the event names, when it names any.
    pub entities: Vec<String>,
    /// Log file, relative to the store root, and 1-based line of the event.
    pub path: String,
    pub line: u32,
    /// The whole record (a JSON object for JSON-lines logs; `{"text": …}` for markdown logs).
    pub raw: serde_json::Value,
}
