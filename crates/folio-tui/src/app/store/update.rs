//! The store's life in the update loop: the first load, files changed on disk (the watcher, the
//! cache's check) and the refreshed store that replaces the current one. Everything that hangs
//! on the store (lint, recall, graph, the review inbox, the cache) is restarted from here.
use std::path::PathBuf;
use std::sync::Arc;

use crate::app::event::{LoadedStore, Written};
use crate::app::jobs::Job;
use crate::app::model::{Message, Model, Row};
use crate::app::reader::update::read_body;
use crate::app::review::update as review;
use crate::app::tree::update::{rebuild, select_row, selection_key, show_tree};
use crate::app::{graph::update as graph, lint::update as lint, recall::update as recall};
use folio_core::store::Store;
use folio_core::store::keep::cache;
use folio_core::store::keep::refresh::RefreshReport;
use folio_core::store::read::tree;

/// The store finished loading: show its tree, open the first entity, start watching and the
/// per-store work (lint, recall, graph, the review inbox), and cache it when worth it.
pub fn loaded(model: &mut Model, loaded: LoadedStore) -> Vec<Job> {
    let LoadedStore { store, tree } = loaded;
    model.load_error = None;
    // A store read from its files is worth caching when large; one from the cache is
    // rewritten once its check has re-read what changed (`CacheChecked`).
    let save = (model.config.cache && !store.from_cache && store.entities.len() >= cache::MIN_ENTITIES)
        .then(|| Job::SaveCache(store.clone(), None, None));
    let root = store.root.clone();
    // The catalog's marks from what loading found, until the lint engine reports.
    model.lint_marks = Arc::new(folio_core::store::lint::marks::of_loaded(&store));
    model.store = Some(store);
    // Another store's snapshot, if one was waiting to be rewritten: not this one's.
    model.cache_earlier = None;
    model.lint_base = None;
    model.lint_changes.clear();
    // The tree came built for the default filter; one typed while loading needs another.
    if model.filter == tree::TreeFilter::default() {
        show_tree(model, tree, tree::TreeFilter::default(), None);
    } else {
        rebuild(model, None);
    }
    // Start on the first entity rather than on a folder, with its preview open.
    let first = model.rows.iter().position(|r| matches!(r, Row::Entity { .. })).unwrap_or(0);
    let mut jobs = select_row(model, first);
    if model.config.watch {
        jobs.push(Job::Watch(root));
    }
    jobs.extend(after_store_change(model));
    jobs.extend(recall::text_store_loaded(model));
    if let (Some(store), Some(state)) = (&model.store, &model.state_dir) {
        jobs.push(Job::LoadRecallHistory { state: state.clone(), root: store.root.clone() });
    }
    jobs.extend(review::on_store_changed(model));
    jobs.extend(save);
    jobs
}

/// The watcher saw files change: re-read them (one refresh at a time; the rest queue up).
/// The store could not be opened: the preview says why.
pub fn load_failed(model: &mut Model, e: String) -> Vec<Job> {
    model.load_error = Some(e);
    Vec::new()
}

/// A write of folio's own finished (lint fixes, a restore): say what it did, and reload what it
/// wrote now rather than waiting for the watcher (there may be none).
pub fn written(model: &mut Model, (text, files, own): Written) -> Vec<Job> {
    model.message = Some(Message { text, warn: false });
    model.own_writes.record(own);
    files_changed(model, files)
}

pub fn files_changed(model: &mut Model, paths: Vec<PathBuf>) -> Vec<Job> {
    model.queued_changes.extend(paths);
    start_refresh(model)
}

/// The cache's check found files changed since the snapshot: re-read them, then rewrite the cache.
pub fn cache_checked(
    model: &mut Model,
    paths: Vec<PathBuf>,
    at: std::time::SystemTime,
    earlier: Option<Arc<cache::codec::Earlier>>,
) -> Vec<Job> {
    if paths.is_empty() {
        return Vec::new();
    }
    model.cache_stale = true;
    model.cache_earlier = earlier;
    // Once these are re-read, the store reads as of the check (`Store::revalidate` says why).
    model.cache_checked_at = Some(at);
    model.queued_changes.extend(paths);
    start_refresh(model)
}

