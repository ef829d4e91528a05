//! Puts an entity's versions in their final order as they are found, newest first: a version is
//! finished (summarised against the next older version with content, its agent read from its
//! frontmatter) as soon as that older version is known, and the store's log events are placed
//! before it by time. So `folio history` prints each version while the walk goes on, and the
//! answer is exactly the sequence it printed.
use std::borrow::Cow;

use super::{Source, Version, event, events, id_of, summary};
use crate::store::Store;
use crate::store::read::frontmatter::Fields;
use crate::store::review::authorship;

pub(super) struct Assembler<'a, 'e> {
    store: &'a Store,
    /// The file now, relative to the store root.
    path: &'a str,
    /// The entity's id; None until the newest content names it (a deleted entity's file).
    id: Option<String>,
    /// Versions found but not finished: the newest one with content (when there is one), then
    /// the deletions found after it. All wait for the next older version with content.
    pending: Vec<Version>,
    /// The frontmatter of `pending[0]` when it has content (each version's is parsed once).
    pending_fields: Option<Fields>,
    /// Events naming the entity not placed yet, oldest first. Read at the first placement, when
    /// the id is known.
    events: Option<Vec<Version>>,
    out: Vec<Version>,
    emit: Option<&'e mut dyn FnMut(&Version)>,
}

impl<'a, 'e> Assembler<'a, 'e> {
    pub fn new(store: &'a Store, path: &'a str, id: Option<String>, emit: Option<&'e mut dyn FnMut(&Version)>) -> Self {
        Assembler { store, path, id, pending: Vec::new(), pending_fields: None, events: None, out: Vec::new(), emit }
    }

    /// The next older version (commits and the file on disk, newest first).
    pub fn push(&mut self, v: Version) {
        let Some(bytes) = v.bytes.as_deref() else {
            self.pending.push(v);
            return;
        };
        let text = String::from_utf8_lossy(bytes);
        let fields = summary::fields(&text);
        if self.id.is_none() {
            // The newest content names a file's entity (what `of_file` reports).
            self.id = Some(id_of(self.store, self.path, bytes).unwrap_or_else(|| self.stem()));
        }
        self.settle(&text, &fields);
        drop(text);
        self.pending.push(v);
        self.pending_fields = Some(fields);
    }

    /// The id and every version and event, newest first.
    pub fn finish(mut self) -> (String, Vec<Version>) {
        let id = self.id.clone().unwrap_or_else(|| self.stem());
        self.id = Some(id.clone());
        self.settle("", &Fields::new());
        let rest = std::mem::take(self.events());
        for e in rest.into_iter().rev() {
            self.put(e);
        }
        (id, self.out)
    }

    fn stem(&self) -> String {
        self.path.strip_suffix(".md").unwrap_or(self.path).to_string()
    }

    /// Finishes every pending version against `older`, the next older content, and places it.
    fn settle(&mut self, older: &str, older_fields: &Fields) {
        let empty = Fields::new();
        for mut p in std::mem::take(&mut self.pending) {
            let fields = if p.bytes.is_some() { self.pending_fields.take() } else { None };
            let text = p.bytes.as_deref().map(String::from_utf8_lossy).unwrap_or(Cow::Borrowed(""));
            let s = summary::of_change(older, older_fields, &text, fields.as_ref().unwrap_or(&empty));
            drop(text);
            p.agent = fields.as_ref().and_then(|f| authorship::author(self.store.kind().spec(), f));
            (p.fields_changed, p.lines_added, p.lines_removed) = (s.fields, s.added, s.removed);
            self.place(p);
        }
    }

    /// The events not placed yet, oldest first, read once the id is known.
    fn events(&mut self) -> &mut Vec<Version> {
        let (store, path) = (self.store, self.path);
        let id = self.id.clone().unwrap_or_else(|| self.stem());
        self.events.get_or_insert_with(|| {
            let mut logged: Vec<Version> =
                events::all(store).into_iter().filter(|e| events::names(e, &id, path)).map(|e| event(&e)).collect();
            logged.reverse();
            logged
        })
    }

    /// A finished version, after the events newer than it (the file on disk stays first).
    fn place(&mut self, v: Version) {
        loop {
            let events = self.events();
            let newer =
                events.last().is_some_and(|l| v.source != Source::Worktree && l.unix.is_some() && l.unix > v.unix);
            if !newer {
                break;
            }
            let e = events.pop().expect("checked just above");
            self.put(e);
        }
        self.put(v);
    }

    fn put(&mut self, v: Version) {
        if let Some(emit) = self.emit.as_mut() {
            emit(&v);
        }
        self.out.push(v);
    }
}
