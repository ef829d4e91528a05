//! `folio index [PATH] [--check]`: regenerate catalog files, or list the stale ones.
use std::path::PathBuf;

use super::common::{Global, open_store};
use super::escape;
use crate::store::catalog::{self, CatalogState};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    /// Write nothing; list stale or missing catalogs and exit 1 when there are any.
    #[arg(long)]
    pub check: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let store = super::common::one_shot(open_store(g, a.path.as_deref())?);
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
    let report = catalog::write(&store)?;
    for p in &report.written {
        println!("wrote {}", escape::line(p));
    }
    println!("{} written, {} already up to date", report.written.len(), report.unchanged);
    Ok(0)
}
