//! What review decisions write in opendray's live brain, as opendray itself changes rows
//! (`internal/knowledge/store.go`): approve stamps the reviewer into `provenance.approved`
//! (and takes a `pending-review` lifecycle to `active`), every other key kept; promote climbs
//! maturity candidate → fact → playbook → skill or scope project → domain → global on a live
//! row; veto and forget are the soft archive (`archived_at`, `provenance.archived_reason`),
//! never a DELETE; a merge re-points the duplicate's edges onto the canonical node (no
//! self-edge, no second copy of an edge) and leaves `provenance.merged_from` there. The
//! storage stamps `updated_at = now()` and the `provenance.folio_history` entry.
use serde_json::{Value, json};

use crate::store::Store;
use crate::store::dialect::opendray::review::{OpendrayReview, stays_disabled};
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::frontmatter::Fields;
use crate::store::review::plan::Plan;
use crate::store::review::rules::{ReviewRules, stamp};
use crate::store::review::{Reason, ReviewError, Verdict, fields};

pub struct PgReview;

/// The ladders opendray promotes along.
pub const MATURITY: &[&str] = &["candidate", "fact", "playbook", "skill"];
pub const SCOPE: &[&str] = &["project", "domain", "global"];

impl ReviewRules for PgReview {
    /// opendray's markers, less the candidacy a person's approval of the row as it stands
    /// answers for: an approval here stamps the row and leaves its maturity, and every reviewer
    /// of the database — each with folio's ledger in their own state folder — reads the stamp.
    fn queue_reasons(&self, e: &Entity, f: &Fields) -> Vec<Reason> {
        let mut reasons = OpendrayReview.queue_reasons(e, f);
        if approved_as_it_stands(f) {
            reasons.retain(|r| *r != Reason::Candidate);
        }
        reasons
    }

    fn reviewed_in_fields(&self, _e: &Entity, f: &Fields) -> bool {
        approved_as_it_stands(f)
    }

