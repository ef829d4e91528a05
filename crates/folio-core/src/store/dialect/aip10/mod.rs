//! AIP-10 `agentknowledge/v1` wikis: a `KNOWLEDGE.md` workspace manifest (possibly a view
//! extending others), pages whose id is their frontmatter `slug`, immutable `sources/`, and
//! the generated `_index.md`, `_log.md` and `_manifest.json`.
use std::collections::HashSet;
use std::path::Path;

use serde_json::{Value, json};

use super::{Dialect, DialectKind, FileRole, SourceFile, StoreWarning};
use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::model::history::HistoryEvent;
use crate::store::write::catalog::{CatalogPlan, CatalogState};

pub mod catalog;
pub mod format;
pub mod spec;
pub mod lints;
pub mod log_writer;
pub mod review;
pub use format::KIND;
pub mod log;
pub mod manifest;
pub mod page;
pub mod policy;
pub mod workspace;

pub const WORKSPACE: &str = "KNOWLEDGE.md";
/// Raw sources: immutable, never pages.
const SOURCES_DIR: &str = "sources/";
const TOMBSTONE: &str = ".whiteout";

pub struct Aip10 {
    /// The root `KNOWLEDGE.md` with its chain resolved: the config every page is checked against.
    workspace: workspace::Resolved,
    /// Views below the root (`<dir>/KNOWLEDGE.md`), by relative path.
    views: Vec<(String, workspace::Resolved)>,
    policy: policy::Policy,
    /// `Dialect::parse_inputs`: the merged configuration's digest (the policy is read from it).
    policy_digest: u64,
    /// Pages hidden by a zero-byte `<page>.whiteout` marker beside them.
    hidden: HashSet<String>,
    manifest_warnings: Vec<StoreWarning>,
    now: time::OffsetDateTime,
}

impl Aip10 {
    /// Read the workspace chain, the views, the tombstones and `_manifest.json` under `root`.
    pub fn open(root: &Path) -> Self {
        let workspace = workspace::resolve(root, &root.join(WORKSPACE));
        let policy = policy::Policy::from_config(&workspace.merged);
        let (view_paths, hidden) = scan(root);
        let views =
            view_paths.into_iter().map(|rel| (rel.clone(), workspace::resolve(root, &root.join(&rel)))).collect();
        let hash_algo = workspace.merged.get("sources").and_then(|s| s.get("hashAlgo")).and_then(Value::as_str);
        let manifest_warnings = manifest::check(root, hash_algo.unwrap_or("sha256"));
        let policy_digest = digest_of(&workspace.merged);
        let now = crate::store::model::timestamp::now();
        Aip10 { workspace, views, policy, policy_digest, hidden, manifest_warnings, now }
    }

    fn context(&self) -> page::Context<'_> {
        page::Context { policy: &self.policy, now: self.now }
    }
}

/// The first 8 bytes of the SHA-256 of a configuration as JSON (key order is kept).
fn digest_of(config: &crate::store::read::frontmatter::Fields) -> u64 {
    use sha2::Digest as _;
    let json = serde_json::to_vec(config).unwrap_or_default();
    let sum = sha2::Sha256::digest(&json);
    u64::from_le_bytes(sum[..8].try_into().expect("a SHA-256 has 32 bytes"))
}

/// View manifests below the root (outside `sources/`) and the pages tombstones hide.
///
/// Walked by hand with `read_dir`, looking at each name without making its path: every open
/// walks the whole workspace here, on one thread before its pages are read, and `ignore`'s
/// walker makes a path and runs its filters for every file (docs/benchmarks.md, "Load figures").
fn scan(root: &Path) -> (Vec<String>, HashSet<String>) {
    let (mut views, mut hidden) = (Vec::new(), HashSet::new());
    let mut folders = vec![String::new()];
    while let Some(rel) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(if rel.is_empty() { root.to_path_buf() } else { root.join(&rel) }) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            // Hidden entries are skipped as the loader's walk skips them; a name that is not
            // UTF-8 cannot be a page's path.
            let Some(name) = name.to_str().filter(|n| !n.starts_with('.')) else { continue };
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                folders.push(if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") });
                continue;
            }
            // Only markers and manifests matter, and symbolic links are not followed.
            if !kind.is_file() || !(name.ends_with(TOMBSTONE) || name == WORKSPACE) {
                continue;
            }
            let path = if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
            if let Some(target) = path.strip_suffix(TOMBSTONE) {
                if entry.metadata().is_ok_and(|m| m.len() == 0) {
                    hidden.insert(target.to_string());
                }
            } else if path != WORKSPACE && !path.starts_with(SOURCES_DIR) {
                views.push(path);
            }
        }
    }
    views.sort();
    (views, hidden)
}

