//! OKF bundles (v0.1 and v0.2): `type`-keyed YAML concepts, `index.md` catalogs and `log.md`
//! at any level, concept id = path minus `.md`.
use crate::store::model::shared_values::shared_list;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::{Dialect, DialectKind, FileRole, Grammar, SourceFile, edges_from_view, parse_markdown_view};
use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::read::frontmatter::{self, Block, Val, View};
use crate::store::write::catalog::{self, CatalogPlan, CatalogState, CatalogStatus, push_escaped, push_one_line};

pub mod checks;
pub mod format;
pub mod spec;
pub mod log_reader;
pub mod migrate_to;
pub mod log_writer;
mod references;
pub mod review;
pub use format::KIND;

pub struct Okf {
    /// The bundle around the root, when the root is one of its subfolders.
    pub enclosing: Option<super::Enclosing>,
}

impl Dialect for Okf {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::okf::KIND
    }

    fn enclosing(&self) -> Option<super::Enclosing> {
        self.enclosing.clone()
    }

    fn role(&self, rel: &str) -> FileRole {
        let name = crate::store::model::relpath::file_name(rel);
        match name {
            "index.md" => FileRole::Catalog,
            "log.md" => FileRole::Log,
            n if n.ends_with(".md") => FileRole::Entity,
            _ => FileRole::Other,
        }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        let p = parse_markdown_view(file, Grammar::Yaml);
        let mut e = p.entity;
        let f = &p.fields;
        map_common(&mut e, f);
        e.edges.extend(references::edges(f, file.rel));
        let concept = checks::Concept {
            text: file.text,
            fields: f,
            has_frontmatter: p.has_frontmatter,
            problems: &e.problems,
        };
        let found = checks::check(&concept, crate::store::model::timestamp::now());
        e.problems.extend(found);
        vec![e]
    }

    fn catalogs(&self, store: &Store) -> Vec<CatalogPlan> {
        catalogs(store)
    }

    fn catalog_states(&self, store: &Store) -> Vec<(String, CatalogState)> {
        // The plan's content is dropped as soon as it is compared.
        catalogs_with(store, |plan, file| {
            let s = catalog::compare(store, plan, file.as_deref());
            (s.path, s.state)
        })
    }

    fn catalog_status(&self, store: &Store) -> Vec<CatalogStatus> {
        catalogs_with(store, |plan, file| catalog::compare(store, plan, file.as_deref()))
    }

    /// Each folder's `index.md` lists its concepts' titles, paths and descriptions, and the
    /// folders below it.
    fn catalogs_read_fields_only(&self) -> bool {
        true
    }

    fn catalogs_touched(&self, store: &Store, paths: &[String]) -> Option<(Vec<String>, Vec<CatalogPlan>)> {
        Some(catalogs_touched(store, paths))
    }

    /// The bundle-root `log.md`.
    fn history(&self, root: &std::path::Path) -> Vec<crate::store::model::history::HistoryEvent> {
        std::fs::read_to_string(root.join("log.md")).map(|t| log_reader::parse(&t, "log.md")).unwrap_or_default()
    }
}

/// OKF fields onto the model (also used by dialects that follow OKF's vocabulary).
pub fn map_common(e: &mut Entity, f: &View) {
    e.kind = f.str("type").map(Into::into);
    e.description = f.str("description").map(Into::into);
    e.status = f.str("status").map(Into::into);
    e.tags = shared_list(f.list("tags"));
    e.updated = nested_str(f, "generated", "at").or_else(|| f.str("timestamp")).map(Into::into);
    e.sources = match f.get("sources") {
        Some(Val::List(items)) => items
            .iter()
            .filter_map(|s| match s {
                Val::Map(m) => m.get("resource").or_else(|| m.get("id")).map(Val::scalar_text),
                other => Some(other.scalar_text()),
            })
            .collect(),
        _ => Vec::new(),
    };
    e.edges = edges_from_view(f, super::EDGE_KEYS);
}

