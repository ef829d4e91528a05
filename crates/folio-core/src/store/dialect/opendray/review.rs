//! What review decisions write in an opendray brain: approve takes a candidate to fact and a
//! pending item to active, veto archives the node as opendray does (`archived_at`,
//! `provenance.archived_reason`) and records `provenance.veto` (a vetoed promotion falls back),
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
        // A distilled skill a person approved waits for opendray's own enable, not for review.
        let approved = f.get("provenance").and_then(|p| p.get("approved")).is_some();
        if lifecycle(f) == Some("pending-review") && !(approved && stays_disabled(f, "").is_some()) {
            r.push(Reason::PendingReview);
        }
        r
    }

    /// Archived (a veto archives), or vetoed the way folio wrote it before it used opendray's
    /// own `archived_at`.
    fn inactive(&self, f: &Fields) -> bool {
        lifecycle(f) == Some("vetoed") || f.get("archived_at").is_some_and(|v| !v.is_null())
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        opendray(store, idx, verdict, plan)
    }

    fn merge_trail(&self, store: &Store, path: &str, trail: Value, plan: &mut Plan) -> Result<(), ReviewError> {
        let f = fields::read(&mut plan.draft, store, path)?;
        let merged = f.get("provenance").and_then(|p| p.get("merged_from")).cloned();
        let mut pf = f.clone();
        pf.insert("merged_from".into(), merged.unwrap_or(Value::Null));
        let list = fields::with_items(&pf, "merged_from", std::slice::from_ref(&trail));
        let p = fields::with_entry(path, &f, "provenance", "merged_from", list)?;
        fields::set(&mut plan.draft, store, path, "provenance", p)?;
        // The kept node gains the merged one's evidence: its observation counts are added.
        let from = trail.as_str().and_then(|id| store.find(id)).map(|i| store.entity(i).path.clone());
        let Some(from) = from else { return Ok(()) };
        let theirs = fields::read(&mut plan.draft, store, &from)?;
        if let Some(sum) = summed_evidence(f.get("evidence"), theirs.get("evidence")) {
            fields::set(&mut plan.draft, store, path, "evidence", sum)?;
        }
        Ok(())
    }
}

/// Why approving a node leaves it disabled, when it does: a distilled skill
/// (`provenance.lifecycle: pending-review`, `enabled: false`) is enabled by opendray itself,
/// whose enable is the approval and renders the skill's `SKILL.md` into its skills folder
/// (`Service::SetSkillEnabled`). folio writes no such file, and a skill enabled without one
/// would be named in every session's knowledge banner with nothing to load; so folio records
/// the approval and says so.
pub fn stays_disabled(f: &Fields, id: &str) -> Option<String> {
    let skill = f.get("kind").and_then(Value::as_str) == Some("skill");
    let disabled = f.get("enabled").and_then(Value::as_bool) == Some(false);
    (skill && disabled).then(|| {
        format!(
            "`{id}` stays disabled: opendray enables a skill itself (its enable renders the skill's SKILL.md, which \
             folio does not write); the approval is recorded, enable it in opendray's workbench"
        )
    })
}


