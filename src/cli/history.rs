//! `folio history [PATH] ID [--json]`: the events that name one entity, newest first — from the
//! store's own log and folio's journal. (Git history is not read yet.)
use serde_json::json;

use super::common::{Global, find_entity, print_json, split_path_arg};
use super::escape;
use super::log::{describe, events};
use crate::store::model::history::HistoryEvent;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID — the store (optional) and the entity's id (or path, or title).
    #[arg(required = true, num_args = 1..=2, value_name = "PATH] [ID")]
    pub words: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Whether an event names the entity: logs name it by id, some by its path (with or without
/// the `.md` extension or a leading slash).
fn names(e: &HistoryEvent, id: &str, path: &str) -> bool {
    let stem = path.strip_suffix(".md").unwrap_or(path);
    e.entities.iter().any(|n| {
        let n = n.trim_start_matches('/');
        n == id || n == path || n == stem
    })
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, id) = split_path_arg(a.words)?;
    // Starting up resolves a write a crash interrupted, so the past shown is the real one.
    let store = super::write_flags::open_resolved(g, path.as_deref(), false)?;
    let idx = find_entity(&store, &id)?;
    let e = store.entity(idx);
    let list: Vec<HistoryEvent> = events(&store).into_iter().filter(|ev| names(ev, &e.id, &e.path)).collect();
    if a.json {
        let items: Vec<_> = list
            .iter()
            .map(|ev| {
                json!({"source": "log", "ts": ev.ts, "kind": ev.kind, "summary": describe(ev),
                       "path": ev.path, "line": ev.line, "raw": ev.raw})
            })
            .collect();
        print_json(&json!({"id": e.id, "path": e.path, "versions": items}));
        return Ok(0);
    }
    if list.is_empty() {
        println!("no events name {}", escape::line(&e.id));
        return Ok(0);
    }
    for ev in &list {
        println!(
            "{}  {}  {}  ({}:{})",
            escape::line(ev.ts.as_deref().unwrap_or("-")),
            escape::line(&ev.kind),
            escape::line(&describe(ev)),
            escape::line(&ev.path),
            ev.line
        );
    }
    Ok(0)
}
