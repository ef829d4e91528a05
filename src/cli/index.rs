//! `folio index [PATH] [--check]`: bring catalog files up to date (one journaled, logged,
//! undoable write; `--dry-run` shows its diff), or list the stale ones and what is wrong.
use std::path::PathBuf;

use super::common::Global;
use super::escape;
use super::write_flags::{self, WriteFlags};
use folio_core::store::write::catalog::{self, CatalogState};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    /// Write nothing; list stale or missing catalogs and exit 1 when there are any.
    #[arg(long)]
    pub check: bool,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let store =
        super::common::one_shot(write_flags::open_resolved(g, a.path.as_deref(), a.check || a.write.read_only)?);
    let statuses = catalog::status(&store);
    if statuses.is_empty() {
        println!("{} stores keep no catalog files; nothing to do", store.kind());
        return Ok(0);
    }
    if a.check {
        let mut stale = 0;
        for s in &statuses {
            let word = match &s.state {
                CatalogState::Fresh => continue,
                CatalogState::Stale => "stale",
                CatalogState::Missing => "missing",
                CatalogState::Refused(_) => "not-a-catalog",
            };
            stale += 1;
            match &s.state {
                CatalogState::Refused(why) => println!("{word}: {} ({})", escape::line(&s.path), escape::line(why)),
                _ => println!("{word}: {}", escape::line(&s.path)),
            }
            for note in &s.notes {
                println!("  {}", escape::line(note));
            }
        }
        if stale == 0 {
            println!("{} catalogs up to date", statuses.len());
            return Ok(0);
        }
        return Ok(super::EXIT_FINDING);
    }
    if let Some((path, why)) = store.unread_file() {
        anyhow::bail!(
            "{}: {}; catalogs rendered from an incomplete read would drop it, so nothing was written",
            escape::line(&path),
            escape::line(&why)
        );
    }
    let statuses = catalog::writable(statuses)?;
    let fresh = statuses.iter().filter(|s| s.state == CatalogState::Fresh).count();
    match catalog::changeset(&store, &statuses, &a.write.actor()?) {
        None => {
            println!("0 written, {fresh} already up to date");
            Ok(0)
        }
        Some(cs) => write_flags::apply(&store, cs, &a.write),
    }
}
