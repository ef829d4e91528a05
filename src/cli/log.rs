//! `folio log [PATH] [--json]`: the store's audit trail, newest first — the agents' own events
//! from the dialect's log and folio's events, merged.
use std::path::PathBuf;

use serde_json::json;

use super::common::{Global, print_json};
use super::escape;
use folio_core::store::history::events::{all as events, describe};

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
