//! What review decisions write in an evolve store: every verdict is a `review` line with the
//! content hash in the audit log; a vetoed guideline leaves the recalled `entities/` tree.
use serde_json::{Value, json};

use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::frontmatter::{self, Fields};
use crate::store::review::Reason;
use crate::store::review::ledger::VerdictRecord;
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

    /// evolve's review rows speak in the past tense (`"verdict": "approved"`).
    fn verdict_word(&self, verdict: &Verdict) -> &'static str {
        match verdict {
            Verdict::Approve { .. } => "approved",
            Verdict::Veto { .. } => "vetoed",
            Verdict::Forget => "forgotten",
            Verdict::Promote { .. } => "promoted",
        }
    }

    fn logged_verdicts(&self, store: &Store) -> Vec<VerdictRecord> {
        let Some(path) = self.logged_verdicts_file(&store.root) else { return Vec::new() };
        review_rows(&std::fs::read_to_string(path).unwrap_or_default())
    }

    fn logged_verdicts_file(&self, root: &std::path::Path) -> Option<std::path::PathBuf> {
        crate::store::dialect::evolve::audit::path_for(root)
    }

    fn logs_hashes(&self) -> bool {
        true
    }

    /// `{"event": "review", "verdict": "merged", "entity": A, "hash", …}`.
    fn merge_event(&self, a: &Entity, b: &Entity, plan: &mut Plan) {
        let mut ev = review_line(a, &plan.reviewer.by, plan.event.summary.clone())
            .detail("verdict", "merged")
            .detail("into", b.id.clone())
            .detail("hash", plan.decisions[0].hash_before.clone());
        ev.details.insert("repointed".into(), json!(plan.repointed.len()));
        plan.event = ev;
    }
}

/// The review rows of an evolve audit log as verdicts (either tense), oldest first; an
/// `undo` row naming entities takes their earlier rows back.
fn review_rows(log: &str) -> Vec<VerdictRecord> {
    let mut out: Vec<VerdictRecord> = Vec::new();
    for row in log.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let text = |k: &str| row.get(k).and_then(Value::as_str).map(str::to_string);
        match text("event").as_deref() {
            Some("undo") => {
                let mut undone: Vec<String> = text("entity").into_iter().collect();
                if let Some(Value::Array(list)) = row.get("entities") {
                    undone.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
                }
                // The newest row of each entity is the one undone.
                for id in undone {
                    if let Some(i) = out.iter().rposition(|r| r.entity == id) {
                        out.remove(i);
                    }
                }
            }
            Some("review") => {
                let verdict = match text("verdict").as_deref() {
                    Some("approved" | "approve") => "approve",
                    Some("vetoed" | "veto") => "veto",
                    Some("forgotten" | "forget") => "forget",
                    Some("promoted" | "promote") => "promote",
                    Some("merged" | "merge") => "merged",
                    _ => continue,
                };
                let (Some(entity), Some(hash)) = (text("entity"), text("hash")) else { continue };
                out.push(VerdictRecord {
                    entity,
                    verdict: verdict.into(),
                    hash,
                    by: text("by").unwrap_or_default(),
                    ts: text("ts").unwrap_or_default(),
                    after: None,
                    changeset: None,
                    // A log row has no causal trail: it follows every verdict before it.
                    seen: None,
                });
            }
            _ => {}
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn review_rows_in_either_tense_less_the_undone() {
        let log = r#"{"event": "review", "verdict": "approved", "entity": "g/a", "hash": "sha256:1", "by": "human:m", "ts": "t"}
{"event":"review","verdict":"veto","entity":"g/b","hash":"sha256:2","by":"human:n","ts":"t"}
{"event":"undo","entities":["g/b"],"by":"human:n","summary":"undid review","ts":"t"}
{"event": "influence", "entity": "g/a", "verdict": "followed", "ts": "t"}
"#;
        let rows = review_rows(log);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].entity.as_str(), rows[0].verdict.as_str(), rows[0].hash.as_str()),
            ("g/a", "approve", "sha256:1")
        );
    }
}
