//! The verdicts (approve, veto, forget, promote) and what each writes in each dialect
//! (REVIEW.md "Per dialect"). One call plans the verdict on any number of entities as one
//! changeset (a bulk decision is the same call with more targets).
use serde_json::{Value, json};

use super::plan::{Decision, Plan};
use super::{ReviewError, Reviewer, entries, fields};
use crate::store::audit::AuditEvent;
use crate::store::dialect::DialectKind;
use crate::store::entity::{EntityIdx, rule};
use crate::store::{Store, digest};

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Accept as it stands. `over`: the contradicting entity this one wins against (AIP-10).
    Approve {
        over: Option<String>,
    },
    Veto {
        reason: String,
    },
    /// Out of the active set without a verdict on its truth.
    Forget,
    /// Advance maturity or kind; `to` overrides the dialect's next step.
    Promote {
        to: Option<String>,
    },
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Approve { .. } => "approve",
            Verdict::Veto { .. } => "veto",
            Verdict::Forget => "forget",
            Verdict::Promote { .. } => "promote",
        }
    }

    fn past(&self) -> &'static str {
        match self {
            Verdict::Approve { .. } => "approved",
            Verdict::Veto { .. } => "vetoed",
            Verdict::Forget => "forgot",
            Verdict::Promote { .. } => "promoted",
        }
    }
}

/// Plan `verdict` on `targets` as one changeset. Content with hidden characters (the
/// `control-chars` rule) is approved only with `confirm_hidden`.
pub fn plan(
    store: &Store,
    targets: &[EntityIdx],
    verdict: &Verdict,
    reviewer: &Reviewer,
    confirm_hidden: bool,
) -> Result<Plan, ReviewError> {
    if targets.is_empty() {
        return Err(ReviewError::refused("no entity to decide on"));
    }
    let mut plan = Plan::new(verdict.name(), event(store, targets, verdict, reviewer), reviewer);
    for &idx in targets {
        let e = store.entity(idx);
        if e.escapes_root() {
            return Err(ReviewError::refused(format!("{}: leads outside the store; folio does not touch it", e.path)));
        }
        let hidden = e.problems.iter().any(|p| p.rule == rule::CONTROL_CHARS);
        if hidden && !confirm_hidden && !matches!(verdict, Verdict::Veto { .. } | Verdict::Forget) {
            return Err(ReviewError::refused(format!(
                "{}: `{}` holds hidden control characters; approving it needs an explicit second confirmation",
                e.path, e.id
            )));
        }
        let text = store.read_entity_text(idx).map_err(|err| ReviewError::refused(err.to_string()))?;
        plan.decisions.push(Decision {
            entity: e.id.clone(),
            verdict: verdict.name().to_string(),
            hash_before: digest::of(text.as_bytes()),
            renamed_to: None,
        });
        match store.kind() {
            DialectKind::Okf => okf(store, idx, verdict, &mut plan)?,
            DialectKind::Aip10 => aip10(store, idx, verdict, &mut plan)?,
            DialectKind::Opendray => opendray(store, idx, verdict, &mut plan)?,
            DialectKind::Awareness => entries::verdict(store, idx, verdict, &mut plan)?,
            DialectKind::Evolve => evolve(store, idx, verdict, &mut plan)?,
            DialectKind::Elophanto | DialectKind::Vault => log_only(store, idx, verdict, &mut plan)?,
        }
    }
    if !plan.event.bullets.is_empty() {
        // Bullets replace the log's default ones: keep those (each entity, the summary) around them.
        let verb = verdict.name();
        let mut bullets: Vec<String> = plan
            .decisions
            .iter()
            .map(|d| format!("{}{} [[{}]].", verb[..1].to_uppercase(), &verb[1..], d.entity))
            .collect();
        bullets.append(&mut plan.event.bullets);
        bullets.push(format!("{} (by {}).", plan.event.summary, reviewer.by));
        plan.event.bullets = bullets;
    }
    match (store.kind(), plan.decisions.as_slice()) {
        (DialectKind::Evolve, [one]) => {
            plan.event.details.insert("hash".into(), json!(one.hash_before));
        }
        // A bulk decision: the log writes one review line per entity, each with its hash.
        (DialectKind::Evolve, many) => {
            let hashes: Vec<&str> = many.iter().map(|d| d.hash_before.as_str()).collect();
            plan.event.details.insert("hashes".into(), json!(hashes));
        }
        _ => {}
    }
    Ok(plan)
}

/// The audit event: evolve's `{"event": "review", "verdict": …}` line, the verb elsewhere.
fn event(store: &Store, targets: &[EntityIdx], verdict: &Verdict, reviewer: &Reviewer) -> AuditEvent {
    let summary = match (verdict, targets) {
        (Verdict::Veto { reason }, [_]) => format!("vetoed: {reason}"),
        (Verdict::Veto { reason }, many) => format!("vetoed {} entities: {reason}", many.len()),
        (Verdict::Promote { to: Some(to) }, _) => format!("promoted to {to}"),
        (v, [_]) => v.past().to_string(),
        (v, many) => format!("{} {} entities", v.past(), many.len()),
    };
    let verb = if store.kind() == DialectKind::Evolve { "review" } else { verdict.name() };
    let mut ev = AuditEvent::new(verb, &reviewer.by, summary).detail("verdict", verdict.name());
    if let Verdict::Veto { reason } = verdict {
        ev = ev.detail("reason", reason.clone());
    }
    if let Verdict::Promote { to: Some(to) } = verdict {
        ev = ev.detail("to", to.clone());
    }
    for &i in targets {
        let e = store.entity(i);
        ev = ev.entity(&e.id, &e.title, &e.path);
    }
    ev
}

fn stamp(reviewer: &Reviewer, reason: Option<&str>) -> Value {
    let mut v = json!({"by": reviewer.by, "at": reviewer.timestamp()});
    if let Some(r) = reason {
        v["reason"] = json!(r);
    }
    v
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
            Some(kind) => super::retype::promote(store, idx, kind, plan)?,
            None if status.as_deref() == Some("draft") => fields::set(draft, store, &path, "status", json!("stable"))?,
            None => return Err(needs_to(store, idx, "a type (--to TYPE)")),
        },
    }
    Ok(())
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
        Verdict::Approve { over } => {
            if status.as_deref() == Some("shadow") {
                fields::set(draft, store, &path, "status", json!("active"))?;
            }
            let contradicts = crate::store::frontmatter::get_list(&f, "contradicts");
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
                let folio = fields::with_entry(&meta, "folio", "kept_both", kept);
                fields::set(draft, store, &path, "metadata", fields::with_entry(&f, "metadata", "folio", folio))?;
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
            let folio = fields::with_entry(
                &f.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default(),
                "folio",
                "vetoed",
                stamp(&plan.reviewer, Some(reason)),
            );
            let metadata = fields::with_entry(&f, "metadata", "folio", folio);
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

/// elophanto, vaults (and evolve approvals): the log line is the verdict; veto and forget take
/// the file out of the indexed tree into the folio archive.
fn log_only(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let path = store.entity(idx).path.clone();
    match verdict {
        Verdict::Veto { .. } | Verdict::Forget => plan.draft.archive(store, &path),
        Verdict::Promote { .. } => {
            Err(ReviewError::refused(format!("{path}: {} has no maturity levels to promote along", store.kind())))
        }
        Verdict::Approve { .. } => Ok(()),
    }
}

fn needs_to(store: &Store, idx: EntityIdx, what: &str) -> ReviewError {
    let e = store.entity(idx);
    ReviewError::refused(format!("{}: nothing to promote `{}` along by default; name {what}", e.path, e.id))
}
