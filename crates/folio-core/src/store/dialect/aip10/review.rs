//! What review decisions write in an AIP-10 workspace: `updated_at` on every write, approve
//! over a contradiction supersedes it (or keeps both under folio's vendor key), veto archives a
//! playbook or records the veto under `metadata.folio`, `sources/` are never written.
use serde_json::{Value, json};

use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::model::entity::EntityIdx;
use crate::store::model::entity::rule;
use crate::store::read::frontmatter::{self, Fields};
use crate::store::review::Reason;
use crate::store::review::plan::Plan;
use crate::store::review::rules::{ReviewRules, needs_to, stamp};
use crate::store::review::{ReviewError, Verdict, fields};

pub struct Aip10Review;

impl ReviewRules for Aip10Review {
    /// A `knowledge.entry/v1` page of the same slug and kind, marked archived and stamped with
    /// `updated_at` as every AIP-10 write is.
    fn stub(&self, e: &Entity, why: &str, at: &str) -> Option<String> {
        let mut fields = vec![("schema", "knowledge.entry/v1"), ("slug", e.id.as_str())];
        if let Some(kind) = e.kind.as_deref() {
            fields.push(("kind", kind));
        }
        fields.extend([("status", "archived"), ("updated_at", at)]);
        Some(crate::store::review::stub::page(&e.title, &fields, why, false))
    }

    fn queue_reasons(&self, e: &Entity, f: &Fields) -> Vec<Reason> {
        let mut r = Vec::new();
        // A contradiction a person chose to keep both sides of is no longer open.
        let kept = f.get("metadata").and_then(|m| m.get("folio")).and_then(|m| m.get("kept_both"));
        let kept = kept.and_then(Value::as_object).map(|k| frontmatter::get_list(k, "with")).unwrap_or_default();
        if frontmatter::get_list(f, "contradicts").iter().any(|c| !kept.contains(c)) {
            r.push(Reason::Contradiction);
        }
        if e.problems.iter().any(|p| p.rule == rule::LOW_CONFIDENCE) {
            r.push(Reason::LowConfidence);
        }
        if f.get("status").map(frontmatter::scalar_text).as_deref() == Some("shadow") {
            r.push(Reason::ShadowPlaybook);
        }
        r
    }

    /// A page folio vetoed carries the veto under its vendor key.
    fn inactive(&self, f: &Fields) -> bool {
        f.get("metadata").and_then(|m| m.get("folio")).and_then(|m| m.get("vetoed")).is_some()
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        aip10(store, idx, verdict, plan)
    }

    /// INTO supersedes what it absorbed, and is stamped like every AIP-10 write.
    fn merge_trail(&self, store: &Store, path: &str, trail: Value, plan: &mut Plan) -> Result<(), ReviewError> {
        fields::append(&mut plan.draft, store, path, "supersedes", &[trail])?;
        fields::set(&mut plan.draft, store, path, "updated_at", json!(plan.reviewer.timestamp()))
    }

    fn touched_by_merge(&self, store: &Store, path: &str, plan: &mut Plan) -> Result<(), ReviewError> {
        fields::set(&mut plan.draft, store, path, "updated_at", json!(plan.reviewer.timestamp()))
    }

    /// `_log.md` bullets name both slugs, and the removal with its reason.
    fn merge_event(&self, a: &Entity, b: &Entity, plan: &mut Plan) {
        plan.event.bullets = vec![
            format!(
                "Merged [[{}]] into [[{}]], which supersedes it; {} repointed.",
                a.id,
                b.id,
                crate::store::model::count::count(plan.repointed.len(), "link")
            ),
            format!("Removed {}: merged into [[{}]] (kept in folio's archive).", a.path, b.id),
            format!("{} (by {}).", plan.event.summary, plan.reviewer.by),
        ];
    }