/// `scan` as it was written first, with `ignore`'s walker: the reference it is tested against.
#[cfg(test)]
fn scan_with_ignore(root: &Path) -> (Vec<String>, HashSet<String>) {
    let mut views = Vec::new();
    let mut hidden = HashSet::new();
    let walker = ignore::WalkBuilder::new(root).standard_filters(false).hidden(true).follow_links(false).build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let Some(rel) = rel.to_str().map(|r| r.replace('\\', "/")) else { continue };
        if let Some(target) = rel.strip_suffix(TOMBSTONE) {
            if entry.metadata().is_ok_and(|m| m.len() == 0) {
                hidden.insert(target.to_string());
            }
        } else if rel != WORKSPACE && rel.ends_with(&format!("/{WORKSPACE}")) && !rel.starts_with(SOURCES_DIR) {
            views.push(rel);
        }
    }
    views.sort();
    (views, hidden)
}

impl Dialect for Aip10 {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::aip10::KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        if rel.starts_with(SOURCES_DIR) || self.hidden.contains(rel) {
            return FileRole::Other;
        }
        match rel.rsplit('/').next().unwrap_or(rel) {
            WORKSPACE | "AGENTS.md" | manifest::MANIFEST | "_sources.md" => FileRole::Other,
            catalog::INDEX => FileRole::Catalog,
            log::LOG => FileRole::Log,
            name if name.ends_with(".md") => FileRole::Entity,
            _ => FileRole::Other,
        }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        vec![page::parse_page(file, &self.context())]
    }

    fn parse_inputs(&self) -> u64 {
        self.policy_digest
    }

    fn role_inputs(&self) -> u64 {
        // The hidden pages in order: the set's own iteration order differs from open to open.
        let mut hidden: Vec<&str> = self.hidden.iter().map(String::as_str).collect();
        hidden.sort_unstable();
        let state = foldhash::fast::FixedState::default();
        std::hash::BuildHasher::hash_one(&state, hidden)
    }

    fn outdated(&self, e: &Entity) -> bool {
        page::outdated(e, &self.context())
    }

    fn may_outdate(&self) -> bool {
        self.policy.configures("max-age")
    }

    fn catalogs(&self, store: &Store) -> Vec<CatalogPlan> {
        vec![catalog::plan(store)]
    }

    fn catalog_states(&self, store: &Store) -> Vec<(String, CatalogState)> {
        vec![(catalog::INDEX.to_string(), catalog::state(store))]
    }

    /// `_index.md` lists each page's kind, title, path, slug and summary.
    fn catalogs_read_fields_only(&self) -> bool {
        true
    }

    fn history(&self, root: &Path) -> Vec<HistoryEvent> {
        log::read(root)
    }

    fn warnings(&self) -> Vec<StoreWarning> {
        let chains = std::iter::once(&self.workspace).chain(self.views.iter().map(|(_, v)| v));
        chains.flat_map(|r| r.warnings.iter().cloned()).chain(self.manifest_warnings.iter().cloned()).collect()
    }

    /// `{"merged": {...}, "chain": [leaf, parent, …], "views": [{"path", "merged", "chain"}]}`.
    fn manifest_lints(&self) -> crate::store::lint::manifest::ManifestLints {
        lints::from_manifest(&self.workspace.merged)
    }

    fn info(&self) -> Value {
        let views: Vec<Value> =
            self.views.iter().map(|(path, r)| json!({"path": path, "merged": r.merged, "chain": r.chain})).collect();
        json!({"merged": self.workspace.merged, "chain": self.workspace.chain, "views": views})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn roles_and_tombstones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "KNOWLEDGE.md", "---\nname: w\n---\n");
        write(root, "entries/gone.md", "---\nslug: gone\n---\n");
        write(root, "entries/gone.md.whiteout", "");
        write(root, "entries/kept.md.whiteout", "not a marker: it has bytes");
        write(root, "views/a/KNOWLEDGE.md", "---\nname: a\nextends: ../../KNOWLEDGE.md\n---\n");
        write(root, "sources/KNOWLEDGE.md", "raw");
        let d = Aip10::open(root);
        assert_eq!(d.role("entries/gone.md"), FileRole::Other);
        assert_eq!(d.role("entries/kept.md"), FileRole::Entity);
        assert_eq!(d.role("entities/x.md"), FileRole::Entity);
        assert_eq!(d.role("sources/notes.md"), FileRole::Other);
        assert_eq!(d.role("sources/deep/_index.md"), FileRole::Other);
        assert_eq!(d.role("views/a/KNOWLEDGE.md"), FileRole::Other);
        assert_eq!(d.role("AGENTS.md"), FileRole::Other);
        assert_eq!(d.role("_manifest.json"), FileRole::Other);
        assert_eq!(d.role("_index.md"), FileRole::Catalog);
        assert_eq!(d.role("_log.md"), FileRole::Log);
        assert_eq!(d.role("entries/gone.md.whiteout"), FileRole::Other);
        let info = d.info();
        assert_eq!(info["chain"], json!(["KNOWLEDGE.md"]));
        assert_eq!(info["views"][0]["path"], "views/a/KNOWLEDGE.md");
        assert_eq!(info["views"][0]["chain"], json!(["views/a/KNOWLEDGE.md", "KNOWLEDGE.md"]));
        assert_eq!(info["views"].as_array().unwrap().len(), 1, "sources/ holds no views");
        let codes: Vec<String> = d.warnings().into_iter().map(|w| w.code).collect();
        assert_eq!(codes, [manifest::MANIFEST_MISSING]);
    }

    /// A workspace whose chain sets a `max-age` lint may read an unchanged page otherwise as days
    /// pass (`outdated`), so the inbox's kept listing is not trusted for it; another is.
    #[test]
    fn only_a_max_age_lint_makes_pages_outdate() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: w\n---\n");
        assert!(!Aip10::open(root).may_outdate());
        let lints = "lints:\n  - {id: conf, kind: min-confidence, appliesTo: \"*\", severity: info, params: {min: 0.5}}\n";
        write(root, "KNOWLEDGE.md", &format!("---\nschema: knowledge.workspace/v1\nname: w\n{lints}---\n"));
        assert!(!Aip10::open(root).may_outdate(), "another lint");
        write(root, "base/KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: base\nlints:\n  - {id: age, kind: max-age, appliesTo: \"*\", severity: warn, params: {days: 20}}\n---\n");
        write(root, "KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: w\nextends: base/KNOWLEDGE.md\n---\n");
        assert!(Aip10::open(root).may_outdate(), "a max-age lint from the chain's parent");
    }

    /// The hand-written walk finds what `ignore`'s walker found: markers and views at every
    /// depth, not in hidden folders, not through symbolic links, not under `sources/`.
    #[test]
    fn the_scan_finds_what_the_ignore_walker_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "KNOWLEDGE.md", "---\nname: w\n---\n");
        write(root, "a.md.whiteout", "");
        write(root, "entries/deep/er/p.md.whiteout", "");
        write(root, "entries/q.md.whiteout", "bytes: not a marker");
        write(root, "views/a/KNOWLEDGE.md", "---\nname: a\n---\n");
        write(root, "views/a/b/c/KNOWLEDGE.md", "---\nname: c\n---\n");
        write(root, "sources/KNOWLEDGE.md", "raw");
        write(root, "sources/x/KNOWLEDGE.md", "raw");
        write(root, "sources/s.md.whiteout", "");
        write(root, ".git/KNOWLEDGE.md", "hidden");
        write(root, "entries/.drafts/r.md.whiteout", "");
        write(root, "entries/.hidden.whiteout", "");
        std::fs::create_dir_all(root.join("entries/KNOWLEDGE.md")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("views"), root.join("linked")).unwrap();
            std::os::unix::fs::symlink(root.join("a.md.whiteout"), root.join("entries/b.md.whiteout")).unwrap();
        }
        let found = scan(root);
        assert_eq!(found, scan_with_ignore(root));
        assert_eq!(found.0, ["views/a/KNOWLEDGE.md", "views/a/b/c/KNOWLEDGE.md"]);
        let mut hidden: Vec<&str> = found.1.iter().map(String::as_str).collect();
        hidden.sort_unstable();
        assert_eq!(hidden, ["a.md", "entries/deep/er/p.md", "sources/s.md"]);
    }
}
