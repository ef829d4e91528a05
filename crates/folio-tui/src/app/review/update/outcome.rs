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
use crate::app::review::jobs::Outcome;
use crate::app::review::{Confirm, Pending};
use folio_core::store::review::fields;

/// Fold a job's outcome into the model.
pub fn outcome(model: &mut Model, o: Outcome) -> Vec<Job> {
    match o {
        Outcome::Queue(items) => {
            // After an undo, the item it brought back; else the item selected before, or (when
            // a verdict took it out) the one that took its place: the next one.
            let keep = model.review.reselect.take().or_else(|| model.review.selected().map(|i| i.id.clone()));
            model.review.items = items;
            model.review.loaded = true;
            if let Some(i) = keep.and_then(|k| model.review.visible().iter().position(|i| i.id == k)) {
                model.review.cursor = i;
            }
            model.review.detail = None;
            select(model)
        }
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
            let jobs = crate::app::update::event(model, Event::Refreshed(w.store, w.report, w.own));
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