fn nested_str(f: &View, key: &str, inner: &str) -> Option<String> {
    match f.get(key)? {
        Val::Map(m) => m.get(inner).map(Val::scalar_text).filter(|s| !s.is_empty()),
        _ => None,
    }
}

/// One `index.md` per directory that holds concepts (directly or below), as OKF's reference
/// generator writes them: a `# <type>` section per type (sorted; `Other` when untyped), entries
/// `* [Title](file.md) - description` sorted by lower-cased title, then `# Subdirectories`
/// linking `dir/index.md`. Subdirectory descriptions are not derivable from the entities, so
/// the ones already in the catalog are kept.
pub fn catalogs(store: &Store) -> Vec<CatalogPlan> {
    catalogs_with(store, |plan, _| plan)
}

/// `catalogs`, each plan handed to `each` as soon as it is built (in parallel).
fn catalogs_with<T: Send>(store: &Store, each: impl Fn(CatalogPlan, Option<Vec<u8>>) -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    let parent = crate::store::model::relpath::parent;
    // Entities come sorted by path, so a folder's files mostly follow one another: the runs
    // of one folder are found in parallel, and the maps are touched once per run, not once
    // per entity (an insert per entity would be paid by every entity of the store, and
    // finding the runs on one thread is serial time: docs/benchmarks.md, "Catalog figures").
    let runs = folder_runs(&store.entities);
    // dir → entities directly in it; keys borrow the entities' paths (a `String` per entity
    // and per ancestor folder would be an allocation each, on one thread).
    let mut direct: BTreeMap<&str, Vec<&Entity>> = BTreeMap::new();
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    dirs.insert("");
    for (dir, run) in runs {
        direct.entry(dir).or_default().extend(run.iter().map(|e| &**e));
        let mut d = dir;
        // A folder already seen brought its ancestors with it.
        while dirs.insert(d) && !d.is_empty() {
            d = parent(d);
        }
    }
    // Folders with a hand-kept catalog but no concepts are listed, but their index is theirs.
    let mut listed: BTreeSet<&str> = dirs.clone();
    for (p, role) in &store.other_files {
        if *role == FileRole::Catalog && p.ends_with("index.md") {
            listed.insert(crate::store::model::relpath::parent(p));
        }
    }
    // One catalog per folder, built in parallel: reading each existing index and formatting
    // hundreds of entries per folder would otherwise all run on one core after the load.
    let dirs: Vec<&str> = dirs.into_iter().collect();
    let none = Vec::new();
    dirs.par_iter()
        .map(|&dir| {
            let subdirs: Vec<&str> = listed
                .iter()
                .copied()
                .filter(|d| !d.is_empty() && crate::store::model::relpath::parent(d) == dir)
                .collect();
            let (plan, file) = plan_and_file(store, dir, direct.get(dir).unwrap_or(&none), &subdirs);
            each(plan, file)
        })
        .collect()
}

/// The runs of entities in one folder, in order, with their folder. One pass that loads
/// each entity and its path a few entities ahead of comparing them: comparing the folders of
/// neighbours waits on those two cache misses, one entity at a time (docs/benchmarks.md,
/// "Catalog figures").
fn folder_runs(entities: &[Arc<Entity>]) -> Vec<(&str, &[Arc<Entity>])> {
    use crate::store::model::prefetch::prefetch;
    const AHEAD: usize = 16;
    let parent = crate::store::model::relpath::parent;
    let mut runs = Vec::new();
    let Some(first) = entities.first() else { return runs };
    let (mut start, mut dir) = (0, parent(&first.path));
    for (i, e) in entities.iter().enumerate() {
        if let Some(ahead) = entities.get(i + AHEAD) {
            prefetch(&**ahead);
        }
        if let Some(ahead) = entities.get(i + AHEAD / 2) {
            prefetch(ahead.path.as_str());
        }
        let here = parent(&e.path);
        if here != dir {
            runs.push((dir, &entities[start..i]));
            (start, dir) = (i, here);
        }
    }
    runs.push((dir, &entities[start..]));
    runs
}

