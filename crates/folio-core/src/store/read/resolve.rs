//! Resolving link targets and typed-edge names to entities, per the store's rules.
//!
//! Markdown links resolve as paths (relative to the linking file, or bundle-absolute with a
//! leading `/`); wikilinks and edge names resolve as Obsidian does: path, id, file stem,
//! title, alias, case-insensitively. Nothing that leaves the store root is ever followed.
use std::borrow::{Borrow, Cow};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::str_table::StrTable;
use crate::store::model::entity::{Edge, Entity, EntityIdx, Link, LinkSyntax, Resolution};

mod context;
mod lookup;
mod paths;
mod primed;

use context::bundle_absolute;
pub(crate) use context::shortest_ending;
pub use context::{LazyOutside, LinkContext, LinkRules, Outside, is_path_target};
pub use lookup::Lookup;
use lookup::markdown_path;
#[cfg(test)]
use lookup::scheme_of;
use paths::lower;
pub use paths::{LinkDir, normalize};

/// foldhash instead of SipHash: the keys are the store's own paths and names, so SipHash's
/// defence against chosen keys buys nothing for its cost (docs/benchmarks.md,
/// "Link resolution figures").
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Lower-cased file name → (path, its first entity when it holds any), in path order.
type FilesByName<'a> = FastMap<String, Vec<(&'a str, Option<EntityIdx>)>>;

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
    /// Every lower-cased name → the entity claiming it (`name_table`).
    by_name: StrTable,
    /// Every id as written → its first entity, for `LinkRules::edges_by_id` only.
    by_id: StrTable,
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
        // phases and would otherwise be serial time (docs/benchmarks.md, "Link resolution figures").
        let (((by_path, escaping), dirs), by_name) = rayon::join(
            || rayon::join(|| path_table(entities), || folders(entities, &files)),
            || if names { name_table(entities, rules) } else { StrTable::default() },
        );
        let by_id = if names && rules.edges_by_id { id_table(entities) } else { StrTable::default() };
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
            by_id,
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

/// Whether `key` (lower-cased) names the file at `path` (`file_keys`).
pub(crate) fn names_file(path: &str, key: &str) -> bool {
    file_keys(path).any(|k| lower(k) == key)
}

/// The names a wikilink reaches a file that is no entity by: its whole name, and a note's
/// name without `.md` (a note folio reads as a plain file, in an excluded folder). A link
/// without an extension names only notes: `[[Wiki Map]]` is not `Wiki Map.canvas`.
fn file_keys(path: &str) -> impl Iterator<Item = &str> {
    let name = paths::file_name(path);
    std::iter::once(name).chain(name.strip_suffix(".md"))
}

/// Lower-cased names (`file_keys`: `dashboard.base`, `wiki map.canvas`, `fold-template`) → the
/// first file, in path order, claiming it: what a wikilink naming an attachment, canvas, base
/// or excluded note lands on.
fn file_names<'a>(files: impl Iterator<Item = &'a str>) -> FastMap<String, &'a str> {
    let mut sorted: Vec<&'a str> = files.collect();
    sorted.sort_unstable();
    let mut names = FastMap::default();
    for path in sorted {
        for key in file_keys(path) {
            names.entry(lower(key).into_owned()).or_insert(path);
        }
    }
    names
}

