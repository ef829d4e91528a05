//! `folio stats`: what a store holds.
use std::path::PathBuf;

use serde_json::json;

use super::common::{Global, one_shot, open_store, print_json};
use super::escape;
use folio_core::store::{Store, write::catalog};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store to summarise (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let store = one_shot(open_store(g, a.path.as_deref())?);
    let report = stats(&store);
    if a.json {
        print_json(&report);
    } else {
        print_text(&store, &report);
    }
    Ok(0)
}

/// The stats report as JSON (the text form is printed from it).
pub fn stats(store: &Store) -> serde_json::Value {
    let (links, unresolved) = store.link_counts();
    // Typed edges (frontmatter relations, a database's edge rows) are links too.
    let typed: usize = store.entities.iter().map(|e| e.edges.len()).sum();
    let typed_unresolved: usize = store.entities.iter().flat_map(|e| &e.edges).filter(|e| e.resolved.is_none()).count();
    let stale = catalog::states(store).iter().filter(|(_, s)| *s != catalog::CatalogState::Fresh).count();
    let (files_with_problems, problems) = store.problem_counts();
    let warnings: Vec<_> = store
        .walk_warnings
        .iter()
        .cloned()
        .chain(store.format_warnings())
        .map(|w| json!({"code": w.code, "message": w.message, "path": w.path}))
        .collect();
    json!({
        "dialect": store.kind().name(),
        "detected_by": store.detected_by,
        "root": store.root.display().to_string(),
        "entities": store.entities.len(),
        "by_kind": store.by_kind(),
        "links": links,
        "unresolved_links": unresolved,
        "typed_edges": typed,
        "unresolved_typed_edges": typed_unresolved,
        "orphans": store.orphans().count(),
        "stale_catalogs": stale,
        "files_with_problems": files_with_problems,
        "problems": problems,
        "history_events": store.dialect.history_len(&store.root),
        "git_repository": git_repository(&store.root).map(|p| p.display().to_string()),
        "enclosing": store.dialect.enclosing().map(|e| json!({
            "what": e.what,
            "root": e.root.display().to_string(),
            "below": e.below,
        })),
        "warnings": warnings,
        "info": store.dialect.info(),
        "load_ms": store.load_ms as u64,
    })
}

/// The git repository the store is in, when it sits below the repository's top (a subfolder of
/// a monorepo): the folder holding `.git`, strictly above the root.
fn git_repository(root: &std::path::Path) -> Option<std::path::PathBuf> {
    let root = root.canonicalize().ok()?;
    if root.join(".git").exists() {
        return None;
    }
    root.ancestors().skip(1).find(|d| d.join(".git").exists()).map(std::path::Path::to_path_buf)
}

fn print_text(store: &Store, r: &serde_json::Value) {
    println!(
        "{}  ({} store, {})",
        escape::line(&store.root.display().to_string()),
        r["dialect"].as_str().unwrap_or(""),
        r["detected_by"].as_str().unwrap_or("")
    );
    if let Some(e) = r["enclosing"].as_object() {
        let root = escape::line(e["root"].as_str().unwrap_or(""));
        println!(
            "inside the {} at {root} (opened at its folder {}; links resolve from its root; `folio {root}` opens all of it)",
            e["what"].as_str().unwrap_or(""),
            escape::line(e["below"].as_str().unwrap_or("")),
        );
    }
    if let Some(repo) = r["git_repository"].as_str() {
        println!("in the git repository at {} (a subfolder of it)", escape::line(repo));
    }
    println!("{} entities, loaded in {} ms", r["entities"], r["load_ms"]);
    if let Some(kinds) = r["by_kind"].as_object() {
        let mut kinds: Vec<_> = kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.as_u64().cmp(&a.1.as_u64()).then(a.0.cmp(b.0)));
        for (k, n) in kinds {
            println!("  {n:>7}  {}", escape::line(k));
        }
    }
    println!("{} links, {} unresolved", r["links"], r["unresolved_links"]);
    if r["typed_edges"].as_u64().unwrap_or(0) > 0 {
        println!("{} typed edges, {} to no entity", r["typed_edges"], r["unresolved_typed_edges"]);
    }
    println!("{} orphans (nothing links to them)", r["orphans"]);
    println!("{} stale or missing catalogs", r["stale_catalogs"]);
    // Reading problems and the format's own checks alike: lint findings, not only bad files.
    println!("{} entities with problems ({} in all; `folio lint` lists them)", r["files_with_problems"], r["problems"]);
    if r["history_events"].as_u64().unwrap_or(0) > 0 {
        println!("{} events in the store's log", r["history_events"]);
    }
    for w in r["warnings"].as_array().into_iter().flatten() {
        println!(
            "warning: {}: {}",
            w["code"].as_str().unwrap_or(""),
            escape::line(w["message"].as_str().unwrap_or(""))
        );
    }
}
