//! The review's confirm dialog: a plan (files, links repointed, notes, the log line, the diff),
//! an undo, or a conflict report; scrolling it, `y` to apply (twice for content with hidden
//! control characters), Esc to cancel.
use std::collections::HashSet;

use super::{say, store};
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::model::Model;
use crate::app::review::jobs::{Planned, ReviewJob};
use crate::app::review::{Confirm, Pending};
use folio_core::store::review::QueueItem;
use folio_core::store::review::queue::Reason;

/// Keys in the review's confirm dialog (it takes every action while open).
pub(super) fn action(model: &mut Model, a: Action) -> Vec<Job> {
    let Some(c) = model.review.confirm.as_mut() else { return Vec::new() };
    match a {
        Action::Down => c.scroll = (c.scroll + 1).min(c.lines.len().saturating_sub(1)),
        Action::Up => c.scroll = c.scroll.saturating_sub(1),
        Action::PageDown | Action::HalfPageDown => c.scroll = (c.scroll + 10).min(c.lines.len().saturating_sub(1)),
        Action::PageUp | Action::HalfPageUp => c.scroll = c.scroll.saturating_sub(10),
        Action::Close => {
            let cancelled = !matches!(c.pending, Pending::Nothing);
            model.review.confirm = None;
            model.review.section = None;
            if cancelled {
                say(model, "cancelled; nothing was written", false);
            }
        }
        Action::LeaveStubs => return super::plan::plan_with_stubs(model),
        Action::NextSection => return super::inbox::next_section(model),
        Action::Confirm if c.needs_second => {
            c.needs_second = false;
            c.title = format!("⚠ SECOND CONFIRMATION — {}", c.title);
            say(model, "the content holds hidden control characters: press y again to approve it", true);
        }
        Action::Confirm => {
            let Some(c) = model.review.confirm.take() else { return Vec::new() };
            model.review.section = None;
            let Some(store) = store(model) else { return Vec::new() };
            return match c.pending {
                Pending::Plan(plan) => {
                    model.review.last_decided = plan.decisions.first().map(|d| d.entity.clone());
                    // The write runs in the background; until its outcome replaces this line the
                    // status says what it waits for (a database may wait on an agent's lock until
                    // its statement limit, which the refusal then names).
                    let waiting = if store.kind().spec().store_is_folder {
                        "writing…"
                    } else {
                        "waiting for the database to commit…"
                    };
                    say(model, waiting, false);
                    let catalog = crate::app::tree::built::catalog(model);
                    vec![Job::Review(Box::new(ReviewJob::Apply { store, plan, catalog }))]
                }
                Pending::Undo(at) => {
                    // The item the undone verdict decided on comes back: the cursor goes to it.
                    model.review.reselect = model.review.last_decided.take();
                    let (by, catalog) = (model.review.actor.clone(), crate::app::tree::built::catalog(model));
                    vec![Job::Review(Box::new(ReviewJob::Undo { store, by, at, catalog }))]
                }
                Pending::Nothing => Vec::new(),
            };
        }
        _ => {}
    }
    Vec::new()
}

