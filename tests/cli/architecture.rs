//! The house rules the compiler cannot see, checked on the source tree (docs/ARCHITECTURE.md).
//! That the domain crate (`crates/folio-core`) never reaches the terminal is the compiler's:
//! it has no such dependency; the test below only keeps it from gaining one.
//! - what a format means lives in its folder: no code outside `store/dialect/` names a
//!   format's `DialectKind::` variant (the registry inside that folder lists them);
//! - the domain's layers (model → read → write → lint → review → history → keep) never import upward, and its
//!   modules import in no circle.
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

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The domain crate's sources.
fn src() -> PathBuf {
    workspace().join("crates/folio-core/src")
}

/// The sources of every crate folio ships (the generator, a dev tool, is not one).
fn shipped_sources() -> [PathBuf; 3] {
    [src(), workspace().join("crates/folio-tui/src"), workspace().join("src")]
}

/// Each file (relative to the workspace) and how many lines in it hold `needle`.
fn occurrences(under: &Path, needle: &str) -> BTreeMap<String, usize> {
    let mut files = Vec::new();
    rust_files(under, &mut files);
    let mut found = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let n = text.lines().filter(|l| l.contains(needle)).count();
        if n > 0 {
            found.insert(f.strip_prefix(workspace()).unwrap().to_string_lossy().replace('\\', "/"), n);
        }
    }
    found
}

