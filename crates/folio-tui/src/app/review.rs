//! The review pane's state and its part of `update`: the inbox (queue, cursor, bulk filter,
//! skipped items), the prompts (veto reason, filter, promote target), the merge-target picker,
//! confirm dialogs and the editors. Disk work goes out as `Effect::Review` jobs
//! (`review_jobs`); their outcomes come back in `job_outcome`.
//!
//! This file holds the state and the dispatch: typed keys (editor, prompt, picker), paste, and
//! actions, which go to the editor, the confirm dialog, or the inbox (`inbox`, `plan`).
use std::collections::HashSet;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, inbox_verbs};
use super::effects::Effect;
use super::keymap::{Context, Key, Lookup};
use super::model::{Message, Model};
use super::review_jobs::{Detail, Job};
use folio_core::store::Store;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::review::filter::Filter;
use folio_core::store::review::group::{Grouping, grouped};
use folio_core::store::review::{Plan, QueueItem};

mod confirm;
mod editing;
mod inbox;
mod job_outcome;
mod plan;

pub use job_outcome::outcome;

pub enum PromptKind {
    /// Who reviews ($USER unset, nothing remembered); `then` is the verdict key that asked.
    Reviewer {
        then: Action,
    },
    Veto {
        targets: Vec<EntityIdx>,
    },
    Filter,
    PromoteTo {
        target: EntityIdx,
    },
    /// What the approved entities are filed as, where their format asks
    /// (`ReviewRules::approve_asks`: an awareness candidate's kind); `question` is its words.
    ApproveKind {
        targets: Vec<EntityIdx>,
        question: String,
        /// Asked by "edit, then approve": the answer opens the editor.
        then_edit: bool,
    },
}

/// A one-line question (typing goes into `text`; Enter answers, Esc drops it).
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

impl Prompt {
    pub fn label(&self) -> &str {
        match &self.kind {
            PromptKind::Reviewer { .. } => "who is reviewing? (your name, recorded as human:NAME; remembered)",
            PromptKind::Veto { .. } => "veto reason",
            PromptKind::Filter => "bulk filter (status: kind: reason: path: older:30d)",
            PromptKind::PromoteTo { .. } => "promote to (empty: the dialect's next step)",
            PromptKind::ApproveKind { question, .. } => question,
        }
    }
}

/// "Merge into…": the target, picked with fuzzy recall.
pub struct Picker {
    pub from: EntityIdx,
    pub query: String,
    pub cursor: usize,
    pub hits: Vec<EntityIdx>,
}

/// What a confirm dialog applies.
pub enum Pending {
    Plan(Box<Plan>),
    /// An undo, logged at the time its dialog showed.
    Undo(time::OffsetDateTime),
    /// Only information (a conflict): confirming closes it.
    Nothing,
}

pub struct Confirm {
    pub title: String,
    pub lines: Vec<String>,
    pub pending: Pending,
    /// Approving content with hidden control characters: `y` must be pressed twice.
    pub needs_second: bool,
    pub scroll: usize,
    /// Opened by a prompt answered with Enter (a veto reason, a promote target): Enter does not
    /// apply it, so a second Enter cannot write a change the person never saw (`y` does).
    pub after_prompt: bool,
}

pub struct ReviewPane {
    pub open: bool,
    pub items: Vec<QueueItem>,
    /// The queue was built at least once for the current store.
    pub loaded: bool,
    pub cursor: usize,
    pub detail: Option<Detail>,
    pub detail_scroll: usize,
    /// The bulk filter the queue is narrowed to (empty: everything).
    pub filter: String,
    /// Items gathered by author or agent run (`gb`); bulk verdicts then take the selected
    /// item's group.
    pub group: Option<Grouping>,
    /// Ids skipped in this session.
    pub skipped: HashSet<String>,
    pub prompt: Option<Prompt>,
    pub picker: Option<Picker>,
    pub confirm: Option<Confirm>,
    /// Command for `E` instead of $VISUAL/$EDITOR (tests).
    pub editor_command: Option<String>,
    /// Who decides (`human:$USER`), recorded in every audit event.
    pub actor: String,
    /// Where the answer to "who is reviewing?" is remembered (None: not remembered).
    pub reviewer_file: Option<std::path::PathBuf>,
    /// The plan being computed was asked for by a prompt (its dialog gets `after_prompt`).
    pub planning_from_prompt: bool,
    /// What the entity being edited then approved is filed as, when its format asked
    /// (`PromptKind::ApproveKind` answered before the editor opened).
    pub approve_kind: Option<String>,
    /// The targets and verdict of the plan shown last (`s` plans it again with stubs).
    pub last_request: Option<(Vec<EntityIdx>, folio_core::store::review::Verdict)>,
    /// The queue is rebuilt when the lint pass now running finishes, with its report (a
    /// second whole-store lint per live reload would cost far more than the reload itself).
    pub queue_after_lint: bool,
}

