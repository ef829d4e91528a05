//! The resolution rules (`Lookup`): markdown paths, wikilinks, typed-edge names, over the few
//! lookups they need, whoever answers them (the `Resolver`'s tables, or a live reload's sorted
//! store).
use super::context::{LinkContext, bundle_absolute, exists_inside, has_hidden_component, is_path_target};
use super::paths::{LinkDir, join, normalize, normalize_join_into};
use super::paths::{has_slash, lower, trim_md, wiki_name};
use crate::store::model::entity::{EntityIdx, Resolution};
use crate::store::read::links::percent_decode;

thread_local! {
    /// The normalised path of the markdown link being resolved (`normalize_join_into`).
    static NORMALIZED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The resolution rules over the few lookups they need: `Resolver` answers them from tables
/// over every entity; a live reload that resolves a handful of new links answers them from the
/// sorted store instead (`relink::lookup`), without building the tables.
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
    /// The first entity in store order whose id is exactly `id` (`LinkRules::edges_by_id`).
    fn by_id(&self, id: &str) -> Option<EntityIdx>;
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
        // From the root as the system names it: a relative root (`wiki`) has no parent to go to.
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let outer = below
            .split('/')
            .filter(|s| !s.is_empty())
            .fold(root, |p, _| p.parent().map(std::path::Path::to_path_buf).unwrap_or(p));
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
        for name in self.context().folder_pages {
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
        let t = wiki_name(target);
        if t.is_empty() {
            return Resolution::Anchor;
        }
        let slash = has_slash(t);
        if slash || t.ends_with(".md") || t.starts_with('.') {
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
            // A path to a file of the tool's store outside this root: from the tool's root,
            // or from the linking note.
            if let Some(outside) = self.context().outside.as_deref().map(|o| o.get()) {
                let from_note = join(&format!("{below}{}", crate::store::model::relpath::parent(from)), stripped);
                let found = [stripped.to_string(), from_note]
                    .iter()
                    .filter_map(|c| normalize(c))
                    .find_map(|c| outside.at(&lower(&c)));
                if let Some(path) = found {
                    return Resolution::file(path);
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
        if self.context().rules.path_suffixes
            && !slash
            && let Some(i) = self.beside(from, t)
        {
            return self.entity(i);
        }
        match self.name(t) {
            Some(i) => self.entity(i),
            None if !slash && self.context().rules.files_by_name => {
                let key = lower(t);
                let elsewhere = || self.context().outside.as_deref().and_then(|o| o.get().named(&key));
                self.file_named(&key).or_else(elsewhere).map_or(Resolution::Broken, Resolution::file)
            }
            None => Resolution::Broken,
        }
    }

    /// A typed edge's target: a store path (`policies/x.md`, OKF's path-valued fields) is
    /// looked up by path, which needs no name table; anything else by name (`name`).
    fn edge_target(&self, target: &str) -> Option<EntityIdx> {
        if self.context().rules.edges_by_id {
            return self.by_id(target);
        }
        if is_path_target(target) {
            return self.entity_at(target).or_else(|| self.name(target));
        }
        self.name(target)
    }

    /// An entity named by id, file stem, title or alias (case-insensitive): wikilinks without
    /// a path and typed-edge targets.
    fn name(&self, name: &str) -> Option<EntityIdx> {
        self.named_as_written(trim_md(name.trim())).or_else(|| self.entity_at(name))
    }

    /// `named` for a name as written, lower-cased here.
    fn named_as_written(&self, name: &str) -> Option<EntityIdx> {
        self.named(lower(name).as_ref())
    }

    /// The note `t` (a wikilink's name, with or without `.md`) in the folder of the file at
    /// `from`: Obsidian's choice among several notes of one name.
    fn beside(&self, from: &str, t: &str) -> Option<EntityIdx> {
        let [dir, slash, ext] = beside_parts(from, t);
        self.entity_at(&[dir, slash, t, ext].concat())
    }
}

/// The path of the note `t` beside the file at `from`, as the pieces around `t`: its folder,
/// a slash when there is one, and `.md` unless `t` ends with it.
pub(super) fn beside_parts<'a>(from: &'a str, t: &str) -> [&'a str; 3] {
    let dir = crate::store::model::relpath::parent(from);
    let slash = if dir.is_empty() { "" } else { "/" };
    [dir, slash, if t.ends_with(".md") { "" } else { ".md" }]
}

/// A markdown link destination, as far as it can be taken without looking anything up:
/// the path inside the store it names, normalised into `norm`, and whether it was written
/// as a folder (`Ok`), or what it is when no lookup is needed (`Err`: an anchor, another
/// scheme, a path leaving the root).
pub(super) fn markdown_path(from: &LinkDir, target: &str, norm: &mut String) -> Result<bool, Resolution> {
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

/// `http`, `mailto`, `file`… when the target starts with `scheme:`. Looks only as far as the
/// scheme's characters go: most targets are paths, and searching each whole target for a `:`
/// was a measurable share of resolving half a million links.
pub(super) fn scheme_of(t: &str) -> Option<&str> {
    let bytes = t.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let len = bytes.iter().position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')))?;
    (bytes[len] == b':').then(|| &t[..len])
}
