//! The inbox: moving through the queue (the bulk filter applied, skipped items left out), the
//! selected item's detail, the verdict keys, and the one-line prompts (veto reason, bulk filter,
//! promote target) and the merge-target picker that some verdicts ask for first.
use super::editing::open_editor;
use super::plan::{plan_job, plan_selected, plan_visible};
use super::{on_store_changed, say, store};
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::model::{Model, Overlay};
use crate::app::review::jobs::ReviewJob;
use crate::app::review::{Picker, Prompt, PromptKind};
use folio_core::recall::{RecallItem, rank};
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::review::Verdict;
use folio_core::store::review::filter::Filter;
use folio_core::store::review::group::{Grouping, grouped};

/// The inbox's own actions while it is open: moving through the queue and the verdicts on the
/// selected item (or on every item the bulk filter selects). None: not ours.
pub(super) fn action(model: &mut Model, a: Action) -> Option<Vec<Job>> {
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
        // `<` / `>` in the inbox size its queue column, not the catalog's sidebar.
        Action::SidebarWider | Action::SidebarNarrower => {
            let step = crate::app::settings::sidebar::STEP;
            let now = model.review.list_width;
            let to = if a == Action::SidebarWider { now + step } else { now.saturating_sub(step) };
            model.review.list_width = crate::app::settings::sidebar::clamp(to);
            say(model, format!("inbox list {}% of the width (< narrower, > wider)", model.review.list_width), false);
            match &model.state_dir {
                Some(state) => vec![Job::RememberSidebar {
                    file: crate::app::settings::sidebar::inbox_file(state),
                    percent: model.review.list_width,
                }],
                None => Vec::new(),
            }
        }
        Action::Approve => {
            let targets: Vec<EntityIdx> = selected_target(model).into_iter().collect();
            approve_or_ask(model, targets)
        }
        // The person's choice in a contradiction: this side wins (approve alone keeps both).
        Action::ApproveOver => {
            let selected = model.review.selected().map(|i| i.id.clone());
            let other = model.review.detail.as_ref().filter(|d| Some(&d.id) == selected.as_ref());
            match other.and_then(|d| d.other.as_ref()).map(|(id, _)| id.clone()) {
                Some(loser) => plan_selected(model, Verdict::Approve { over: Some(loser), kind: None }),
                None => {
                    say(model, "no contradiction to decide: `a` approves it as it stands", true);
                    Vec::new()
                }
            }
        }
        Action::Forget => plan_selected(model, Verdict::Forget),
        // A possible contradiction is decided here as in the lint panel: `C` writes the pair as
        // the format's own `contradicts` (after the confirm dialog), `i` dismisses the pair.
        Action::ConfirmContradiction => match contradiction_pair(model, "C confirms") {
            Some((a, b)) => match store(model) {
                Some(store) => {
                    let by = model.review.actor.clone();
                    vec![Job::Review(Box::new(ReviewJob::ConfirmContradiction { store, a, b, by }))]
                }
                None => Vec::new(),
            },
            None => Vec::new(),
        },
        Action::IgnoreFinding => {
            if let (Some((a, b)), Some(store)) = (contradiction_pair(model, "i dismisses"), store(model)) {
                let (entity, other) = (store.entity(a).id.clone(), Some(store.entity(b).id.clone()));
                let rule = folio_core::store::lint::possible_contradiction::RULE;
                model.overlays.push(Overlay::Reason { rule, entity, other, text: String::new() });
            }
            Vec::new()
        }
        Action::Veto => {
            let targets = selected_target(model).into_iter().collect::<Vec<_>>();
            if !targets.is_empty() {
                let what = model.review.selected().map(|i| super::confirm::named(model, &i.id)).unwrap_or_default();
                model.review.prompt = Some(Prompt { kind: PromptKind::Veto { targets, what }, text: String::new() });
            }
            Vec::new()
        }
        Action::Promote => {
            let Some(target) = selected_target(model) else { return Some(Vec::new()) };
            model.review.section = None;
            // Promoting an awareness candidate is filing it under a section: inferred, straight
            // to the dialog (Tab changes it), as `a` does.
            let filing = filing_of(model, &[target]);
            if let Some((current, filing)) =
                filing.clone().and_then(|f| f.inferred.as_ref().map(|(i, _)| *i).map(|i| (i, f)))
            {
                let choice = super::super::SectionChoice { targets: vec![target], filing, current, promote: true };
                let verdict = choice.verdict();
                model.review.section = Some(choice);
                return Some(plan_job(model, vec![target], verdict));
            }
            model.review.prompt = Some(Prompt { kind: PromptKind::PromoteTo { target, filing }, text: String::new() });
            Vec::new()
        }
        Action::EditApprove | Action::Edit => {
            let target = selected_target(model);
            model.review.approve_kind = None;
            let targets: Vec<EntityIdx> = target.into_iter().collect();
            match filing_of(model, &targets) {
                // Inferred: filed there (the edit's dialog names the section).
                Some(filing) if filing.inferred.is_some() => {
                    let at = filing.inferred.as_ref().map_or(0, |(i, _)| *i);
                    model.review.approve_kind = filing.choices.get(at).map(|c| c.kind.clone());
                    open_editor(model, target, true, false)
                }
                Some(filing) => {
                    let question = question(model, &targets, &filing);
                    let kind = PromptKind::ApproveKind { targets, question, filing, then_edit: true };
                    model.review.prompt = Some(Prompt { kind, text: String::new() });
                    Vec::new()
                }
                None => open_editor(model, target, true, false),
            }
        }
        Action::EditExternal => {
            let target = selected_target(model);
            open_editor(model, target, false, true)
        }
        Action::Merge => {
            if let (Some(from), Some(store)) = (selected_target(model), model.store.as_ref()) {
                // A near-duplicate or same-title pair is offered first: `m` then Enter merges into it.
                let near = model.review.selected().and_then(|i| i.duplicate_of);
                let pairs = folio_core::store::review::merge_candidates::merge_candidates(store, from, near);
                let hits = pairs.clone();
                model.review.picker = Some(Picker { from, pairs, query: String::new(), cursor: 0, hits });
            }
            Vec::new()
        }
        Action::Skip => {
            if let Some(id) = model.review.selected().map(|i| i.id.clone()) {
                say(model, format!("skipped {} for this session", super::confirm::named(model, &id)), false);
                model.review.skipped.insert(id);
            }
            select(model)
        }
        Action::NextTier => {
            next_tier(model);
            select(model)
        }
        Action::SameAuthor => same_author(model),
        Action::SameSession => same_session(model),
        Action::GroupInbox => group_inbox(model),
        Action::BulkFilter => {
            let text = model.review.filter.clone();
            model.review.prompt = Some(Prompt { kind: PromptKind::Filter, text });
            Vec::new()
        }
        Action::BulkApprove => {
            let targets = batch_targets(model);
            if targets.is_empty() {
                return Some(plan_visible(model, Verdict::approve()));
            }
            approve_or_ask(model, targets)
        }
        Action::BulkForget => plan_visible(model, Verdict::Forget),
        Action::Baseline => super::plan::plan_baseline(model),
        Action::BulkVeto => {
            let targets = batch_targets(model);
            if targets.is_empty() {
                say(model, "no queued item matches the filter", true);
            } else {
                let what = format!("{} entities", targets.len());
                model.review.prompt = Some(Prompt { kind: PromptKind::Veto { targets, what }, text: String::new() });
            }
            Vec::new()
        }
        _ => return None,
    })
}