    fn inactive(&self, f: &Fields) -> bool {
        f.get("archived_at").is_some_and(|v| !v.is_null())
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        let path = store.entity(idx).path.clone();
        let f = fields::read(&mut plan.draft, store, &path)?;
        let records = match verdict {
            Verdict::Approve { .. } => "approved",
            Verdict::Veto { .. } => "veto",
            Verdict::Forget => "archived_reason",
            Verdict::Promote { .. } => "promoted_from",
        };
        let mut provenance = fields::record_mapping(&path, &f, "provenance", records)?;
        if let Some(why) = super::translate::history_not_a_list(provenance.get(super::translate::HISTORY_KEY)) {
            return Err(ReviewError::refused(format!("{path}: {why}; nothing was written")));
        }
        let by = plan.reviewer.by.clone();
        match verdict {
            Verdict::Approve { .. } => {
                provenance.insert("approved".into(), stamp(&plan.reviewer, None));
                let pending = provenance.get("lifecycle").and_then(Value::as_str) == Some("pending-review");
                if pending && let Some(note) = stays_disabled(&f, &store.entity(idx).id) {
                    // Approved, and still opendray's to enable: its lifecycle stays as it is.
                    plan.notes.push(note);
                } else if pending {
                    provenance.insert("lifecycle".into(), json!("active"));
                }
            }
            Verdict::Veto { reason } => {
                provenance.insert("archived_reason".into(), json!(format!("vetoed by {by}: {reason}")));
                provenance.insert("veto".into(), stamp(&plan.reviewer, Some(reason)));
                fields::set(&mut plan.draft, store, &path, "archived_at", json!(plan.reviewer.timestamp()))?;
            }
            Verdict::Forget => {
                provenance.insert("archived_reason".into(), json!(format!("forgotten by {by}")));
                fields::set(&mut plan.draft, store, &path, "archived_at", json!(plan.reviewer.timestamp()))?;
            }
            Verdict::Promote { to } => {
                if f.get("archived_at").is_some_and(|v| !v.is_null()) {
                    return Err(ReviewError::refused(format!("{path}: archived; only live nodes are promoted")));
                }
                let (field, ladder) = match to.as_deref() {
                    Some(t) if SCOPE.contains(&t) => ("scope", SCOPE),
                    Some(t) if !MATURITY.contains(&t) => {
                        return Err(ReviewError::refused(format!(
                            "{path}: `{t}` is neither a maturity ({}) nor a scope ({})",
                            MATURITY.join(", "),
                            SCOPE.join(", ")
                        )));
                    }
                    _ => ("maturity", MATURITY),
                };
                let current = f.get(field).and_then(Value::as_str).unwrap_or(ladder[0]).to_string();
                let at = ladder.iter().position(|m| *m == current).unwrap_or(0);
                let next = match to.as_deref() {
                    Some(t) => t,
                    None => ladder.get(at + 1).copied().ok_or_else(|| {
                        ReviewError::refused(format!("{path}: already `{current}`, the top of opendray's ladder"))
                    })?,
                };
                if ladder.iter().position(|m| *m == next) <= Some(at) {
                    return Err(ReviewError::refused(format!("{path}: `{next}` is not above `{current}`")));
                }
                let scope_key = f.get("scope_key").and_then(Value::as_str).unwrap_or_default();
                if next == "global" && !scope_key.is_empty() {
                    // opendray's store keeps a global node's `scope_key` empty (`PromoteNode(…,
                    // ScopeGlobal, "")`, its merge, its anchorer) and finds global nodes by it.
                    provenance.insert("promoted_from".into(), json!({field: current, "scope_key": scope_key}));
                    fields::remove(&mut plan.draft, store, &path, "scope_key")?;
                } else {
                    provenance.insert("promoted_from".into(), json!({field: current}));
                }
                fields::set(&mut plan.draft, store, &path, field, json!(next))?;
            }
        }
        fields::set(&mut plan.draft, store, &path, "provenance", Value::Object(provenance))
    }

    /// opendray merges entities only, and only of one type (its merge key is the normalised
    /// title within an entity type): anything else is refused before a plan is made.
    fn merge_entries(&self, store: &Store, from: EntityIdx, into: EntityIdx, plan: &mut Plan) -> Option<Result<(), ReviewError>> {
        let (a, b) = (store.entity(from), store.entity(into));
        let kind = |e: &Entity| e.kind.as_deref().unwrap_or("").to_string();
        let (ka, kb) = (kind(a), kind(b));
        let entity = |k: &str| k == "entity" || k.starts_with("entity/");
        if entity(&ka) && ka == kb {
            // INTO gains FROM's aliases and title as aliases (`merge::fold_fields`): refused here,
            // before the confirm dialog, where that list would replace what INTO holds.
            let gains_aliases = !a.aliases.is_empty() || (!a.title.is_empty() && a.title != b.title);
            let path = b.path.clone();
            let held = match fields::read(&mut plan.draft, store, &path) {
                Ok(f) => f.get("provenance").and_then(|p| p.get("aliases")).cloned(),
                Err(e) => return Some(Err(e)),
            };
            let why = super::translate::aliases_not_a_list(held.as_ref()).filter(|_| gains_aliases);
            return why.map(|why| Err(ReviewError::refused(format!("{path}: {why}; nothing was written"))));
        }
        Some(Err(ReviewError::refused(format!(
            "{} → {}: opendray merges entities of one type only; `{}` is {} and `{}` is {}",
            a.id,
            b.id,
            a.id,
            shown_kind(&ka),
            b.id,
            shown_kind(&kb)
        ))))
    }

