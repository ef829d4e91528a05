//! `folio recall [PATH] QUERY`: fuzzy recall, ranked as the TUI ranks it.
use serde_json::json;

use super::common::{Global, open_store, print_json, split_path_arg};
use super::escape;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] QUERY — the store (optional) and the query (fzf syntax: 'exact ^prefix suffix$ !not;
    /// filters kind:/type: tag: status:/maturity: scope: has:lint has:pending).
    #[arg(required = true, num_args = 1..=2, value_name = "PATH] [QUERY")]
    pub words: Vec<String>,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Also match each H2 section of the bodies (as the TUI does after Ctrl-S).
    #[arg(long)]
    pub sections: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, query) = split_path_arg(a.words)?;
    let store = open_store(g, path.as_deref())?;
    let parsed = crate::recall::Query::parse(&query);
    // `has:lint` needs the lint engine's findings, the same ones the TUI marks.
    let flags = if parsed.has_lint {
        let config = crate::store::lint::LintConfig::load(&store.root, store.kind())?;
        crate::recall::lint_flags(&store, &crate::store::lint::lint(&store, &config))
    } else {
        Vec::new()
    };
    let hits = crate::recall::recall_with(&store, &parsed, &flags, a.sections, a.limit);
    if a.json {
        let results: Vec<_> = hits
            .iter()
            .map(|h| {
                let e = store.entity(h.idx);
                let section = h.section.as_ref().map(|s| json!({"heading": s.heading, "line": s.line}));
                json!({"id": e.id, "path": e.path, "title": e.title, "kind": e.kind, "score": h.score, "section": section})
            })
            .collect();
        print_json(&json!({"query": query, "results": results}));
    } else {
        for h in &hits {
            let e = store.entity(h.idx);
            match &h.section {
                Some(s) => println!(
                    "{:>5}  {}:{}  {} › {}",
                    h.score,
                    escape::line(&e.id),
                    s.line,
                    escape::line(&e.title),
                    escape::line(&s.heading)
                ),
                None => println!("{:>5}  {}  {}", h.score, escape::line(&e.id), escape::line(&e.title)),
            }
        }
        if hits.is_empty() {
            eprintln!("no matches for `{}`", escape::line(&query));
        }
    }
    Ok(0)
}
