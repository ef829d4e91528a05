//! Resolving the few new links of a live reload without building the resolver's tables.
//!
//! The store keeps entities sorted by path and the other files sorted too, so a path, a file
//! or a folder is a binary search away. Names (ids, stems, titles, aliases) are not sorted:
//! the links are resolved once to learn which names they ask for, those names alone are looked
//! up in one pass over the entities (in the resolver's priority order, `claim_names`), and the
//! links are resolved again. Building the full tables would cost a reload the whole store's
//! size however few links changed (docs/benchmarks.md, "Live reload figures").
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::store::dialect::FileRole;
use crate::store::model::entity::Resolution;
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::resolve::{LinkContext, Lookup, claim_names, shortest_ending};

/// Lookups answered from the sorted store; names only for the keys it was built for.
pub struct SortedLookup<'a> {
    entities: &'a [Arc<Entity>],
    files: &'a [(String, FileRole)],
    names: Names,
    context: &'a LinkContext,
}

/// Names (lower-cased) and ids (as written, `LinkRules::edges_by_id`) apart.
enum Names {
    /// Learning which names and ids are asked for: every lookup fails and is recorded.
    Asked(Mutex<Keys<HashSet<String>>>),
    Found(Keys<HashMap<String, EntityIdx>>),
}

#[derive(Default)]
struct Keys<T> {
    names: T,
    ids: T,
}

impl<'a> SortedLookup<'a> {
    /// `entities` sorted by path (then line), `files` sorted by path, as `Store` keeps them.
    /// Run the resolution with this first, then `with_names` for the real answers.
    /// `context` as the store's links resolve (`Store::link_context`).
    pub fn recording(entities: &'a [Arc<Entity>], files: &'a [(String, FileRole)], context: &'a LinkContext) -> Self {
        SortedLookup { entities, files, names: Names::Asked(Mutex::default()), context }
    }

    /// The lookup that answers the names asked of it while recording.
    pub fn with_names(self) -> Self {
        let asked = match self.names {
            Names::Asked(asked) => asked.into_inner().unwrap_or_else(|e| e.into_inner()),
            Names::Found(found) => {
                Keys { names: found.names.into_keys().collect(), ids: found.ids.into_keys().collect() }
            }
        };
        let mut found = Keys::<HashMap<String, EntityIdx>>::default();
        if !asked.names.is_empty() {
            claim_names(self.entities, self.context.rules, |key, i| {
                if !found.names.contains_key(key.as_ref())
                    && let Some(k) = asked.names.get(key.as_ref())
                {
                    found.names.insert(k.clone(), i);
                }
            });
        }
        if !asked.ids.is_empty() {
            for (i, e) in self.entities.iter().enumerate() {
                if !found.ids.contains_key(&e.id) && asked.ids.contains(&e.id) {
                    found.ids.insert(e.id.clone(), i as EntityIdx);
                }
            }
        }
        SortedLookup { names: Names::Found(found), ..self }
    }

    /// The first index whose path is not below `path` (entities) .
    fn first_entity_from(&self, path: &str) -> usize {
        self.entities.partition_point(|e| e.path.as_str() < path)
    }

    fn first_file_from(&self, path: &str) -> usize {
        self.files.partition_point(|(p, _)| p.as_str() < path)
    }
}

