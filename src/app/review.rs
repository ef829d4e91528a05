//! The review pane's state and its part of `update`: the inbox (queue, cursor, bulk filter,
//! skipped items), the prompts (veto reason, filter, promote target), the merge-target picker,
//! confirm dialogs and the editors. Disk work goes out as `Effect::Review` jobs
//! (`review_jobs`); their outcomes come back here.
use std::collections::HashSet;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;
use super::editor::Editor;
use super::effects::Effect;
use super::event::Event;
use super::keymap::{Context, Key, Lookup};
use super::model::{Message, Model, Pane, Row};
use super::review_jobs::{Detail, EditSeed, Job, Outcome};
use crate::recall::{RecallItem, rank};
use crate::store::Store;
use crate::store::entity::EntityIdx;
use crate::store::review::filter::Filter;
use crate::store::review::{Plan, QueueItem, Verdict, fields};

/// How many merge targets the picker lists.
const PICKER_ROWS: usize = 12;

pub enum PromptKind {
    Veto { targets: Vec<EntityIdx> },
    Filter,
    PromoteTo { target: EntityIdx },
}

/// A one-line question (typing goes into `text`; Enter answers, Esc drops it).
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

impl Prompt {
    pub fn label(&self) -> &'static str {
        match self.kind {
            PromptKind::Veto { .. } => "veto reason",
            PromptKind::Filter => "bulk filter (status: kind: reason: path: older:30d)",
            PromptKind::PromoteTo { .. } => "promote to (empty: the dialect's next step)",
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
    Undo,
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
    /// Ids skipped in this session.
    pub skipped: HashSet<String>,
    pub prompt: Option<Prompt>,
    pub picker: Option<Picker>,
    pub confirm: Option<Confirm>,
    /// Command for `E` instead of $VISUAL/$EDITOR (tests).
    pub editor_command: Option<String>,
    /// Who decides (`human:$USER`), recorded in every audit event.
    pub actor: String,
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
            skipped: HashSet::new(),
            prompt: None,
            picker: None,
            confirm: None,
            editor_command: None,
            actor: crate::store::audit::default_actor(),
        }
    }
}