    /// Edge by edge, not line by line: tidying a node's `relations` rewrites the whole
    /// block, and a line diff of it listed edges that stay as removed. A re-aimed edge is
    /// `type old → type new`; one dropped (it would point at INTO itself, or INTO has it
    /// already) is `type old → (removed)`.
    fn repointed_lines(&self, path: &str, old: &str, new: &str) -> Vec<String> {
        let pairs = |t: &str| -> Vec<(String, String)> {
            let f = crate::store::dialect::yaml_fields(t);
            let Some(Value::Object(rel)) = f.get("relations") else { return Vec::new() };
            rel.iter()
                .flat_map(|(k, v)| {
                    let list: Vec<String> = match v {
                        Value::Array(a) => a.iter().map(crate::store::read::frontmatter::scalar_text).collect(),
                        other => vec![crate::store::read::frontmatter::scalar_text(other)],
                    };
                    list.into_iter().map(move |d| (k.clone(), d))
                })
                .collect()
        };
        let (before, after) = (pairs(old), pairs(new));
        let mut added: Vec<&(String, String)> = after.iter().filter(|p| !before.contains(p)).collect();
        let mut out = Vec::new();
        for (t, d) in before.iter().filter(|p| !after.contains(p)) {
            match added.iter().position(|(t2, _)| t2 == t) {
                Some(i) => {
                    let (_, d2) = added.remove(i);
                    out.push(format!("{path}: {t} {d} → {t} {d2}"));
                }
                None => out.push(format!("{path}: {t} {d} → (removed)")),
            }
        }
        out.extend(added.into_iter().map(|(t, d)| format!("{path}: (nothing) → {t} {d}")));
        out
    }

    /// The log counts the edges a merge re-aimed, not those it dropped.
    fn merge_event(&self, _a: &Entity, _b: &Entity, plan: &mut Plan) {
        let moved = plan.repointed.iter().filter(|l| !l.ends_with("(removed)")).count();
        plan.event = plan.event.clone().detail("repointed", moved);
    }

    /// INTO records the merged id in `provenance.merged_from` and takes over FROM's outgoing
    /// edges, less those that would point at itself or that it already has.
    fn merge_trail(&self, store: &Store, path: &str, trail: Value, plan: &mut Plan) -> Result<(), ReviewError> {
        let f = fields::read(&mut plan.draft, store, path)?;
        let mut pf = Fields::new();
        pf.insert(
            "merged_from".into(),
            f.get("provenance").and_then(|p| p.get("merged_from")).cloned().unwrap_or(Value::Null),
        );
        let list = fields::with_items(&pf, "merged_from", std::slice::from_ref(&trail));
        let p = fields::with_entry(path, &f, "provenance", "merged_from", list)?;
        fields::set(&mut plan.draft, store, path, "provenance", p)?;
        let Some(from) = trail.as_str().and_then(|id| store.by_id(id)) else { return Ok(()) };
        let own_id = f.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
        let theirs = fields::read(&mut plan.draft, store, &store.entity(from).path.clone())?;
        let Some(Value::Object(their_rel)) = theirs.get("relations") else { return Ok(()) };
        let mut rel = match f.get("relations") {
            Some(Value::Object(r)) => r.clone(),
            _ => serde_json::Map::new(),
        };
        let mut moved = 0;
        for (kind, targets) in their_rel {
            let Value::Array(targets) = targets else { continue };
            for t in targets.iter().filter(|t| t.as_str() != Some(own_id.as_str())) {
                let list = rel.entry(kind.clone()).or_insert_with(|| json!([]));
                if let Value::Array(l) = list
                    && !l.contains(t)
                {
                    l.push(t.clone());
                    moved += 1;
                }
            }
        }
        if moved > 0 {
            fields::set(&mut plan.draft, store, path, "relations", Value::Object(rel))?;
        }
        Ok(())
    }
}

/// A node's kind as a person says it: `a skill`, `an entity of type service`.
fn shown_kind(kind: &str) -> String {
    match kind.split_once('/') {
        Some(("entity", t)) => format!("an entity of type `{t}`"),
        _ if kind == "entity" => "an untyped entity".into(),
        _ => format!("a {kind}"),
    }
}