/// The catalogs of the folders holding `paths` and of their ancestors, the only ones a
/// change to those files can affect (listings, subfolder lists, the catalog file itself),
/// computed from the sorted entity list without walking the rest of the store.
pub fn catalogs_touched(store: &Store, paths: &[String]) -> (Vec<String>, Vec<CatalogPlan>) {
    let mut dirs: BTreeSet<&str> = BTreeSet::new();
    for p in paths {
        let mut d = crate::store::model::relpath::parent(p);
        loop {
            dirs.insert(d);
            if d.is_empty() {
                break;
            }
            d = crate::store::model::relpath::parent(d);
        }
    }
    let mut covered = Vec::new();
    let mut plans = Vec::new();
    for dir in dirs {
        covered.push(if dir.is_empty() { "index.md".to_string() } else { format!("{dir}/index.md") });
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let (direct, mut subdirs) = folder_contents(&store.entities, &prefix);
        // `catalogs` plans every folder holding concepts at any depth, and the root always.
        if !dir.is_empty() && direct.is_empty() && subdirs.is_empty() {
            continue;
        }
        // Subfolders with a hand-kept catalog are listed too.
        let lo = store.other_files.partition_point(|(p, _)| p.as_str() < prefix.as_str());
        for (p, role) in store.other_files[lo..].iter().take_while(|(p, _)| p.starts_with(&prefix)) {
            let Some(sub) = p[prefix.len()..].strip_suffix("/index.md") else { continue };
            if *role == FileRole::Catalog && !sub.contains('/') && !sub.is_empty() {
                subdirs.insert(format!("{prefix}{sub}"));
            }
        }
        let subdirs: Vec<&str> = subdirs.iter().map(String::as_str).collect();
        plans.push(plan_for(store, dir, &direct, &subdirs));
    }
    (covered, plans)
}

/// The entities directly in the folder `prefix` (`dir/`, or empty for the root) and its
/// subfolders holding entities, skipping each subfolder's entities by binary search.
fn folder_contents<'a>(entities: &'a [Arc<Entity>], prefix: &str) -> (Vec<&'a Entity>, BTreeSet<String>) {
    let mut direct = Vec::new();
    let mut subdirs = BTreeSet::new();
    let mut i = entities.partition_point(|e| e.path.as_str() < prefix);
    while let Some(e) = entities.get(i).filter(|e| e.path.starts_with(prefix)) {
        match e.path[prefix.len()..].split_once('/') {
            None => {
                direct.push(&**e);
                i += 1;
            }
            Some((sub, _)) => {
                let below = format!("{prefix}{sub}/");
                i += entities[i..].partition_point(|x| x.path.as_str() < below.as_str() || x.path.starts_with(&below));
                subdirs.insert(format!("{prefix}{sub}"));
            }
        }
    }
    (direct, subdirs)
}

/// One folder's catalog: its concepts by type, then its subfolders (`subdirs`, sorted).
fn plan_for(store: &Store, dir: &str, direct: &[&Entity], subdirs: &[&str]) -> CatalogPlan {
    plan_and_file(store, dir, direct, subdirs).0
}

