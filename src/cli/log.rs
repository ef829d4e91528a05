//! `folio log [PATH] [--json]`: the store's audit trail, newest first — the agents' own events
//! from the dialect's log and folio's events, merged.
use std::path::PathBuf;

use serde_json::json;

use super::common::{Global, print_json};
use super::escape;
use crate::store::Store;
use crate::store::model::history::HistoryEvent;
use crate::store::write::audit;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// Show at most N events.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// Every event of the store, newest first (events without a time last, in file order).
pub fn events(store: &Store) -> Vec<HistoryEvent> {
    let mut all = store.dialect.history(&store.root);
    all.extend(audit::folio_history(&store.root, store.kind()));
    // Oldest-first input reversed, then a stable sort on the time keeps same-time order newest first.
    all.reverse();
    all.sort_by_key(|e| std::cmp::Reverse(sort_key(e)));
    all
}

/// Timestamps differ per format (`2026-05-22`, `…T…Z`, `YYYY-MM-DD HH:MM ±HH:MM`): compare
/// their date-and-time prefix.
fn sort_key(e: &HistoryEvent) -> String {
    e.ts.as_deref().map(|t| t.replace('T', " ").chars().take(19).collect()).unwrap_or_default()
}

pub fn describe(e: &HistoryEvent) -> String {
    let raw = &e.raw;
    for key in ["summary", "text", "reason", "evidence"] {
        if let Some(s) = raw.get(key).and_then(|v| v.as_str()) {
            return s.to_string();
        }
    }
    String::new()
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    // Starting up resolves a write a crash interrupted, so the trail shown is the real one.
    let store = super::write_flags::open_resolved(g, a.path.as_deref(), false)?;
    let mut list = events(&store);
    if let Some(n) = a.limit {
        list.truncate(n);
    }
    if a.json {
        let items: Vec<_> = list
            .iter()
            .map(|e| json!({"ts": e.ts, "kind": e.kind, "entities": e.entities, "path": e.path, "line": e.line, "raw": e.raw}))
            .collect();
        print_json(&json!(items));
        return Ok(0);
    }
    if list.is_empty() {
        println!("no events in {}", escape::line(&store.root.display().to_string()));
        return Ok(0);
    }
    for e in &list {
        let ts = e.ts.as_deref().unwrap_or("-");
        let who = if e.entities.is_empty() { String::new() } else { format!(" [{}]", e.entities.join(", ")) };
        println!(
            "{}  {}{}  {}  ({}:{})",
            escape::line(ts),
            escape::line(&e.kind),
            escape::line(&who),
            escape::line(&describe(e)),
            escape::line(&e.path),
            e.line
        );
    }
    Ok(0)
}
