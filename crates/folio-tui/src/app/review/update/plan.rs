//! Verdicts become plans: a job computes the changeset for the selected item (or every item the
//! bulk filter selects); its outcome opens the confirm dialog (`confirm::show_plan`).
use super::inbox::{batch_targets, selected_target};
use super::{say, store};
use crate::app::jobs::Job;
use crate::app::model::Model;
use crate::app::review::jobs::ReviewJob;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::review::Verdict;

pub(super) fn plan_job(model: &mut Model, targets: Vec<EntityIdx>, verdict: Verdict) -> Vec<Job> {
    model.review.planning_from_prompt = false;
    match store(model) {
        Some(store) if !targets.is_empty() => {
            model.review.last_request = Some((targets.clone(), verdict.clone()));
            let by = model.review.actor.clone();
            vec![Job::Review(Box::new(ReviewJob::Plan { store, targets, verdict, by, stubs: false }))]
        }
        _ => Vec::new(),
    }
}

pub(super) fn plan_selected(model: &mut Model, verdict: Verdict) -> Vec<Job> {
    let targets = selected_target(model).into_iter().collect();
    plan_job(model, targets, verdict)
}

/// Baseline every shown item (hidden content held back): the confirm dialog counts them.
pub(super) fn plan_baseline(model: &mut Model) -> Vec<Job> {
    let Some(s) = store(model) else { return Vec::new() };
    let shown = model.review.visible();
    let held_back = shown.iter().filter(|i| i.hidden_content).count();
    // Found again by id: the store may have moved on since the inbox was built.
    let targets: Vec<EntityIdx> = shown
        .iter()
        .filter(|i| !i.hidden_content)
        .filter_map(|i| s.find(&i.id).filter(|&x| s.entity(x).id == i.id))
        .collect();
    if targets.is_empty() {
        say(model, "nothing to baseline: no shown item without hidden content", true);
        return Vec::new();
    }
    let selection = folio_core::store::review::baseline::Selection { targets, held_back };
    let scope = model.review.filter.clone();
    model.review.planning_from_prompt = false;
    vec![Job::Review(Box::new(ReviewJob::Baseline { store: s, selection, scope, by: model.review.actor.clone() }))]
}

pub(super) fn plan_visible(model: &mut Model, verdict: Verdict) -> Vec<Job> {
    let targets = batch_targets(model);
    if targets.is_empty() {
        say(model, "no queued item matches the filter", true);
        return Vec::new();
    }
    plan_job(model, targets, verdict)
}

/// `s` in a veto's or forget's dialog: plan it again, leaving a stub where each removed file
/// was, so the links into it keep resolving.
pub(super) fn plan_with_stubs(model: &mut Model) -> Vec<Job> {
    let Some((targets, verdict)) = model.review.last_request.clone() else { return Vec::new() };
    if !matches!(verdict, Verdict::Veto { .. } | Verdict::Forget) {
        say(model, "only a veto or forget that takes a file away can leave a stub", true);
        return Vec::new();
    }
    let Some(store) = store(model) else { return Vec::new() };
    model.review.confirm = None;
    let by = model.review.actor.clone();
    say(model, "planning it again with a stub in place of each removed file…", false);
    vec![Job::Review(Box::new(ReviewJob::Plan { store, targets, verdict, by, stubs: true }))]
}
