//! Resolving link targets and typed-edge names to entities, per the store's rules.
//!
//! Markdown links resolve as paths (relative to the linking file, or bundle-absolute with a
//! leading `/`); wikilinks and edge names resolve as Obsidian does: path, id, file stem,
//! title, alias, case-insensitively. Nothing that leaves the store root is ever followed.
use std::borrow::{Borrow, Cow};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::links::percent_decode;
use super::str_table::StrTable;
use crate::store::model::entity::{Edge, Entity, EntityIdx, Link, LinkSyntax, Resolution};

mod paths;

pub use paths::{LinkDir, normalize};
use paths::{join, normalize_join_into};

/// foldhash instead of SipHash: the keys are the store's own paths and names, and SipHash was
/// 5 % of `folio stats` instructions (callgrind, 10k OKF).
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Lower-cased file name → (path, its first entity when it holds any), in path order.
type FilesByName<'a> = FastMap<String, Vec<(&'a str, Option<EntityIdx>)>>;

/// What a format's own tools resolve beyond paths and names (`Format::link_rules`). Obsidian
/// does all three; the other formats' readers none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRules {
    /// Wikilinks reach the store's other files by file name or stem: `[[dashboard.base]]`,
    /// `[[Wiki Map]]` (a canvas) when no note claims the name.
    pub files_by_name: bool,
    /// A wikilink path found neither from the root nor from the linking file lands on the file
    /// whose path ends with it: `[[entities/_index]]` → `wiki/entities/_index.md`.
    pub path_suffixes: bool,
    /// Links may land in hidden folders that exist on disk (`.github/`, `.claude-plugin/`),
    /// which the walk skips.
    pub hidden_folders: bool,
}

impl LinkRules {
    pub const OBSIDIAN: LinkRules = LinkRules { files_by_name: true, path_suffixes: true, hidden_folders: true };
}

/// Where and by which rules a store's links resolve (`Store::link_context`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkContext {
    pub rules: LinkRules,
    /// The store root: hidden folders are looked for there (`LinkRules::hidden_folders`).
    pub root: Option<PathBuf>,
    /// Where the store root sits below the root the format's own tool resolves paths from
    /// (`wiki/` for an Obsidian vault opened at its `wiki/` folder; empty when they are one).
    pub below: String,
}

impl LinkContext {
    pub fn of_rules(rules: LinkRules) -> LinkContext {
        LinkContext { rules, ..Default::default() }
    }
}

/// Lookup tables: paths and lower-cased names in `StrTable`s (keys side by side in one
/// buffer each), the store's other files and folders borrowed.
pub struct Resolver<'a> {
    context: LinkContext,
    /// Every entity's path, in store order (for `path_ending`).
    entity_paths: Vec<&'a str>,
    /// Lower-cased file name → the files (entity or other) bearing it, in path order: built on
    /// the first partial-path wikilink that needs it.
    by_file_name: OnceLock<FilesByName<'a>>,
    by_path: StrTable,
    /// By kind of name, in priority order (`name_tables`).
    by_name: Vec<StrTable>,
    files: FastSet<&'a str>,
    /// The other files by lower-cased file name and by stem (`file_names`).
    file_names: FastMap<String, &'a str>,
    dirs: FastSet<&'a str>,
    escaping: FastSet<EntityIdx>,
}

impl<'a> Resolver<'a> {
    /// `files`: every file of the store that is not an entity file (sources, catalogs, images).
    /// `entities`: the store's (`Arc<Entity>`) or plain ones.
    /// Resolves as the plain rules do (no `LinkRules`).
    pub fn new<E: Borrow<Entity> + Sync>(entities: &'a [E], files: impl IntoIterator<Item = &'a str>) -> Self {
        Resolver::with_names(entities, files, true, LinkContext::default())
    }

    /// `new`, with the name tables only when `names` is set: without them, wikilinks and
    /// edge names resolve to nothing, so the caller asks for them when it has any.
    pub fn with_names<E: Borrow<Entity> + Sync>(
        entities: &'a [E],
        files: impl IntoIterator<Item = &'a str>,
        names: bool,
        context: LinkContext,
    ) -> Self {
        let rules = context.rules;
        let files: FastSet<&'a str> = files.into_iter().collect();
        // The tables are independent: built side by side, as this runs between two parallel
        // phases (≈130 ms at 100k entities, serial).
        let (((by_path, escaping), dirs), by_name) = rayon::join(
            || rayon::join(|| path_table(entities), || folders(entities, &files)),
            || if names { name_tables(entities) } else { Vec::new() },
        );
        let file_names =
            if names && rules.files_by_name { file_names(files.iter().copied()) } else { FastMap::default() };
        let entity_paths =
            if rules.path_suffixes { entities.iter().map(|e| e.borrow().path.as_str()).collect() } else { Vec::new() };
        Resolver {
            context,
            entity_paths,
            by_file_name: OnceLock::new(),
            by_path,
            by_name,
            files,
            file_names,
            dirs,
            escaping,
        }
    }

