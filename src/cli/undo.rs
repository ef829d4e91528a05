//! `folio undo [PATH]` (and `folio review undo`): revert the last changeset folio applied, if its
//! files still hold what folio wrote; review decisions it carried return to the queue.
use std::path::PathBuf;

use super::common::Global;
use super::escape;
use super::write_flags::{self, WriteFlags};
use folio_core::store::write::undo;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    // A database's undo reads the nodes the changeset wrote, not every node.
    let part = write_flags::open_part_resolved(g, a.path.as_deref(), a.write.read_only, undo::entities_read, false)?;
    let store = match part {
        Some(store) => store,
        None => write_flags::open_resolved(g, a.path.as_deref(), a.write.read_only)?,
    };
    if a.write.dry_run {
        let (record, diff) = undo::preview(&store).map_err(write_flags::report)?;
        let extra = undo::preview_extra(&store, &a.write.actor()?, folio_core::store::write::audit::now())
            .map_err(write_flags::report)?;
        println!("would undo `{}`: {}", record.verb, escape::line(&record.summary));
        for l in extra.lines() {
            println!("{}", escape::line(&l));
        }
        print!("{}", escape::text(&diff));
        print!("{}", escape::text(&extra.catalog_diff()));
        return Ok(0);
    }
    let applied = undo::undo(&store, &a.write.actor()?, &a.write.options());
    write_flags::say_rebuilt(&store);
    let applied = applied.map_err(write_flags::report)?;
    for f in &applied.files {
        println!("restored {}", escape::line(f));
    }
    for c in &applied.catalogs {
        println!("regenerated {}", escape::line(c));
    }
    println!("logged to {}", escape::line(&applied.log));
    Ok(0)
}
