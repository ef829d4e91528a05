//! A person confirms a possible contradiction (`possible-contradiction` lint finding): both
//! entities say so in the format's own field (`contradicts` in OKF and AIP-10), written like
//! any review decision (one changeset, logged, undoable). From then on the pair is a declared
//! contradiction — the `contradiction` rule and the inbox's reason of that name — and no longer
//! a candidate. Dismissing one instead is remembered in the lint config (`lint::ignore::dismiss`).
use super::plan::Plan;
use super::rules::review_line;
use super::{ReviewError, Reviewer};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;

/// The plan that records `a` and `b` as contradicting each other; refused when the format has
/// no field for it.
pub fn confirm(store: &Store, a: EntityIdx, b: EntityIdx, reviewer: &Reviewer) -> Result<Plan, ReviewError> {
    let (ea, eb) = (store.entity(a), store.entity(b));
    if a == b {
        return Err(ReviewError::refused(format!("`{}` cannot contradict itself", ea.id)));
    }
    let summary = format!("confirmed: `{}` and `{}` contradict each other", ea.id, eb.id);
    let event = review_line(ea, &reviewer.by, summary).entity(&eb.id, &eb.title, &eb.path);
    let mut plan = Plan::new("confirm-contradiction", event, reviewer);
    let rules = store.kind().format().review();
    for (me, other) in [(a, b), (b, a)] {
        if !rules.confirm_contradiction(store, me, other, &mut plan)? {
            return Err(ReviewError::refused(format!(
                "{} has no field for a contradiction; dismiss it or merge the two instead (nothing was written)",
                store.kind()
            )));
        }
    }
    Ok(plan)
}
