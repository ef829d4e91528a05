//! What review decisions write in an evolve store: every verdict is a `review` line with the
//! content hash in the audit log; a vetoed guideline leaves the recalled `entities/` tree.
use serde_json::json;

use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::frontmatter::{self, Fields};
use crate::store::review::Reason;
use crate::store::review::plan::Plan;
use crate::store::review::rules::{ReviewRules, log_only, review_line};
use crate::store::review::{ReviewError, Verdict};

pub struct EvolveReview;

impl ReviewRules for EvolveReview {
    fn queue_reasons(&self, _e: &Entity, f: &Fields) -> Vec<Reason> {
        let flagged = f.get("retention_flagged_at").map(frontmatter::scalar_text).unwrap_or_default();
        if flagged.is_empty() { Vec::new() } else { vec![Reason::RetentionFlagged] }
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        evolve(store, idx, verdict, plan)
    }

    fn log_verb(&self, _verdict: &Verdict) -> &'static str {
        "review"
    }

    fn logs_hashes(&self) -> bool {
        true
    }

    /// `{"event": "review", "verdict": "merge", "entity": A, "hash", …}`.
    fn merge_event(&self, a: &Entity, b: &Entity, plan: &mut Plan) {
        let mut ev = review_line(a, &plan.reviewer.by, plan.event.summary.clone())
            .detail("verdict", "merge")
            .detail("into", b.id.clone())
            .detail("hash", plan.decisions[0].hash_before.clone());
        ev.details.insert("repointed".into(), json!(plan.repointed.len()));
        plan.event = ev;
    }
}

fn evolve(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    match verdict {
        // evolve recalls every file under `entities/`: a vetoed guideline leaves that tree.
        Verdict::Veto { .. } => {
            let to = crate::store::dialect::evolve::vetoed::path(&store.root, &e.id);
            plan.draft.move_to(store, &e.path.clone(), &to)
        }
        _ => log_only(store, idx, verdict, plan),
    }
}
