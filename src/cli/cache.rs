//! `folio cache info|clear`: the persistent store cache, outside every store.
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::json;

use super::common::{Global, print_json};
use super::escape;
use folio_core::store::keep::cache::{self, Cache};
use folio_core::store::read::detect;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Where the cache is and every store it holds (root, dialect, entities, size, age).
    Info {
        #[arg(long)]
        json: bool,
    },
    /// Remove the cache of the store at PATH (default: found from the current directory up).
    Clear {
        path: Option<PathBuf>,
        /// Remove the cache of every store.
        #[arg(long, conflicts_with = "path")]
        all: bool,
    },
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let Some(cache) = &g.cache else {
        println!("the cache is off (--no-cache or FOLIO_NO_CACHE)");
        return Ok(0);
    };
    match a.action {
        Action::Info { json } => info(cache, json),
        Action::Clear { all: true, .. } => {
            let n = cache.clear(None).context("cannot clear the cache")?;
            println!(
                "removed {} from {}",
                crate::store::model::count::count(n, "cache file"),
                escape::line(&cache.dir().display().to_string())
            );
            Ok(0)
        }
        Action::Clear { path, .. } => {
            let (root, kind) = match path {
                Some(p) => named(&p, g)?,
                None => {
                    let start = std::env::current_dir().context("cannot read the current directory")?;
                    let found = detect::find_upward(&start)
                        .with_context(|| format!("no knowledge store found in {} or any parent", start.display()))?;
                    detection(&found, g)
                }
            };
            let n = cache.clear(Some((&root, kind))).context("cannot clear the cache")?;
            let what = if n == 0 { "no cache for" } else { "removed the cache of" };
            println!("{what} {}", escape::line(&root.display().to_string()));
            Ok(0)
        }
    }
}

/// The store a command given `path` opens (`Store::open_with`): a database by its connection
/// string, else the folder itself as detected, markers or not.
fn named(path: &Path, g: &Global) -> anyhow::Result<(PathBuf, folio_core::store::dialect::DialectKind)> {
    if let Some((kind, root)) = detect::located_root(path, g.dialect) {
        return Ok((root, kind));
    }
    if !path.is_dir() {
        anyhow::bail!("{}: not a folder", escape::line(&path.display().to_string()));
    }
    Ok(detection(path, g))
}

fn detection(path: &Path, g: &Global) -> (PathBuf, folio_core::store::dialect::DialectKind) {
    match g.dialect {
        Some(kind) => (detect::root_for(kind, path), kind),
        None => {
            let d = detect::detect(path);
            (d.root, d.kind)
        }
    }
}

fn info(cache: &Cache, as_json: bool) -> anyhow::Result<u8> {
    let entries = cache.entries();
    let rows: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| match &e.header {
            Ok(h) => {
                let age_s = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|now| (now.as_nanos() as i128 - h.read_since_ns) / 1_000_000_000)
                    .unwrap_or(0);
                let usable = h.build == cache::build_id();
                json!({"file": e.path, "bytes": e.bytes, "root": h.root, "dialect": h.dialect,
                       "entities": h.entities, "age_seconds": age_s, "this_build": usable,
                       "text_index_bytes": e.text_index_bytes, "profiles_bytes": e.profiles_bytes,
                       "facts_bytes": e.facts_bytes, "lint_memo_bytes": e.lint_memo_bytes,
                       "listing_bytes": e.listing_bytes})
            }
            Err(why) => json!({"file": e.path, "bytes": e.bytes, "error": why}),
        })
        .collect();
    if as_json {
        print_json(&json!({"dir": cache.dir(), "stores": rows}));
        return Ok(0);
    }
    println!("cache: {}", escape::line(&cache.dir().display().to_string()));
    if rows.is_empty() {
        println!("  (empty)");
    }
    for (e, row) in entries.iter().zip(&rows) {
        match &e.header {
            Ok(h) => println!(
                "  {} ({}): {} entities, {:.1} MB{}, {} s old{}",
                escape::line(&h.root),
                h.dialect,
                h.entities,
                e.bytes as f64 / 1e6,
                [
                    (e.text_index_bytes, "text index"),
                    (e.profiles_bytes, "lint profiles"),
                    (e.lint_memo_bytes, "lint memo"),
                    (e.facts_bytes, "inbox facts"),
                    (e.listing_bytes, "review listing"),
                ]
                .iter()
                .filter_map(|(b, what)| b.map(|b| format!(" + {what} {:.1} MB", b as f64 / 1e6)))
                .collect::<String>(),
                row["age_seconds"],
                if h.build == cache::build_id() { "" } else { ", another build's (rebuilt on next open)" }
            ),
            Err(why) => {
                println!("  {}: unreadable ({})", escape::line(&e.path.display().to_string()), escape::line(why))
            }
        }
    }
    Ok(0)
}