impl ReviewPane {
    /// The items shown: the bulk filter applied, skipped ones left out.
    pub fn visible(&self) -> Vec<&QueueItem> {
        let filter = Filter::parse(&self.filter).unwrap_or_default();
        self.items.iter().filter(|i| !self.skipped.contains(&i.id) && filter.matches(i)).collect()
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

/// Queue the rebuild of the inbox after the store changed (load, live reload, a write).
pub fn on_store_changed(model: &mut Model) -> Vec<Effect> {
    match store(model) {
        Some(s) if model.review.open => vec![Effect::Review(Box::new(Job::Queue(s)))],
        _ => Vec::new(),
    }
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
    if model.review.confirm.is_some() {
        return None;
    }
    if let Some(p) = model.review.prompt.as_mut() {
        match k.code {
            KeyCode::Char(c) if typed => p.text.push(c),
            KeyCode::Backspace => {
                p.text.pop();
            }
            KeyCode::Esc => model.review.prompt = None,
            KeyCode::Enter => return Some(answer_prompt(model)),
            _ => {}
        }
        return Some(Vec::new());
    }
    if model.review.picker.is_some() {
        match k.code {
            KeyCode::Char('n') | KeyCode::Char('j') if !typed => step_picker(model, true),
            KeyCode::Char('p') | KeyCode::Char('k') if !typed => step_picker(model, false),
            KeyCode::Char(c) if typed => {
                if let Some(p) = model.review.picker.as_mut() {
                    p.query.push(c);
                }
                rerank(model);
            }
            KeyCode::Backspace => {
                if let Some(p) = model.review.picker.as_mut() {
                    p.query.pop();
                }
                rerank(model);
            }
            KeyCode::Down => step_picker(model, true),
            KeyCode::Up => step_picker(model, false),
            KeyCode::Esc => model.review.picker = None,
            KeyCode::Enter => return Some(pick_merge_target(model)),
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
        return Some(editor_action(model, a));
    }
    if model.review.confirm.is_some() {
        return Some(confirm_action(model, a));
    }
    match a {
        Action::Review => return Some(toggle(model)),
        Action::Edit | Action::EditExternal if !model.review.open => {
            return Some(edit_open_entity(model, a == Action::EditExternal));
        }
        Action::Undo => {
            return Some(store(model).map(|s| vec![Effect::Review(Box::new(Job::PreviewUndo(s)))]).unwrap_or_default());
        }
        _ => {}
    }
    let review_action = matches!(
        a,
        Action::Approve
            | Action::ApproveOver
            | Action::Veto
            | Action::Forget
            | Action::EditApprove
            | Action::Merge
            | Action::Promote
            | Action::Skip
            | Action::BulkFilter
            | Action::BulkApprove
            | Action::BulkVeto
            | Action::BulkForget
    );
    if !model.review.open || !model.overlays.is_empty() {
        if review_action {
            say(model, "open the review inbox first (R)", true);
            return Some(Vec::new());
        }
        return None;
    }
    Some(match a {
        Action::Down => move_cursor(model, 1),
        Action::Up => move_cursor(model, -1),
        Action::PageDown => move_cursor(model, 10),
        Action::PageUp => move_cursor(model, -10),
        Action::Top => move_cursor(model, isize::MIN / 2),
        Action::Bottom => move_cursor(model, isize::MAX / 2),
        Action::HalfPageDown => {
            model.review.detail_scroll += 10;
            Vec::new()
        }
        Action::HalfPageUp => {
            model.review.detail_scroll = model.review.detail_scroll.saturating_sub(10);
            Vec::new()
        }
        Action::Close => {
            model.review.open = false;
            Vec::new()
        }
        Action::Approve => plan_selected(model, Verdict::Approve { over: None }),
        // The person's choice in a contradiction: this side wins (approve alone keeps both).
        Action::ApproveOver => {
            let selected = model.review.selected().map(|i| i.id.clone());
            let other = model.review.detail.as_ref().filter(|d| Some(&d.id) == selected.as_ref());
            match other.and_then(|d| d.other.as_ref()).map(|(id, _)| id.clone()) {
                Some(loser) => plan_selected(model, Verdict::Approve { over: Some(loser) }),
                None => {
                    say(model, "no contradiction to decide: `a` approves it as it stands", true);
                    Vec::new()
                }
            }
        }
        Action::Forget => plan_selected(model, Verdict::Forget),
        Action::Veto => {
            let targets = selected_target(model).into_iter().collect::<Vec<_>>();
            if !targets.is_empty() {
                model.review.prompt = Some(Prompt { kind: PromptKind::Veto { targets }, text: String::new() });
            }
            Vec::new()
        }
        Action::Promote => {
            if let Some(target) = selected_target(model) {
                model.review.prompt = Some(Prompt { kind: PromptKind::PromoteTo { target }, text: String::new() });
            }
            Vec::new()
        }
        Action::EditApprove | Action::Edit => {
            let target = selected_target(model);
            open_editor(model, target, true, false)
        }
        Action::EditExternal => {
            let target = selected_target(model);
            open_editor(model, target, false, true)
        }
        Action::Merge => {
            if let Some(from) = selected_target(model) {
                model.review.picker = Some(Picker { from, query: String::new(), cursor: 0, hits: Vec::new() });
            }
            Vec::new()
        }
        Action::Skip => {
            if let Some(id) = model.review.selected().map(|i| i.id.clone()) {
                say(model, format!("skipped {id} for this session"), false);
                model.review.skipped.insert(id);
            }
            select(model)
        }
        Action::BulkFilter => {
            let text = model.review.filter.clone();
            model.review.prompt = Some(Prompt { kind: PromptKind::Filter, text });
            Vec::new()
        }
        Action::BulkApprove => plan_visible(model, Verdict::Approve { over: None }),
        Action::BulkForget => plan_visible(model, Verdict::Forget),
        Action::BulkVeto => {
            let targets = visible_targets(model);
            if targets.is_empty() {
                say(model, "no queued item matches the filter", true);
            } else {
                model.review.prompt = Some(Prompt { kind: PromptKind::Veto { targets }, text: String::new() });
            }
            Vec::new()
        }
        _ => return None,
    })
}

fn toggle(model: &mut Model) -> Vec<Effect> {
    model.review.open = !model.review.open;
    if !model.review.open {
        return Vec::new();
    }
    model.overlays.clear();
    model.filtering = false;
    on_store_changed(model)
}

fn move_cursor(model: &mut Model, delta: isize) -> Vec<Effect> {
    let n = model.review.visible().len();
    model.review.cursor = model.review.cursor.saturating_add_signed(delta).min(n.saturating_sub(1));
    select(model)
}

/// Ask for the selected item's detail when it is not the one shown.
fn select(model: &mut Model) -> Vec<Effect> {
    let n = model.review.visible().len();
    model.review.cursor = model.review.cursor.min(n.saturating_sub(1));
    let Some(item) = model.review.selected().cloned() else {
        model.review.detail = None;
        return Vec::new();
    };
    if model.review.detail.as_ref().is_some_and(|d| d.id == item.id) {
        return Vec::new();
    }
    model.review.detail_scroll = 0;
    match store(model) {
        Some(s) => vec![Effect::Review(Box::new(Job::Detail(s, Box::new(item))))],
        None => Vec::new(),
    }
}

/// The selected item's entity in the current store (found by id: the store may have moved on).
fn selected_target(model: &mut Model) -> Option<EntityIdx> {
    let id = model.review.selected()?.id.clone();
    let s = model.store.as_ref()?;
    let found = s.find(&id).filter(|&i| s.entity(i).id == id);
    if found.is_none() {
        say(model, format!("{id} is no longer in the store"), true);
    }
    found
}

fn visible_targets(model: &Model) -> Vec<EntityIdx> {
    let Some(s) = model.store.as_ref() else { return Vec::new() };
    model.review.visible().iter().filter_map(|i| s.find(&i.id).filter(|&x| s.entity(x).id == i.id)).collect()
}

fn plan_job(model: &Model, targets: Vec<EntityIdx>, verdict: Verdict) -> Vec<Effect> {
    match store(model) {
        Some(store) if !targets.is_empty() => {
            vec![Effect::Review(Box::new(Job::Plan { store, targets, verdict, by: model.review.actor.clone() }))]
        }
        _ => Vec::new(),
    }
}

fn plan_selected(model: &mut Model, verdict: Verdict) -> Vec<Effect> {
    let targets = selected_target(model).into_iter().collect();
    plan_job(model, targets, verdict)
}

fn plan_visible(model: &mut Model, verdict: Verdict) -> Vec<Effect> {
    let targets = visible_targets(model);
    if targets.is_empty() {
        say(model, "no queued item matches the filter", true);
        return Vec::new();
    }
    plan_job(model, targets, verdict)
}

fn answer_prompt(model: &mut Model) -> Vec<Effect> {
    let Some(p) = model.review.prompt.take() else { return Vec::new() };
    let text = p.text.trim().to_string();
    match p.kind {
        PromptKind::Veto { .. } if text.is_empty() => {
            say(model, "a veto needs a reason", true);
            model.review.prompt = Some(p);
            Vec::new()
        }
        PromptKind::Veto { targets } => plan_job(model, targets, Verdict::Veto { reason: text }),
        PromptKind::PromoteTo { target } => {
            plan_job(model, vec![target], Verdict::Promote { to: (!text.is_empty()).then_some(text) })
        }
        PromptKind::Filter => match Filter::parse(&text) {
            Ok(_) => {
                model.review.filter = text;
                model.review.cursor = 0;
                let total = model.review.items.len();
                let shown = model.review.visible().len();
                say(model, format!("{shown} of {total} queued items match"), false);
                model.review.detail = None;
                select(model)
            }
            Err(e) => {
                say(model, e, true);
                Vec::new()
            }
        },
    }
}

fn rerank(model: &mut Model) {
    let Some(s) = model.store.clone() else { return };
    let Some(p) = model.review.picker.as_mut() else { return };
    let items: Vec<RecallItem> = s
        .entities
        .iter()
        .enumerate()
        .filter(|(i, e)| *i as EntityIdx != p.from && !e.escapes_root())
        .map(|(i, e)| RecallItem::entity(i as EntityIdx, e))
        .collect();
    p.hits = if p.query.trim().is_empty() {
        Vec::new()
    } else {
        rank::rank(&items, &p.query, PICKER_ROWS).into_iter().map(|(n, _)| items[n].idx).collect()
    };
    p.cursor = 0;
}

fn step_picker(model: &mut Model, down: bool) {
    if let Some(p) = model.review.picker.as_mut() {
        let last = p.hits.len().saturating_sub(1);
        p.cursor = if down { (p.cursor + 1).min(last) } else { p.cursor.saturating_sub(1) };
    }
}

fn pick_merge_target(model: &mut Model) -> Vec<Effect> {
    let Some(p) = model.review.picker.take() else { return Vec::new() };
    let (Some(into), Some(store)) = (p.hits.get(p.cursor).copied(), store(model)) else {
        say(model, "no merge target picked", true);
        return Vec::new();
    };
    vec![Effect::Review(Box::new(Job::OpenMerge { store, from: p.from, into }))]
}

fn open_editor(model: &mut Model, idx: Option<EntityIdx>, then_approve: bool, external: bool) -> Vec<Effect> {
    match (idx, store(model)) {
        (Some(idx), Some(store)) => {
            vec![Effect::Review(Box::new(Job::OpenEditor { store, idx, then_approve, external }))]
        }
        _ => Vec::new(),
    }
}

/// `e` / `E` outside the inbox: the entity in the preview (or under the catalog cursor).
fn edit_open_entity(model: &mut Model, external: bool) -> Vec<Effect> {
    let idx = match (model.focus, model.selected_row(), model.open_entity()) {
        (Pane::Catalog, Some(Row::Entity { idx, .. }), _) => Some(*idx),
        (_, _, Some(i)) => Some(i),
        _ => None,
    };
    if idx.is_none() {
        say(model, "nothing to edit: select an entity", true);
    }
    open_editor(model, idx, false, external)
}

fn editor_action(model: &mut Model, a: Action) -> Vec<Effect> {
    let Some(ed) = model.editor.as_mut() else { return Vec::new() };
    match a {
        Action::NextField => ed.focus_next(true),
        Action::PrevField => ed.focus_next(false),
        Action::Close => {
            model.editor = None;
            say(model, "edit discarded; nothing was written", false);
        }
        Action::Save => {
            let Some(store) = model.store.clone() else { return Vec::new() };
            let by = model.review.actor.clone();
            if let (Some((from, _)), Some(into)) = (ed.seed.merge_from.clone(), ed.seed.merge_into) {
                let body = Some(ed.body_text());
                return vec![Effect::Review(Box::new(Job::Merge { store, from, into, body, by }))];
            }
            match ed.entity_text() {
                Ok(entity_text) => {
                    let seed = Box::new(ed.seed.clone());
                    let then_approve = ed.then_approve;
                    return vec![Effect::Review(Box::new(Job::Save { store, seed, entity_text, then_approve, by }))];
                }
                Err(e) => ed.error = Some(e),
            }
        }
        _ => {}
    }
    Vec::new()
}

fn confirm_action(model: &mut Model, a: Action) -> Vec<Effect> {
    let Some(c) = model.review.confirm.as_mut() else { return Vec::new() };
    match a {
        Action::Down => c.scroll = (c.scroll + 1).min(c.lines.len().saturating_sub(1)),
        Action::Up => c.scroll = c.scroll.saturating_sub(1),
        Action::PageDown | Action::HalfPageDown => c.scroll = (c.scroll + 10).min(c.lines.len().saturating_sub(1)),
        Action::PageUp | Action::HalfPageUp => c.scroll = c.scroll.saturating_sub(10),
        Action::Close => {
            let cancelled = !matches!(c.pending, Pending::Nothing);
            model.review.confirm = None;
            if cancelled {
                say(model, "cancelled; nothing was written", false);
            }
        }
        Action::Confirm if c.needs_second => {
            c.needs_second = false;
            c.title = format!("⚠ SECOND CONFIRMATION — {}", c.title);
            say(model, "the content holds hidden control characters: press y again to approve it", true);
        }
        Action::Confirm => {
            let Some(c) = model.review.confirm.take() else { return Vec::new() };
            let Some(store) = store(model) else { return Vec::new() };
            return match c.pending {
                Pending::Plan(plan) => vec![Effect::Review(Box::new(Job::Apply { store, plan }))],
                Pending::Undo => vec![Effect::Review(Box::new(Job::Undo { store, by: model.review.actor.clone() }))],
                Pending::Nothing => Vec::new(),
            };
        }
        _ => {}
    }
    Vec::new()
}

/// The confirm dialog for a plan: files, links repointed, notes, the log line, then the diff.
fn confirm_plan(model: &mut Model, plan: Box<Plan>) {
    let mut lines = Vec::new();
    let n = plan.decisions.len();
    let archived: Vec<&str> = plan.draft.archived().iter().map(|(p, _)| *p).collect();
    let moves = plan.draft.moves();
    let files = plan.draft.changed_paths();
    lines.push(format!("{} file(s) change:", files.len()));
    for f in &files {
        let how = match moves.iter().find(|(from, _)| from == f) {
            Some((_, to)) => format!("  (moves to {to})"),
            None if archived.contains(f) => "  (archived in the folio state)".into(),
            None => String::new(),
        };
        lines.push(format!("  {f}{how}"));
    }
    if !plan.repointed.is_empty() {
        lines.push(format!("{} link(s) repointed:", plan.repointed.len()));
        lines.extend(plan.repointed.iter().map(|r| format!("  {r}")));
    }
    lines.extend(plan.notes.iter().map(|n| format!("note: {n}")));
    lines.push(format!("log: {} by {}: {}", plan.event.verb, plan.event.by, plan.event.summary));
    lines.push(String::new());
    lines.extend(plan.diff().lines().map(str::to_string));
    let flagged: HashSet<&str> =
        model.review.items.iter().filter(|i| i.hidden_content).map(|i| i.id.as_str()).collect();
    let approving = matches!(plan.verb.as_str(), "approve" | "promote" | "merge");
    let needs_second = approving && plan.decisions.iter().any(|d| flagged.contains(d.entity.as_str()));
    if needs_second {
        lines.insert(0, "⚠ hidden control characters: approving needs a second confirmation (y, then y)".into());
    }
    let what = if n == 1 { plan.decisions[0].entity.clone() } else { format!("{n} entities") };
    let title = format!("{} {what}?", plan.verb);
    model.review.confirm = Some(Confirm { title, lines, pending: Pending::Plan(plan), needs_second, scroll: 0 });
}

/// Fold a job's outcome into the model.
pub fn outcome(model: &mut Model, o: Outcome) -> Vec<Effect> {
    match o {
        Outcome::Queue(items) => {
            let keep = model.review.selected().map(|i| i.id.clone());
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
            confirm_plan(model, plan);
            Vec::new()
        }
        Outcome::Planned(Err(e)) => {
            match model.editor.as_mut() {
                Some(ed) => ed.error = Some(e),
                None => say(model, e, true),
            }
            Vec::new()
        }
        Outcome::UndoPreview(Ok((title, diff))) => {
            let lines = diff.lines().map(str::to_string).collect();
            model.review.confirm =
                Some(Confirm { title, lines, pending: Pending::Undo, needs_second: false, scroll: 0 });
            Vec::new()
        }
        Outcome::UndoPreview(Err(e)) => {
            say(model, e, true);
            Vec::new()
        }
        Outcome::EditorReady { seed: Ok(seed), external: true, .. } => {
            vec![Effect::ExternalEdit(seed, model.review.editor_command.clone())]
        }
        Outcome::EditorReady { seed: Ok(seed), then_approve, .. } => {
            let grammar = match model.store.as_ref() {
                Some(s) => fields::grammar(s),
                None => crate::store::dialect::Grammar::Yaml,
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
            let effects = super::update::event(model, Event::Refreshed(w.store, w.report));
            say(model, w.message, false);
            match w.follow {
                Some(Ok(plan)) => confirm_plan(model, plan),
                Some(Err(e)) => say(model, e, true),
                None => {}
            }
            effects
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
            model.review.confirm =
                Some(Confirm { title: f.message, lines, pending: Pending::Nothing, needs_second: false, scroll: 0 });
            match (f.conflict_path, model.store.as_ref()) {
                (Some(p), Some(s)) => {
                    let abs = s.abs_path(&p);
                    super::update::event(model, Event::FilesChanged(vec![abs]))
                }
                _ => Vec::new(),
            }
        }
    }
}

fn external_done(model: &mut Model, seed: Box<EditSeed>, result: Result<Option<String>, String>) -> Vec<Effect> {
    match (result, store(model)) {
        (Ok(Some(entity_text)), Some(store)) => {
            let by = model.review.actor.clone();
            vec![Effect::Review(Box::new(Job::Save { store, seed, entity_text, then_approve: false, by }))]
        }
        (Ok(None), _) => {
            say(model, format!("{}: no change in the editor; nothing was written", seed.path), false);
            Vec::new()
        }
        (Err(e), _) => {
            say(model, e, true);
            Vec::new()
        }
        (Ok(Some(_)), None) => Vec::new(),
    }
}