/// `evidence` counters of both nodes added key by key (`{observed: 5}` + `{observed: 2}`);
/// None when there is nothing to add or a shared key is not a count (a rate is not summed).
fn summed_evidence(ours: Option<&Value>, theirs: Option<&Value>) -> Option<Value> {
    let Some(Value::Object(theirs)) = theirs else { return None };
    let mut out = match ours {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(_) => return None,
    };
    for (k, v) in theirs {
        let add = v.as_u64()?;
        let sum = match out.get(k) {
            Some(mine) => mine.as_u64()? + add,
            None => add,
        };
        out.insert(k.clone(), json!(sum));
    }
    (!theirs.is_empty()).then_some(Value::Object(out))
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
            // A candidate's rung is its kind (an approved playbook is `maturity: playbook`).
            if maturity.as_deref() == Some("candidate") {
                let kind = f.get("kind").and_then(Value::as_str).filter(|k| MATURITY[1..].contains(k));
                fields::set(draft, store, &path, "maturity", json!(kind.unwrap_or("fact")))?;
            }
            if lifecycle.as_deref() == Some("pending-review") {
                match stays_disabled(&f, &store.entity(idx).id) {
                    // Approved, and still opendray's to enable: the lifecycle stays.
                    Some(note) => {
                        let p = fields::with_entry(&path, &f, "provenance", "approved", stamp(&plan.reviewer, None))?;
                        fields::set(draft, store, &path, "provenance", p)?;
                        plan.notes.push(note);
                    }
                    None => {
                        let p = fields::with_entry(&path, &f, "provenance", "lifecycle", json!("active"))?;
                        fields::set(draft, store, &path, "provenance", p)?;
                    }
                }
            }
        }
        Verdict::Veto { reason } => {
            // opendray's own soft archive (`archived_at`, the reason in
            // `provenance.archived_reason`) takes the node out of every active query; the
            // lifecycle keeps a value opendray knows. folio's own record is `provenance.veto`.
            let p = fields::with_entry(&path, &f, "provenance", "archived_reason", json!(format!("vetoed: {reason}")))?;
            let mut pf = f.clone();
            pf.insert("provenance".into(), p);
            let p = fields::with_entry(&path, &pf, "provenance", "veto", stamp(&plan.reviewer, Some(reason)))?;
            fields::set(draft, store, &path, "provenance", p)?;
            fields::set(draft, store, &path, "archived_at", json!(plan.reviewer.timestamp()))?;
            // A vetoed promotion falls back to the maturity it was promoted from.
            if let Some(prev) = fields::nested_str(&f, "provenance", "promoted_from") {
                fields::set(draft, store, &path, "maturity", json!(prev))?;
            }
        }
        Verdict::Forget => draft.archive(store, &path)?,
        Verdict::Promote { to: Some(to) } if SCOPE.contains(&to.as_str()) => promote_scope(store, &path, &f, to, plan)?,
        Verdict::Promote { to } => {
            let current = maturity.clone().unwrap_or_else(|| "fact".into());
            let next = match to {
                Some(t) => t.clone(),
                None => match MATURITY.iter().position(|m| *m == current) {
                    Some(i) if i + 1 < MATURITY.len() => MATURITY[i + 1].to_string(),
                    _ => return Err(needs_to(store, idx, "a maturity beyond `skill` (--to LEVEL)")),
                },
            };
            let kind = f.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
            // A fact promoted to a playbook becomes one: kind and folder follow the maturity.
            let retype = MATURITY[1..].contains(&kind.as_str()) && kind != next;
            if retype && next == "skill" {
                return Err(ReviewError::refused(format!(
                    "{path}: a skill is a rendered `skills/<name>/SKILL.md`, which folio does not write; \
                     promote `{}` to a skill in opendray",
                    store.entity(idx).id
                )));
            }
            if retype && !MATURITY.contains(&next.as_str()) {
                return Err(ReviewError::refused(format!("{path}: `{next}` is not an opendray maturity")));
            }
            // The file's own relative links re-aimed from the new folder first, then the fields.
            let dest = if retype { repoint_for_kind_folder(store, idx, &next, plan)? } else { None };
            let draft = &mut plan.draft;
            fields::set(draft, store, &path, "maturity", json!(next))?;
            let p = fields::with_entry(&path, &f, "provenance", "promoted_from", json!(current))?;
            fields::set(draft, store, &path, "provenance", p)?;
            if retype {
                fields::set(draft, store, &path, "kind", json!(next))?;
            }
            if let Some(dest) = dest {
                plan.draft.move_to(store, &path, &dest)?;
                let id = store.entity(idx).id.clone();
                if let Some(ev) = plan.event.entities.iter_mut().find(|x| x.id == id) {
                    ev.path = dest.clone();
                }
                plan.event.summary = format!("{}; moved to {dest}", plan.event.summary);
                plan.event = plan.event.clone().detail("moved_to", dest);
            }
        }
    }
    Ok(())
}

/// The scopes opendray widens a node along (`PromoteNode`).
const SCOPE: &[&str] = &["project", "domain", "global"];