    fn by_file_name(&self) -> &FilesByName<'a> {
        self.by_file_name.get_or_init(|| {
            let mut all: Vec<(&'a str, Option<EntityIdx>)> =
                Vec::with_capacity(self.entity_paths.len() + self.files.len());
            // Files holding several entities resolve to their first one.
            let mut last = None;
            for (i, p) in self.entity_paths.iter().enumerate() {
                if last != Some(*p) {
                    all.push((p, Some(i as EntityIdx)));
                    last = Some(*p);
                }
            }
            all.extend(self.files.iter().map(|p| (*p, None)));
            all.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let mut map: FastMap<String, Vec<_>> = FastMap::default();
            for (p, i) in all {
                map.entry(lower(paths::file_name(p)).into_owned()).or_default().push((p, i));
            }
            map
        })
    }
}

/// Whether a typed edge's target is a store path rather than a name: `dir/file.md`.
pub fn is_path_target(target: &str) -> bool {
    target.ends_with(".md") && target.contains('/')
}

/// A markdown destination written from the root of the tool's store (`/metrics/a.md`).
fn bundle_absolute(target: &str) -> bool {
    let t = crate::store::model::lines::trim(target).trim_start_matches('<');
    t.starts_with('/') && !t.starts_with("//")
}

/// Whether some folder or file along `path` is hidden (`.github/…`).
fn has_hidden_component(path: &str) -> bool {
    path.split('/').any(|c| c.starts_with('.') && c != "." && c != "..")
}

/// Whether `rel` exists under `root` and, with symlinks followed, stays inside it.
pub(crate) fn exists_inside(root: &Path, rel: &str) -> bool {
    let (Ok(root), Ok(target)) = (root.canonicalize(), root.join(rel).canonicalize()) else { return false };
    target.starts_with(&root)
}

/// The shortest path, then the first in path order, among `found` files whose lower-cased path
/// is `tail` or ends with `/tail`.
pub(crate) fn shortest_ending<'p, T: Copy>(
    found: impl Iterator<Item = (&'p str, T)>,
    tail: &str,
) -> Option<(&'p str, T)> {
    found
        .filter(|(p, _)| {
            let p = lower(p);
            p == tail || p.strip_suffix(tail).is_some_and(|head| head.ends_with('/'))
        })
        .min_by_key(|(p, _)| (p.matches('/').count(), p.len()))
}

/// Whether `key` (lower-cased) is the file name or stem of the file at `path`.
pub(crate) fn names_file(path: &str, key: &str) -> bool {
    let name = paths::file_name(path);
    [name, paths::stem(name)].iter().any(|n| lower(n) == key)
}

/// Lower-cased file name (`dashboard.base`) and stem (`wiki map`) → the first file, in path
/// order, claiming it: what a wikilink naming an attachment, canvas or base lands on.
fn file_names<'a>(files: impl Iterator<Item = &'a str>) -> FastMap<String, &'a str> {
    let mut sorted: Vec<&'a str> = files.collect();
    sorted.sort_unstable();
    let mut names = FastMap::default();
    for path in sorted {
        let name = paths::file_name(path);
        for key in [name, paths::stem(name)] {
            names.entry(lower(key).into_owned()).or_insert(path);
        }
    }
    names
}