impl Resolver<'_> {
    /// Resolve the links and edges of `entities`, which `outgoing` holds side by side: what
    /// `markdown_in`, `wiki` and `name` answer one by one, with the path lookups of their
    /// markdown links, and the likely ones of their wikilinks (`primed`), made as batches
    /// (`StrTable::get_each`). One by one, each lookup
    /// waited on two cache misses in turn; a few entities make a batch long enough for the
    /// loads to overlap.
    pub fn resolve_all<E: Borrow<Entity>>(&self, entities: &[E], outgoing: &mut [(Vec<Link>, Vec<Edge>)]) {
        BATCH.with_borrow_mut(|b| {
            b.norms.clear();
            b.pending.clear();
            b.found.clear();
            b.wikis.clear();
            for j in 0..entities.len().min(outgoing.len()) {
                load_ahead(entities, outgoing, j);
                let (path, links) = (entities[j].borrow().path.as_str(), &mut outgoing[j].0);
                let from = LinkDir::of(path);
                for (i, l) in links.iter_mut().enumerate() {
                    if l.syntax == LinkSyntax::Wiki {
                        b.wikis.add(&self.context, (j, i), path, l.target());
                        l.resolution = Resolution::Pending;
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
            b.wikis.look_up(self);
            for (k, &(j, i, ..)) in b.wikis.links.iter().enumerate() {
                let l = &mut outgoing[j].0[i];
                l.resolution = b.wikis.wiki(self, k, &entities[j].borrow().path, l.target());
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
    /// The wikilinks, resolved after their likely lookups were made together.
    wikis: primed::Guesses,
}

thread_local! {
    static BATCH: std::cell::RefCell<LinkBatch> = std::cell::RefCell::default();
}

/// Entities by path, and the ones escaping the root.
fn path_table<E: Borrow<Entity>>(entities: &[E]) -> (StrTable, FastSet<EntityIdx>) {
    let bytes = entities.iter().map(|e| e.borrow().path.len()).sum();
    let mut by_path = StrTable::with_capacity_and_bytes(entities.len(), bytes);
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

/// One table of every name (lower-cased name → entity), claimed in priority order — all ids,
/// then all stems, then all titles, then all aliases, the first entity in store order within
/// each — so a wikilink's name is one lookup, not one per kind of name (cheaper and simpler
/// than four tables searched in turn: docs/benchmarks.md, "Link resolution figures").
fn name_table<E: Borrow<Entity>>(entities: &[E], rules: LinkRules) -> StrTable {
    let passes = NamePass::of(rules);
    // Sized from the names themselves (lower-casing keeps an ASCII name's length): the table
    // lives beside every entity at the load's peak.
    let (mut names, mut bytes) = (0, 0);
    for (i, e) in entities.iter().enumerate() {
        // Each entity's first touch is a cache miss; loading ahead overlaps them instead of
        // waiting on each in turn (docs/benchmarks.md, "Link resolution figures").
        crate::store::model::prefetch::entity_ahead(entities, i, |e| e.title.as_str());
        for pass in passes {
            pass.raw_names(e.borrow(), |name| {
                names += 1;
                bytes += name.len();
            });
        }
    }
    let mut table = StrTable::with_capacity_and_bytes(names, bytes);
    claim_names_raw(entities, passes, |name, i| table.insert_first_lowercase(name, i));
    table
}

/// Ids as written → the first entity bearing each.
fn id_table<E: Borrow<Entity>>(entities: &[E]) -> StrTable {
    let bytes = entities.iter().map(|e| e.borrow().id.len()).sum();
    let mut table = StrTable::with_capacity_and_bytes(entities.len(), bytes);
    for (i, e) in entities.iter().enumerate() {
        table.insert_first(&e.borrow().id, i as EntityIdx);
    }
    table
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
        self.by_name.get(key)
    }
    fn by_id(&self, id: &str) -> Option<EntityIdx> {
        self.by_id.get(id)
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

/// `claim_names` with the names as written (the caller lower-cases them).
fn claim_names_raw<'a, E: Borrow<Entity>>(
    entities: &'a [E],
    passes: &[NamePass],
    mut claim: impl FnMut(&'a str, EntityIdx),
) {
    for &pass in passes {
        for (i, e) in entities.iter().enumerate() {
            crate::store::model::prefetch::entity_ahead(entities, i, |e| pass.first_name(e));
            pass.raw_names(e.borrow(), |name| claim(name, i as EntityIdx));
        }
    }
}

/// Every entity's lookup names (lower-cased) in priority order: all ids, then all stems, then
/// all titles, then all aliases (not those two where `rules` name notes by file only); the
/// first entity to claim a key keeps it.
pub(crate) fn claim_names<'a, E: Borrow<Entity>>(
    entities: &'a [E],
    rules: LinkRules,
    mut claim: impl FnMut(Cow<'a, str>, EntityIdx),
) {
    for &pass in NamePass::of(rules) {
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

    /// The passes a format's own tool names entities by (`LinkRules::names_are_files`: paths
    /// and file names only).
    fn of(rules: LinkRules) -> &'static [NamePass] {
        if rules.names_are_files { &NamePass::ALL[..2] } else { &NamePass::ALL }
    }

    /// The entity's lower-cased names of this kind.
    fn names<'a>(self, e: &'a Entity, mut each: impl FnMut(Cow<'a, str>)) {
        self.raw_names(e, |name| each(lower(name)));
    }

    /// The text the first of the entity's names of this kind is in (what to load ahead).
    fn first_name(self, e: &Entity) -> &str {
        match self {
            NamePass::Id => &e.id,
            NamePass::Stem => &e.path,
            NamePass::Title => &e.title,
            NamePass::Alias => e.aliases.first().map_or("", |a| a),
        }
    }

    /// The entity's names of this kind, as written, less a stem or title equal to a name of
    /// an earlier pass: that name was claimed already (by this entity or an earlier one), and
    /// claiming it again changes nothing — a 100k vault's titles are its stems, 100k lookups.
    fn raw_names<'a>(self, e: &'a Entity, mut each: impl FnMut(&'a str)) {
        match self {
            NamePass::Id => each(&e.id),
            NamePass::Stem if e.stem() != e.id => each(e.stem()),
            NamePass::Stem => {}
            NamePass::Title if e.title != e.id && e.title != e.stem() => each(&e.title),
            NamePass::Title => {}
            NamePass::Alias => e.aliases.iter().for_each(|a| each(a)),
        }
    }
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
        assert_eq!(obsidian.wiki("x.md", "paper"), Resolution::Broken, "without its extension, no file");
        assert_eq!(obsidian.wiki("x.md", "users table"), Resolution::Broken, "nor a note by its title");
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
        let files = ["sources/paper.pdf", "tables/index.md", "deep/notes.txt"];
        // The plain rules and Obsidian's, whose wikilinks try the note beside the linking file.
        for context in [LinkContext::default(), LinkContext::of_rules(LinkRules::OBSIDIAN)] {
            let r = Resolver::with_names(&es, files, true, context);
            resolve_in_batches_as_one_by_one(&r);
        }
    }

    fn resolve_in_batches_as_one_by_one(r: &Resolver<'_>) {
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
                let wikis = [
                    "Users Table",
                    "../tables/orders.md",
                    "USERS#Columns",
                    "a",
                    "a.md",
                    "b c",
                    "er/b c",
                    "tables/users",
                    "/tables/users.md",
                    "./a",
                    "paper.pdf",
                    "paper",
                    "Spaced ",
                    "#only-a-heading",
                    "nobody",
                    "../../../out",
                ];
                links.extend(wikis.iter().map(|t| Link::new(LinkSyntax::Wiki, t, None, 0..1, 1, 1)));
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
        let wiki = |t: &str| links.iter().find(|l| l.syntax == LinkSyntax::Wiki && l.target() == t).unwrap();
        assert_eq!(wiki("USERS#Columns").resolution, Resolution::Entity(0));
        assert_eq!(wiki("a").resolution, Resolution::Entity(2));
        assert_eq!(wiki("nobody").resolution, Resolution::Broken);
    }
}