/// `promote --to domain|global`: the scope widened, never narrowed. A global node has no
/// `scope_key` (opendray's store writes `''` for every global node and looks them up by it),
/// so the key goes, kept in `provenance.promoted_from`; the one-string form
/// `scope: domain:go+proxmox` is read as scope and key.
fn promote_scope(store: &Store, path: &str, f: &Fields, to: &str, plan: &mut Plan) -> Result<(), ReviewError> {
    let written = f.get("scope").and_then(Value::as_str).unwrap_or("project").to_string();
    let (scope, inline_key) = match written.split_once(':') {
        Some((s, k)) => (s.to_string(), Some(k.to_string())),
        None => (written.clone(), None),
    };
    let key = inline_key.or_else(|| f.get("scope_key").map(frontmatter::scalar_text)).unwrap_or_default();
    let rank = |s: &str| SCOPE.iter().position(|x| *x == s);
    if rank(to) <= rank(&scope) {
        return Err(ReviewError::refused(format!("{path}: `{to}` is not wider than `{scope}`")));
    }
    let mut from = serde_json::Map::new();
    from.insert("scope".into(), json!(scope));
    if !key.is_empty() {
        from.insert("scope_key".into(), json!(key));
    }
    let p = fields::with_entry(path, f, "provenance", "promoted_from", Value::Object(from))?;
    let draft = &mut plan.draft;
    fields::set(draft, store, path, "provenance", p)?;
    let keep_key = to != "global" && !key.is_empty();
    fields::set(draft, store, path, "scope", json!(if keep_key && written.contains(':') { format!("{to}:{key}") } else { to.to_string() }))?;
    if to == "global" && f.contains_key("scope_key") {
        fields::remove(draft, store, path, "scope_key")?;
    }
    Ok(())
}

/// Where a retyped node moves: the one folder its new kind's nodes live in (`playbooks/`).
/// Every link to it is repointed and its own relative links re-aimed in the draft; the caller
/// moves the file. None (and a note) when no such folder is known.
fn repoint_for_kind_folder(
    store: &Store,
    idx: EntityIdx,
    kind: &str,
    plan: &mut Plan,
) -> Result<Option<String>, ReviewError> {
    let path = store.entity(idx).path.clone();
    let mut dirs: Vec<&str> = store
        .entities
        .iter()
        .filter(|o| o.kind.as_deref() == Some(kind))
        .filter_map(|o| o.path.split_once('/'))
        .filter(|(_, rest)| !rest.contains('/'))
        .map(|(d, _)| d)
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    let [dir] = dirs[..] else {
        plan.notes.push(format!("no one folder holds `{kind}` nodes; {path} stays where it is"));
        return Ok(None);
    };
    let dest = format!("{dir}/{}", path.rsplit('/').next().unwrap_or(&path));
    if dest == path {
        return Ok(None);
    }
    if plan.draft.is_changed(&path) {
        return Err(ReviewError::refused(format!("{path}: already changed in this changeset; promote it on its own")));
    }
    let moved = crate::store::write::repoint::plan_move(store, idx, &dest).map_err(ReviewError::refused)?;
    plan.notes.extend(moved.skipped.iter().cloned());
    for (p, (_, new)) in moved.referrers.iter().chain(&moved.catalogs) {
        let old = plan.draft.text(store, p)?.clone();
        plan.repointed.extend(crate::store::review::merge::changed_lines(p, &old, new));
        plan.draft.set_text(store, p, new.clone())?;
    }
    plan.draft.set_text(store, &path, moved.moved)?;
    Ok(Some(dest))
}

/// `provenance.lifecycle`, opendray's review state.
fn lifecycle(f: &Fields) -> Option<&str> {
    f.get("provenance").and_then(|p| p.get("lifecycle")).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_counts_add_up() {
        let sum = summed_evidence(Some(&json!({"observed": 5})), Some(&json!({"observed": 2, "applied": 1})));
        assert_eq!(sum, Some(json!({"observed": 7, "applied": 1})));
        assert_eq!(summed_evidence(Some(&json!({"rate": 0.9})), Some(&json!({"rate": 0.5}))), None);
        assert_eq!(summed_evidence(None, Some(&json!({"observed": 2}))), Some(json!({"observed": 2})));
    }
}
