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

    /// Human-reviewed (v0.2 §5.3): a `verified` entry by a `human:` actor (§7) dated at or
    /// after the content's last meaningful change (`generated.at`, §5.2; v0.1's `timestamp`).
    fn reviewed_in_fields(&self, _e: &Entity, f: &Fields) -> bool {
        human_reviewed(f)
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

/// Whether a `human:` verification is dated at or after the last change. A bare `verified`
/// mapping is a one-element list (§5.2); an entry whose `at` is no ISO 8601 instant does not
/// count, and without a change date no verification can be said to cover the text as it stands.
pub fn human_reviewed(f: &Fields) -> bool {
    let instant = |v: Option<&Value>| v.and_then(Value::as_str).and_then(crate::store::model::timestamp::parse_instant);
    let Some(changed) =
        instant(f.get("generated").and_then(|g| g.get("at"))).or_else(|| instant(f.get("timestamp")))
    else {
        return false;
    };
    let entries: &[Value] = match f.get("verified") {
        Some(Value::Array(items)) => items,
        Some(one @ Value::Object(_)) => std::slice::from_ref(one),
        _ => &[],
    };
    entries.iter().any(|v| {
        let by_human = v.get("by").and_then(Value::as_str).is_some_and(|by| by.trim().starts_with("human:"));
        by_human && instant(v.get("at")).is_some_and(|at| at >= changed)
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(yaml: &str) -> Fields {
        crate::store::read::frontmatter::parse_yaml(yaml).unwrap()
    }

    #[test]
    fn a_human_verification_after_the_last_change_is_a_review() {
        // acme_retail's metrics/gross-margin.md.
        let acme = "generated: { by: reference_agent/gemini-2.5-pro, at: 2026-06-30T14:00:00Z }\n\
                    verified:\n  - { by: human:jsmith@acme, at: 2026-07-01T09:00:00Z }\n";
        assert!(human_reviewed(&fields(acme)));
        // The same instant as the change, a bare mapping, a v0.1 `timestamp`.
        assert!(human_reviewed(&fields("generated: {by: h, at: 2024-01-15T10:00:00Z}\nverified: {by: human:a, at: 2024-01-15T10:00:00Z}\n")));
        assert!(human_reviewed(&fields("timestamp: '2026-05-28T22:53:05+00:00'\nverified: [{by: human:a, at: 2026-06-01}]\n")));
        // Changed after the review; no change date; a machine's confirmation; no date; none.
        let later = "generated: {by: agent/x, at: 2026-07-02T00:00:00Z}\nverified: [{by: human:a, at: 2026-07-01T09:00:00Z}]\n";
        assert!(!human_reviewed(&fields(later)));
        assert!(!human_reviewed(&fields("verified: [{by: human:a, at: 2026-06-01T00:00:00Z}]\n")));
        let at = "generated: {by: agent/x, at: 2026-06-01T00:00:00Z}\n";
        assert!(!human_reviewed(&fields(&format!("{at}verified: [{{by: process:nightly, at: 2026-07-01T09:00:00Z}}]\n"))));
        assert!(!human_reviewed(&fields(&format!("{at}verified: [{{by: human:a}}]\n"))));
        assert!(!human_reviewed(&fields("generated: {by: human:a, at: 2026-07-01T09:00:00Z}\n")));
    }
}