#[test]
fn only_format_folders_name_formats() {
    let mut offenders = Vec::new();
    for root in shipped_sources() {
        for (file, n) in occurrences(&root, "DialectKind::") {
            if !file.starts_with("crates/folio-core/src/store/dialect/") {
                offenders.push(format!("{file}: {n} line(s) name a format"));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "format knowledge outside src/store/dialect/ (ask the format through `kind.format()` or the \
         `Dialect` trait instead):\n{}",
        offenders.join("\n")
    );
}

/// Lines of shipped code outside the format folders, comments left aside, that `hit` flags.
fn generic_lines(hit: impl Fn(&str) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for root in shipped_sources() {
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        for f in files {
            let rel = f.strip_prefix(workspace()).unwrap().to_string_lossy().replace('\\', "/");
            if rel.starts_with("crates/folio-core/src/store/dialect/")
                && rel != "crates/folio-core/src/store/dialect/mod.rs"
            {
                continue;
            }
            for (n, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if hit(code) {
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn catalog_and_log_file_names_live_in_their_formats() {
    // Every name a format reserves for its catalogs and logs, as a string literal.
    let names: Vec<String> = folio::store::dialect::formats()
        .flat_map(|f| {
            let s = f.spec();
            s.catalog_files.iter().chain(s.log_files).chain(s.reserved_names).map(|n| format!("\"{n}\""))
        })
        .collect();
    assert!(names.contains(&"\"index.md\"".to_string()), "the specs name OKF's catalog: {names:?}");
    let found = generic_lines(|code| names.iter().any(|n| code.contains(n.as_str())));
    assert!(
        found.is_empty(),
        "catalog or log file names in generic code (ask `kind.spec()`, or use the format's constant):\n{}",
        found.join("\n")
    );
}

#[test]
fn generic_code_never_compares_format_kinds() {
    // `kind == okf::KIND`, `KIND =>` in a match: behaviour that depends on which format it is
    // belongs in that format's folder (a `Format`/`Dialect` method or its spec).
    let compares = |code: &str| {
        let code = code.replace(' ', "");
        code.match_indices("::KIND").any(|(at, m)| {
            let after = &code[at + m.len()..];
            let path_start = code[..at].trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':').len();
            let before = &code[..path_start];
            ["==", "!=", "=>"].iter().any(|op| after.starts_with(op))
                || before.ends_with("==")
                || before.ends_with("!=")
        })
    };
    let found = generic_lines(compares);
    assert!(found.is_empty(), "generic code compares format kinds:\n{}", found.join("\n"));
}

#[test]
fn the_domain_crate_depends_on_no_terminal_library() {
    // `cargo tree` of the domain crate's normal dependencies, transitive ones included.
    let out = std::process::Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", "folio-core", "-e", "normal", "--prefix", "none", "--format", "{p}"])
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo tree: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8(out.stdout).unwrap();
    assert!(tree.lines().any(|l| l.starts_with("folio-core ")), "cargo tree printed no domain crate:\n{tree}");
    let terminal: Vec<&str> = tree
        .lines()
        .filter(|l| {
            ["ratatui", "crossterm", "termion", "termwiz", "syntect"].iter().any(|t| l.starts_with(&format!("{t} ")))
        })
        .collect();
    assert!(terminal.is_empty(), "the domain crate reaches a terminal library: {terminal:?}");
}

/// The domain's layers, lowest first (docs/ARCHITECTURE.md). `dialect/` is not among them: a
/// format plugs into every layer, and generic code reaches it only through the format traits.
const LAYERS: &[&str] = &["model", "read", "write", "lint", "review", "history", "keep"];

/// The `crate::store::<name>` paths a file's non-test code names (in groups too), `super::`
/// chains left aside: within the layer folders they stay inside their own layer.
fn store_paths(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::store::") {
        rest = &rest[i + "crate::store::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find("};").unwrap_or(group.len());
            for item in group[..end].split([',', '{', '\n']) {
                let name: String = item.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                out.push(name);
            }
        } else {
            out.push(rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect());
        }
    }
    out
}

/// A file's folder chain below `src/store/`: (its layer, its module path), e.g.
/// (`write`, `write::journal`) for `write/journal/records.rs`.
fn layer_and_module(rel: &str) -> (String, String) {
    let parts: Vec<&str> = rel.split('/').collect();
    let stem = |s: &str| s.trim_end_matches(".rs").to_string();
    let layer = stem(parts[0]);
    let module = match parts.get(1) {
        Some(m) if *m != "mod.rs" => format!("{layer}::{}", stem(m)),
        _ => layer.clone(),
    };
    (layer, module)
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let store = src().join("store");
    let mut files = Vec::new();
    rust_files(&store, &mut files);
    let mut upward = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&store).unwrap().to_string_lossy().replace('\\', "/");
        let (layer, _) = layer_and_module(&rel);
        let Some(own) = LAYERS.iter().position(|l| *l == layer) else { continue };
        for name in store_paths(&std::fs::read_to_string(f).unwrap()) {
            if let Some(other) = LAYERS.iter().position(|l| *l == name)
                && other > own
            {
                upward.push(format!("{rel} imports {name}"));
            }
        }
    }
    assert!(upward.is_empty(), "a lower layer imports a higher one: {upward:#?}");
}

#[test]
fn the_domain_modules_import_no_circle() {
    // Edges between the modules of the layer folders (`write::journal` → `write::state`, …),
    // from `crate::store::<layer>::<module>` paths and `super::<module>` inside a layer folder.
    let store = src().join("store");
    let mut files = Vec::new();
    rust_files(&store, &mut files);
    let mut edges: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&store).unwrap().to_string_lossy().replace('\\', "/");
        let (layer, module) = layer_and_module(&rel);
        if !LAYERS.contains(&layer.as_str()) && layer != "dialect" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
        let mut targets = Vec::new();
        for l in LAYERS.iter().chain(["dialect"].iter()) {
            let needle = format!("{l}::");
            let mut rest = code.as_str();
            while let Some(i) = rest.find(&needle) {
                let before = &rest[..i];
                rest = &rest[i + needle.len()..];
                // `crate::store::write::x` or `write::x` inside a `crate::store::{…}` group.
                if before.ends_with("crate::store::") || before.ends_with('{') || before.ends_with(", ") {
                    let name = ident(rest);
                    if !name.is_empty() {
                        targets.push(format!("{l}::{name}"));
                    }
                }
            }
        }
        if rel.split('/').count() == 2 && !rel.ends_with("mod.rs") {
            let mut rest = code.as_str();
            while let Some(i) = rest.find("super::") {
                let before = &rest[..i];
                rest = &rest[i + "super::".len()..];
                if before.ends_with("super::")
                    || before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                {
                    continue;
                }
                if let Some(group) = rest.strip_prefix('{') {
                    let end = group.find('}').unwrap_or(group.len());
                    targets.extend(group[..end].split(',').map(|s| format!("{layer}::{}", ident(s.trim()))));
                } else {
                    targets.push(format!("{layer}::{}", ident(rest)));
                }
            }
        }
        let set = edges.entry(module.clone()).or_default();
        for t in targets {
            if t != module && !t.ends_with("::") && !t.ends_with("::self") {
                set.insert(t);
            }
        }
    }
    // A depth-first search that reports the first circle it walks into.
    fn visit(
        n: &str,
        edges: &BTreeMap<String, std::collections::BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|p| p == n).unwrap();
                let mut circle = path[start..].to_vec();
                circle.push(n.to_string());
                return Some(circle);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for next in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, edges, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if let Some(circle) = visit(n, &edges, &mut state, &mut Vec::new()) {
            panic!("the domain's modules import in a circle: {}", circle.join(" → "));
        }
    }
}
