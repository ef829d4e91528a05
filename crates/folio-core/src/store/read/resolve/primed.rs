//! Wikilinks resolved a batch at a time. Each wikilink's first lookups — its path with and
//! without `.md`, the note of that name beside the linking file (Obsidian), its lower-cased
//! name — are made for the whole batch with their cache misses overlapping
//! (`StrTable::get_each`); each wikilink is then resolved by the same rules (`Lookup::wiki`),
//! which find those answers here instead of waiting on each miss in turn, as they would one
//! by one (docs/benchmarks.md, "Link resolution figures").
use std::ops::Range;

use super::lookup::beside_parts;
use super::paths::{has_slash, lower, normalize, trim_md, wiki_name};
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
        let t = wiki_name(target);
        let slash = has_slash(t);
        if (slash || t.ends_with(".md") || t.starts_with('.'))
            && context.below.is_empty()
            && let Some(norm) = normalize(t.trim_start_matches('/'))
        {
            self.push_path(&[&norm]);
            self.push_path(&[&norm, ".md"]);
        }
        if context.rules.path_suffixes && !slash {
            let [dir, slash, ext] = beside_parts(from, t);
            self.push_path(&[dir, slash, t, ext]);
        }
        let start = self.text.len();
        push_lower(&mut self.text, trim_md(t));
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
    fn by_id(&self, id: &str) -> Option<EntityIdx> {
        self.resolver.by_id(id)
    }
    // The two below answer from the guesses without the lower-cased or joined copy the rules
    // make (two allocations per wikilink otherwise).
    fn named_as_written(&self, name: &str) -> Option<EntityIdx> {
        match self.names.iter().find(|(r, _)| same_name(&self.text[r.clone()], name)) {
            Some((_, hit)) => *hit,
            None => self.resolver.named(&lower(name)),
        }
    }
    fn beside(&self, from: &str, t: &str) -> Option<EntityIdx> {
        let [dir, slash, ext] = beside_parts(from, t);
        let parts = [dir, slash, t, ext];
        match self.paths.iter().find(|(r, _)| is_concat(&self.text[r.clone()], &parts)) {
            Some((_, hit)) => *hit,
            None => self.resolver.entity_at(&parts.concat()),
        }
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

/// `text.push_str(&lower(s))` without the copy.
fn push_lower(text: &mut String, s: &str) {
    if s.is_ascii() {
        let start = text.len();
        text.push_str(s);
        text[start..].make_ascii_lowercase();
    } else {
        text.push_str(&s.to_lowercase());
    }
}

/// Whether `lowered` is `lower(name)`.
fn same_name(lowered: &str, name: &str) -> bool {
    if name.is_ascii() {
        name.len() == lowered.len() && name.bytes().zip(lowered.bytes()).all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        lower(name) == lowered
    }
}

/// Whether `s` is `parts` one after another.
fn is_concat(s: &str, parts: &[&str]) -> bool {
    let mut rest = s;
    parts.iter().all(|p| rest.strip_prefix(p).map(|r| rest = r).is_some()) && rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guesses_are_matched_as_the_rules_would_make_them() {
        let mut text = String::new();
        push_lower(&mut text, "Café Notes");
        assert_eq!(text, lower("Café Notes"));
        push_lower(&mut text, "-ABC");
        assert_eq!(text, "café notes-abc");
        assert!(same_name("my note", "My Note"));
        assert!(same_name("όσος", "ΌΣΟΣ"), "a final sigma lower-cases as the rules do");
        assert!(!same_name("my note", "My Notes"));
        assert!(!same_name("my notes", "My Note"));
        assert!(is_concat("a/b.md", &["a", "/", "b", ".md"]));
        assert!(is_concat("b", &["", "", "b", ""]));
        assert!(!is_concat("a/b.md", &["a", "/", "b", ""]));
        assert!(!is_concat("a/b", &["a", "/", "b", ".md"]));
    }
}
