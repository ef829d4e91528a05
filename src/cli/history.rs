//! `folio history [PATH] ID [--json]`: one entity's past, newest first — the commits that touched
//! its file (following renames), a change not committed yet, and the events of the store's own
//! log and folio's journal that name it. `--diff A..B` compares two versions word by word;
//! `folio history [PATH] --deleted` lists the entities whose files git history deleted.
use anyhow::Context;
use serde_json::json;

use super::common::{Global, find_entity, print_json};
use super::escape;
use folio_core::store::Store;
use folio_core::store::history::{self, History, Source};
use folio_core::store::review::diff::{self, Op};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID — the store (optional) and the entity's id (or path, or title; a deleted
    /// entity by its path). With --deleted: [PATH] alone.
    #[arg(num_args = 0..=2, value_name = "PATH] [ID")]
    pub words: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Compare two versions word by word: `A..B`, each a rev from the list (a commit's digits,
    /// `worktree`).
    #[arg(long, value_name = "A..B", conflicts_with = "deleted")]
    pub diff: Option<String>,
    /// List the entities whose files were deleted in git history and are gone still.
    #[arg(long)]
    pub deleted: bool,
}

/// The history of the entity `id` names, or of a file by its path when no entity has it (a
/// deleted entity).
pub fn load(store: &Store, id: &str) -> anyhow::Result<History> {
    if let Some(idx) = store.find(id) {
        return Ok(history::of_entity(store, idx)?);
    }
    let rel = id.trim_start_matches("./");
    if rel.ends_with(".md") && !rel.split('/').any(|c| c == "..") {
        let h = history::of_file(store, rel)?;
        if h.versions.iter().any(|v| v.has_content()) {
            return Ok(h);
        }
    }
    find_entity(store, id)?;
    unreachable!("find_entity fails for an id `find` does not know")
}

fn words(mut w: Vec<String>, deleted: bool) -> anyhow::Result<(Option<std::path::PathBuf>, Option<String>)> {
    match (deleted, w.len()) {
        (true, 0) => Ok((None, None)),
        (true, 1) => Ok((Some(w.remove(0).into()), None)),
        (false, 1) => Ok((None, Some(w.remove(0)))),
        (false, 2) => {
            let id = w.remove(1);
            Ok((Some(w.remove(0).into()), Some(id)))
        }
        (true, _) => anyhow::bail!("--deleted takes the store's PATH alone"),
        (false, _) => anyhow::bail!("expected [PATH] ID"),
    }
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, id) = words(a.words, a.deleted)?;
    // Starting up resolves a write a crash interrupted, so the past shown is the real one.
    let store = super::write_flags::open_resolved(g, path.as_deref(), false)?;
    let Some(id) = id else { return deleted(&store, a.json) };
    if !a.json && a.diff.is_none() {
        return print_streaming(&store, &id);
    }
    let h = load(&store, &id)?;
    if let Some(range) = &a.diff {
        let (from, to) = range.split_once("..").context("--diff takes A..B")?;
        let ops = h.diff(from, to).map_err(anyhow::Error::msg)?;
        if a.json {
            let word = |op: &Op| match op {
                Op::Same => "same",
                Op::Removed => "removed",
                Op::Added => "added",
            };
            let ops: Vec<_> = ops.iter().map(|(op, t)| json!({"op": word(op), "text": t})).collect();
            print_json(&json!({"id": h.id, "path": h.path, "from": from, "to": to, "ops": ops}));
        } else {
            print!("{}", escape::text(&diff::render(&ops)));
        }
        return Ok(0);
    }
    // The JSON list, printed whole as one document (the text list streams, above).
    let versions: Vec<_> = h
        .versions
        .iter()
        .map(|v| {
            let mut j = serde_json::to_value(v).unwrap_or_default();
            j["summary"] = json!(v.change_line());
            j
        })
        .collect();
    print_json(&json!({"id": h.id, "path": h.path, "git": h.git, "prefix": h.prefix,
                       "shallow": h.shallow, "versions": versions}));
    Ok(0)
}

/// The list as text, one row per version, each printed as soon as the walk has found the next
/// older version (its summary needs that one): a long history shows its newest versions at once.
/// The JSON answer is printed whole, as one document.
fn print_streaming(store: &Store, id: &str) -> anyhow::Result<u8> {
    let mut rows = 0usize;
    let mut print = |v: &history::Version| {
        println!("{}", escape::line(&row(v)));
        rows += 1;
    };
    // A deleted entity's file is no entity of the store: its list is printed once read.
    let h = match store.find(id) {
        Some(idx) => history::of_entity_streaming(store, idx, &mut print)?,
        None => {
            let h = load(store, id)?;
            h.versions.iter().for_each(&mut print);
            h
        }
    };
    if rows == 0 {
        println!("no versions or events of {}", escape::id(&h.id));
    }
    if h.shallow {
        println!("(a shallow clone: history before its boundary is not here)");
    }
    Ok(0)
}

/// `rev  when  who  status  subject  change`.
fn row(v: &history::Version) -> String {
    let mut who = v.author.clone().unwrap_or_else(|| "-".into());
    if let Some(agent) = v.agent.as_deref().filter(|a| Some(*a) != v.author.as_deref()) {
        who = format!("{who}, written by {agent}");
    }
    let when = v.when.as_deref().unwrap_or("-");
    if v.source == Source::Log {
        return format!("{}  {when}  {who}  {}  {}", v.rev, v.kind.as_deref().unwrap_or("-"), v.subject);
    }
    let status = match &v.renamed_from {
        Some(from) => format!("renamed from {from}"),
        None => v.status.clone(),
    };
    format!("{}  {when}  {who}  {status}  {}  [{}]", v.rev, v.subject, v.change_line())
}

fn deleted(store: &Store, as_json: bool) -> anyhow::Result<u8> {
    let list = history::deleted(store)?;
    if as_json {
        let items: Vec<_> = list
            .iter()
            .map(|d| {
                json!({"path": d.path, "commit": d.commit.id.to_string(), "rev": d.commit.id.to_hex_with_len(7).to_string(),
                       "when": time::OffsetDateTime::from_unix_timestamp(d.commit.time).ok().map(folio_core::store::model::timestamp::iso),
                       "author": d.commit.author, "email": d.commit.email, "subject": d.commit.subject})
            })
            .collect();
        print_json(&json!(items));
        return Ok(0);
    }
    if list.is_empty() {
        println!("no deleted entities in the git history of {}", escape::line(&store.root.display().to_string()));
        return Ok(0);
    }
    for d in &list {
        println!(
            "{}  deleted in {} by {}: {}",
            escape::line(&d.path),
            d.commit.id.to_hex_with_len(7),
            escape::line(&d.commit.author),
            escape::line(&d.commit.subject)
        );
    }
    Ok(0)
}