impl Resolver<'_> {
    /// Resolve the links and edges of `entities`, which `outgoing` holds side by side: what
    /// `markdown_in`, `wiki` and `name` answer one by one, with the path lookups of their
    /// markdown links made as one batch (`StrTable::get_each`). One by one, each lookup
    /// waited on two cache misses in turn; a few entities make a batch long enough for the
    /// loads to overlap.
    pub fn resolve_all<E: Borrow<Entity>>(&self, entities: &[E], outgoing: &mut [(Vec<Link>, Vec<Edge>)]) {
        BATCH.with_borrow_mut(|b| {
            b.norms.clear();
            b.pending.clear();
            b.found.clear();
            for j in 0..entities.len().min(outgoing.len()) {
                load_ahead(entities, outgoing, j);
                let (path, links) = (entities[j].borrow().path.as_str(), &mut outgoing[j].0);
                let from = LinkDir::of(path);
                for (i, l) in links.iter_mut().enumerate() {
                    if l.syntax == LinkSyntax::Wiki {
                        l.resolution = self.wiki(path, l.target());
                        continue;
                    }
                    if !self.context.below.is_empty() && bundle_absolute(l.target()) {
                        l.resolution = self.beyond_root(&from, l.target());
                        continue;
                    }
                    l.resolution = match markdown_path(&from, l.target(), &mut b.one) {
                        Err(Resolution::Escapes) => self.beyond_root(&from, l.target()),
                        Err(settled) => settled,
                        Ok(dir_form) if dir_form || b.one.is_empty() => self.lookup_path(&b.one, dir_form),
                        Ok(_) => {
                            let start = b.norms.len();
                            b.norms.push_str(&b.one);
                            b.pending.push((j, i, start..b.norms.len()));
                            Resolution::Pending
                        }
                    };
                }
            }
            let LinkBatch { norms, pending, found, .. } = b;
            self.by_path.get_each(pending.iter().map(|(_, _, r)| &norms[r.clone()]), found);
            for ((j, i, r), hit) in pending.iter().zip(found.iter()) {
                outgoing[*j].0[*i].resolution = match *hit {
                    Some(e) => self.entity(e),
                    // Not an entity file: a plain file, `path.md`, a folder, or nothing.
                    None => self.lookup_path(&norms[r.clone()], false),
                };
            }
        });
        for (_, edges) in outgoing {
            for edge in edges {
                edge.resolved = self.edge_target(&edge.target);
            }
        }
    }
}

/// Start loading what resolving reads of the entities a few places after `j`: the entity
/// and its path, its links, and their targets (each a cache miss waited on in turn before).
#[inline(always)]
fn load_ahead<E: Borrow<Entity>>(entities: &[E], outgoing: &[(Vec<Link>, Vec<Edge>)], j: usize) {
    use crate::store::model::prefetch::prefetch;
    crate::store::model::prefetch::entity_ahead(entities, j, |e| e.path.as_str());
    if let Some((links, _)) = outgoing.get(j + 8) {
        links.iter().for_each(prefetch);
    }
    if let Some((links, _)) = outgoing.get(j + 4) {
        links.iter().for_each(|l| prefetch(l.target()));
    }
}

/// Markdown links on their way through `resolve_all`, kept per thread.
#[derive(Default)]
struct LinkBatch {
    /// The link being normalised.
    one: String,
    /// The normalised paths to look up, one after another…
    norms: String,
    /// …which entity's which link each is, and where it is in `norms`.
    pending: Vec<(usize, usize, std::ops::Range<usize>)>,
    found: Vec<Option<EntityIdx>>,
}

thread_local! {
    static BATCH: std::cell::RefCell<LinkBatch> = std::cell::RefCell::default();
}

/// Entities by path, and the ones escaping the root.
fn path_table<E: Borrow<Entity>>(entities: &[E]) -> (StrTable, FastSet<EntityIdx>) {
    let mut by_path = StrTable::with_capacity(entities.len());
    let mut escaping = FastSet::default();
    for (i, e) in entities.iter().enumerate() {
        crate::store::model::prefetch::entity_ahead(entities, i, |e| e.path.as_str());
        let (i, e) = (i as EntityIdx, e.borrow());
        // Files holding several entities (awareness) resolve to their first one.
        by_path.insert_first(&e.path, i);
        if e.escapes_root() {
            escaping.insert(i);
        }
    }
    (by_path, escaping)
}

/// Every folder holding a file of the store.
fn folders<'a, E: Borrow<Entity>>(entities: &'a [E], files: &FastSet<&'a str>) -> FastSet<&'a str> {
    let mut dirs = FastSet::default();
    let ahead = |(i, e): (usize, &'a E)| {
        crate::store::model::prefetch::entity_ahead(entities, i, |e| e.path.as_str());
        e.borrow().path.as_str()
    };
    for p in entities.iter().enumerate().map(ahead).chain(files.iter().copied()) {
        let mut rest: &'a str = p;
        while let Some(i) = memchr::memrchr(b'/', rest.as_bytes()) {
            let d = &rest[..i];
            if !dirs.insert(d) {
                break;
            }
            rest = d;
        }
    }
    dirs
}