impl Default for ReviewPane {
    fn default() -> Self {
        ReviewPane {
            open: false,
            items: Vec::new(),
            loaded: false,
            cursor: 0,
            detail: None,
            detail_scroll: 0,
            filter: String::new(),
            group: None,
            skipped: HashSet::new(),
            prompt: None,
            picker: None,
            confirm: None,
            editor_command: None,
            actor: folio_core::store::write::audit::default_actor(),
            planning_from_prompt: false,
            approve_kind: None,
            reviewer_file: None,
            last_request: None,
            queue_after_lint: false,
        }
    }
}

impl ReviewPane {
    /// The items shown: the bulk filter applied, skipped ones left out, gathered by group when
    /// the inbox is grouped.
    pub fn visible(&self) -> Vec<&QueueItem> {
        let filter = Filter::parse(&self.filter).unwrap_or_default();
        let shown: Vec<&QueueItem> =
            self.items.iter().filter(|i| !self.skipped.contains(&i.id) && filter.matches(i)).collect();
        match self.group {
            Some(by) => grouped(&shown, by).into_iter().flat_map(|(_, members)| members).collect(),
            None => shown,
        }
    }

    /// What a bulk verdict takes: every shown item, or the selected item's group when grouped.
    pub fn batch(&self) -> Vec<&QueueItem> {
        let visible = self.visible();
        match (self.group, visible.get(self.cursor)) {
            (Some(by), Some(selected)) => {
                let key = by.key(selected);
                visible.into_iter().filter(|i| by.key(i) == key).collect()
            }
            _ => visible,
        }
    }

    pub fn selected(&self) -> Option<&QueueItem> {
        self.visible().get(self.cursor).copied()
    }
}

fn say(model: &mut Model, text: impl Into<String>, warn: bool) {
    model.message = Some(Message { text: text.into(), warn });
}

fn store(model: &Model) -> Option<Arc<Store>> {
    model.store.clone()
}

/// Queue the rebuild of the inbox after the store changed (load, live reload, a write): after
/// the lint pass under way when one is (`lint_finished`), with the lint pane's report when it
/// is this store's, else with a lint of its own.
pub fn on_store_changed(model: &mut Model) -> Vec<Effect> {
    let Some(s) = store(model).filter(|_| model.review.open) else { return Vec::new() };
    // A pass under way is for this store or its config (an ignore just written): wait for it.
    if model.linting {
        model.review.queue_after_lint = true;
        return Vec::new();
    }
    let report = match &model.lint_base {
        Some((base, linted)) if Arc::ptr_eq(base, &s) => Some(linted.report.clone()),
        _ => None,
    };
    model.review.queue_after_lint = false;
    vec![Effect::Review(Box::new(Job::Queue(s, report)))]
}

/// A lint pass ended (or failed): the queue that waited for it is rebuilt now, unless another
/// pass for a newer store started meanwhile (then it waits for that one).
pub fn lint_finished(model: &mut Model) -> Vec<Effect> {
    if !model.review.queue_after_lint {
        return Vec::new();
    }
    on_store_changed(model)
}

/// Keys that are typed rather than bound: the editor, a prompt, the picker. None: not ours.
pub fn intercept_key(model: &mut Model, k: KeyEvent) -> Option<Vec<Effect>> {
    let typed = !k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    if model.editor.is_some() {
        let key = Key::from_event(&k);
        if let Lookup::Action(a) = model.keymap.lookup(&[Context::Editor], &[key]) {
            return Some(action(model, a).unwrap_or_default());
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
pub fn action(model: &mut Model, a: Action) -> Option<Vec<Effect>> {
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
        Action::Undo if model.review.actor == super::reviewer::UNKNOWN => {
            model.review.prompt = Some(Prompt { kind: PromptKind::Reviewer { then: a }, text: String::new() });
            return Some(Vec::new());
        }
        Action::Undo => {
            let by = model.review.actor.clone();
            return Some(
                store(model).map(|s| vec![Effect::Review(Box::new(Job::PreviewUndo(s, by)))]).unwrap_or_default(),
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
    if writes && model.review.actor == super::reviewer::UNKNOWN {
        model.review.prompt = Some(Prompt { kind: PromptKind::Reviewer { then: a }, text: String::new() });
        return Some(Vec::new());
    }
    inbox::action(model, a)
}
