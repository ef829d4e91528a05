//! Which files a store has: the folders walked, each file given its role by the dialect. The
//! load reads what it finds as it walks (`load::walk_and_read`); a cached store's check lists
//! them (`walk`) to compare with what its snapshot knew.
use std::fs;
use std::path::{Path, PathBuf};

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
///
/// The same files and warnings as the load's walk (`walker`), listed a level of folders at a
/// time, the folders of a level on every core: a cached store is checked with every entity
/// decoded, and the parallel walker's queues held every entry of a folder of 25,000 notes at
/// once, 22 MB at the cached open's peak (docs/benchmarks.md, "Forty-fifth session").
pub fn walk(root: &Path, dialect: &dyn Dialect, expected: usize) -> (Vec<FoundFile>, Vec<StoreWarning>) {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let (mut out, mut warnings) = (Vec::with_capacity(expected), Vec::new());
    let mut level = vec![root.to_path_buf()];
    while !level.is_empty() {
        let listed: Vec<Listed> = level.par_iter().map(|dir| list(root, &canonical_root, dialect, dir)).collect();
        level = Vec::new();
        for l in listed {
            out.extend(l.files);
            warnings.extend(l.warnings);
            level.extend(l.folders);
        }
    }
    out.par_sort_unstable_by(|a: &FoundFile, b: &FoundFile| a.rel.cmp(&b.rel));
    warnings.sort_by(|a: &StoreWarning, b: &StoreWarning| a.path.cmp(&b.path).then_with(|| a.message.cmp(&b.message)));
    (out, warnings)
}

/// What one folder holds: its files, its folders to list next, and what could not be read.
#[derive(Default)]
struct Listed {
    files: Vec<FoundFile>,
    folders: Vec<PathBuf>,
    warnings: Vec<StoreWarning>,
}

/// The folder `dir` as the walker visits it: hidden entries skipped, after their type is known.
fn list(root: &Path, canonical_root: &Path, dialect: &dyn Dialect, dir: &Path) -> Listed {
    let mut listed = Listed::default();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            listed.warnings.push(unreadable(root, dir, &e));
            return listed;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                listed.warnings.push(unreadable(root, dir, &e));
                continue;
            }
        };
        let path = entry.path();
        let ft = match entry.file_type() {
            Ok(ft) => ft,
            Err(e) => {
                listed.warnings.push(unreadable(root, &path, &e));
                continue;
            }
        };
        if entry.file_name().as_encoded_bytes().first() == Some(&b'.') {
            continue;
        }
        if ft.is_dir() {
            listed.folders.push(path);
        } else if let Some(f) = found(root, canonical_root, dialect, &path, ft) {
            listed.files.push(f);
        }
    }
    listed
}

/// The warning for `path`, which could not be read, worded as the walker words its errors.
fn unreadable(root: &Path, path: &Path, e: &std::io::Error) -> StoreWarning {
    StoreWarning {
        code: "unreadable".into(),
        message: format!("cannot read: {}: {e}", path.display()),
        path: path.strip_prefix(root).ok().and_then(crate::store::model::relpath::from_path),
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
    let Some(ft) = entry.file_type() else { return Walked::Skip };
    if ft.is_dir() {
        return Walked::Skip;
    }
    match found(root, canonical_root, dialect, entry.path(), ft) {
        Some(f) => Walked::File(f, entry.into_path()),
        None => Walked::Skip,
    }
}

/// The file at `path` (not a folder), unless it is no file of the store: a name that is not
/// UTF-8, a symlink to a folder.
fn found(
    root: &Path,
    canonical_root: &Path,
    dialect: &dyn Dialect,
    path: &Path,
    ft: fs::FileType,
) -> Option<FoundFile> {
    let rel = crate::store::model::relpath::relative_to(root, path)?;
    let symlink_inside = if ft.is_symlink() {
        match fs::canonicalize(path) {
            Ok(target) if target.is_dir() => return None,
            Ok(target) => Some(target.starts_with(canonical_root)),
            // A dangling link or a loop: keep it so the reader reports it.
            Err(_) => Some(true),
        }
    } else {
        None
    };
    let role = dialect.role(&rel);
    Some(FoundFile { rel, role, symlink_inside })
}

fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `walk` finds the files and warnings the load's walker finds (`walker` and `classify`),
    /// over hidden files and folders, symlinks to files inside and outside, to folders, dangling
    /// and looping, a FIFO, names that are not UTF-8 and folders nested several deep.
    #[test]
    #[cfg(unix)]
    fn the_checks_walk_finds_what_the_loads_walker_finds() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        let outside = dir.path().join("outside.md");
        fs::write(&outside, "# Outside\n").unwrap();
        for rel in ["a.md", "b/c.md", "b/d/e.md", "b/d/f/g.txt", ".hidden/h.md", "b/.i.md", "j/k.canvas", "l/m.md"] {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "# Note\n").unwrap();
        }
        symlink(root.join("a.md"), root.join("b/to-a.md")).unwrap();
        symlink(&outside, root.join("b/to-outside.md")).unwrap();
        symlink(root.join("b"), root.join("j/to-b")).unwrap();
        symlink(root.join("gone.md"), root.join("dangling.md")).unwrap();
        symlink(root.join("loop-b.md"), root.join("loop-a.md")).unwrap();
        symlink(root.join("loop-a.md"), root.join("loop-b.md")).unwrap();
        symlink(&root, root.join("l/up")).unwrap();
        let fifo = std::ffi::CString::new(root.join("pipe.md").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let odd = std::ffi::OsStr::from_bytes(b"b/n\xff.md");
        fs::write(root.join(odd), "# Odd\n").unwrap();
        fs::create_dir(root.join(std::ffi::OsStr::from_bytes(b"o\xfe"))).unwrap();
        fs::write(root.join(std::ffi::OsStr::from_bytes(b"o\xfe/p.md")), "# P\n").unwrap();

        for kind in [crate::store::dialect::vault::KIND, crate::store::dialect::okf::KIND] {
            let dialect = kind.open(&root);
            let canonical_root = fs::canonicalize(&root).unwrap();
            let mut want = Vec::new();
            let mut want_warnings = Vec::new();
            for entry in walker(&root).build() {
                match classify(&root, &canonical_root, dialect.as_ref(), entry) {
                    Walked::File(f, _) => want.push(f),
                    Walked::Warning(w) => want_warnings.push(w),
                    Walked::Skip => {}
                }
            }
            want.sort_by(|a, b| a.rel.cmp(&b.rel));
            let (got, warnings) = walk(&root, dialect.as_ref(), 4);
            let show = |files: &[FoundFile]| files.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>();
            assert_eq!(show(&got), show(&want));
            assert_eq!(format!("{warnings:?}"), format!("{want_warnings:?}"));
            assert!(got.iter().any(|f| f.rel == "b/to-outside.md" && f.symlink_inside == Some(false)));
            assert!(got.iter().any(|f| f.rel == "b/d/f/g.txt"), "four folders deep");
            assert!(
                !got.iter().any(|f| f.rel.contains("hidden") || f.rel.contains("/.") || f.rel.starts_with("j/to-b"))
            );
        }
    }
}
