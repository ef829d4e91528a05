//! Wikilinks resolved a batch at a time. Each wikilink's first lookups — its path with and
//! without `.md`, the note of that name beside the linking file (Obsidian), its lower-cased
//! name — are made for the whole batch with their cache misses overlapping
//! (`StrTable::get_each`); each wikilink is then resolved by the same rules (`Lookup::wiki`),
//! which find those answers here instead of waiting on each miss in turn. One by one, the
//! lookups under `Lookup::wiki` were 15 % of a 100k vault's full load (perf).
use std::ops::Range;

use super::paths::{lower, normalize};
use super::{LinkContext, Lookup, Resolver};
use crate::store::model::entity::{EntityIdx, Resolution};

/// The lookups a batch of wikilinks will likely make, and their answers once `look_up` ran.
#[derive(Default)]
pub(super) struct Guesses {
    /// The guessed paths and names, one after another…
    text: String,
    /// …where each path is in `text`, and the entity at it;
    paths: Vec<(Range<usize>, Option<EntityIdx>)>,
    /// …where each name is, and the entity claiming it.
    names: Vec<(Range<usize>, Option<EntityIdx>)>,
    /// Per wikilink: its entity and link, and its guesses in `paths` and `names`.
    pub links: Vec<(usize, usize, Range<usize>, Range<usize>)>,
    found: Vec<Option<EntityIdx>>,
}

impl Guesses {
    pub fn clear(&mut self) {
        self.text.clear();
        self.paths.clear();
        self.names.clear();
        self.links.clear();
    }

    /// Guess what `Lookup::wiki` looks up first for `target` in the file at `from` (link `i`
    /// of entity `j`). A guess it does not make costs one lookup; one it makes is answered.
    pub fn add(&mut self, context: &LinkContext, (j, i): (usize, usize), from: &str, target: &str) {
        let (paths, names) = (self.paths.len(), self.names.len());
        let t = target.split('#').next().unwrap_or(target).trim();
        if (t.contains('/') || t.ends_with(".md") || t.starts_with('.'))
            && context.below.is_empty()
            && let Some(norm) = normalize(t.trim_start_matches('/'))
        {
            self.push_path(&[&norm]);
            self.push_path(&[&norm, ".md"]);
        }
        if context.rules.path_suffixes && !t.contains('/') {
            let dir = crate::store::model::relpath::parent(from);
            let ext = if t.ends_with(".md") { "" } else { ".md" };
            if dir.is_empty() { self.push_path(&[t, ext]) } else { self.push_path(&[dir, "/", t, ext]) }
        }
        let start = self.text.len();
        self.text.push_str(&lower(t.trim_end_matches(".md")));
        self.names.push((start..self.text.len(), None));
        self.links.push((j, i, paths..self.paths.len(), names..self.names.len()));
    }

    fn push_path(&mut self, parts: &[&str]) {
        let start = self.text.len();
        parts.iter().for_each(|p| self.text.push_str(p));
        self.paths.push((start..self.text.len(), None));
    }

    /// Answer every guess, a batch of lookups at a time.
    pub fn look_up(&mut self, resolver: &Resolver<'_>) {
        let Guesses { text, paths, names, found, .. } = self;
        for (list, table) in [(paths, &resolver.by_path), (names, &resolver.by_name)] {
            found.clear();
            table.get_each(list.iter().map(|(r, _)| &text[r.clone()]), found);
            list.iter_mut().zip(found.iter()).for_each(|(guess, hit)| guess.1 = *hit);
        }
    }

    /// Resolve wikilink `link` (an entry of `links`) to `target` in the file at `from`.
    pub fn wiki(&self, resolver: &Resolver<'_>, link: usize, from: &str, target: &str) -> Resolution {
        let (_, _, paths, names) = self.links[link].clone();
        Primed { resolver, text: &self.text, paths: &self.paths[paths], names: &self.names[names] }.wiki(from, target)
    }
}

/// The resolver, with one wikilink's guessed lookups answered already.
struct Primed<'r, 'a> {
    resolver: &'r Resolver<'a>,
    text: &'r str,
    paths: &'r [(Range<usize>, Option<EntityIdx>)],
    names: &'r [(Range<usize>, Option<EntityIdx>)],
}

impl Primed<'_, '_> {
    fn answered(&self, guesses: &[(Range<usize>, Option<EntityIdx>)], key: &str) -> Option<Option<EntityIdx>> {
        guesses.iter().find(|(r, _)| &self.text[r.clone()] == key).map(|(_, hit)| *hit)
    }
}

impl Lookup for Primed<'_, '_> {
    fn entity_at(&self, path: &str) -> Option<EntityIdx> {
        self.answered(self.paths, path).unwrap_or_else(|| self.resolver.entity_at(path))
    }
    fn is_file(&self, path: &str) -> bool {
        self.resolver.is_file(path)
    }
    fn is_dir(&self, path: &str) -> bool {
        self.resolver.is_dir(path)
    }
    fn escapes(&self, i: EntityIdx) -> bool {
        self.resolver.escapes(i)
    }
    fn named(&self, key: &str) -> Option<EntityIdx> {
        self.answered(self.names, key).unwrap_or_else(|| self.resolver.named(key))
    }
    fn file_named(&self, key: &str) -> Option<String> {
        self.resolver.file_named(key)
    }
    fn context(&self) -> &LinkContext {
        self.resolver.context()
    }
    fn path_ending(&self, tail: &str) -> Option<Resolution> {
        self.resolver.path_ending(tail)
    }
    fn hidden_file(&self, path: &str) -> bool {
        self.resolver.hidden_file(path)
    }
}