/// The selected item and the entity its `possible-contradiction` finding pairs it with; says
/// why not (`what`: the key's verb) when the item has none.
fn contradiction_pair(model: &mut Model, what: &str) -> Option<(EntityIdx, EntityIdx)> {
    let pair = model.review.selected().and_then(|i| i.contradiction_with.map(|o| (i.idx, o)));
    if pair.is_none() {
        say(model, format!("{what} a possible contradiction; this item is not one"), true);
    }
    pair
}

/// How many merge targets the picker lists.
const PICKER_ROWS: usize = 12;

/// Narrow the inbox to what the selected item's author wrote (`author:` in the filter), so an
/// agent's run is taken as one batch with the bulk verdicts.
fn same_author(model: &mut Model) -> Vec<Job> {
    let Some(item) = model.review.selected() else { return Vec::new() };
    let Some(author) = item.author.as_deref().and_then(|a| a.split_whitespace().next()).map(str::to_string) else {
        say(model, format!("{} names no author", item.id), true);
        return Vec::new();
    };
    model.review.filter = format!("author:{author}");
    model.review.cursor = 0;
    let shown = model.review.visible().len();
    say(
        model,
        format!(
            "{} by {author}: A, X or D decides them as one batch; f changes the filter",
            folio_core::store::model::count::count(shown, "queued item")
        ),
        false,
    );
    model.review.detail = None;
    select(model)
}

