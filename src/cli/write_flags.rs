//! What every write command shares: `--dry-run`, `--as`, `--read-only`, recovering an
//! interrupted write before anything else, and applying or previewing a changeset.
use std::path::Path;

use super::common::{Global, open_store_as_is_reading, open_store_reading};
use super::escape;
use folio_core::store::write::changeset::{Changeset, WriteError, WriteOptions};
use folio_core::store::{Reads, Store};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct WriteFlags {
    /// Print the unified diff of what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Who makes the change, recorded in the audit event (default: human:$USER; with $USER
    /// unset, the reviewer remembered in the user's config, asked for once on a terminal).
    #[arg(long = "as", value_name = "human:ID")]
    pub actor: Option<String>,
    /// Refuse every write (the command then only reports what it would do).
    #[arg(long)]
    pub read_only: bool,
}

impl WriteFlags {
    pub fn actor(&self) -> anyhow::Result<String> {
        match &self.actor {
            None => Ok(super::reviewer::actor()),
            Some(a) if a.split_once(':').is_some_and(|(k, id)| !k.is_empty() && !id.is_empty()) => Ok(a.clone()),
            Some(a) => anyhow::bail!("--as {a}: expected KIND:ID, e.g. human:ann"),
        }
    }

    pub fn options(&self) -> WriteOptions {
        WriteOptions { read_only: self.read_only, ..Default::default() }
    }
}

/// Open the store, first finishing or rolling back a write a crash interrupted (and saying
/// which); a read-only run leaves the journal for a later writer.
pub fn open_resolved(g: &Global, path: Option<&Path>, read_only: bool) -> anyhow::Result<Store> {
    open_resolved_reading(g, path, read_only, Reads::Entities)
}

/// `open_resolved` for a decision about the entities `names` gives (ids or paths, told the
/// store's root and format): only those, where the store opens so (a database: its cached
/// store of every node is not decoded; `Store::open_part`); with `inbound`, and the entities
/// that may link into them. None: open the whole store.
pub fn open_part_resolved(
    g: &Global,
    path: Option<&Path>,
    read_only: bool,
    names: impl FnOnce(&Path, folio_core::store::dialect::DialectKind) -> Vec<String>,
    inbound: bool,
) -> anyhow::Result<Option<Store>> {
    if g.demo || g.bundle.is_some() {
        return Ok(None);
    }
    let Some(at) = path.map(Path::to_path_buf).or_else(folio_core::store::read::detect::database_from_env) else {
        return Ok(None);
    };
    let Some(store) = Store::open_part(&at, g.dialect, g.cache.as_ref(), names, inbound)? else { return Ok(None) };
    // As `open_store`: a write a crash interrupted is settled first; the store is then read
    // whole, as it is after that.
    if !read_only && super::common::resolve(folio_core::store::write::journal::recover(&store.root, store.kind())) {
        return Ok(Some(Store::load(&store.root, store.kind(), store.detected_by.clone())));
    }
    Ok(Some(store))
}

/// `open_resolved`, a load from the files reading what `reads` asks.
pub fn open_resolved_reading(
    g: &Global,
    path: Option<&Path>,
    read_only: bool,
    reads: Reads<'_>,
) -> anyhow::Result<Store> {
    if read_only { open_store_as_is_reading(g, path, reads) } else { open_store_reading(g, path, reads) }
}

/// A database snapshot this command found damaged and rebuilt (opening the store, or reading
/// a node for the write), said once on stderr after the write: a write command prints no store
/// warnings, and the next open, finding the snapshot intact again, has nothing to list.
pub fn say_rebuilt(store: &Store) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: AtomicBool = AtomicBool::new(false);
    for w in store.format_warnings().iter().filter(|w| w.code == "database-snapshot") {
        if !SAID.swap(true, Ordering::Relaxed) {
            eprintln!("folio: warning: {}: {}", w.code, super::escape::line(&w.message));
        }
    }
}

/// Preview (`--dry-run`) or apply a changeset and report what was written.
pub fn apply(store: &Store, cs: Changeset, flags: &WriteFlags) -> anyhow::Result<u8> {
    if cs.is_empty() {
        println!("nothing to change");
        return Ok(0);
    }
    if flags.dry_run {
        print!("{}", escape::text(&cs.diff(store)));
        for l in folio_core::store::write::preview::also_written(store, &cs) {
            println!("{}", escape::line(&l));
        }
        return Ok(0);
    }
    let result = store.apply(cs, &flags.options());
    say_rebuilt(store);
    match result {
        Ok(applied) => {
            for f in &applied.files {
                println!("wrote {}", escape::line(f));
            }
            for c in &applied.catalogs {
                println!("regenerated {}", escape::line(c));
            }
            println!("logged to {}", escape::line(&applied.log));
            Ok(0)
        }
        Err(e) => Err(report(e)),
    }
}

/// A write error as one line; a conflict also shows both versions as a diff on stderr.
pub fn report(e: WriteError) -> anyhow::Error {
    if let Some(diff) = e.conflict_diff() {
        eprint!("{}", escape::text(&diff));
    }
    anyhow::anyhow!(e)
}