/// Whether a person's approval stands for the row as it is: `provenance.approved` is a
/// `human:`'s, and the newest entry of `provenance.folio_history` — which the storage writes
/// with the decision, stamped as its transaction began — is a person's approval (approve,
/// promote, merge) dated no earlier than the row's `updated_at`, which that transaction set.
/// Any later write that stamps `updated_at` queues the node again. The entry's time is the
/// reviewer's clock and `updated_at` the server's: a reviewer whose clock is behind the
/// server's leaves the approval unseen by the others (their inbox as before this was read);
/// one ahead of it hides from them a write made within that lead, as does a write that leaves
/// `updated_at` as it was (their own ledger, by hash, still sees both).
pub fn approved_as_it_stands(f: &Fields) -> bool {
    use crate::store::model::timestamp::parse_instant;
    let human = |v: &Value| v.get("by").and_then(Value::as_str).is_some_and(|by| by.trim().starts_with("human:"));
    let Some(provenance) = f.get("provenance") else { return false };
    if !provenance.get("approved").is_some_and(human) {
        return false;
    }
    let Some(last) = provenance.get(super::translate::HISTORY_KEY).and_then(Value::as_array).and_then(|h| h.last()) else {
        return false;
    };
    let approval = matches!(last.get("event").and_then(Value::as_str), Some("approve" | "promote" | "merge"));
    let at = last.get("at").and_then(Value::as_str).and_then(parse_instant);
    let updated = f.get("updated_at").and_then(Value::as_str).and_then(parse_instant);
    approval && human(last) && matches!((at, updated), (Some(at), Some(updated)) if at >= updated)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(v: Value) -> Fields {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn an_approval_stands_for_the_row_its_decision_wrote() {
        let row = |approved_by: &str, event: &str, by: &str, at: &str, updated: &str| {
            fields(json!({"updated_at": updated, "provenance": {
                "approved": {"by": approved_by, "at": "2026-12-02T12:41:47Z"},
                "folio_history": [{"at": "2026-12-01T09:00:00Z", "by": "human:bo", "event": "veto"}, {"at": at, "by": by, "event": event}],
            }}))
        };
        // Confirmed four seconds after the plan dated the approval: the decision's own time counts.
        let written = "2026-12-02T12:41:51.480774Z";
        assert!(approved_as_it_stands(&row("human:ann", "approve", "human:ann", "2026-12-02T12:41:51.481996567Z", written)));
        assert!(approved_as_it_stands(&row("human:ann", "promote", "human:bo", "2026-12-02T12:41:51.481996567Z", written)));
        assert!(
            !approved_as_it_stands(&row("human:ann", "approve", "human:ann", "2026-12-02T12:41:51.48Z", written)),
            "written after the decision"
        );
        assert!(!approved_as_it_stands(&row("human:ann", "set", "human:ann", "2026-12-02T12:41:52Z", written)), "an edit since");
        assert!(!approved_as_it_stands(&row("agent:x", "approve", "agent:x", "2026-12-02T12:41:52Z", written)), "not a person");
        assert!(!approved_as_it_stands(&row("human:ann", "approve", "human:ann", "soon", written)), "no instant");
        let unapproved = fields(json!({"updated_at": written, "provenance": {"folio_history": [
            {"at": "2026-12-02T12:41:52Z", "by": "human:ann", "event": "approve"}]}}));
        assert!(!approved_as_it_stands(&unapproved), "an undone approval leaves no stamp");
        let no_history = fields(json!({"updated_at": "2026-12-02T12:15:12Z", "provenance": {"approved": {"by": "human:ann", "at": "2026-12-02T12:15:13Z"}}}));
        assert!(!approved_as_it_stands(&no_history), "no decision folio wrote to tell by");
    }
}
