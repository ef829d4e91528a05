//! What review decisions write in an OKF bundle (docs/review.md, "Per format"): approve appends a
//! `verified:` stamp (and takes a draft to stable), veto deprecates with a `vetoed:` stamp,
//! promote retypes (or takes a draft to stable).
use serde_json::{Value, json};

use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::model::entity::EntityIdx;
use crate::store::read::frontmatter::Fields;
use crate::store::review::Reason;
use crate::store::review::plan::Plan;
use crate::store::review::rules::{ReviewRules, needs_to, stamp};
use crate::store::review::{ReviewError, Verdict, fields};

pub struct OkfReview;

impl ReviewRules for OkfReview {
    /// A deprecated concept of the same type: OKF readers skip deprecated concepts, and links
    /// into it still resolve.
    fn stub(&self, e: &Entity, why: &str, _at: &str) -> Option<String> {
        let kind = e.kind.as_deref().unwrap_or("Concept");
        let description = format!("Removed from the knowledge base ({why}).");
        let fields = [("type", kind), ("status", "deprecated"), ("description", description.as_str())];
        Some(crate::store::review::stub::page(&e.title, &fields, why, false))
    }

    /// A draft awaits a decision; so does a concept that says it contradicts another
    /// (`contradicts:`), which a person must resolve.
    fn queue_reasons(&self, e: &Entity, f: &Fields) -> Vec<Reason> {
        let mut r = Vec::new();
        let contradicts = match f.get("contradicts") {
            Some(Value::Array(items)) => !items.is_empty(),
            Some(Value::String(s)) => !s.trim().is_empty(),
            Some(Value::Null) | None => false,
            Some(_) => true,
        };
        if contradicts {
            r.push(Reason::Contradiction);
        }
        if e.status.as_deref() == Some("draft") {
            r.push(Reason::Draft);
        }
        r
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        okf(store, idx, verdict, plan)
    }

    /// `contradicts:` names the other concept by id.
    fn confirm_contradiction(
        &self,
        store: &Store,
        idx: EntityIdx,
        other: EntityIdx,
        plan: &mut Plan,
    ) -> Result<bool, ReviewError> {
        let path = store.entity(idx).path.clone();
        fields::append(&mut plan.draft, store, &path, "contradicts", &[json!(store.entity(other).id)])?;
        Ok(true)
    }
}

fn okf(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let path = store.entity(idx).path.clone();
    let draft = &mut plan.draft;
    let f = fields::read(draft, store, &path)?;
    let status = f.get("status").and_then(Value::as_str).map(str::to_string);
    match verdict {
        Verdict::Approve { .. } => {
            fields::append(draft, store, &path, "verified", &[stamp(&plan.reviewer, None)])?;
            if status.as_deref() == Some("draft") {
                fields::set(draft, store, &path, "status", json!("stable"))?;
            }
        }
        Verdict::Veto { reason } => {
            fields::set(draft, store, &path, "status", json!("deprecated"))?;
            fields::set(draft, store, &path, "vetoed", stamp(&plan.reviewer, Some(reason)))?;
        }
        Verdict::Forget => draft.archive(store, &path)?,
        Verdict::Promote { to } => match to {
            Some(kind) => crate::store::review::retype::promote(store, idx, kind, plan)?,
            None if status.as_deref() == Some("draft") => fields::set(draft, store, &path, "status", json!("stable"))?,
            None => return Err(needs_to(store, idx, "a type (--to TYPE)")),
        },
    }
    Ok(())
}
