//! The house rules, checked on the source tree (docs/ARCHITECTURE.md):
//! - what a format means lives in its folder: no code outside `src/store/dialect/` names a
//!   format's `DialectKind::` variant (the registry inside that folder lists them);
//! - the domain (`src/store`) never imports the terminal (ratatui, crossterm).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Each file (relative to `src/`) and how many lines in it hold `needle`.
fn occurrences(under: &Path, needle: &str) -> BTreeMap<String, usize> {
    let mut files = Vec::new();
    rust_files(under, &mut files);
    let mut found = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let n = text.lines().filter(|l| l.contains(needle)).count();
        if n > 0 {
            found.insert(f.strip_prefix(src()).unwrap().to_string_lossy().replace('\\', "/"), n);
        }
    }
    found
}

/// Generic files that still name formats, each with the most lines it may hold: the work of
/// moving them into their formats' folders is under way, and this list only shrinks.
const NOT_YET_MOVED: &[(&str, usize)] = &[("store/review/queue.rs", 7)];

#[test]
fn only_format_folders_name_formats() {
    let allowed: BTreeMap<&str, usize> = NOT_YET_MOVED.iter().copied().collect();
    let mut offenders = Vec::new();
    for (file, n) in occurrences(&src(), "DialectKind::") {
        if file.starts_with("store/dialect/") {
            continue;
        }
        match allowed.get(file.as_str()) {
            Some(&max) if n <= max => {}
            _ => offenders.push(format!("{file}: {n} line(s) name a format")),
        }
    }
    assert!(
        offenders.is_empty(),
        "format knowledge outside src/store/dialect/ (ask the format through `kind.format()` or the \
         `Dialect` trait instead):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_domain_never_imports_the_terminal() {
    let store = src().join("store");
    for needle in ["ratatui", "crossterm"] {
        let found = occurrences(&store, needle);
        assert!(found.is_empty(), "src/store imports {needle}: {found:?}");
    }
}
