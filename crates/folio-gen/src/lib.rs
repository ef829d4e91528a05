//! Corpus generator: realistic, deterministic stores of N entities in every dialect, for
//! benchmarks (`benches/`, `benches/scale.sh`) and scale tests. `folio-gen` is its CLI.
//!
//! Each dialect's layout follows docs/formats/ (one page per format): what a real agent
//! writes, at a size chosen by the caller. The same seed always gives byte-identical files.
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use folio_core::store::dialect::DialectKind;

mod aip10;
mod awareness;
mod body;
mod elophanto;
mod evolve;
pub mod git;
mod okf;
mod opendray;
mod opendray_pg;
pub mod rng;
mod vault;
mod wild;
pub mod words;

/// How tidy a generated store is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// What each dialect's generator writes: clean files, the links its format favours.
    #[default]
    Tidy,
    /// As real stores are (issue 44, `wild`): mixed link styles, broken links, malformed and
    /// incomplete frontmatter, CRLF, non-UTF-8 and multi-MB files, edges, stale dates, a
    /// curated root catalog with gaps.
    Wild,
}

impl Shape {
    pub fn parse(s: &str) -> Option<Shape> {
        match s {
            "tidy" => Some(Shape::Tidy),
            "wild" => Some(Shape::Wild),
            _ => None,
        }
    }
}

/// What a generation run wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub dialect: DialectKind,
    /// Entities as the dialect counts them (files, pages, nodes or memory entries).
    pub entities: usize,
    /// Files written (entities, catalogs, manifests, logs).
    pub files: usize,
    pub bytes: u64,
    /// Links written in entity bodies outside code (internal, external and broken ones).
    pub links: usize,
    /// The folder to open as the store (the project folder for evolve, the home for awareness).
    pub store: PathBuf,
}

/// Writes a store of one format: `(writer, entities, seed) -> links written`.
type Generator = fn(&Writer, usize, u64) -> io::Result<usize>;

/// The generator for each folder format (every one folio reads has one).
fn generator(kind: DialectKind) -> Generator {
    use folio_core::store::dialect as d;
    let table: [(DialectKind, Generator); 7] = [
        (d::okf::KIND, okf::generate),
        (d::evolve::KIND, evolve::generate),
        (d::aip10::KIND, aip10::generate),
        (d::elophanto::KIND, elophanto::generate),
        (d::opendray::KIND, opendray::generate),
        (d::awareness::KIND, awareness::generate),
        (d::vault::KIND, vault::generate),
    ];
    table.into_iter().find(|(k, _)| *k == kind).map(|(_, g)| g).expect("every folder format has a generator")
}

/// Fill the database named by `locator` (a store that is not a folder) with `entities`
/// entities of `kind`: its schema must be in place and hold no entity yet.
pub fn fill_database(kind: DialectKind, entities: usize, seed: u64, locator: &str) -> Result<Report, String> {
    use folio_core::store::dialect as d;
    if kind != d::opendray_pg::KIND {
        return Err(format!("{kind} stores are folders; give --out a folder"));
    }
    let (entities, links, bytes) = opendray_pg::fill(locator, entities, seed)?;
    let store = PathBuf::from(d::opendray_pg::conn::Locator::parse(locator)?.redacted);
    Ok(Report { dialect: kind, entities, files: 0, bytes, links, store })
}

/// Write a store of `entities` entities of `kind` into `out`, which must be missing or empty.
pub fn generate(kind: DialectKind, entities: usize, seed: u64, out: &Path) -> io::Result<Report> {
    generate_shaped(kind, entities, seed, out, Shape::Tidy)
}

/// `generate` in a given `shape`.
pub fn generate_shaped(kind: DialectKind, entities: usize, seed: u64, out: &Path, shape: Shape) -> io::Result<Report> {
    if out.exists() && std::fs::read_dir(out)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{}: not empty; the generator only writes into a new or empty folder", out.display()),
        ));
    }
    if !kind.spec().store_is_folder {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("{kind} stores are databases, not folders; folio-gen writes folders only"),
        ));
    }
    std::fs::create_dir_all(out)?;
    let w = Writer::new(out);
    let make = match shape {
        Shape::Wild if kind == folio_core::store::dialect::vault::KIND => vault::generate_wild,
        _ => generator(kind),
    };
    let links = make(&w, entities, seed)?;
    if shape == Shape::Wild {
        let r = wild::roughen(kind, out, seed)?;
        return Ok(Report {
            dialect: kind,
            entities,
            files: r.files,
            bytes: r.bytes,
            links: links + r.links,
            store: out.to_path_buf(),
        });
    }
    Ok(Report {
        dialect: kind,
        entities,
        files: w.files.load(Ordering::Relaxed),
        bytes: w.bytes.load(Ordering::Relaxed),
        links,
        store: out.to_path_buf(),
    })
}

/// Writes files under the output root and counts them (shared by parallel generators).
pub(crate) struct Writer {
    root: PathBuf,
    files: AtomicUsize,
    bytes: AtomicU64,
}

impl Writer {
    fn new(root: &Path) -> Self {
        Writer { root: root.to_path_buf(), files: AtomicUsize::new(0), bytes: AtomicU64::new(0) }
    }

    /// Write `rel` (`/`-separated), creating parent folders.
    pub(crate) fn write(&self, rel: &str, content: &str) -> io::Result<()> {
        let path = self.root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, content)?;
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(content.len() as u64, Ordering::Relaxed);
        Ok(())
    }
}

/// Run `make` for every item in parallel (each item has its own random stream), summing the
/// links each reports; the first error wins.
pub(crate) fn par_items(n: usize, make: impl Fn(usize) -> io::Result<usize> + Sync + Send) -> io::Result<usize> {
    use rayon::prelude::*;
    (0..n).into_par_iter().map(make).try_reduce(|| 0, |a, b| Ok(a + b))
}
