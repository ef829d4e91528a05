//! `folio migrate [PATH] --to okf [--dry-run]`: align an evolve store or a vault with OKF.
use std::path::PathBuf;

use super::common::Global;
use super::escape;
use super::write_flags::{self, WriteFlags};
use folio_core::store::dialect::okf::migrate_to as migrate;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    /// Target format (only `okf`).
    #[arg(long, value_name = "FORMAT", value_parser = ["okf"])]
    pub to: String,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let store = write_flags::open_resolved(g, a.path.as_deref(), a.write.read_only)?;
    let plan = migrate::to_okf(&store, &a.write.actor()?).map_err(anyhow::Error::msg)?;
    for u in &plan.unresolved {
        eprintln!("folio: unresolved: {}", escape::line(u));
    }
    for n in &plan.notes {
        eprintln!("folio: {}", escape::line(n));
    }
    if !plan.changeset.is_empty() {
        eprintln!("folio: {}", escape::line(&plan.changeset.event.summary));
    }
    write_flags::apply(&store, plan.changeset, &a.write)
}
