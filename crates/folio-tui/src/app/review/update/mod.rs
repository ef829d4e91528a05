//! Review's part of `update`: typed keys (editor, prompt, picker), paste, and actions, which go
//! to the editor, the confirm dialog, or the inbox (`inbox`, `plan`); the queue rebuilt when the
//! store changes; job outcomes folded in (`outcome`).
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::jobs::{QueueLint, ReviewJob};
use super::{Prompt, PromptKind};
use crate::app::action::{Action, inbox_verbs};
use crate::app::jobs::Job;
use crate::app::model::{Message, Model};
use crate::app::settings::keymap::{Context, Key, Lookup};
use folio_core::store::Store;

mod confirm;
mod editing;
mod inbox;
mod outcome;
mod plan;

pub use outcome::outcome;

fn say(model: &mut Model, text: impl Into<String>, warn: bool) {
    model.message = Some(Message { text: text.into(), warn });
}

fn store(model: &Model) -> Option<Arc<Store>> {
    model.store.clone()
}

/// Queue the rebuild of the inbox after the store changed (load, live reload, a write): after
/// the lint pass under way when one is (`lint_finished`), with the lint pane's report when it
/// is this store's, else with a lint of its own. An inbox with nothing shown yet does not wait
/// for the pass: it is built at once without lint's reasons, and again with them.
pub fn on_store_changed(model: &mut Model) -> Vec<Job> {
    let Some(s) = store(model).filter(|_| model.review.open) else { return Vec::new() };
    // A pass under way is for this store or its config (an ignore just written): wait for it.
    let lint = if model.linting {
        model.review.queue_after_lint = true;
        if model.review.loaded {
            return Vec::new();
        }
        QueueLint::Pending
    } else {
        model.review.queue_after_lint = false;
        match &model.lint_base {
            Some((base, linted)) if Arc::ptr_eq(base, &s) => QueueLint::Report(linted.report.clone()),
            _ => QueueLint::Own,
        }
    };
    model.review.generation += 1;
    model.review.building = None;
    let generation = model.review.generation;
    let stream = !model.review.loaded;
    vec![Job::Review(Box::new(ReviewJob::Queue { store: s, lint, generation, stream }))]
}

/// A lint pass ended (or failed): the queue that waited for it is rebuilt now, unless another
/// pass for a newer store started meanwhile (then it waits for that one).
pub fn lint_finished(model: &mut Model) -> Vec<Job> {
    if !model.review.queue_after_lint {
        return Vec::new();
    }
    on_store_changed(model)
}

/// Keys that are typed rather than bound: the editor, a prompt, the picker. None: not ours.
pub fn intercept_key(model: &mut Model, k: KeyEvent) -> Option<Vec<Job>> {
    let typed = !k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    if model.editor.is_some() {
        let key = Key::from_event(&k);
        if let Lookup::Action(a) = model.keymap.lookup(&[Context::Editor], &[key]) {
            return Some(handle(model, a).unwrap_or_default());
        }
        if let Some(ed) = model.editor.as_mut() {
            ed.input(k);
        }
        return Some(Vec::new());
    }
    if let Some(c) = model.review.confirm.as_ref() {
        if c.after_prompt && k.code == KeyCode::Enter {
            say(model, "Enter answered the prompt: press y to apply this change, n to cancel", true);
            return Some(Vec::new());
        }
        return None;
    }
    if let Some(p) = model.review.prompt.as_mut() {
        match k.code {
            KeyCode::Char(c) if typed => p.text.push(c),
            KeyCode::Backspace => {
                p.text.pop();
            }
            KeyCode::Esc => model.review.prompt = None,
            KeyCode::Enter => return Some(inbox::answer_prompt(model)),
            _ => {}
        }
        return Some(Vec::new());
    }
    if model.review.picker.is_some() {
        match k.code {
            KeyCode::Char('n') | KeyCode::Char('j') if !typed => inbox::step_picker(model, true),
            KeyCode::Char('p') | KeyCode::Char('k') if !typed => inbox::step_picker(model, false),
            KeyCode::Char(c) if typed => {
                if let Some(p) = model.review.picker.as_mut() {
                    p.query.push(c);
                }
                inbox::rerank(model);
            }
            KeyCode::Backspace => {
                if let Some(p) = model.review.picker.as_mut() {
                    p.query.pop();
                }
                inbox::rerank(model);
            }
            KeyCode::Down => inbox::step_picker(model, true),
            KeyCode::Up => inbox::step_picker(model, false),
            KeyCode::Esc => model.review.picker = None,
            KeyCode::Enter => return Some(inbox::pick_merge_target(model)),
            _ => {}
        }
        return Some(Vec::new());
    }
    None
}

/// Paste into the editor or a prompt; false when neither takes text.
pub fn paste(model: &mut Model, text: &str) -> bool {
    if let Some(ed) = model.editor.as_mut() {
        ed.paste(text);
        return true;
    }
    if let Some(p) = model.review.prompt.as_mut() {
        p.text.extend(text.chars().filter(|c| !c.is_control()));
        return true;
    }
    false
}

/// The actions of the review pane, its dialogs and the editors. None: not ours.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    if model.editor.is_some() {
        return Some(editing::action(model, a));
    }
    if model.review.confirm.is_some() {
        return Some(confirm::action(model, a));
    }
    match a {
        Action::Review => return Some(inbox::toggle(model)),
        Action::Edit | Action::EditExternal if !model.review.open => {
            return Some(editing::edit_open_entity(model, a == Action::EditExternal));
        }
        // An undo is recorded with who did it too: with nobody known, ask first.
        Action::Undo if model.review.actor == crate::app::settings::reviewer::UNKNOWN => {
            model.review.prompt = Some(Prompt { kind: PromptKind::Reviewer { then: a }, text: String::new() });
            return Some(Vec::new());
        }
        Action::Undo => {
            let by = model.review.actor.clone();
            return Some(
                store(model).map(|s| vec![Job::Review(Box::new(ReviewJob::PreviewUndo(s, by)))]).unwrap_or_default(),
            );
        }
        _ => {}
    }
    if !model.review.open || !model.overlays.is_empty() {
        if matches!(a, inbox_verbs!()) {
            say(model, "open the review inbox first (R)", true);
            return Some(Vec::new());
        }
        return None;
    }
    // A verdict records who decided: with nobody known, ask once before the first one.
    // Deciding a possible contradiction (`C`, `i`) writes too, though the lint panel binds the
    // same keys (so they are no inbox verbs).
    let writes = matches!(a, inbox_verbs!() | Action::ConfirmContradiction | Action::IgnoreFinding)
        && !matches!(
            a,
            Action::Skip
                | Action::NextTier
                | Action::BulkFilter
                | Action::SameAuthor
                | Action::SameSession
                | Action::GroupInbox
        );
    if writes && model.review.actor == crate::app::settings::reviewer::UNKNOWN {
        model.review.prompt = Some(Prompt { kind: PromptKind::Reviewer { then: a }, text: String::new() });
        return Some(Vec::new());
    }
    inbox::action(model, a)
}
