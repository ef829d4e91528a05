//! `folio recall [PATH] QUERY`: fuzzy recall, ranked as the TUI ranks it.
use serde_json::json;

use super::common::{Global, open_store, print_json, split_path_arg};
use super::escape;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] QUERY — the store (optional) and the query (fzf syntax: 'exact ^prefix suffix$ !not).
    #[arg(required = true, num_args = 1..=2, value_name = "PATH] [QUERY")]
    pub words: Vec<String>,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, query) = split_path_arg(a.words)?;
    let store = open_store(g, path.as_deref())?;
    let hits = crate::recall::recall(&store, &query, a.limit);
    if a.json {
        let results: Vec<_> = hits
            .iter()
            .map(|h| {
                let e = store.entity(h.idx);
                json!({"id": e.id, "path": e.path, "title": e.title, "kind": e.kind, "score": h.score})
            })
            .collect();
        print_json(&json!({"query": query, "results": results}));
    } else {
        for h in &hits {
            let e = store.entity(h.idx);
            println!("{:>5}  {}  {}", h.score, escape::line(&e.id), escape::line(&e.title));
        }
        if hits.is_empty() {
            eprintln!("no matches for `{}`", escape::line(&query));
        }
    }
    Ok(0)
}