/// One table per kind of name (`NamePass`), filled in parallel: lower-cased name → the first
/// entity with it. Looked up in priority order, they answer as one table filled pass after
/// pass (`claim_names`) would; that one table was ≈100 ms of serial work at 100k entities.
fn name_tables<E: Borrow<Entity> + Sync>(entities: &[E]) -> Vec<StrTable> {
    use rayon::prelude::*;
    NamePass::ALL
        .par_iter()
        .map(|pass| {
            // Most entities have no alias: that table grows as it needs.
            let room = if matches!(pass, NamePass::Alias) { 0 } else { entities.len() };
            let mut table = StrTable::with_capacity(room);
            for (i, e) in entities.iter().enumerate() {
                pass.raw_names(e.borrow(), |name| table.insert_first_lowercase(name, i as EntityIdx));
            }
            table
        })
        .collect()
}

impl Lookup for Resolver<'_> {
    fn entity_at(&self, path: &str) -> Option<EntityIdx> {
        self.by_path.get(path)
    }
    fn is_file(&self, path: &str) -> bool {
        self.files.contains(path)
    }
    fn is_dir(&self, path: &str) -> bool {
        self.dirs.contains(path)
    }
    fn escapes(&self, i: EntityIdx) -> bool {
        self.escaping.contains(&i)
    }
    fn named(&self, key: &str) -> Option<EntityIdx> {
        self.by_name.iter().find_map(|table| table.get(key))
    }
    fn file_named(&self, key: &str) -> Option<String> {
        self.file_names.get(key).map(|p| p.to_string())
    }
    fn context(&self) -> &LinkContext {
        &self.context
    }
    fn path_ending(&self, tail: &str) -> Option<Resolution> {
        let candidates = self.by_file_name().get(paths::file_name(tail))?;
        let (p, i) = shortest_ending(candidates.iter().copied(), tail)?;
        Some(i.map_or_else(|| Resolution::file(p), |i| self.entity(i)))
    }
}

