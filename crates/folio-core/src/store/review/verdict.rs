//! The verdicts (approve, veto, forget, promote) and what each writes in each dialect
//! (docs/review.md, "Per format"). One call plans the verdict on any number of entities as one
//! changeset (a bulk decision is the same call with more targets).
use serde_json::json;

use super::plan::{Decision, Plan};
use super::{ReviewError, Reviewer};
use crate::store::model::count::count;
use crate::store::model::entity::{EntityIdx, rule};
use crate::store::write::audit::AuditEvent;
use crate::store::{Store, model::digest};

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Accept as it stands. `over`: the contradicting entity this one wins against (AIP-10).
    /// `kind`: what the approved entity is filed as, where the format asks for it
    /// (`ReviewRules::approve_filing`: an awareness candidate's section).
    Approve {
        over: Option<String>,
        kind: Option<String>,
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
    /// Approve as it stands, over nothing, with no kind named.
    pub fn approve() -> Verdict {
        Verdict::Approve { over: None, kind: None }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Approve { .. } => "approve",
            Verdict::Veto { .. } => "veto",
            Verdict::Forget => "forget",
            Verdict::Promote { .. } => "promote",
        }
    }

    pub fn past(&self) -> &'static str {
        match self {
            Verdict::Approve { .. } => "approved",
            Verdict::Veto { .. } => "vetoed",
            Verdict::Forget => "forgot",
            Verdict::Promote { .. } => "promoted",
        }
    }
}

/// Plan `verdict` on `targets` as one changeset. Content with hidden characters (the
/// `control-chars` rule) is approved only with `confirm_hidden`. A veto or forget that takes a
/// file away leaves the links into it broken (logged and linted).
pub fn plan(
    store: &Store,
    targets: &[EntityIdx],
    verdict: &Verdict,
    reviewer: &Reviewer,
    confirm_hidden: bool,
) -> Result<Plan, ReviewError> {
    plan_with(store, targets, verdict, reviewer, confirm_hidden, false)
}

/// `plan`, but a veto or forget that takes a file away leaves a stub in its place (`stub`), so
/// the links into it keep resolving.
pub fn plan_leaving_stubs(
    store: &Store,
    targets: &[EntityIdx],
    verdict: &Verdict,
    reviewer: &Reviewer,
    confirm_hidden: bool,
) -> Result<Plan, ReviewError> {
    plan_with(store, targets, verdict, reviewer, confirm_hidden, true)
}

/// Control characters and the invisible marks that reorder text on screen (bidi controls).
fn hidden_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn plan_with(
    store: &Store,
    targets: &[EntityIdx],
    verdict: &Verdict,
    reviewer: &Reviewer,
    confirm_hidden: bool,
    stubs: bool,
) -> Result<Plan, ReviewError> {
    if targets.is_empty() {
        return Err(ReviewError::refused("no entity to decide on"));
    }
    // A reason goes into the store's files, its log and opendray's rows: never raw control or
    // direction characters (an escape sequence would reach every terminal that shows it).
    if let Verdict::Veto { reason } = verdict
        && let Some(c) = reason.chars().find(|&c| hidden_char(c))
    {
        return Err(ReviewError::refused(format!(
            "a veto reason is plain text on one line; this one holds U+{:04X} ({}); nothing was decided or written",
            c as u32,
            if c == '\n' || c == '\r' { "a line break" } else { "a control character" }
        )));
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
        store.kind().format().review().verdict(store, idx, verdict, &mut plan)?;
    }
    if matches!(verdict, Verdict::Veto { .. } | Verdict::Forget) {
        if stubs {
            super::stub::leave(store, targets, &stub_reason(verdict, reviewer), &mut plan)?;
        } else {
            left_broken(store, targets, &mut plan);
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
    if store.kind().format().review().logs_hashes() {
        match plan.decisions.as_slice() {
            [one] => {
                plan.event.details.insert("hash".into(), json!(one.hash_before));
            }
            // A bulk decision: the log writes one review line per entity, each with its hash.
            many => {
                let hashes: Vec<&str> = many.iter().map(|d| d.hash_before.as_str()).collect();
                plan.event.details.insert("hashes".into(), json!(hashes));
            }
        }
    }
    Ok(plan)
}

/// Why a stub is there, in one line: `vetoed by human:ann on 2026-11-26: wrong figure`.
fn stub_reason(verdict: &Verdict, reviewer: &Reviewer) -> String {
    let day = reviewer.timestamp().chars().take(10).collect::<String>();
    match verdict {
        Verdict::Veto { reason } => format!("vetoed by {} on {day}: {}", reviewer.by, reason.trim()),
        Verdict::Forget => format!("forgotten by {} on {day}", reviewer.by),
        other => format!("{} by {} on {day}", other.past(), reviewer.by),
    }
}

/// Links and typed edges into an entity the verdict takes out of the store (archived, or moved
/// out of the indexed tree) stop resolving: named in the preview's notes and in the log
/// (`broken_links`), never silently. Files leaving in the same plan do not count.
fn left_broken(store: &Store, targets: &[EntityIdx], plan: &mut Plan) {
    let leaving: Vec<String> = plan
        .draft
        .archived()
        .into_iter()
        .map(|(p, _)| p.to_string())
        .chain(plan.draft.moves().into_iter().map(|(p, _)| p.to_string()))
        .collect();
    let mut broken = Vec::new();
    for &idx in targets {
        let e = store.entity(idx);
        if !leaving.contains(&e.path) {
            continue;
        }
        let mut here = Vec::new();
        for &r in store.backlinks[idx as usize].iter() {
            let from = store.entity(r);
            if leaving.contains(&from.path) {
                continue;
            }
            here.extend(
                from.links.iter().filter(|l| l.entity() == Some(idx)).map(|l| format!("{}:{}", from.path, l.line)),
            );
            here.extend(
                from.edges.iter().filter(|d| d.resolved == Some(idx)).map(|d| format!("{} ({})", from.path, d.kind)),
            );
        }
        here.dedup();
        if !here.is_empty() {
            plan.notes.push(format!(
                "{}: {} will no longer resolve: {}",
                e.id,
                count(here.len(), "inbound link"),
                here.join(", ")
            ));
            broken.extend(here);
        }
    }
    if !broken.is_empty() {
        plan.event.summary = format!("{}; {} left broken", plan.event.summary, count(broken.len(), "inbound link"));
        plan.event.details.insert("broken_links".into(), json!(broken));
    }
}

/// The audit event, under the verb the format logs verdicts with.
fn event(store: &Store, targets: &[EntityIdx], verdict: &Verdict, reviewer: &Reviewer) -> AuditEvent {
    let summary = match (verdict, targets) {
        (Verdict::Veto { reason }, [_]) => format!("vetoed: {reason}"),
        (Verdict::Veto { reason }, many) => format!("vetoed {} entities: {reason}", many.len()),
        (Verdict::Promote { to: Some(to) }, _) => format!("promoted to {to}"),
        (v, [_]) => v.past().to_string(),
        (v, many) => format!("{} {} entities", v.past(), many.len()),
    };
    let rules = store.kind().format().review();
    let verb = rules.log_verb(verdict);
    let mut ev = AuditEvent::new(verb, &reviewer.by, summary).detail("verdict", rules.verdict_word(verdict));
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
