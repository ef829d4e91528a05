//! `folio blame [PATH] ID [--json]`: each line of the entity's file with the version that
//! brought it (commit or uncommitted change, author, date), following the file through renames.
use serde_json::json;

use super::common::{Global, print_json, split_path_arg};
use super::escape;
use folio_core::store::history::blame;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID — the store (optional) and the entity's id (or path, or title).
    #[arg(required = true, num_args = 1..=2, value_name = "PATH] [ID")]
    pub words: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, id) = split_path_arg(a.words)?;
    let store = super::write_flags::open_resolved(g, path.as_deref(), false)?;
    let h = super::history::load(&store, &id)?;
    let lines = blame::blame(&h);
    if a.json {
        let items: Vec<_> = lines
            .iter()
            .map(|l| {
                let v = &h.versions[l.version];
                json!({"line": l.number, "rev": v.rev, "commit": v.commit, "source": v.source,
                       "author": v.author, "agent": v.agent, "when": v.when, "text": l.text})
            })
            .collect();
        print_json(&json!({"id": h.id, "path": h.path, "lines": items}));
        return Ok(0);
    }
    let width = lines.iter().map(|l| h.versions[l.version].rev.len()).max().unwrap_or(0);
    for l in &lines {
        let v = &h.versions[l.version];
        let who = v.author.as_deref().unwrap_or("not committed");
        let day = v.when.as_deref().map(|w| w.chars().take(10).collect::<String>()).unwrap_or_default();
        println!(
            "{:width$}  {:16.16}  {:10}  {:4}) {}",
            v.rev,
            escape::line(who),
            escape::line(&day),
            l.number,
            escape::line(&l.text)
        );
    }
    Ok(0)
}