/// The confirm dialog for a plan: the entities, files, inbound references (and those left
/// broken), links repointed, notes, catalogs regenerated, the log's exact new bytes, then the
/// diff of every file and catalog.
pub(super) fn show_plan(model: &mut Model, planned: Box<Planned>) {
    let Planned { plan, impact, preview } = *planned;
    let plan = Box::new(plan);
    let mut lines = Vec::new();
    let n = plan.decisions.len();
    let archived: Vec<&str> = plan.draft.archived().iter().map(|(p, _)| *p).collect();
    let moves = plan.draft.moves();
    let files = plan.draft.changed_paths();
    // A bulk verdict names every entity it decides on, by title, before the files they live in.
    if n > 1 {
        lines.push(format!("{n} entities:"));
        lines.extend(plan.decisions.iter().map(|d| format!("  {}", named(model, &d.entity))));
    }
    // What the verdict does to review state (a merge approves its target) comes first.
    lines.extend(plan.review_state.iter().cloned());
    lines.extend(section_lines(model, &plan));
    let change = if files.len() == 1 { "changes" } else { "change" };
    lines.push(format!("{} {change}:", plural(files.len(), "file")));
    for f in &files {
        let how = match moves.iter().find(|(from, _)| from == f) {
            Some((_, to)) => format!("  (moves to {to})"),
            None if archived.contains(f) => "  (archived in the folio state)".into(),
            None => String::new(),
        };
        lines.push(format!("  {f}{how}"));
    }
    lines.extend(impact.lines());
    if !impact.broken.is_empty() && matches!(plan.verb.as_str(), "veto" | "forget") {
        lines.push(
            "  y: go ahead and let them break · s: leave a stub in its place instead · n, then m: merge it into another entity (repoints them)"
                .into(),
        );
    }
    if !plan.repointed.is_empty() {
        lines.push(format!("{} repointed:", plural(plan.repointed.len(), "link")));
        lines.extend(plan.repointed.iter().map(|r| format!("  {r}")));
    }
    lines.extend(plan.notes.iter().map(|n| format!("note: {n}")));
    lines.push(format!("log: {} by {}: {}", plan.event.verb, plan.event.by, plan.event.summary));
    lines.extend(preview.lines());
    lines.push(String::new());
    lines.extend(plan.diff().lines().map(str::to_string));
    lines.extend(preview.catalog_diff().lines().map(str::to_string));
    let flagged: HashSet<&str> =
        model.review.items.iter().filter(|i| i.hidden_content).map(|i| i.id.as_str()).collect();
    let approving = matches!(plan.verb.as_str(), "approve" | "promote" | "merge");
    let hidden = approving && plan.decisions.iter().any(|d| flagged.contains(d.entity.as_str()));
    // Approving items lint reports errors on: said first, and in bulk confirmed twice.
    let erring: Vec<&QueueItem> = if approving {
        let ids: HashSet<&str> = plan.decisions.iter().map(|d| d.entity.as_str()).collect();
        // The few items with errors first: hashing every id of a 100k-item inbox took 20 ms of
        // the UI thread for each verdict's dialog.
        model.review.items.iter().filter(|i| has_errors(i) && ids.contains(i.id.as_str())).collect()
    } else {
        Vec::new()
    };
    let mut warnings = Vec::new();
    if hidden {
        warnings.push("⚠ hidden control characters: approving needs a second confirmation (y, then y)".to_string());
    }
    if !erring.is_empty() {
        let second = if n > 1 { ": a second confirmation is needed (y, then y)" } else { "" };
        let of = if n > 1 { format!(" of these {n}") } else { String::new() };
        warnings.push(format!("⚠ {}{of} {} lint errors{second}", plural(erring.len(), "item"), has(erring.len())));
        for i in &erring {
            let why = if i.findings.is_empty() { "lint-error".to_string() } else { i.findings.join("; ") };
            warnings.push(format!("⚠   {}: {why}", named(model, &i.id)));
        }
    }
    let needs_second = hidden || (n > 1 && !erring.is_empty());
    lines.splice(0..0, warnings);
    let title = match plan.decisions.as_slice() {
        [one] => format!("{} {}?", plan.verb, named(model, &one.entity)),
        // A merge's decisions are its source, then its target.
        [from, into] if plan.verb == "merge" => {
            format!("merge {} into {}?", named(model, &from.entity), named(model, &into.entity))
        }
        _ => format!("{} {n} entities?", plan.verb),
    };
    let after_prompt = std::mem::take(&mut model.review.planning_from_prompt);
    model.review.confirm =
        Some(Confirm { title, lines, pending: Pending::Plan(plan), needs_second, scroll: 0, after_prompt });
}

/// An entity as a dialog names it: its title, then its id (alone when it has no other title).
pub(super) fn named(model: &Model, id: &str) -> String {
    let title = model
        .store
        .as_ref()
        .and_then(|s| s.find(id).filter(|&i| s.entity(i).id == id).map(|i| s.entity(i).title.clone()))
        .filter(|t| !t.trim().is_empty() && t != id);
    match title {
        Some(t) => format!("{t} ({id})"),
        None => id.to_string(),
    }
}

/// Whether lint reports an error on the item.
/// An approval that files its entry under a section: which one, why, and the others (Tab).
fn section_lines(model: &Model, plan: &folio_core::store::review::Plan) -> Vec<String> {
    let Some(choice) = model.review.section.as_ref() else { return Vec::new() };
    // Only in the dialog of the verdict the choice planned (not a later veto's, say).
    let planned = model
        .review
        .last_request
        .as_ref()
        .is_some_and(|(targets, v)| *targets == choice.targets && *v == choice.verdict());
    if !planned || !matches!(plan.verb.as_str(), "approve" | "promote") {
        return Vec::new();
    }
    let Some(now) = choice.filing.choices.get(choice.current) else { return Vec::new() };
    let why = match &choice.filing.inferred {
        Some((i, why)) if *i == choice.current => format!("inferred: {why}"),
        Some((i, _)) => format!("chosen; folio inferred {}", choice.filing.choices[*i].section),
        None => "chosen".to_string(),
    };
    vec![
        format!("files under: ## {} ({why})", now.section),
        format!("  Tab: the next section ({})", choice.filing.numbered()),
    ]
}

fn has_errors(item: &QueueItem) -> bool {
    item.reasons.contains(&Reason::LintError)
}

/// `1 item`, `2 items`.
pub(super) fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

fn has(n: usize) -> &'static str {
    if n == 1 { "has" } else { "have" }
}