/// Narrow the inbox to what the selected item's agent run wrote (`session:` in the filter).
fn same_session(model: &mut Model) -> Vec<Job> {
    let Some(item) = model.review.selected() else { return Vec::new() };
    // A run from git is `<commit> <subject>`: the commit alone names it in the filter.
    let Some(session) = item.session.as_deref().and_then(|s| s.split_whitespace().next()).map(str::to_string) else {
        say(model, format!("{} names no agent run (session, trajectory, run id or commit)", item.id), true);
        return Vec::new();
    };
    model.review.filter = format!("session:{session}");
    model.review.cursor = 0;
    let shown = model.review.visible().len();
    say(
        model,
        format!(
            "{} from run {session}: A, X or D decides them as one batch; f changes the filter",
            folio_core::store::model::count::count(shown, "queued item")
        ),
        false,
    );
    model.review.detail = None;
    select(model)
}

/// `gb`: group by author, then by agent run, then not; the selection stays on its item.
fn group_inbox(model: &mut Model) -> Vec<Job> {
    let selected = model.review.selected().map(|i| i.id.clone());
    model.review.group = match model.review.group {
        None => Some(Grouping::Author),
        Some(Grouping::Author) => Some(Grouping::Session),
        Some(Grouping::Session) => None,
    };
    let visible = model.review.visible();
    let cursor = selected.and_then(|id| visible.iter().position(|i| i.id == id)).unwrap_or(0);
    let groups = model.review.group.map(|by| grouped(&visible, by).len()).unwrap_or(0);
    model.review.cursor = cursor;
    let text = match model.review.group {
        Some(by) => {
            format!(
                "grouped by {}: {}; A, X or D decides the selected item's group",
                by.name(),
                folio_core::store::model::count::count(groups, "group")
            )
        }
        None => "not grouped".to_string(),
    };
    say(model, text, false);
    select(model)
}

pub(super) fn toggle(model: &mut Model) -> Vec<Job> {
    model.review.open = !model.review.open;
    if !model.review.open {
        return Vec::new();
    }
    model.overlays.clear();
    model.filtering = false;
    on_store_changed(model)
}

pub(super) fn move_cursor(model: &mut Model, delta: isize) -> Vec<Job> {
    let n = model.review.visible().len();
    model.review.cursor = model.review.cursor.saturating_add_signed(delta).min(n.saturating_sub(1));
    select(model)
}

/// Ask for the selected item's detail when it is not the one shown.
pub(super) fn select(model: &mut Model) -> Vec<Job> {
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
        Some(s) => vec![Job::Review(Box::new(ReviewJob::Detail(s, Box::new(item))))],
        None => Vec::new(),
    }
}

/// The selected item's entity in the current store (found by id: the store may have moved on).
pub(super) fn selected_target(model: &mut Model) -> Option<EntityIdx> {
    let (id, idx) = model.review.selected().map(|i| (i.id.clone(), i.idx))?;
    let s = model.store.as_ref()?;
    let found = found_again(s, &id, idx);
    if found.is_none() {
        say(model, format!("{id} is no longer in the store"), true);
    }
    found
}