/// `plan_for`, and the bytes of the catalog file as it was read (None when it cannot be).
fn plan_and_file(store: &Store, dir: &str, direct: &[&Entity], subdirs: &[&str]) -> (CatalogPlan, Option<Vec<u8>>) {
    let path = if dir.is_empty() { "index.md".to_string() } else { format!("{dir}/index.md") };
    let (file, unread) = match crate::store::write::catalog::read_catalog(&store.abs_path(&path)) {
        Ok(file) => (file, None),
        Err(why) => (None, Some(why)),
    };
    let existing = file.as_deref().and_then(|b| std::str::from_utf8(b).ok());
    let (keep_frontmatter, refuse) = match existing {
        Some(text) => inspect_existing(text),
        None => (String::new(), None),
    };
    let refuse = unread.or(refuse);
    let names: Vec<&str> = subdirs.iter().map(|sub| sub.rsplit('/').next().unwrap_or(sub)).collect();
    let old_descriptions = match existing {
        Some(text) if !names.is_empty() => subdir_descriptions(text, &names),
        _ => HashMap::new(),
    };
    let mut out = keep_frontmatter;
    load_ahead(direct);
    let mut by_type: BTreeMap<&str, Vec<&Entity>> = BTreeMap::new();
    for e in direct {
        by_type.entry(e.kind.as_deref().unwrap_or("Other")).or_default().push(e);
    }
    for (ty, mut entries) in by_type {
        // Stable, and `direct` is in path order: equal titles stay ordered by path.
        sort_by_folded_title(&mut entries);
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str("# ");
        push_one_line(&mut out, ty, |_| None);
        out.push_str("\n\n");
        for e in entries {
            let file = crate::store::model::relpath::file_name(&e.path);
            push_entry(&mut out, &e.title, file);
            if let Some(d) = e.description.as_deref().filter(|d| d.split_whitespace().next().is_some()) {
                out.push_str(" - ");
                push_one_line(&mut out, d, |_| None);
            }
            out.push('\n');
        }
    }
    if !subdirs.is_empty() {
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out += "# Subdirectories\n\n";
        for name in names {
            push_entry(&mut out, name, &format!("{name}/index.md"));
            // Kept exactly as the catalog had it.
            if let Some(d) = old_descriptions.get(name) {
                out.push_str(" - ");
                out.push_str(d);
            }
            out.push('\n');
        }
    }
    (CatalogPlan { path, content: out, refuse }, file)
}

/// Start loading what a catalog reads of each entity of its folder (the entity, its type,
/// title, path and description), all at once: one by one, each of those scattered reads
/// waits on its own cache miss.
fn load_ahead(direct: &[&Entity]) {
    use crate::store::model::prefetch::prefetch;
    for &e in direct {
        prefetch(e);
    }
    for &e in direct {
        prefetch(e.path.as_str());
        prefetch(e.title.as_str());
        if let Some(kind) = &e.kind {
            prefetch(kind);
        }
        if let Some(d) = &e.description {
            prefetch(&**d);
        }
    }
}

/// Sort by lower-cased title, keeping equal titles in their order: `sort_by_cached_key` with
/// the keys in one buffer (a lower-cased `String` per entity was 100k allocations at 100k).
fn sort_by_folded_title(entries: &mut [&Entity]) {
    let mut keys_text = String::new();
    let mut keys: Vec<(usize, usize, usize)> = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let start = keys_text.len();
        if e.title.is_ascii() {
            keys_text.push_str(&e.title);
            keys_text[start..].make_ascii_lowercase();
        } else {
            keys_text.push_str(&e.title.to_lowercase());
        }
        keys.push((start, keys_text.len(), i));
    }
    keys.sort_unstable_by(|a, b| keys_text[a.0..a.1].cmp(&keys_text[b.0..b.1]).then(a.2.cmp(&b.2)));
    let sorted: Vec<&Entity> = keys.iter().map(|&(_, _, i)| entries[i]).collect();
    entries.copy_from_slice(&sorted);
}