/// A refreshed store replaces the current one: the selection and the preview follow by id.
pub fn refreshed(
    model: &mut Model,
    store: Box<Store>,
    report: RefreshReport,
    found: &[crate::app::platform::own_writes::Fingerprint],
    built: Option<Box<crate::app::tree::built::BuiltTree>>,
) -> Vec<Job> {
    model.refreshing = false;
    let keep = selection_key(model);
    let old = model.store.replace(Arc::from(store));
    let paths = report.changed.iter().chain(&report.added).chain(&report.removed);
    model.lint_changes.extend(paths.clone().cloned());
    let mut jobs = recall::text_store_changed(model, paths.cloned());
    // The catalog tree is rebuilt only when something it shows changed (a prose edit keeps it).
    // Built beside the store by the job for the filter then shown, when it is still the one.
    if !old.as_ref().zip(model.store.as_ref()).is_some_and(|(old, new)| tree::unchanged(old, new)) {
        match built {
            Some(b) if b.filter == model.filter => show_tree(model, b.tree, b.filter, keep),
            _ => rebuild(model, keep),
        }
    }
    jobs.extend(revalidate_preview(model, &report.changed));
    jobs.extend(after_store_change(model));
    // folio's own writes (a verdict, an undo, a save) come back through the watcher: they are
    // reloaded, but only an outside change is announced (the verdict's message stays).
    let n = model.own_writes.outside(found);
    if n > 0 {
        let files = if n == 1 { "file" } else { "files" };
        let reloaded = format!("reloaded {n} changed {files}");
        model.message = Some(match model.message.take() {
            // An error stays in view (a write that failed and was rolled back changes files
            // too), and so does what folio just wrote where (an ignore, a fix).
            Some(m) if !m.text.starts_with("reloaded ") => {
                // One count of outside changes, the newest, after what folio said.
                let said = m.text.split(" · reloaded ").next().unwrap_or_default();
                Message { text: format!("{said} · {reloaded}"), warn: m.warn }
            }
            _ => Message { text: reloaded, warn: false },
        });
    }
    jobs.extend(start_refresh(model));
    jobs.extend(review::on_store_changed(model));
    jobs.extend(old.map(Job::Discard));
    if model.cache_stale && !model.refreshing {
        model.cache_stale = false;
        let as_of = model.cache_checked_at.take();
        let earlier = model.cache_earlier.take();
        jobs.extend(model.store.clone().map(|s| Job::SaveCache(s, as_of, earlier)));
    }
    jobs
}

/// A loaded or refreshed store: lint it again, restart recall on it, lay the graph out anew.
pub fn after_store_change(model: &mut Model) -> Vec<Job> {
    if model.store.is_none() {
        return Vec::new();
    }
    model.graph.laid = None;
    recall::store_changed(model);
    let mut jobs = lint::request(model);
    jobs.extend(graph::relayout(model));
    jobs
}

pub fn start_refresh(model: &mut Model) -> Vec<Job> {
    match &model.store {
        Some(store) if !model.refreshing && !model.queued_changes.is_empty() => {
            model.refreshing = true;
            let catalog = crate::app::tree::built::catalog(model);
            vec![Job::Refresh(store.clone(), std::mem::take(&mut model.queued_changes), catalog)]
        }
        _ => Vec::new(),
    }
}

/// After a refresh: find the open entity again by id; re-read it when its file changed.
pub fn revalidate_preview(model: &mut Model, changed: &[String]) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let Some(p) = model.preview.as_mut() else { return Vec::new() };
    let found = store.find(&p.id).filter(|&i| store.entity(i).id == p.id);
    p.idx = found;
    match found {
        Some(i) if changed.contains(&p.path) || store.entity(i).path != p.path => {
            p.path = store.entity(i).path.clone();
            read_body(model, &store, i)
        }
        _ => Vec::new(),
    }
}