thread_local! {
    /// The normalised path of the markdown link being resolved (`normalize_join_into`).
    static NORMALIZED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The resolution rules over the few lookups they need: `Resolver` answers them from tables
/// over every entity; a live reload that resolves a handful of new links answers them from the
/// sorted store instead (`refresh::lookup`), without building the tables.
pub trait Lookup {
    /// The first entity in the file at `path` (relative, normalised).
    fn entity_at(&self, path: &str) -> Option<EntityIdx>;
    /// Whether `path` is a file of the store that is not an entity file.
    fn is_file(&self, path: &str) -> bool;
    /// Whether `path` is a folder holding some file of the store.
    fn is_dir(&self, path: &str) -> bool;
    /// Whether entity `i` resolves outside the root (`Entity::escapes_root`).
    fn escapes(&self, i: EntityIdx) -> bool;
    /// The entity claiming a lower-cased name: id, then stem, then title, then alias; the first
    /// entity in store order wins within each.
    fn named(&self, key: &str) -> Option<EntityIdx>;
    /// The other file (attachment, canvas, base…) whose lower-cased file name or stem is
    /// `key`: the first in path order.
    fn file_named(&self, key: &str) -> Option<String>;
    /// Where and by which rules the store's links resolve.
    fn context(&self) -> &LinkContext;
    /// The entity or file whose lower-cased path ends with the lower-cased partial path `tail`
    /// (`LinkRules::path_suffixes`): the shortest such path.
    fn path_ending(&self, tail: &str) -> Option<Resolution>;
    /// Whether `path`, which the walk skipped as hidden, exists inside the store.
    fn hidden_file(&self, path: &str) -> bool {
        self.context().root.as_deref().is_some_and(|root| exists_inside(root, path))
    }

    /// A markdown link destination written in the file at `from` (relative path).
    fn markdown(&self, from: &str, target: &str) -> Resolution {
        self.markdown_in(&LinkDir::of(from), target)
    }

    /// `markdown` for a link written in the folder `from` (worked out once per linking file).
    fn markdown_in(&self, from: &LinkDir, target: &str) -> Resolution {
        if !self.context().below.is_empty() && bundle_absolute(target) {
            return self.beyond_root(from, target);
        }
        NORMALIZED.with_borrow_mut(|norm| match markdown_path(from, target, norm) {
            Ok(dir_form) => self.lookup_path(norm, dir_form),
            Err(Resolution::Escapes) => self.beyond_root(from, target),
            Err(settled) => settled,
        })
    }

    /// A markdown link leaving the store root: when the store was opened at a subfolder of its
    /// tool's own store (`LinkContext::below`), one that stays inside that store resolves as
    /// its tool would — bundle-absolute from the enclosing root, relative paths to a file that
    /// is there — else it escapes.
    fn beyond_root(&self, from: &LinkDir, target: &str) -> Resolution {
        let context = self.context();
        let (below, Some(root)) = (context.below.as_str(), context.root.as_deref()) else {
            return Resolution::Escapes;
        };
        if below.is_empty() || crate::store::model::lines::trim(target).contains("://") {
            return Resolution::Escapes;
        }
        let t = crate::store::model::lines::trim(target).trim_start_matches('<').trim_end_matches('>');
        let path = t.split(['#', '?']).next().unwrap_or(t);
        let path = if path.contains('%') { percent_decode(path) } else { path.to_string() };
        // The path from the enclosing root, then back into the store when it lands there.
        let in_outer = match path.strip_prefix('/') {
            Some(abs) => normalize(abs),
            None => normalize(&join(&format!("{below}{}", from.dir()), &path)),
        };
        let Some(in_outer) = in_outer else { return Resolution::Escapes };
        if let Some(inside) = in_outer.strip_prefix(below) {
            return self.lookup_path(inside, path.ends_with('/'));
        }
        let outer = below
            .split('/')
            .filter(|s| !s.is_empty())
            .fold(root.to_path_buf(), |p, _| p.parent().map(std::path::Path::to_path_buf).unwrap_or(p));
        let up = "../".repeat(below.split('/').filter(|s| !s.is_empty()).count());
        if exists_inside(&outer, &in_outer) { Resolution::file(format!("{up}{in_outer}")) } else { Resolution::Broken }
    }

    fn lookup_path(&self, norm: &str, dir_form: bool) -> Resolution {
        if norm.is_empty() {
            return self.dir_target("");
        }
        if !dir_form {
            if let Some(i) = self.entity_at(norm) {
                return self.entity(i);
            }
            if self.is_file(norm) {
                return Resolution::file(norm);
            }
            let with_md = format!("{norm}.md");
            if let Some(i) = self.entity_at(&with_md) {
                return self.entity(i);
            }
        }
        if self.is_dir(norm) {
            return self.dir_target(norm);
        }
        if self.context().rules.hidden_folders && has_hidden_component(norm) && self.hidden_file(norm) {
            return Resolution::file(norm);
        }
        Resolution::Broken
    }

    /// A link to a directory lands on its catalog when there is one, else on the folder.
    fn dir_target(&self, dir: &str) -> Resolution {
        for name in ["index.md", "_index.md"] {
            let p = if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
            if self.is_file(&p) {
                return Resolution::file(p);
            }
        }
        Resolution::file(if dir.is_empty() { ".".into() } else { format!("{dir}/") })
    }

    fn entity(&self, i: EntityIdx) -> Resolution {
        if self.escapes(i) { Resolution::Escapes } else { Resolution::Entity(i) }
    }

    /// A wikilink target (`[[target]]`, alias already removed) written in the file at `from`.
    fn wiki(&self, from: &str, target: &str) -> Resolution {
        let t = target.split('#').next().unwrap_or(target).trim();
        if t.is_empty() {
            return Resolution::Anchor;
        }
        if t.contains('/') || t.ends_with(".md") || t.starts_with('.') {
            // A path: from the tool's root (the vault's, Obsidian), from the store root, then
            // from the linking file. One that leaves the store from every place escapes.
            let stripped = t.trim_start_matches('/');
            let below = self.context().below.as_str();
            let from_tool_root = (!below.is_empty()).then(|| stripped.strip_prefix(below)).flatten();
            let candidates = from_tool_root
                .map(str::to_string)
                .into_iter()
                .chain([stripped.to_string(), join(crate::store::model::relpath::parent(from), stripped)]);
            let mut inside = false;
            for candidate in candidates {
                let Some(norm) = normalize(&candidate) else { continue };
                inside = true;
                match self.lookup_path(&norm, false) {
                    Resolution::Broken => {}
                    found => return found,
                }
            }
            if !inside {
                return Resolution::Escapes;
            }
            if self.context().rules.path_suffixes
                && let Some(tail) = normalize(stripped)
                && !tail.is_empty()
            {
                let tail = lower(&tail);
                let with_md = format!("{tail}.md");
                let found = [with_md.as_str(), tail.as_ref()].into_iter().find_map(|t| self.path_ending(t));
                if let Some(found) = found {
                    return found;
                }
            }
        }
        // Obsidian: of several notes of one name, the one beside the linking file wins.
        if self.context().rules.path_suffixes && !t.contains('/') {
            let dir = crate::store::model::relpath::parent(from);
            let ext = if t.ends_with(".md") { "" } else { ".md" };
            let near = if dir.is_empty() { format!("{t}{ext}") } else { format!("{dir}/{t}{ext}") };
            if let Some(i) = self.entity_at(&near) {
                return self.entity(i);
            }
        }
        match self.name(t) {
            Some(i) => self.entity(i),
            None if !t.contains('/') && self.context().rules.files_by_name => {
                self.file_named(&lower(t)).map_or(Resolution::Broken, Resolution::file)
            }
            None => Resolution::Broken,
        }
    }

    /// A typed edge's target: a store path (`policies/x.md`, OKF's path-valued fields) is
    /// looked up by path, which needs no name table; anything else by name (`name`).
    fn edge_target(&self, target: &str) -> Option<EntityIdx> {
        if is_path_target(target) {
            return self.entity_at(target).or_else(|| self.name(target));
        }
        self.name(target)
    }

    /// An entity named by id, file stem, title or alias (case-insensitive): wikilinks without
    /// a path and typed-edge targets.
    fn name(&self, name: &str) -> Option<EntityIdx> {
        let key = lower(name.trim().trim_end_matches(".md"));
        self.named(key.as_ref()).or_else(|| self.entity_at(name))
    }
}

/// A markdown link destination, as far as it can be taken without looking anything up:
/// the path inside the store it names, normalised into `norm`, and whether it was written
/// as a folder (`Ok`), or what it is when no lookup is needed (`Err`: an anchor, another
/// scheme, a path leaving the root).
fn markdown_path(from: &LinkDir, target: &str, norm: &mut String) -> Result<bool, Resolution> {
    let t = crate::store::model::lines::trim(target).trim_start_matches('<').trim_end_matches('>');
    if t.is_empty() || t.starts_with('#') {
        return Err(Resolution::Anchor);
    }
    if let Some(scheme) = scheme_of(t) {
        return Err(if scheme.eq_ignore_ascii_case("file") || scheme.len() == 1 {
            Resolution::Escapes
        } else {
            Resolution::External
        });
    }
    if t.starts_with("//") {
        return Err(Resolution::External);
    }
    let path = memchr::memchr2(b'#', b'?', t.as_bytes()).map_or(t, |end| &t[..end]);
    // Half a million links at 100k entities: decode only when needed and build the
    // normalised path in a single buffer.
    let decoded;
    let path = if memchr::memchr(b'%', path.as_bytes()).is_some() {
        decoded = percent_decode(path);
        decoded.as_str()
    } else {
        path
    };
    let inside = match path.strip_prefix('/') {
        Some(abs) => normalize_join_into(&LinkDir::ROOT, abs, norm),
        None => normalize_join_into(from, path, norm),
    };
    if inside { Ok(path.ends_with('/')) } else { Err(Resolution::Escapes) }
}

/// Every entity's lookup names (lower-cased) in priority order: all ids, then all stems, then
/// all titles, then all aliases; the first entity to claim a key keeps it.
pub(crate) fn claim_names<'a, E: Borrow<Entity>>(entities: &'a [E], mut claim: impl FnMut(Cow<'a, str>, EntityIdx)) {
    for pass in NamePass::ALL {
        for (i, e) in entities.iter().enumerate() {
            pass.names(e.borrow(), |key| claim(key, i as EntityIdx));
        }
    }
}

/// The kinds of names a wikilink or edge may use, in priority order.
#[derive(Clone, Copy)]
enum NamePass {
    Id,
    Stem,
    Title,
    Alias,
}

impl NamePass {
    const ALL: [NamePass; 4] = [NamePass::Id, NamePass::Stem, NamePass::Title, NamePass::Alias];

    /// The entity's lower-cased names of this kind.
    fn names<'a>(self, e: &'a Entity, mut each: impl FnMut(Cow<'a, str>)) {
        self.raw_names(e, |name| each(lower(name)));
    }

    /// The entity's names of this kind, as written.
    fn raw_names<'a>(self, e: &'a Entity, mut each: impl FnMut(&'a str)) {
        match self {
            NamePass::Id => each(&e.id),
            NamePass::Stem => each(e.stem()),
            NamePass::Title => each(&e.title),
            NamePass::Alias => e.aliases.iter().for_each(|a| each(a)),
        }
    }
}

/// `s.to_lowercase()`, borrowed when that changes nothing (ids and paths usually).
fn lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// `http`, `mailto`, `file`… when the target starts with `scheme:`. Looks only as far as the
/// scheme's characters go: most targets are paths, and searching each whole target for a `:`
/// was a measurable share of resolving half a million links.
fn scheme_of(t: &str) -> Option<&str> {
    let bytes = t.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let len = bytes.iter().position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')))?;
    (bytes[len] == b':').then(|| &t[..len])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ent(path: &str, title: &str) -> Entity {
        Entity { id: path.trim_end_matches(".md").into(), path: path.into(), title: title.into(), ..Default::default() }
    }

    fn entities() -> Vec<Entity> {
        vec![
            ent("tables/users.md", "Users Table"),
            ent("concepts/LLM Wiki Pattern.md", "LLM Wiki Pattern"),
            ent("notes/a.md", "A"),
        ]
    }

    fn resolver(es: &[Entity]) -> Resolver<'_> {
        Resolver::new(es, ["sources/paper.pdf", "tables/index.md"])
    }

    #[test]
    fn markdown_paths() {
        let es = entities();
        let r = resolver(&es);
        assert_eq!(r.markdown("notes/a.md", "../tables/users.md"), Resolution::Entity(0));
        assert_eq!(r.markdown("notes/a.md", "/tables/users.md#cols"), Resolution::Entity(0));
        assert_eq!(r.markdown("notes/a.md", "./a.md"), Resolution::Entity(2));
        assert_eq!(r.markdown("x.md", "concepts/LLM%20Wiki%20Pattern.md"), Resolution::Entity(1));
        assert_eq!(r.markdown("x.md", "sources/paper.pdf"), Resolution::file("sources/paper.pdf"));
        assert_eq!(r.markdown("x.md", "tables/"), Resolution::file("tables/index.md"));
        assert_eq!(r.markdown("x.md", "missing.md"), Resolution::Broken);
        assert_eq!(r.markdown("notes/a.md", "../../etc/passwd"), Resolution::Escapes);
        assert_eq!(r.markdown("x.md", "file:///etc/passwd"), Resolution::Escapes);
        assert_eq!(r.markdown("x.md", "https://example.com/a.md"), Resolution::External);
        assert_eq!(r.markdown("x.md", "mailto:a@b.c"), Resolution::External);
        assert_eq!(r.markdown("x.md", "#section"), Resolution::Anchor);
    }

    #[test]
    fn wikilinks_by_path_stem_title() {
        let es = entities();
        let r = resolver(&es);
        assert_eq!(r.wiki("x.md", "users"), Resolution::Entity(0));
        assert_eq!(r.wiki("x.md", "Users Table"), Resolution::Entity(0));
        assert_eq!(r.wiki("x.md", "llm wiki pattern"), Resolution::Entity(1));
        assert_eq!(r.wiki("x.md", "concepts/LLM Wiki Pattern"), Resolution::Entity(1));
        assert_eq!(r.wiki("x.md", "tables/users.md"), Resolution::Entity(0));
        assert_eq!(r.wiki("x.md", "users#Heading"), Resolution::Entity(0));
        assert_eq!(r.wiki("x.md", "nope"), Resolution::Broken);
        assert_eq!(r.wiki("x.md", "../../outside"), Resolution::Escapes);
        assert_eq!(r.wiki("x.md", "paper.pdf"), Resolution::Broken, "files by name are Obsidian's rule only");
        assert_eq!(r.wiki("x.md", "Pattern"), Resolution::Broken);
        let obsidian =
            Resolver::with_names(&es, ["sources/paper.pdf"], true, LinkContext::of_rules(LinkRules::OBSIDIAN));
        assert_eq!(obsidian.wiki("x.md", "paper.pdf"), Resolution::file("sources/paper.pdf"));
        assert_eq!(obsidian.wiki("x.md", "paper"), Resolution::file("sources/paper.pdf"));
        assert_eq!(obsidian.wiki("x.md", "pattern"), Resolution::Broken, "a stem is the whole name");
        assert_eq!(obsidian.wiki("x.md", "Wiki Pattern"), Resolution::Broken, "a suffix is whole folders");
        assert_eq!(obsidian.wiki("notes/a.md", "users.md"), Resolution::Entity(0));
    }

    #[test]
    fn lower_borrows_only_what_needs_no_change() {
        assert!(matches!(lower("concepts/a-b_c.md"), Cow::Borrowed(_)));
        assert_eq!(lower("Users Table"), "users table");
        assert_eq!(lower("ÉTÉ"), "été");
    }

    #[test]
    fn scheme_only_at_the_start() {
        assert_eq!(scheme_of("https://x"), Some("https"));
        assert_eq!(scheme_of("svn+ssh://x"), Some("svn+ssh"));
        assert_eq!(scheme_of("C:/x"), Some("C"));
        assert_eq!(scheme_of("a/b:c"), None);
        assert_eq!(scheme_of("1http:x"), None);
        assert_eq!(scheme_of(":x"), None);
        assert_eq!(scheme_of("http"), None);
        assert_eq!(scheme_of("é:x"), None);
    }

    #[test]
    fn resolving_in_batches_answers_as_one_by_one() {
        let mut es = entities();
        es.push(ent("tables/users.md", "Second entry of the same file"));
        es.push(ent("deep/er/b c.md", "Spaced"));
        es.push(ent("tables/orders.md", "Orders"));
        let r = Resolver::new(&es, ["sources/paper.pdf", "tables/index.md", "deep/notes.txt"]);
        let targets = [
            "../tables/users.md",
            "/tables/users.md#cols",
            "./a.md",
            "a",
            "../tables/orders",
            "../../deep/er/b%20c.md",
            "b%20c.md",
            "../sources/paper.pdf",
            "../tables/",
            "../tables",
            "../deep",
            "",
            "<../tables/users.md>",
            " ../tables/users.md ",
            "missing.md",
            "../../../etc/passwd",
            "file:///etc/passwd",
            "https://example.com/a.md",
            "#top",
            "?q=1",
            "../notes/a.md?raw",
            ".././tables//users.md",
        ];
        let froms = ["notes/a.md", "deep/er/b c.md", "x.md", "deep/er/../x.md"];
        let mut outgoing: Vec<(Vec<Link>, Vec<Edge>)> = froms
            .iter()
            .map(|_| {
                let mut links: Vec<Link> =
                    targets.iter().map(|t| Link::new(LinkSyntax::Markdown, t, None, 0..1, 1, 1)).collect();
                links.push(Link::new(LinkSyntax::Wiki, "Users Table", None, 0..1, 1, 1));
                links.push(Link::new(LinkSyntax::Wiki, "../tables/orders.md", None, 0..1, 1, 1));
                let edges = ["orders", "Users Table", "nobody"]
                    .iter()
                    .map(|t| Edge { kind: "uses".into(), target: t.to_string(), resolved: None })
                    .collect();
                (links, edges)
            })
            .collect();
        let linking: Vec<Entity> = froms.iter().map(|p| ent(p, "from")).collect();
        // Batches across entities, of one entity, and past the table's own batch length.
        for chunk in [1, 3] {
            for (es, out) in linking.chunks(chunk).zip(outgoing.chunks_mut(chunk)) {
                r.resolve_all(es, out);
            }
            for (from, (links, edges)) in froms.iter().zip(&outgoing) {
                for l in links {
                    let one = match l.syntax {
                        LinkSyntax::Markdown => r.markdown(from, l.target()),
                        LinkSyntax::Wiki => r.wiki(from, l.target()),
                    };
                    assert_eq!(l.resolution, one, "{from} -> {:?}", l.target());
                }
                for e in edges {
                    assert_eq!(e.resolved, r.edge_target(&e.target), "{from} edge {}", e.target);
                }
            }
        }
        let (links, _) = &outgoing[0];
        assert_eq!(links[0].resolution, Resolution::Entity(0), "the file's first entity");
        assert_eq!(links[4].resolution, Resolution::Entity(5), "`.md` added");
        assert_eq!(links[8].resolution, Resolution::file("tables/index.md"), "a folder's catalog");
    }
}