/// An existing `index.md`: the frontmatter to keep (only `okf_version` is allowed there) or
/// the reason it is not a catalog at all.
fn inspect_existing(text: &str) -> (String, Option<String>) {
    match frontmatter::locate(text) {
        Block::Closed { inner, body_start, .. } => match frontmatter::parse_yaml(&text[inner]) {
            Ok(f) if f.keys().all(|k| k == "okf_version") => {
                let mut keep = text[..body_start].to_string();
                if !keep.ends_with('\n') {
                    keep.push('\n');
                }
                (keep + "\n", None)
            }
            Ok(f) => {
                let keys: Vec<&str> = f.keys().map(String::as_str).filter(|k| *k != "okf_version").collect();
                (String::new(), Some(format!("it carries frontmatter ({})", keys.join(", "))))
            }
            Err(e) => (String::new(), Some(format!("its frontmatter does not parse: {}", e.message))),
        },
        Block::Unterminated => (String::new(), Some("it starts an unterminated frontmatter block".into())),
        Block::None => (String::new(), None),
    }
}

/// `* [name](name/index.md) - description` lines of an existing catalog for the subfolders
/// `names`: name → description (the last line wins). A catalog's other lines list its concepts
/// (thousands in a big folder), so nothing is allocated for a line naming no wanted subfolder.
fn subdir_descriptions<'t>(text: &'t str, names: &[&str]) -> HashMap<String, &'t str> {
    let mut m = HashMap::new();
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix("* [").or_else(|| l.strip_prefix("- [")) else { continue };
        let Some((_, after)) = rest.split_once("](") else { continue };
        let Some((target, tail)) = after.split_once(')') else { continue };
        let target = target.trim_end_matches('/');
        // `sub/index.md`, or `sub` standing for it.
        let name = if target.ends_with("index.md") { target.strip_suffix("/index.md") } else { Some(target) };
        let Some(name) = name.filter(|n| names.contains(n)) else { continue };
        if let Some(d) = tail.trim_start().strip_prefix("- ").or_else(|| tail.trim_start().strip_prefix("— ")) {
            m.insert(name.to_string(), d.trim());
        }
    }
    m
}

