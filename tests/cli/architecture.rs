//! The house rules the compiler cannot see, checked on the source tree (docs/ARCHITECTURE.md).
//! That the domain crate (`crates/folio-core`) never reaches the terminal is the compiler's:
//! it has no such dependency; the test below only keeps it from gaining one.
//! - what a format means lives in its folder: no code outside `store/dialect/` names a
//!   format's `DialectKind::` variant (the registry inside that folder lists them);
//! - the domain's layers (model → read → write → lint → review → history → keep) never import upward, and its
//!   modules import in no circle.
//! - the terminal crate's folders (`app`, `app::review`, `ui`, `tui`, …) import in no circle, and
//!   its views (`ui`) read the model but never name an `update` or `jobs` module.
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

/// The terminal crate's sources.
fn tui_src() -> PathBuf {
    workspace().join("crates/folio-tui/src")
}

/// A file's module path below `src/`: `app/review/jobs.rs` is `app::review::jobs`; a `mod.rs`
/// (and `lib.rs`) is its folder's module.
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The module folders below `dir`, as module paths (`app`, `app::review`, `ui`, …).
fn module_folders(dir: &Path, under: &[String], out: &mut std::collections::BTreeSet<Vec<String>>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().is_dir() {
            let mut module = under.to_vec();
            module.push(entry.file_name().to_string_lossy().into_owned());
            module_folders(&entry.path(), &module, out);
            out.insert(module);
        }
    }
}

/// A file's code without its tests and comments (whole-line and trailing `//` ones).
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.split(" // ").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path a file's code names through `crate::…` or `super::…` (groups included:
/// `use crate::app::{model::Model, review::{jobs::Job, Pending}}` names four), made absolute:
/// the segments below the crate's root.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    fn skip_space(s: &[u8], i: &mut usize) {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    fn ident(s: &[u8], i: &mut usize) -> String {
        let start = *i;
        while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
            *i += 1;
        }
        String::from_utf8_lossy(&s[start..*i]).into_owned()
    }
    // One tree of a path: `a::b::{c, d::e}`, read after `prefix::`.
    fn tree(s: &[u8], i: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        skip_space(s, i);
        if s.get(*i) == Some(&b'{') {
            *i += 1;
            loop {
                skip_space(s, i);
                match s.get(*i) {
                    None => return,
                    Some(b'}') => {
                        *i += 1;
                        return;
                    }
                    Some(b',') => *i += 1,
                    _ => {
                        let before = *i;
                        tree(s, i, prefix.clone(), out);
                        if *i == before {
                            *i += 1;
                        }
                    }
                }
            }
        }
        loop {
            if s.get(*i) == Some(&b'*') {
                *i += 1;
                break;
            }
            let name = ident(s, i);
            match name.as_str() {
                "" | "self" => break,
                "super" => {
                    prefix.pop();
                }
                _ => prefix.push(name),
            }
            if s[*i..].starts_with(b"::") {
                *i += 2;
                if s.get(*i) == Some(&b'{') {
                    return tree(s, i, prefix, out);
                }
            } else {
                break;
            }
        }
        // `x as y`: the alias names nothing new.
        out.push(prefix);
    }
    let s = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let (mut i, prefix) = if code[at..].starts_with("crate::") {
            (at + "crate::".len(), Vec::new())
        } else {
            // `super` of a file's module is the module's parent.
            (at + "super::".len(), module[..module.len().saturating_sub(1)].to_vec())
        };
        tree(s, &mut i, prefix, &mut out);
    }
    out
}

/// Each file of the terminal crate (relative to its `src/`) with the paths its code names.
fn tui_imports() -> Vec<(String, Vec<String>, Vec<Vec<String>>)> {
    let src = tui_src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            let module = module_of(&rel);
            let paths = named_paths(&code_of(&std::fs::read_to_string(f).unwrap()), &module);
            (rel, module, paths)
        })
        .collect()
}

/// The deepest module folder `path` lies in (the crate's root when none).
fn folder_of(path: &[String], folders: &std::collections::BTreeSet<Vec<String>>) -> Vec<String> {
    (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| p.is_empty() || folders.contains(p)).unwrap()
}

#[test]
fn the_terminal_crates_folders_import_in_no_circle() {
    // Nodes are module folders (`app::review`, `app::settings`, `ui`, `tui`, …); a file belongs
    // to the deepest folder holding it (`app/review/jobs.rs` to `app::review`). A folder's own
    // files compose its subfolders and the subfolders plug into them (`app/update.rs` routes to
    // `app::review`, which changes `app/model.rs`'s `Model`): that is the Elm shape, not a
    // circle. Every other import joins two folders side by side: it is an arrow between the two
    // children of their nearest common folder (`app::review::update` → `app::lint` is
    // `app::review` → `app::lint`), and those arrows must make no circle.
    let mut folders = std::collections::BTreeSet::new();
    module_folders(&tui_src(), &[], &mut folders);
    let name = |p: &[String]| if p.is_empty() { "crate".to_string() } else { p.join("::") };
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, module, paths) in tui_imports() {
        let from = folder_of(&module, &folders);
        for path in paths {
            let to = folder_of(&path, &folders);
            if from.starts_with(&to) || to.starts_with(&from) {
                continue;
            }
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            let (a, b) = (name(&from[..=common]), name(&to[..=common]));
            edges.entry(a).or_default().entry(b).or_insert_with(|| format!("{rel} names {}", path.join("::")));
        }
    }
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeMap<String, String>>,
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
        for next in edges.get(n).into_iter().flat_map(|e| e.keys()) {
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
            let why: Vec<String> =
                circle.windows(2).map(|w| format!("  {} → {}: {}", w[0], w[1], edges[&w[0]][&w[1]])).collect();
            panic!("the terminal crate's folders import in a circle: {}\n{}", circle.join(" → "), why.join("\n"));
        }
    }
    assert!(edges.contains_key("ui"), "no arrow from ui found: is the import scan still reading the views?");
}

#[test]
fn views_read_the_model_and_never_its_update_or_jobs() {
    // `ui` draws what `app`'s model holds; what changes the model (`update`, a folder's
    // `update`) and the background work (`jobs`) are the app's business, never a view's.
    let mut offenders = Vec::new();
    let mut read = 0;
    for (rel, _, paths) in tui_imports() {
        if !rel.starts_with("ui/") {
            continue;
        }
        for path in paths.iter().filter(|p| p.first().is_some_and(|s| s == "app")) {
            read += 1;
            if path.iter().any(|s| s == "update" || s == "jobs") {
                offenders.push(format!("{rel} names {}", path.join("::")));
            }
        }
    }
    assert!(read > 0, "no view names the app: is the import scan still reading the views?");
    assert!(offenders.is_empty(), "a view reaches past the model into update or jobs:\n{}", offenders.join("\n"));
}
