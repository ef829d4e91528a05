//! Verdicts become plans: a job computes the changeset for the selected item (or every item the
//! bulk filter selects); its outcome opens the confirm dialog (`confirm::show_plan`).
use super::super::effects::Effect;
use super::super::model::Model;
use super::super::review_jobs::Job;
use super::inbox::{selected_target, visible_targets};
use super::{say, store};
use crate::store::model::entity::EntityIdx;
use crate::store::review::Verdict;

pub(super) fn plan_job(model: &mut Model, targets: Vec<EntityIdx>, verdict: Verdict) -> Vec<Effect> {
    model.review.planning_from_prompt = false;
    match store(model) {
        Some(store) if !targets.is_empty() => {
            vec![Effect::Review(Box::new(Job::Plan { store, targets, verdict, by: model.review.actor.clone() }))]
        }
        _ => Vec::new(),
    }
}

pub(super) fn plan_selected(model: &mut Model, verdict: Verdict) -> Vec<Effect> {
    let targets = selected_target(model).into_iter().collect();
    plan_job(model, targets, verdict)
}

pub(super) fn plan_visible(model: &mut Model, verdict: Verdict) -> Vec<Effect> {
    let targets = visible_targets(model);
    if targets.is_empty() {
        say(model, "no queued item matches the filter", true);
        return Vec::new();
    }
    plan_job(model, targets, verdict)
}