/// `* [text](dest)`, escaped; the caller adds the description and the newline.
fn push_entry(out: &mut String, text: &str, dest: &str) {
    out.push_str("* [");
    push_one_line(out, text, |b| match b {
        b'[' => Some("\\["),
        b']' => Some("\\]"),
        _ => None,
    });
    out.push_str("](");
    // Spaces and parentheses would end or break a destination, so those are encoded.
    push_escaped(out, dest, |b| match b {
        b'%' => Some("%25"),
        b' ' => Some("%20"),
        b'(' => Some("%28"),
        b')' => Some("%29"),
        _ => None,
    });
    out.push(')');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::catalog;

    #[test]
    fn folder_runs_split_where_the_folder_changes() {
        let paths = ["a.md", "b.md", "t/a.md", "t/b.md", "t/g/a.md", "t/g/b.md", "t/h.md", "u/a.md", "v/w/x/y.md"];
        // Past the prefetch distance, so the loads ahead reach the end of the slice.
        let many: Vec<String> = (0..40).map(|i| format!("d{}/n{i}.md", i / 7)).collect();
        for list in [paths.iter().map(|p| p.to_string()).collect::<Vec<_>>(), many, Vec::new()] {
            let es: Vec<Arc<Entity>> =
                list.iter().map(|p| Arc::new(Entity { path: p.clone(), ..Default::default() })).collect();
            let parent = crate::store::model::relpath::parent;
            let want: Vec<(&str, usize)> =
                es.chunk_by(|a, b| parent(&a.path) == parent(&b.path)).map(|r| (parent(&r[0].path), r.len())).collect();
            let got: Vec<(&str, usize)> = folder_runs(&es).into_iter().map(|(d, r)| (d, r.len())).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn catalog_states_and_status_match_a_second_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (p, text) in [
            ("metrics/churn.md", "---\ntype: Metric\ndescription: Monthly churn\n---\nx\n"),
            ("metrics/mrr.md", "---\ntype: Metric\ndescription: Revenue\n---\nx\n"),
            ("tables/users.md", "---\ntype: Table\ndescription: Users\n---\nx\n"),
            ("tables/deep/orders.md", "---\ntype: Table\n---\nx\n"),
            ("notes/a.md", "---\ntype: Note\n---\nx\n"),
            ("bad/b.md", "---\ntype: Note\n---\nx\n"),
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), text).unwrap();
        }
        let load = || Store::load(root, crate::store::dialect::okf::KIND, "test".into());
        catalog::write(&load()).unwrap();
        // Fresh (metrics), stale (tables), missing (tables/deep), refused (notes), and one that
        // is not UTF-8 (bad).
        std::fs::write(root.join("tables/index.md"), "# Table\n\n* old\n").unwrap();
        std::fs::remove_file(root.join("tables/deep/index.md")).unwrap();
        std::fs::write(root.join("notes/index.md"), "---\ntype: Note\n---\nnot a catalog\n").unwrap();
        std::fs::write(root.join("bad/index.md"), b"# Note\n\xff\n").unwrap();
        let store = load();
        // Against the plans compared with files read again (the default of other dialects).
        let reference = catalog::status_of(&store, store.dialect.catalogs(&store));
        let status = catalog::status(&store);
        assert_eq!(status, reference);
        let full: Vec<(String, CatalogState)> = reference.into_iter().map(|s| (s.path, s.state)).collect();
        let states = catalog::states(&store);
        assert_eq!(states, full);
        let state = |p: &str| states.iter().find(|(q, _)| q == p).map(|(_, s)| s.clone());
        assert_eq!(state("metrics/index.md"), Some(CatalogState::Fresh));
        assert_eq!(state("tables/index.md"), Some(CatalogState::Stale));
        assert_eq!(state("tables/deep/index.md"), Some(CatalogState::Missing));
        assert!(matches!(state("notes/index.md"), Some(CatalogState::Refused(_))));
        assert_eq!(state("bad/index.md"), Some(CatalogState::Stale));
    }

    #[test]
    fn subfolder_descriptions_are_read_only_for_the_wanted_folders() {
        let catalog = "# Metric\n\n* [Churn](churn.md) - Monthly churn\n* [a](a/index.md) - ignored: not wanted\n\n\
                       # Subdirectories\n\n* [x](x/index.md) - First\n- [y](y/) — Dash form\n* [z](z) - Bare  name \n\
                       * [x](x/index.md) - Last wins\n* [w](w/index.md)\n";
        let m = subdir_descriptions(catalog, &["x", "y", "z", "w", "churn.md"]);
        assert_eq!(m.get("x"), Some(&"Last wins"));
        assert_eq!(m.get("y"), Some(&"Dash form"));
        assert_eq!(m.get("z"), Some(&"Bare  name"));
        assert_eq!(m.get("w"), None);
        assert_eq!(m.get("a"), None);
        // A concept line names a file, which a folder of that name would claim (as before).
        assert_eq!(m.get("churn.md"), Some(&"Monthly churn"));
    }

    #[test]
    fn titles_sort_as_their_lower_case_keeping_ties_in_order() {
        let titles = ["beta", "Alpha", "ÉTÉ", "alpha", "Zed", "été", "a", "ALPHA", "Ǆx", "ǆa", "ΣΑΣ"];
        let es: Vec<Entity> = titles
            .iter()
            .enumerate()
            .map(|(i, t)| Entity { title: t.to_string(), path: format!("{i}.md"), ..Default::default() })
            .collect();
        let mut fast: Vec<&Entity> = es.iter().collect();
        sort_by_folded_title(&mut fast);
        let mut reference: Vec<&Entity> = es.iter().collect();
        reference.sort_by_cached_key(|e| e.title.to_lowercase());
        let paths = |v: &[&Entity]| v.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&fast), paths(&reference));
    }

    #[test]
    fn entries_escape_what_would_break_the_link() {
        let mut out = String::new();
        push_entry(&mut out, " A  [b]\n c ", "50% (x) y.md");
        assert_eq!(out, "* [A \\[b\\] c](50%25%20%28x%29%20y.md)");
    }
}
