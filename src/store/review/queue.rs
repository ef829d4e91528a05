//! The review queue (REVIEW.md "The review queue"): what the dialect marks as awaiting a
//! decision, what changed since its last approval, and what was never reviewed — each item
//! with its reasons, kind, age, author, evidence, lint findings and hidden-content warning.
use serde::Serialize;
use serde_json::Value;

use super::diff;
use super::ledger::{Ledger, is_approval};
use crate::store::dialect::DialectKind;
use crate::store::lint::{self, LintConfig};
use crate::store::model::entity::{EntityIdx, rule};
use crate::store::read::frontmatter::{self, Fields};
use crate::store::{Store, model::digest};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    Draft,
    Candidate,
    ShadowPlaybook,
    Contradiction,
    LowConfidence,
    PendingReview,
    ChangedSinceApproval,
    NeverReviewed,
    RetentionFlagged,
    PromotionCandidate,
    /// Find by content: the body nearly repeats another entity's (lint `near-duplicate`).
    NearDuplicate,
}

impl Reason {
    pub fn code(self) -> &'static str {
        match self {
            Reason::Draft => "draft",
            Reason::Candidate => "candidate",
            Reason::ShadowPlaybook => "shadow-playbook",
            Reason::Contradiction => "contradiction",
            Reason::LowConfidence => "low-confidence",
            Reason::PendingReview => "pending-review",
            Reason::ChangedSinceApproval => "changed-since-approval",
            Reason::NeverReviewed => "never-reviewed",
            Reason::RetentionFlagged => "retention-flagged",
            Reason::PromotionCandidate => "promotion-candidate",
            Reason::NearDuplicate => "near-duplicate",
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct QueueItem {
    #[serde(skip)]
    pub idx: EntityIdx,
    pub id: String,
    pub title: String,
    pub path: String,
    pub kind: Option<String>,
    pub status: Option<String>,
    pub reasons: Vec<Reason>,
    /// Days since `updated` (or `created`), when the entity dates itself.
    pub age_days: Option<i64>,
    /// Who wrote it (OKF `generated.by`, opendray `provenance.source`, `author`…).
    pub author: Option<String>,
    pub sources: usize,
    /// opendray `evidence` counts summed; awareness evidence items.
    pub evidence: u64,
    pub confidence: Option<f64>,
    /// `rule: message` for every lint finding on the entity.
    pub findings: Vec<String>,
    /// Terminal control characters or invisible text: approval needs a second confirmation.
    pub hidden_content: bool,
    pub hash: String,
    /// The hash of the last approved version, when there is one.
    pub approved_hash: Option<String>,
}

/// Statuses that mean "out of the active set" in some dialect: never queued.
const INACTIVE: &[&str] = &["deprecated", "superseded", "archived", "pruned", "inactive", "vetoed"];

/// Build the queue, oldest decisions first in store order.
pub fn build(store: &Store) -> Vec<QueueItem> {
    let ledger = Ledger::open(store);
    let latest = ledger.latest();
    let report = lint::lint(store, &LintConfig::load(&store.root, store.kind()).unwrap_or_default());
    let today = crate::store::write::audit::now().date();
    let mut out = Vec::new();
    for (i, e) in store.entities.iter().enumerate() {
        let idx = i as EntityIdx;
        if e.escapes_root() || e.status.as_deref().is_some_and(|s| INACTIVE.contains(&s)) {
            continue;
        }
        let Ok(text) = store.read_entity_text(idx) else { continue };
        let hash = digest::of(text.as_bytes());
        if ledger.vetoed_form(&hash) {
            continue;
        }
        let f = store.dialect.fields(e, &store.read_text(idx).unwrap_or_default());
        if inactive_fields(store.kind(), &f) {
            continue;
        }
        let mut reasons = dialect_reasons(store, idx, &f);
        if report.findings.iter().any(|x| x.entity == Some(idx) && x.rule == lint::near_duplicate::RULE) {
            reasons.push(Reason::NearDuplicate);
        }
        let last = latest.get(e.id.as_str());
        let approved = ledger.last_approval(&e.id).map(|r| r.hash.clone());
        match last {
            None => reasons.push(Reason::NeverReviewed),
            Some(r) if r.hash != hash => reasons.push(Reason::ChangedSinceApproval),
            // The person decided on exactly this content: nothing the dialect flags re-queues it.
            Some(r) if is_approval(&r.verdict) => reasons.clear(),
            Some(_) => reasons.clear(),
        }
        if reasons.is_empty() {
            continue;
        }
        let findings = report
            .findings
            .iter()
            .filter(|x| x.entity == Some(idx))
            .map(|x| format!("{}: {}", x.rule, x.message))
            .collect();
        out.push(QueueItem {
            idx,
            id: e.id.clone(),
            title: e.title.clone(),
            path: e.path.clone(),
            kind: e.kind.clone(),
            status: e.status.as_deref().map(str::to_string),
            reasons,
            age_days: e.updated.as_deref().or(e.created.as_deref()).and_then(|d| age(d, today)),
            author: author(&f),
            sources: e.sources.len(),
            evidence: evidence(&f),
            confidence: e.confidence,
            findings,
            hidden_content: e.problems.iter().any(|p| p.rule == rule::CONTROL_CHARS),
            hash,
            approved_hash: approved,
        });
    }
    out
}

/// What each dialect itself marks as awaiting a decision.
fn dialect_reasons(store: &Store, idx: EntityIdx, f: &Fields) -> Vec<Reason> {
    let e = store.entity(idx);
    let s = |k: &str| f.get(k).map(frontmatter::scalar_text).unwrap_or_default();
    let mut r = Vec::new();
    match store.kind() {
        DialectKind::Okf if e.status.as_deref() == Some("draft") => r.push(Reason::Draft),
        DialectKind::Aip10 => {
            // A contradiction a person chose to keep both sides of is no longer open.
            let kept = f.get("metadata").and_then(|m| m.get("folio")).and_then(|m| m.get("kept_both"));
            let kept = kept.and_then(Value::as_object).map(|k| frontmatter::get_list(k, "with")).unwrap_or_default();
            if frontmatter::get_list(f, "contradicts").iter().any(|c| !kept.contains(c)) {
                r.push(Reason::Contradiction);
            }
            if e.problems.iter().any(|p| p.rule == rule::LOW_CONFIDENCE) {
                r.push(Reason::LowConfidence);
            }
            if s("status") == "shadow" {
                r.push(Reason::ShadowPlaybook);
            }
        }
        DialectKind::Opendray => {
            if s("maturity") == "candidate" {
                r.push(Reason::Candidate);
            }
            if f.get("provenance").and_then(|p| p.get("lifecycle")).and_then(Value::as_str) == Some("pending-review") {
                r.push(Reason::PendingReview);
            }
        }
        DialectKind::Evolve if !s("retention_flagged_at").is_empty() => r.push(Reason::RetentionFlagged),
        DialectKind::Awareness if e.status.as_deref() == Some("candidate") => r.push(Reason::PromotionCandidate),
        _ => {}
    }
    r
}

/// Field values that take an entity out of the active set (a vetoed opendray node, an
/// archived AIP-12 playbook, a page folio vetoed).
fn inactive_fields(kind: DialectKind, f: &Fields) -> bool {
    match kind {
        DialectKind::Opendray => {
            f.get("provenance").and_then(|p| p.get("lifecycle")).and_then(Value::as_str) == Some("vetoed")
        }
        DialectKind::Aip10 => f.get("metadata").and_then(|m| m.get("folio")).and_then(|m| m.get("vetoed")).is_some(),
        _ => false,
    }
}

fn author(f: &Fields) -> Option<String> {
    let paths: [&[&str]; 6] =
        [&["generated", "by"], &["provenance", "source"], &["author"], &["agent"], &["generated_by"], &["source"]];
    paths.iter().find_map(|p| {
        let mut v = f.get(p[0])?;
        for k in &p[1..] {
            v = v.get(k)?;
        }
        Some(frontmatter::scalar_text(v)).filter(|s| !s.is_empty())
    })
}

fn evidence(f: &Fields) -> u64 {
    match f.get("evidence") {
        Some(Value::Object(m)) => m.values().filter_map(Value::as_u64).sum(),
        Some(Value::Array(a)) => a.len() as u64,
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}

/// Whole days from a `YYYY-MM-DD…` date to today.
fn age(date: &str, today: time::Date) -> Option<i64> {
    let d = date.get(..10)?;
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let day = time::Date::parse(d, &format).ok()?;
    Some((today - day).whole_days())
}

/// An item's change since its last approval: (approved text, word diff), or None when it
/// never had one (the pane then shows the whole text).
pub fn since_approval(store: &Store, item: &QueueItem) -> Option<(String, Vec<(diff::Op, String)>)> {
    let old = Ledger::open(store).approved_text(item.approved_hash.as_deref()?)?;
    let now = store.read_entity_text(item.idx).ok()?;
    let ops = diff::words(&old, &now);
    Some((old, ops))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn authors_evidence_and_age() {
        let f: Fields = serde_json::from_value(json!({
            "generated": {"by": "agent:scout"},
            "evidence": {"applied": 9, "ok": 9, "fail": 0}
        }))
        .unwrap();
        assert_eq!(author(&f).as_deref(), Some("agent:scout"));
        assert_eq!(evidence(&f), 18);
        let today = time::macros::date!(2026 - 03 - 31);
        assert_eq!(age("2026-03-01T10:00:00Z", today), Some(30));
        assert_eq!(age("soon", today), None);
    }
}
