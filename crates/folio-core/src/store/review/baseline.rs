//! Baseline: adopt a store as it stands. Every matching inbox item's current text is recorded
//! in folio's review ledger as reviewed (`baseline`, an approval) without rewriting any store
//! file; the store's own log gets one event for all of them. Afterwards only what agents change
//! or add enters the inbox. Content with hidden control characters is never baselined: it
//! stays in the inbox for a person to look at.
use super::plan::{Decision, Plan};
use super::queue::QueueItem;
use super::{ReviewError, Reviewer};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::write::audit::AuditEvent;

/// The verdict word in the ledger (an approval: `ledger::is_approval`).
pub const VERDICT: &str = super::ledger::BASELINE;

/// What a baseline over some inbox items would record, and what it leaves in the inbox.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub targets: Vec<EntityIdx>,
    /// Items held back for their hidden content.
    pub held_back: usize,
}

/// The items a baseline takes (the preview's count comes from here).
pub fn select<'a>(items: impl IntoIterator<Item = &'a QueueItem>) -> Selection {
    let mut s = Selection::default();
    for i in items {
        if i.hidden_content {
            s.held_back += 1;
        } else {
            s.targets.push(i.idx);
        }
    }
    s
}

/// One log-only changeset recording `targets` as reviewed as they stand. `scope` names the
/// filter the targets came from (empty: the whole inbox), for the log.
pub fn plan(store: &Store, selection: &Selection, reviewer: &Reviewer, scope: &str) -> Result<Plan, ReviewError> {
    let targets = &selection.targets;
    if targets.is_empty() {
        return Err(ReviewError::refused("nothing in the inbox to baseline"));
    }
    let scope = if scope.trim().is_empty() { "the inbox".to_string() } else { format!("`{}`", scope.trim()) };
    let summary = format!("baseline: {} entities of {scope} recorded as reviewed as they stand", targets.len());
    // One event for all: a store of thousands is not logged entity by entity.
    let event = AuditEvent::new(VERDICT, &reviewer.by, summary).detail("count", targets.len());
    let mut plan = Plan::new(VERDICT, event, reviewer);
    plan.notes.push("no store file is rewritten: folio's review ledger records each text as reviewed".into());
    if selection.held_back > 0 {
        plan.notes.push(format!("{} items with hidden content stay in the inbox", selection.held_back));
    }
    for &idx in targets {
        let e = store.entity(idx);
        let text = store.read_entity_text(idx).map_err(|err| ReviewError::refused(err.to_string()))?;
        plan.decisions.push(Decision {
            entity: e.id.clone(),
            verdict: VERDICT.to_string(),
            hash_before: crate::store::model::digest::of(text.as_bytes()),
            renamed_to: None,
        });
    }
    Ok(plan)
}