/// What a bulk verdict takes (`ReviewPane::batch`): every shown item, or the selected item's
/// group when the inbox is grouped; found again by id, as the store may have moved on.
pub(super) fn batch_targets(model: &Model) -> Vec<EntityIdx> {
    let Some(s) = model.store.as_ref() else { return Vec::new() };
    model.review.batch().iter().filter_map(|i| found_again(s, &i.id, i.idx)).collect()
}

/// The entity `id` in the store now: at `idx`, its number when the queue was built, while the
/// store has not moved it (the common case, and no lookup: the first `find` on a store just
/// refreshed builds its id index, 100k entries, on the UI thread), else found by id.
fn found_again(s: &folio_core::store::Store, id: &str, idx: EntityIdx) -> Option<EntityIdx> {
    if s.entities.get(idx as usize).is_some_and(|e| e.id == id) {
        return Some(idx);
    }
    s.find(id).filter(|&i| s.entity(i).id == id)
}

/// Approve `targets`. Where their format files approvals under a section
/// (`ReviewRules::approve_filing`: an awareness candidate's, as the framework's
/// `memory promote --kind` asks), one item whose section folio infers goes straight to the
/// confirm dialog, which names the section and changes it with Tab; otherwise folio asks
/// first, and one answer files every target of a bulk approval.
fn approve_or_ask(model: &mut Model, targets: Vec<EntityIdx>) -> Vec<Job> {
    model.review.section = None;
    let Some(filing) = filing_of(model, &targets) else { return plan_job(model, targets, Verdict::approve()) };
    match filing.inferred.as_ref().map(|(i, _)| *i) {
        Some(current) if targets.len() == 1 => {
            let choice = super::super::SectionChoice { targets: targets.clone(), filing, current, promote: false };
            let verdict = choice.verdict();
            model.review.section = Some(choice);
            plan_job(model, targets, verdict)
        }
        _ => {
            let question = question(model, &targets, &filing);
            let kind = PromptKind::ApproveKind { targets, question, filing, then_edit: false };
            model.review.prompt = Some(Prompt { kind, text: String::new() });
            Vec::new()
        }
    }
}

/// Where approving `targets` files them, when their format files approvals under a section.
fn filing_of(model: &Model, targets: &[EntityIdx]) -> Option<folio_core::store::review::filing::Filing> {
    let s = model.store.as_ref()?;
    let rules = s.kind().format().review();
    targets.iter().find_map(|&i| rules.approve_filing(s, i))
}

/// The question that asks for the section: the entry by title (or how many), the choices.
fn question(model: &Model, targets: &[EntityIdx], filing: &folio_core::store::review::filing::Filing) -> String {
    let what = match (targets, model.store.as_ref()) {
        ([one], Some(s)) => super::confirm::named(model, &s.entity(*one).id),
        _ => format!("{} entries", targets.len()),
    };
    format!("file {what} under ({}: a number or a name)", filing.numbered())
}

/// `Tab` in the confirm dialog of an approval that files under a section: the next section,
/// planned again (the dialog reopens with its diff).
pub(super) fn next_section(model: &mut Model) -> Vec<Job> {
    let Some(choice) = model.review.section.as_mut() else {
        say(model, "Tab changes the section an awareness candidate is filed under; this change has none", true);
        return Vec::new();
    };
    choice.current = (choice.current + 1) % choice.filing.choices.len().max(1);
    let (targets, verdict) = (choice.targets.clone(), choice.verdict());
    let section = choice.filing.choices.get(choice.current).map(|c| c.section.clone()).unwrap_or_default();
    model.review.confirm = None;
    say(model, format!("filing under {section}…"), false);
    plan_job(model, targets, verdict)
}