    /// `contradicts:` names the other page by slug; every write stamps `updated_at`.
    fn confirm_contradiction(
        &self,
        store: &Store,
        idx: EntityIdx,
        other: EntityIdx,
        plan: &mut Plan,
    ) -> Result<bool, ReviewError> {
        let path = store.entity(idx).path.clone();
        fields::append(&mut plan.draft, store, &path, "contradicts", &[json!(store.entity(other).id)])?;
        fields::set(&mut plan.draft, store, &path, "updated_at", json!(plan.reviewer.timestamp()))?;
        Ok(true)
    }
}

fn aip10(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    let path = e.path.clone();
    if path.starts_with("sources/") {
        return Err(ReviewError::refused(format!("{path}: sources are immutable in AIP-10; folio never writes there")));
    }
    let now = json!(plan.reviewer.timestamp());
    let f = fields::read(&mut plan.draft, store, &path)?;
    let status = f.get("status").and_then(Value::as_str).map(str::to_string);
    // AIP-12 playbooks carry a lifecycle `status` (shadow, active); pages do not.
    let is_playbook = e.kind.as_deref().is_some_and(|k| k.eq_ignore_ascii_case("playbook"))
        || matches!(status.as_deref(), Some("shadow" | "active"));
    let draft = &mut plan.draft;
    match verdict {
        Verdict::Approve { over, .. } => {
            if status.as_deref() == Some("shadow") {
                fields::set(draft, store, &path, "status", json!("active"))?;
            }
            let contradicts = crate::store::read::frontmatter::get_list(&f, "contradicts");
            if let Some(loser) = over {
                let l = store.find(loser).ok_or_else(|| ReviewError::refused(format!("no entity `{loser}`")))?;
                let loser_slug = store.entity(l).id.clone();
                fields::append(draft, store, &path, "supersedes", &[json!(loser_slug)])?;
                fields::remove(draft, store, &path, "contradicts")?;
                let lpath = store.entity(l).path.clone();
                fields::remove(draft, store, &lpath, "contradicts")?;
                fields::set(draft, store, &lpath, "updated_at", now.clone())?;
                plan.event
                    .bullets
                    .push(format!("[[{}]] supersedes [[{loser_slug}]]; `contradicts` cleared on both.", e.id));
            } else if !contradicts.is_empty() {
                // Keep-both (AIP-10 `conflictResolution: keep-both`): both claims stay, each
                // with its `contradicts`; the decision is recorded under folio's vendor key.
                let kept = json!({"with": contradicts, "by": plan.reviewer.by, "at": plan.reviewer.timestamp()});
                let meta = f.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
                let folio = fields::with_entry(&path, &meta, "folio", "kept_both", kept)?;
                fields::set(draft, store, &path, "metadata", fields::with_entry(&path, &f, "metadata", "folio", folio)?)?;
                let others: Vec<String> = contradicts.iter().map(|c| format!("[[{c}]]")).collect();
                plan.event.bullets.push(format!(
                    "Kept both claims: [[{}]] contradicts {} (keep-both; `contradicts` stays).",
                    e.id,
                    others.join(", ")
                ));
            }
        }
        Verdict::Veto { .. } if is_playbook => fields::set(draft, store, &path, "status", json!("archived"))?,
        Verdict::Veto { reason } => {
            let folio = fields::with_entry(&path, &f.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default(),
                "folio",
                "vetoed",
                stamp(&plan.reviewer, Some(reason)),
            )?;
            let metadata = fields::with_entry(&path, &f, "metadata", "folio", folio)?;
            fields::set(draft, store, &path, "metadata", metadata)?;
        }
        Verdict::Forget => {
            draft.archive(store, &path)?;
            // AIP-10: a removal is logged with its reason.
            plan.event.bullets.push(format!(
                "Removed {path}: forgotten by a reviewer, no verdict on its truth (kept in folio's archive)."
            ));
            return Ok(());
        }
        Verdict::Promote { to } => match (to, status.as_deref()) {
            (Some(kind), _) => fields::set(draft, store, &path, "kind", json!(kind))?,
            (None, Some("shadow")) => fields::set(draft, store, &path, "status", json!("active"))?,
            (None, _) => return Err(needs_to(store, idx, "a kind (--to KIND)")),
        },
    }
    fields::set(draft, store, &path, "updated_at", now)
}
