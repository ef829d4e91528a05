//! What review decisions write in an opendray brain: approve takes a candidate to fact and a
//! pending item to active, veto records `provenance.veto` (a vetoed promotion falls back),
//! promote climbs the maturity ladder, a merge leaves `provenance.merged_from`.
use serde_json::{Value, json};

use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::model::entity::EntityIdx;
use crate::store::read::frontmatter::{self, Fields};
use crate::store::review::Reason;
use crate::store::review::plan::Plan;
use crate::store::review::rules::{ReviewRules, needs_to, stamp};
use crate::store::review::{ReviewError, Verdict, fields};

pub struct OpendrayReview;

impl ReviewRules for OpendrayReview {
    fn queue_reasons(&self, _e: &Entity, f: &Fields) -> Vec<Reason> {
        let mut r = Vec::new();
        if f.get("maturity").map(frontmatter::scalar_text).as_deref() == Some("candidate") {
            r.push(Reason::Candidate);
        }
        if lifecycle(f) == Some("pending-review") {
            r.push(Reason::PendingReview);
        }
        r
    }

    fn inactive(&self, f: &Fields) -> bool {
        lifecycle(f) == Some("vetoed")
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        opendray(store, idx, verdict, plan)
    }

    fn merge_trail(&self, store: &Store, path: &str, trail: Value, plan: &mut Plan) -> Result<(), ReviewError> {
        let f = fields::read(&mut plan.draft, store, path)?;
        let merged = f.get("provenance").and_then(|p| p.get("merged_from")).cloned();
        let mut pf = f.clone();
        pf.insert("merged_from".into(), merged.unwrap_or(Value::Null));
        let list = fields::with_items(&pf, "merged_from", &[trail]);
        let p = fields::with_entry(&f, "provenance", "merged_from", list);
        fields::set(&mut plan.draft, store, path, "provenance", p)
    }
}

/// The maturity ladder opendray promotes along.
const MATURITY: &[&str] = &["candidate", "fact", "playbook", "skill"];

fn opendray(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let path = store.entity(idx).path.clone();
    let draft = &mut plan.draft;
    let f = fields::read(draft, store, &path)?;
    let maturity = f.get("maturity").and_then(Value::as_str).map(str::to_string);
    let lifecycle = fields::nested_str(&f, "provenance", "lifecycle");
    match verdict {
        Verdict::Approve { .. } => {
            if maturity.as_deref() == Some("candidate") {
                fields::set(draft, store, &path, "maturity", json!("fact"))?;
            }
            if lifecycle.as_deref() == Some("pending-review") {
                let p = fields::with_entry(&f, "provenance", "lifecycle", json!("active"));
                fields::set(draft, store, &path, "provenance", p)?;
            }
        }
        Verdict::Veto { reason } => {
            let p = fields::with_entry(&f, "provenance", "lifecycle", json!("vetoed"));
            let mut pf = f.clone();
            pf.insert("provenance".into(), p);
            let p = fields::with_entry(&pf, "provenance", "veto", stamp(&plan.reviewer, Some(reason)));
            fields::set(draft, store, &path, "provenance", p)?;
            // A vetoed promotion falls back to the maturity it was promoted from.
            if let Some(prev) = fields::nested_str(&f, "provenance", "promoted_from") {
                fields::set(draft, store, &path, "maturity", json!(prev))?;
            }
        }
        Verdict::Forget => draft.archive(store, &path)?,
        Verdict::Promote { to } => {
            let current = maturity.clone().unwrap_or_else(|| "fact".into());
            let next = match to {
                Some(t) => t.clone(),
                None => match MATURITY.iter().position(|m| *m == current) {
                    Some(i) if i + 1 < MATURITY.len() => MATURITY[i + 1].to_string(),
                    _ => return Err(needs_to(store, idx, "a maturity beyond `skill` (--to LEVEL)")),
                },
            };
            fields::set(draft, store, &path, "maturity", json!(next))?;
            let p = fields::with_entry(&f, "provenance", "promoted_from", json!(current));
            fields::set(draft, store, &path, "provenance", p)?;
        }
    }
    Ok(())
}

/// `provenance.lifecycle`, opendray's review state.
fn lifecycle(f: &Fields) -> Option<&str> {
    f.get("provenance").and_then(|p| p.get("lifecycle")).and_then(Value::as_str)
}