pub(super) fn answer_prompt(model: &mut Model) -> Vec<Job> {
    let Some(p) = model.review.prompt.take() else { return Vec::new() };
    let text = p.text.trim().to_string();
    match p.kind {
        PromptKind::Reviewer { then } => match crate::app::settings::reviewer::actor_from(&text) {
            Some(actor) => {
                model.review.actor = actor.clone();
                let mut jobs = Vec::new();
                match model.review.reviewer_file.clone() {
                    Some(file) => {
                        say(model, format!("reviewing as {actor} (remembered in {})", file.display()), false);
                        jobs.push(Job::RememberReviewer { file, actor });
                    }
                    None => say(model, format!("reviewing as {actor}"), false),
                }
                jobs.extend(super::handle(model, then).unwrap_or_default());
                jobs
            }
            None => {
                say(model, "a reviewer is one name without spaces (ann, or human:ann)", true);
                model.review.prompt = Some(p);
                Vec::new()
            }
        },
        PromptKind::Veto { .. } if text.is_empty() => {
            say(model, "a veto needs a reason", true);
            model.review.prompt = Some(p);
            Vec::new()
        }
        PromptKind::Veto { targets, .. } => {
            let jobs = plan_job(model, targets, Verdict::Veto { reason: text });
            model.review.planning_from_prompt = true;
            jobs
        }
        PromptKind::ApproveKind { ref filing, .. } if filing.pick(&text).is_none() => {
            let choices = filing.numbered();
            say(
                model,
                format!("this approval files the entry under a section: type its number or name ({choices})"),
                true,
            );
            model.review.prompt = Some(p);
            Vec::new()
        }
        PromptKind::ApproveKind { targets, filing, then_edit, .. } => {
            let current = filing.pick(&text).unwrap_or_default();
            let choice = super::super::SectionChoice { targets: targets.clone(), filing, current, promote: false };
            if then_edit {
                model.review.approve_kind = choice.kind().map(str::to_string);
                return open_editor(model, targets.first().copied(), true, false);
            }
            let verdict = choice.verdict();
            model.review.section = Some(choice);
            let effects = plan_job(model, targets, verdict);
            model.review.planning_from_prompt = true;
            effects
        }
        PromptKind::PromoteTo { filing: Some(ref filing), .. } if filing.pick(&text).is_none() => {
            let choices = filing.numbered();
            say(model, format!("promote files the entry under a section: type its number or name ({choices})"), true);
            model.review.prompt = Some(p);
            Vec::new()
        }
        PromptKind::PromoteTo { target, filing: Some(filing) } => {
            let current = filing.pick(&text).unwrap_or_default();
            let choice = super::super::SectionChoice { targets: vec![target], filing, current, promote: true };
            let verdict = choice.verdict();
            model.review.section = Some(choice);
            let jobs = plan_job(model, vec![target], verdict);
            model.review.planning_from_prompt = true;
            jobs
        }
        PromptKind::PromoteTo { target, filing: None } => {
            let jobs = plan_job(model, vec![target], Verdict::Promote { to: (!text.is_empty()).then_some(text) });
            model.review.planning_from_prompt = true;
            jobs
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

pub(super) fn rerank(model: &mut Model) {
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
        p.pairs.clone()
    } else {
        rank::rank(&items, &p.query, PICKER_ROWS).into_iter().map(|(n, _)| items[n].idx).collect()
    };
    p.cursor = 0;
}

pub(super) fn step_picker(model: &mut Model, down: bool) {
    if let Some(p) = model.review.picker.as_mut() {
        let last = p.hits.len().saturating_sub(1);
        p.cursor = if down { (p.cursor + 1).min(last) } else { p.cursor.saturating_sub(1) };
    }
}

pub(super) fn pick_merge_target(model: &mut Model) -> Vec<Job> {
    let Some(p) = model.review.picker.take() else { return Vec::new() };
    let (Some(into), Some(store)) = (p.hits.get(p.cursor).copied(), store(model)) else {
        say(model, "no merge target picked", true);
        return Vec::new();
    };
    vec![Job::Review(Box::new(ReviewJob::OpenMerge { store, from: p.from, into }))]
}

/// Tab: the first item of the next tier below the selected one's, wrapping to the top.
fn next_tier(model: &mut Model) {
    let visible = model.review.visible();
    let Some(cur) = visible.get(model.review.cursor).map(|i| i.priority) else { return };
    let next = visible.iter().position(|i| i.priority > cur).unwrap_or(0);
    model.review.cursor = next;
}
