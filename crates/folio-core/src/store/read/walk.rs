//! Which files a store has: the folders walked, each file given its role by the dialect. The
//! load reads what it finds as it walks (`load::walk_and_read`); a cached store's check lists
//! them (`walk`) to compare with what its snapshot knew.
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::store::dialect::{Dialect, FileRole, StoreWarning};

/// A file found under the root.
#[derive(Debug, Clone)]
pub struct FoundFile {
    pub rel: String,
    pub role: FileRole,
    /// For symlinks: whether the link target stays inside the root (None when not a symlink).
    pub symlink_inside: Option<bool>,
}

/// Every file under `root` the dialect cares about, sorted by path. Hidden directories and
/// files (`.git`, `.folio`, …) are skipped, symlinked directories are not followed (no loops).
/// Folders that cannot be listed come back as `unreadable` warnings naming them. `expected`
/// files are made room for at once (grown by doubling, the list held up to twice its size
/// while a 100k store opened from the cache was checked).
pub fn walk(root: &Path, dialect: &dyn Dialect, expected: usize) -> (Vec<FoundFile>, Vec<StoreWarning>) {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let found = Mutex::new((Vec::with_capacity(expected), Vec::new()));
    // On every core, as the load walks: listing 100k files on one thread was a third of a
    // cached open's check (docs/benchmarks.md, "Twentieth session").
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    walker(root).threads(threads).build_parallel().visit(&mut WalkerBuilder {
        root,
        canonical_root: &canonical_root,
        dialect,
        found: &found,
    });
    let (mut out, mut warnings) = found.into_inner().unwrap_or_else(|e| e.into_inner());
    out.par_sort_unstable_by(|a: &FoundFile, b: &FoundFile| a.rel.cmp(&b.rel));
    warnings.sort_by(|a: &StoreWarning, b: &StoreWarning| a.path.cmp(&b.path).then_with(|| a.message.cmp(&b.message)));
    (out, warnings)
}

/// `walk`'s visitors: each thread's files and warnings, added to `found` when it is done.
struct WalkerBuilder<'s> {
    root: &'s Path,
    canonical_root: &'s Path,
    dialect: &'s dyn Dialect,
    found: &'s Mutex<(Vec<FoundFile>, Vec<StoreWarning>)>,
}

struct Walker<'s> {
    builder: (&'s Path, &'s Path, &'s dyn Dialect),
    found: &'s Mutex<(Vec<FoundFile>, Vec<StoreWarning>)>,
    files: Vec<FoundFile>,
    warnings: Vec<StoreWarning>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for WalkerBuilder<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Walker {
            builder: (self.root, self.canonical_root, self.dialect),
            found: self.found,
            files: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

impl ignore::ParallelVisitor for Walker<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        let (root, canonical_root, dialect) = self.builder;
        match classify(root, canonical_root, dialect, entry) {
            Walked::File(f, _) => self.files.push(f),
            Walked::Warning(w) => self.warnings.push(w),
            Walked::Skip => {}
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Walker<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.0.append(&mut self.files);
        found.1.append(&mut self.warnings);
    }
}

pub(super) fn walker(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder.standard_filters(false).hidden(true).follow_links(false);
    builder
}

/// What one entry of the walk is to the store.
pub(super) enum Walked {
    /// The file and its full path (the walker's own, so reading it builds no path).
    File(FoundFile, PathBuf),
    Warning(StoreWarning),
    Skip,
}

pub(super) fn classify(
    root: &Path,
    canonical_root: &Path,
    dialect: &dyn Dialect,
    entry: Result<ignore::DirEntry, ignore::Error>,
) -> Walked {
    let entry = match entry {
        Ok(entry) => entry,
        Err(e) => {
            let path = error_path(&e)
                .and_then(|p| p.strip_prefix(root).ok())
                .and_then(crate::store::model::relpath::from_path);
            return Walked::Warning(StoreWarning {
                code: "unreadable".into(),
                message: format!("cannot read: {e}"),
                path,
            });
        }
    };
    if entry.depth() == 0 {
        return Walked::Skip;
    }
    let Some(rel) = crate::store::model::relpath::relative_to(root, entry.path()) else { return Walked::Skip };
    let Some(ft) = entry.file_type() else { return Walked::Skip };
    if ft.is_dir() {
        return Walked::Skip;
    }
    let symlink_inside = if ft.is_symlink() {
        match fs::canonicalize(entry.path()) {
            Ok(target) if target.is_dir() => return Walked::Skip,
            Ok(target) => Some(target.starts_with(canonical_root)),
            // A dangling link or a loop: keep it so the reader reports it.
            Err(_) => Some(true),
        }
    } else {
        None
    };
    let role = dialect.role(&rel);
    Walked::File(FoundFile { rel, role, symlink_inside }, entry.into_path())
}

fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        _ => None,
    }
}
