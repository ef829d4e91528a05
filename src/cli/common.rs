//! What every subcommand shares: opening the store, splitting `[PATH] ARG`.
use std::path::{Path, PathBuf};

use anyhow::Context;

use folio_core::store::dialect::DialectKind;
use folio_core::store::{Reads, Store};

/// Options that apply to every subcommand.
pub struct Global {
    pub dialect: Option<DialectKind>,
    pub demo: bool,
    /// The persistent store cache (None: `--no-cache` or `FOLIO_NO_CACHE`).
    pub cache: Option<folio_core::store::keep::cache::Cache>,
    /// `--bundle NAME`: one store among several in PATH.
    pub bundle: Option<String>,
}

/// Whether there was a journal to resolve (said on stderr). One that cannot be resolved yet
/// leaves the store readable; every write refuses until it is.
pub fn resolve(r: std::io::Result<Option<folio_core::store::write::journal::Recovery>>) -> bool {
    match r {
        Ok(Some(r)) => {
            eprintln!("folio: {}", super::escape::line(&r.to_string()));
            true
        }
        Ok(None) => false,
        Err(e) => {
            eprintln!(
                "folio: the interrupted write journal could not be resolved yet ({}); folio makes no write to \
                 this store until it is",
                super::escape::line(&e.to_string())
            );
            true
        }
    }
}

/// Open the store at `path`, the demo store, or the one found from the current directory up,
/// first finishing or rolling back a write a crash interrupted (and saying which).
pub fn open_store(g: &Global, path: Option<&Path>) -> anyhow::Result<Store> {
    open_store_reading(g, path, Reads::Entities)
}

/// `open_store`, a load from the files reading what `reads` asks (the bodies as words for a
/// command that compares or searches them).
pub fn open_store_reading(g: &Global, path: Option<&Path>, reads: Reads<'_>) -> anyhow::Result<Store> {
    // Before the store is read: a crash may have left aside the file its format is known by.
    let early = match path.filter(|p| !g.demo && p.is_dir()) {
        Some(folder) => resolve(folio_core::store::write::journal::recover_before_open(folder)),
        None => false,
    };
    let store = open_store_as_is_reading(g, path, reads)?;
    if early {
        return Ok(store);
    }
    match resolve(folio_core::store::write::journal::recover(&store.root, store.kind())) {
        true => Ok(Store::load(&store.root, store.kind(), store.detected_by.clone())),
        false => Ok(store),
    }
}

/// `open_store` without resolving an interrupted write (for `--read-only` runs, which must not
/// touch the store; the journal waits for the next writer).
pub fn open_store_as_is(g: &Global, path: Option<&Path>) -> anyhow::Result<Store> {
    open_store_as_is_reading(g, path, Reads::Entities)
}

pub fn open_store_as_is_reading(g: &Global, path: Option<&Path>, reads: Reads<'_>) -> anyhow::Result<Store> {
    if g.demo {
        let dir = folio_core::demo::materialize().context("cannot unpack the demo store")?;
        return Ok(Store::open(&dir, g.dialect)?);
    }
    let (store, warnings) = match (path, g.bundle.as_deref()) {
        (Some(p), Some(name)) => {
            Store::open_with(&folio_core::store::choose_store(p, Some(name))?, g.dialect, g.cache.as_ref(), reads)?
        }
        (None, Some(name)) => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            Store::open_with(&folio_core::store::choose_store(&cwd, Some(name))?, g.dialect, g.cache.as_ref(), reads)?
        }
        (Some(p), None) => Store::open_with(p, g.dialect, g.cache.as_ref(), reads)?,
        (None, None) => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            Store::discover_with(&cwd, g.dialect, g.cache.as_ref(), reads)?
        }
    };
    for w in warnings {
        eprintln!("folio: cache: {}", super::escape::line(&w));
    }
    Ok(store)
}

/// A store for a one-shot command: never freed, because the process ends right after the
/// command and the OS takes the memory back at once. Freeing a large store allocation by
/// allocation is single-threaded work at the end of every `stats`, `lint` and `index --check`
/// (docs/benchmarks.md, "Load figures").
pub fn one_shot(store: Store) -> std::mem::ManuallyDrop<Store> {
    std::mem::ManuallyDrop::new(store)
}

/// Commands of the form `folio cmd [PATH] ARG`: one positional is ARG, two are PATH ARG.
pub fn split_path_arg(mut words: Vec<String>) -> anyhow::Result<(Option<PathBuf>, String)> {
    match words.len() {
        1 => Ok((None, words.remove(0))),
        2 => {
            let arg = words.remove(1);
            Ok((Some(PathBuf::from(words.remove(0))), arg))
        }
        n => anyhow::bail!("expected [PATH] and one argument, got {n} arguments"),
    }
}

/// Resolve an entity id given on the command line, with a clear error when it is unknown.
pub fn find_entity(store: &Store, id: &str) -> anyhow::Result<folio_core::store::model::entity::EntityIdx> {
    store.find(id).with_context(|| {
        let hits = folio_core::recall::recall(store, id, 3);
        let near: Vec<&str> = hits.iter().map(|h| store.entity(h.idx).id.as_str()).collect();
        if near.is_empty() {
            format!("no entity `{id}` in {}", store.root.display())
        } else {
            format!("no entity `{id}` in {} (did you mean: {}?)", store.root.display(), near.join(", "))
        }
    })
}

/// `v` as pretty JSON on stdout, hostile characters escaped (`escape::json`), written as it is
/// serialized: a 100k-item inbox is never held as one string.
pub fn print_json(v: &impl serde::Serialize) {
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut out = super::escape::JsonWriter::new(out);
    if serde_json::to_writer_pretty(&mut out, v).is_ok() {
        let _ = std::io::Write::write_all(&mut out, b"\n");
    }
    let _ = std::io::Write::flush(&mut out);
}
