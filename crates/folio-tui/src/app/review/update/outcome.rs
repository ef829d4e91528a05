//! The outcomes of review jobs (`review::jobs`) folded into the model: the queue and the detail,
//! plans and undo previews (confirm dialogs), editors ready, and written changesets (the store
//! refreshed) or their conflicts.
use super::confirm;
use super::editing::external_done;
use super::inbox::select;
use super::say;
use crate::app::event::Event;
use crate::app::jobs::Job;
use crate::app::model::Model;
use crate::app::review::editor::Editor;
use crate::app::review::jobs::{Outcome, ReviewJob};
use crate::app::review::{Building, Confirm, Pending};
use folio_core::store::review::fields;
use folio_core::store::review::{QueueItem, queue};

/// Fold a job's outcome into the model.
pub fn outcome(model: &mut Model, o: Outcome) -> Vec<Job> {
    match o {
        Outcome::QueueBatch { generation, items, done, total, provisional } => {
            queue_batch(model, generation, items, (done, total), provisional)
        }
        Outcome::Discarded => Vec::new(),
        Outcome::Detail(d) => {
            if model.review.selected().is_some_and(|i| i.id == d.id) {
                model.review.detail = Some(*d);
            }
            Vec::new()
        }
        Outcome::Planned(Ok(plan)) => {
            model.editor = None;
            // "planning it again…" and the like are answered by the dialog; a warning stays.
            if model.message.as_ref().is_some_and(|m| !m.warn) {
                model.message = None;
            }
            confirm::show_plan(model, plan);
            Vec::new()
        }
        Outcome::Planned(Err(e)) => {
            model.review.planning_from_prompt = false;
            match model.editor.as_mut() {
                Some(ed) => ed.error = Some(e),
                None => say(model, e, true),
            }
            Vec::new()
        }
        Outcome::UndoPreview(Ok((title, lines, at))) => {
            model.review.confirm = Some(Confirm {
                title,
                lines,
                pending: Pending::Undo(at),
                needs_second: false,
                scroll: 0,
                after_prompt: false,
            });
            Vec::new()
        }
        Outcome::UndoPreview(Err(e)) => {
            say(model, e, true);
            Vec::new()
        }
        Outcome::EditorReady { seed: Ok(seed), external: true, .. } => {
            vec![Job::ExternalEdit(seed, model.review.editor_command.clone())]
        }
        Outcome::EditorReady { seed: Ok(seed), then_approve, .. } => {
            let grammar = match model.store.as_ref() {
                Some(s) => fields::grammar(s),
                None => folio_core::store::dialect::Grammar::Yaml,
            };
            model.editor = Some(Editor::new(*seed, grammar, then_approve));
            Vec::new()
        }
        Outcome::EditorReady { seed: Err(e), .. } => {
            say(model, e, true);
            Vec::new()
        }
        Outcome::ExternalDone { seed, result } => external_done(model, seed, result),
        Outcome::Written(Ok(w)) => {
            let w = *w;
            model.editor = None;
            model.own_writes.record(w.own.clone());
            let jobs = crate::app::update::event(model, Event::Refreshed(w.store, w.report, w.own, w.tree));
            say(model, w.message, false);
            jobs
        }
        Outcome::Written(Err(f)) => {
            if let Some(ed) = model.editor.as_mut() {
                ed.error = Some(f.message.clone());
            }
            say(model, f.message.clone(), true);
            let Some(diff) = f.conflict_diff else { return Vec::new() };
            let mut lines = vec![
                "An agent changed the file while you reviewed; nothing was overwritten.".to_string(),
                "The inbox now shows its version. Below: on disk → what folio meant to write.".to_string(),
                String::new(),
            ];
            lines.extend(diff.lines().map(str::to_string));
            model.review.confirm = Some(Confirm {
                title: f.message,
                lines,
                pending: Pending::Nothing,
                needs_second: false,
                scroll: 0,
                after_prompt: false,
            });
            match (f.conflict_path, model.store.as_ref()) {
                (Some(p), Some(s)) => {
                    let abs = s.abs_path(&p);
                    crate::app::update::event(model, Event::FilesChanged(vec![abs]))
                }
                _ => Vec::new(),
            }
        }
    }
}

/// A batch of the queue being built: the first build's batches join the list as they come;
/// a rebuild's are gathered and replace the list when the last one is in.
fn queue_batch(
    model: &mut Model,
    generation: u64,
    items: Vec<QueueItem>,
    (done, total): (usize, usize),
    provisional: bool,
) -> Vec<Job> {
    let r = &mut model.review;
    if generation != r.generation {
        return Vec::new();
    }
    let building = r.building.get_or_insert_with(|| Building { streaming: !r.loaded, ..Building::default() });
    (building.done, building.total) = (done, total);
    let last = done >= total;
    if building.streaming {
        let was = r.selected().map(|i| i.id.clone());
        queue::merge(&mut r.items, items);
        r.loaded = true;
        r.provisional = provisional;
        if last {
            r.building = None;
        }
        // At the top, the cursor stays at the top (the most urgent item, as it becomes known);
        // further down, on its item while items arrive above it.
        let at = match &was {
            Some(id) if r.cursor > 0 => r.visible().iter().position(|i| &i.id == id),
            _ => Some(0),
        };
        r.cursor = at.unwrap_or(0);
        return if r.selected().map(|i| &i.id) == was.as_ref() { Vec::new() } else { select(model) };
    }
    queue::merge(&mut building.incoming, items);
    if !last {
        return Vec::new();
    }
    let items = r.building.take().map(|b| b.incoming).unwrap_or_default();
    // After an undo, the item it brought back; else the item selected before, or (when a
    // verdict took it out) the one that took its place: the next one. A cursor at the top of a
    // list built without lint's reasons stays at the top of the whole queue.
    let at_top = r.provisional && r.cursor == 0;
    let keep = r.reselect.take().or_else(|| r.selected().map(|i| i.id.clone()).filter(|_| !at_top));
    let old = std::mem::replace(&mut r.items, items);
    r.loaded = true;
    r.provisional = provisional;
    if let Some(i) = keep.and_then(|k| r.visible().iter().position(|i| i.id == k)) {
        r.cursor = i;
    }
    r.detail = None;
    let mut jobs = select(model);
    // Freeing 100k items takes longer than a frame: not on the UI thread.
    jobs.push(Job::Review(Box::new(ReviewJob::Discard(old))));
    jobs
}
