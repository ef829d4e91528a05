//! Walking a store root and reading every entity file in parallel.
//!
//! Loading never fails because of one file: whatever cannot be read becomes a problem on the
//! entity (or a skipped file), and nothing is ever written.
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::dialect::{Dialect, FileRole, SourceFile, StoreWarning};
use super::entity::{Entity, Problem, rule};
use super::lines::LineIndex;
use super::{fsio, hostile};

/// Files larger than this are read only up to it (a 50 MB agent dump is still an entity).
pub const MAX_READ: u64 = 16 * 1024 * 1024;

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
/// Folders that cannot be listed come back as `unreadable` warnings naming them.
pub fn walk(root: &Path, dialect: &dyn Dialect) -> (Vec<FoundFile>, Vec<StoreWarning>) {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let walker = ignore::WalkBuilder::new(root).standard_filters(false).hidden(true).follow_links(false).build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let path = error_path(&e).and_then(|p| p.strip_prefix(root).ok()).and_then(super::relpath::from_path);
                warnings.push(StoreWarning { code: "unreadable".into(), message: format!("cannot read: {e}"), path });
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let Some(rel) = super::relpath::from_path(rel) else { continue };
        let Some(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            continue;
        }
        if dialect.skip_dir(super::relpath::parent(&rel))
            || super::relpath::ancestors(&rel).any(|d| dialect.skip_dir(d))
        {
            continue;
        }
        let symlink_inside = if ft.is_symlink() {
            match fs::canonicalize(entry.path()) {
                Ok(target) if target.is_dir() => continue,
                Ok(target) => Some(target.starts_with(&canonical_root)),
                // A dangling link or a loop: keep it so the reader reports it.
                Err(_) => Some(true),
            }
        } else {
            None
        };
        let role = dialect.role(&rel);
        out.push(FoundFile { rel, role, symlink_inside });
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    (out, warnings)
}

fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        _ => None,
    }
}

/// Counters a caller can watch while a load runs on another thread.
#[derive(Debug, Default)]
pub struct LoadProgress {
    /// Entity files found by the walk (set once the walk is done).
    pub total: AtomicUsize,
    /// Entity files read and parsed so far.
    pub done: AtomicUsize,
}

/// Read and parse every entity file, in parallel; entities come back sorted by path and line.
pub fn read_entities(
    root: &Path,
    files: &[FoundFile],
    dialect: &dyn Dialect,
    progress: Option<&LoadProgress>,
) -> Vec<Entity> {
    if let Some(p) = progress {
        p.total.store(files.iter().filter(|f| f.role == FileRole::Entity).count(), Ordering::Relaxed);
    }
    let mut entities: Vec<Entity> = files
        .par_iter()
        .filter(|f| f.role == FileRole::Entity)
        .flat_map_iter(|f| {
            let parsed = read_one(root, f, dialect);
            if let Some(p) = progress {
                p.done.fetch_add(1, Ordering::Relaxed);
            }
            parsed
        })
        .collect();
    entities.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    entities
}

fn read_one(root: &Path, found: &FoundFile, dialect: &dyn Dialect) -> Vec<Entity> {
    let path: PathBuf = root.join(&found.rel);
    let mut problems = Vec::new();
    let mut bytes = Vec::new();
    let mut size = 0;
    let mut mtime = 0;
    let mut readable = true;
    if found.symlink_inside == Some(false) {
        problems.push(Problem::new(rule::LINK_ESCAPES_ROOT, "symlink points outside the store; not read", 0, 0));
        readable = false;
    } else {
        match read_with_metadata(&path) {
            Ok((b, meta, truncated)) => {
                size = meta.len();
                mtime = fsio::mtime_ns(&meta);
                bytes = b;
                if truncated {
                    problems.push(Problem::new(
                        rule::TOO_LARGE,
                        format!("file is {size} bytes; only the first {MAX_READ} were read"),
                        1,
                        1,
                    ));
                }
            }
            Err(e) => {
                problems.push(Problem::new(rule::UNREADABLE, format!("cannot read: {e}"), 1, 1));
                readable = false;
            }
        }
    }
    let probe = &bytes[..bytes.len().min(8192)];
    if readable && memchr::memchr(0, probe).is_some() {
        problems.push(Problem::new(rule::BINARY, "binary content (NUL bytes); not parsed", 1, 1));
        readable = false;
    }
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let (line, col) = LineIndex::new(&lossy[..floor_char_boundary(&lossy, at)]).position(at.min(lossy.len()));
            let (line, col) = if lossy.is_char_boundary(at) { (line, col) } else { (line, 1) };
            if readable {
                problems.push(Problem::new(
                    rule::NON_UTF8,
                    format!("not valid UTF-8 (first bad byte at offset {at}); shown with replacement characters"),
                    line,
                    col,
                ));
            }
            lossy
        }
    };
    let text = if readable { text } else { String::new() };
    let lines = LineIndex::new(&text);
    let source = SourceFile { rel: &found.rel, text: &text, lines: &lines, problems: &problems, parseable: readable };
    let mut entities = dialect.parse(&source);
    for e in &mut entities {
        e.file_size = size;
        e.mtime_ns = mtime;
        flag_hostile(&text, &lines, e);
    }
    entities
}

/// Read up to `MAX_READ` bytes and the file's metadata with one open and one `fstat`: the
/// buffer is sized from the metadata, so a typical file takes a single `read` plus the one
/// that sees the end (a growing buffer costs several reads per file, measurable at 100k files).
fn read_with_metadata(path: &Path) -> std::io::Result<(Vec<u8>, fs::Metadata, bool)> {
    use std::io::Read;
    let (file, meta) = fsio::open_regular(path)?;
    let expected = meta.len().min(MAX_READ) as usize;
    // Room for the whole file plus a little: a file that grew since `fstat` is still read whole.
    let mut bytes = Vec::with_capacity(expected + 64);
    file.take(MAX_READ + 1).read_to_end(&mut bytes)?;
    let truncated = bytes.len() as u64 > MAX_READ;
    bytes.truncate(MAX_READ as usize);
    Ok((bytes, meta, truncated))
}

/// Record hostile characters (escape sequences, bidi overrides…) inside the entity's span.
fn flag_hostile(text: &str, lines: &LineIndex, e: &mut Entity) {
    let span = e.span.start as usize..(e.span.end as usize).min(text.len());
    let Some(slice) = text.get(span.clone()) else { return };
    if let Some((at, c, n)) = hostile::scan(slice, 0) {
        let (line, col) = lines.position(span.start + at);
        let more = if n > 1 { format!(" ({n} in all)") } else { String::new() };
        e.problems.push(Problem::new(
            rule::CONTROL_CHARS,
            format!("{} in the content{more}: it can hide text or drive a terminal", hostile::describe(c)),
            line,
            col,
        ));
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