impl Lookup for SortedLookup<'_> {
    fn entity_at(&self, path: &str) -> Option<EntityIdx> {
        let i = self.first_entity_from(path);
        self.entities.get(i).filter(|e| e.path == path).map(|_| i as EntityIdx)
    }

    fn is_file(&self, path: &str) -> bool {
        self.files.get(self.first_file_from(path)).is_some_and(|(p, _)| p == path)
    }

    /// Paths sharing a prefix are contiguous in sorted order, starting where the prefix would.
    fn is_dir(&self, path: &str) -> bool {
        let prefix = format!("{path}/");
        self.entities.get(self.first_entity_from(&prefix)).is_some_and(|e| e.path.starts_with(&prefix))
            || self.files.get(self.first_file_from(&prefix)).is_some_and(|(p, _)| p.starts_with(&prefix))
    }

    fn escapes(&self, i: EntityIdx) -> bool {
        self.entities[i as usize].escapes_root()
    }

    fn named(&self, key: &str) -> Option<EntityIdx> {
        match &self.names {
            Names::Asked(asked) => {
                asked.lock().unwrap_or_else(|e| e.into_inner()).names.insert(key.to_string());
                None
            }
            Names::Found(found) => found.names.get(key).copied(),
        }
    }

    fn by_id(&self, id: &str) -> Option<EntityIdx> {
        match &self.names {
            Names::Asked(asked) => {
                asked.lock().unwrap_or_else(|e| e.into_inner()).ids.insert(id.to_string());
                None
            }
            Names::Found(found) => found.ids.get(id).copied(),
        }
    }

    /// A scan of the other files: only links no entity claims ask, and only on a reload.
    fn file_named(&self, key: &str) -> Option<String> {
        self.files
            .iter()
            .map(|(p, _)| p.as_str())
            .find(|p| crate::store::resolve::names_file(p, key))
            .map(str::to_string)
    }

    fn context(&self) -> &LinkContext {
        self.context
    }

    /// A scan of every path: only partial-path wikilinks no path claims ask, on a reload.
    fn path_ending(&self, tail: &str) -> Option<Resolution> {
        let entities = self.entities.iter().enumerate().map(|(i, e)| (e.path.as_str(), Some(i as EntityIdx)));
        let files = self.files.iter().map(|(p, _)| (p.as_str(), None));
        let (p, i) = shortest_ending(entities.chain(files), tail)?;
        Some(i.map_or_else(|| Resolution::file(p), |i| self.entity(i)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::resolve::{LinkRules, Resolver};

    fn ent(path: &str, title: &str, aliases: &[&str]) -> Arc<Entity> {
        Arc::new(Entity {
            id: path.trim_end_matches(".md").into(),
            path: path.into(),
            title: title.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        })
    }

    /// Every answer equals the full resolver's, over paths, files, folders, names and their
    /// priorities (an id beats another entity's title; the first entity wins a shared title).
    #[test]
    fn answers_as_the_full_resolver_does() {
        let entities = vec![
            ent("a/b/users.md", "Users Table", &["people"]),
            ent("a/b/users.md", "Second in the same file", &[]),
            ent("a/c.md", "people", &[]),
            ent("concepts/LLM Wiki Pattern.md", "LLM Wiki Pattern", &["users"]),
            ent("notes/x.md", "Shared", &[]),
            ent("notes/y.md", "Shared", &["Users Table"]),
        ];
        let files: Vec<(String, FileRole)> =
            vec![("a/b-c/index.md".into(), FileRole::Catalog), ("src/paper.pdf".into(), FileRole::Other)];
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(".github")).unwrap();
        std::fs::write(root.path().join(".github/ci.yml"), "on: push\n").unwrap();
        let markdown = [
            "users.md",
            "b/users.md",
            "../a/b/users.md",
            "/a/c.md",
            "/a/c",
            "/a/b/",
            "/a/b",
            "/a/b-c/",
            "/a/",
            "/src/paper.pdf",
            "/src",
            "/a/b/missing.md",
            "/",
            "../../x",
            "https://e.com",
            "/.github/ci.yml",
            "/.github/missing.yml",
        ];
        let wiki = [
            "users",
            "Users Table",
            "people",
            "shared",
            "llm wiki pattern",
            "a/c",
            "/notes/y",
            "nope",
            "x",
            "b/users",
            "B/Users.md",
            "b-c/index.md",
            "paper.pdf",
            "paper",
            "src/paper.pdf",
            "rc/paper.pdf",
            "vault/a/c",
            "../x/y",
        ];
        let edges =
            ["users", "PEOPLE", "Shared", "a/c.md", "notes/x.md", "nothing", "a/c", "A/C", " a/c ", "a/b/users"];
        let resolve = |l: &dyn Lookup| {
            let mut out: Vec<Resolution> = markdown.iter().map(|t| l.markdown("a/index.md", t)).collect();
            out.extend(wiki.iter().map(|t| l.wiki("a/index.md", t)));
            out.extend(edges.iter().map(|t| l.name(t).map_or(Resolution::Broken, Resolution::Entity)));
            out.extend(edges.iter().map(|t| l.edge_target(t).map_or(Resolution::Broken, Resolution::Entity)));
            out
        };
        let mut last = None;
        let by_id = LinkRules { edges_by_id: true, ..LinkRules::default() };
        let contexts = [by_id, LinkRules::default(), LinkRules::OBSIDIAN].map(|rules| LinkContext {
            rules,
            root: Some(root.path().to_path_buf()),
            below: "vault/".into(),
            ..LinkContext::default()
        });
        for context in &contexts {
            let full = Resolver::with_names(&entities, files.iter().map(|(p, _)| p.as_str()), true, context.clone());
            let recording = SortedLookup::recording(&entities, &files, context);
            let _ = resolve(&recording);
            let sorted = recording.with_names();
            assert_eq!(resolve(&sorted), resolve(&full), "{context:?}");
            last = Some(sorted);
        }
        let sorted = last.unwrap();
        let exact = SortedLookup::recording(&entities, &files, &contexts[0]);
        let _ = resolve(&exact);
        let exact = exact.with_names();
        let ids: Vec<Option<EntityIdx>> = edges.iter().map(|t| exact.edge_target(t)).collect();
        let want = [None, None, None, None, None, None, Some(2), None, None, Some(0)];
        assert_eq!(ids, want, "by id alone, exactly; the first of a shared id");
        assert_eq!(sorted.wiki("x.md", "b/users"), Resolution::Entity(0), "a partial path");
        assert_eq!(sorted.wiki("x.md", "vault/a/c"), Resolution::Entity(2), "from the vault's root");
        assert_eq!(sorted.wiki("a/b/users.md", "../c"), Resolution::Entity(2), "from the linking file");
        assert_eq!(sorted.wiki("a/b/users.md", "../../../c"), Resolution::Escapes);
        assert_eq!(sorted.wiki("a/b/users.md", "../gone"), Resolution::Broken, "inside, from the file");
        assert_eq!(sorted.wiki("x.md", "rc/paper.pdf"), Resolution::Broken, "a suffix is whole folders");
        assert_eq!(sorted.wiki("x.md", "paper"), Resolution::Broken, "a link without an extension names a note");
        assert_eq!(sorted.wiki("x.md", "paper.pdf"), Resolution::file("src/paper.pdf"), "a file by its name");
        assert_eq!(sorted.markdown("x.md", ".github/ci.yml"), Resolution::file(".github/ci.yml"));
        assert_eq!(sorted.markdown("x.md", ".github/missing.yml"), Resolution::Broken);
        // Obsidian's names are paths and file names: no title, no alias.
        assert_eq!(sorted.name("people"), None, "no title");
        assert_eq!(sorted.name("users"), Some(0), "a stem");
        let plain = SortedLookup::recording(&entities, &files, &contexts[0]);
        let _ = resolve(&plain);
        let plain = plain.with_names();
        assert_eq!(plain.name("people"), Some(2), "a title beats an alias");
        assert_eq!(plain.name("users"), Some(0), "a stem beats an alias");
        assert_eq!(plain.name("shared"), Some(4), "the first entity keeps a shared title");
    }
}
