//! awareness `memory/long-term.md`: entries are lines, so verdicts move lines between
//! sections. Approve/promote moves a `## Promotion Candidates` line to its kind's section;
//! veto/forget/merge rewrite it under `## Pruned Or Revised` with a reason. `- Updated:` is
//! rewritten, and each moved entry becomes one `memory/events.jsonl` line of the framework's own
//! type and fields (`memory.promoted` with kind, section, text, evidence; `memory.pruned` with
//! text, reason, evidence), carried in the event's `entries` detail.
use serde_json::{Value, json};

use super::entry_key::normalize_search_text;
use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::model::entity::EntityIdx;
use crate::store::read::frontmatter::Fields;
use super::filing;
use crate::store::review::Reason;
use crate::store::review::filing::Filing;
use crate::store::review::plan::Plan;
use crate::store::review::rules::ReviewRules;
use crate::store::review::{ReviewError, Reviewer, Verdict};

pub struct AwarenessReview;

impl ReviewRules for AwarenessReview {
    fn queue_reasons(&self, e: &Entity, _f: &Fields) -> Vec<Reason> {
        if e.status.as_deref() == Some("candidate") { vec![Reason::PromotionCandidate] } else { Vec::new() }
    }

    /// A candidate is filed under a kind, which the framework's `memory promote` requires
    /// (`--kind`): the curated sections, in the file's order, and the one its own suggestion or
    /// the candidate's words point to (`filing::infer`); none inferred, folio asks.
    fn approve_filing(&self, store: &Store, idx: EntityIdx) -> Option<Filing> {
        let e = store.entity(idx);
        if !(is_entry(e) && e.status.as_deref() == Some("candidate")) {
            return None;
        }
        let choices = filing::choices(store, &e.path);
        let inferred = filing::infer(store, idx)
            .and_then(|(kind, why)| choices.iter().position(|c| c.kind == kind).map(|i| (i, why)));
        Some(Filing { choices, inferred })
    }

    fn verdict(&self, store: &Store, idx: EntityIdx, v: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        verdict(store, idx, v, plan)
    }

    /// The kept entry gains the other's evidence. The entry that leaves is pruned with the
    /// framework's own event (`memory.pruned`) — unless both say the same thing: the framework
    /// reads pruned text as inactive wherever it recurs, so pruning a twin would deactivate the
    /// kept entry too; the twin's line is dropped instead (its evidence lives on in the kept one).
    fn merge_entries(
        &self,
        store: &Store,
        from: EntityIdx,
        into: EntityIdx,
        plan: &mut Plan,
    ) -> Option<Result<(), ReviewError>> {
        Some(merge(store, from, into, plan))
    }
}

const PRUNED: &str = "Pruned Or Revised";

/// The curated section of an entry kind (the framework's `--kind` names).
pub fn section_of(kind: &str) -> Option<&'static str> {
    match kind.to_ascii_lowercase().as_str() {
        "preference" | "preferences" => Some("Preferences"),
        "pattern" | "patterns" => Some("Patterns"),
        "project" | "project conventions" => Some("Project Conventions"),
        "review" | "review guidance" => Some("Review Guidance"),
        _ => None,
    }
}

/// Whether `e` is an entry line of a long-term memory file (not a file of its own).
pub(super) fn is_entry(e: &Entity) -> bool {
    e.span.end > e.span.start && e.path.ends_with("long-term.md") && e.kind.as_deref() != Some("long-term")
}

/// Whether the framework reads `line` as an entry (`memory-metrics.js::parseEntryLine`):
/// `- `, a `YYYY-MM-DD` date, then `: `.
fn framework_reads(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("- ") else { return false };
    let b = rest.as_bytes();
    b.len() >= 12
        && b[..10].iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
        && &b[10..12] == b": "
}

/// The kinds the framework files promoted entries under, as its `--kind` names them.
const KINDS: &str = "preference, pattern, project or review";

pub fn verdict(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    if !is_entry(e) {
        return match verdict {
            Verdict::Approve { .. } => Ok(()),
            _ => Err(ReviewError::refused(format!(
                "{}: `{}` is not a long-term memory entry; only approval applies",
                e.path, e.id
            ))),
        };
    }
    // A bulk decision already promoted this entry with its same-text twin: nothing left to do
    // (and no approval of a line that is gone).
    if plan.decisions.iter().any(|d| d.entity == e.id && d.verdict == "merged") {
        plan.decisions.retain(|d| d.entity != e.id || d.verdict == "merged");
        return Ok(());
    }
    // A line the framework does not read as an entry (its `parseEntryLine`: `- YYYY-MM-DD: `)
    // is no candidate to it: filed under a section it would still be none, while the
    // `memory.promoted` event counted a promotion. Approved as it stands, it stays put with its
    // lint finding; promoting it is refused.
    let unreadable = e.status.as_deref() == Some("candidate") && !framework_reads(&entry_line(store, idx)?);
    if unreadable && matches!(verdict, Verdict::Promote { .. }) {
        return Err(ReviewError::refused(format!(
            "{}: `{}` is not a line the framework reads as an entry (`- YYYY-MM-DD: text (evidence: …)`); fix it first",
            e.path, e.id
        )));
    }
    match verdict {
        Verdict::Approve { .. } if unreadable => Ok(()),
        Verdict::Approve { .. } | Verdict::Promote { .. } if e.status.as_deref() != Some("candidate") => {
            if matches!(verdict, Verdict::Promote { .. }) {
                return Err(ReviewError::refused(format!("{}: `{}` is not a promotion candidate", e.path, e.id)));
            }
            Ok(())
        }
        // The framework's `memory promote` requires `--kind`; so does folio, rather than filing
        // every approved candidate under Patterns.
        Verdict::Approve { kind: Some(kind), .. } | Verdict::Promote { to: Some(kind) } => promote(store, idx, kind, plan),
        Verdict::Approve { kind: None, .. } => {
            let hint = filing::infer(store, idx).map(|(k, why)| format!(" (folio infers `{k}`: {why})")).unwrap_or_default();
            Err(ReviewError::refused(format!(
                "{}: `{}` is a promotion candidate; the framework files it under a kind (its `memory promote --kind`): \
                 approve it with --kind {KINDS}{hint}",
                e.path, e.id
            )))
        }
        Verdict::Promote { to: None } => Err(ReviewError::refused(format!(
            "{}: `{}` is filed under a kind (the framework's `memory promote --kind`): promote it --to {KINDS}",
            e.path, e.id
        ))),
        Verdict::Veto { reason } => prune(store, idx, reason, plan),
        Verdict::Forget => prune(store, idx, "forgotten", plan),
    }
}

fn promote(store: &Store, idx: EntityIdx, kind: &str, plan: &mut Plan) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    let section = section_of(kind).ok_or_else(|| {
        ReviewError::refused(format!("`{kind}`: not an entry kind (preference, pattern, project, review)"))
    })?;
    let mut line = entry_line(store, idx)?;
    let reviewer = plan.reviewer.clone();
    let text = plan.draft.text(store, &e.path)?;
    let mut rest = remove_line(text, &line, &e.path)?;
    // Candidates saying the same thing are the same memory: promoted with it (their lines
    // dropped, their evidence kept on the promoted line), not left behind in the inbox.
    let same = normalize_search_text(&entry_text(store, idx));
    for (j, twin) in store.entities.iter().enumerate() {
        let j = j as EntityIdx;
        if j == idx || twin.path != e.path || twin.status.as_deref() != Some("candidate") {
            continue;
        }
        if normalize_search_text(&entry_text(store, j)) != same {
            continue;
        }
        let twin_line = entry_line(store, j)?;
        rest = remove_line(&rest, &twin_line, &e.path)?;
        line = with_evidence(&line, &evidence(store, j));
        let twin_text = store.read_entity_text(j).map_err(|err| ReviewError::refused(err.to_string()))?;
        plan.decisions.push(crate::store::review::plan::Decision {
            entity: twin.id.clone(),
            verdict: "merged".into(),
            hash_before: crate::store::model::digest::of(twin_text.as_bytes()),
            renamed_to: None,
        });
        plan.event.summary = format!("{}; same-text candidate `{}` folded in", plan.event.summary, twin.id);
    }
    let text = plan.draft.text(store, &e.path)?;
    *text = insert_into(&rest, section, &line);
    *text = touch_updated(text, &reviewer);
    let line = json!({
        "entity": e.id,
        "type": "memory.promoted",
        "kind": kind.to_ascii_lowercase(),
        "section": section,
        "text": entry_text(store, idx),
        // The promoted line's evidence, a folded twin's included.
        "evidence": line_evidence(&line).unwrap_or_else(|| evidence(store, idx)),
    });
    push_entry(plan, line);
    Ok(())
}

/// Move the entry to `## Pruned Or Revised` as `- DATE: text (reason: …; evidence: …)`.
pub fn prune(store: &Store, idx: EntityIdx, reason: &str, plan: &mut Plan) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    let line = entry_line(store, idx)?;
    let evidence = evidence(store, idx);
    let what = entry_text(store, idx);
    let reason = reason.replace(['\n', '\r'], " ");
    let pruned = format!("- {}: {what} (reason: {reason}; evidence: {evidence})", plan.reviewer.date());
    let reviewer = plan.reviewer.clone();
    let text = plan.draft.text(store, &e.path)?;
    *text = insert_into(&remove_line(text, &line, &e.path)?, PRUNED, &pruned);
    *text = touch_updated(text, &reviewer);
    let line = json!({"entity": e.id, "type": "memory.pruned", "text": what, "reason": reason, "evidence": evidence});
    push_entry(plan, line);
    Ok(())
}

fn merge(store: &Store, from: EntityIdx, into: EntityIdx, plan: &mut Plan) -> Result<(), ReviewError> {
    let (a, b) = (store.entity(from), store.entity(into));
    if a.path != b.path {
        return Err(ReviewError::refused(format!("{} / {}: entries merge within one file", a.path, b.path)));
    }
    let (a_line, b_line) = (entry_line(store, from)?, entry_line(store, into)?);
    let twins = normalize_search_text(&entry_text(store, from)) == normalize_search_text(&entry_text(store, into));
    if twins {
        let text = plan.draft.text(store, &a.path)?;
        *text = remove_line(text, &a_line, &a.path)?;
    } else {
        let reason = format!("merged into {}", entry_text(store, into));
        prune(store, from, &reason, plan)?;
    }
    let gained = with_evidence(&b_line, &evidence(store, from));
    if gained != b_line {
        let text = plan.draft.text(store, &b.path)?;
        *text = replace_line(text, &b_line, &gained, &b.path)?;
    }
    let reviewer = plan.reviewer.clone();
    let text = plan.draft.text(store, &b.path)?;
    *text = touch_updated(text, &reviewer);
    // The kept entry is where it was (a candidate stays a candidate): the merge is no verdict
    // on it, so it stays in the inbox for its own decision.
    plan.decisions.retain(|d| d.entity != b.id);
    Ok(())
}

/// An entry line `- DATE: text (evidence: E)` with `more` added to its evidence (`E; more`),
/// unless it is already named there.
fn with_evidence(line: &str, more: &str) -> String {
    let Some(open) = line.rfind(" (evidence: ") else { return line.to_string() };
    let Some(inside) = line[open + 12..].strip_suffix(')') else { return line.to_string() };
    if inside.split("; ").any(|e| e == more) {
        return line.to_string();
    }
    format!("{} (evidence: {inside}; {more})", &line[..open])
}

/// The `E` of an entry line's `(evidence: E)`.
fn line_evidence(line: &str) -> Option<String> {
    let open = line.rfind(" (evidence: ")?;
    line[open + 12..].strip_suffix(')').map(str::to_string)
}

fn replace_line(text: &str, line: &str, new: &str, path: &str) -> Result<String, ReviewError> {
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        let bare = l.trim_end_matches(['\n', '\r']);
        if bare == line {
            return Ok(format!("{}{new}{}", &text[..pos], &text[pos + bare.len()..]));
        }
        pos += l.len();
    }
    Err(ReviewError::refused(format!("{path}: the entry `{line}` is no longer there")))
}

/// What the entry says (without its date), as the framework's events quote it.
pub(super) fn entry_text(store: &Store, idx: EntityIdx) -> String {
    let e = store.entity(idx);
    e.description.as_deref().map_or_else(|| e.title.clone(), str::to_string)
}

fn evidence(store: &Store, idx: EntityIdx) -> String {
    let e = store.entity(idx);
    if e.sources.is_empty() { "folio review".to_string() } else { e.sources.join("; ") }
}

/// One framework event line per entry the plan moves.
fn push_entry(plan: &mut Plan, line: Value) {
    let entries = plan.event.details.entry("entries").or_insert_with(|| json!([]));
    if let Value::Array(list) = entries {
        list.push(line);
    }
}

/// The entry's own line as it was read.
fn entry_line(store: &Store, idx: EntityIdx) -> Result<String, ReviewError> {
    let text = store.read_entity_text(idx).map_err(|e| ReviewError::refused(e.to_string()))?;
    Ok(text.lines().next().unwrap_or_default().to_string())
}

fn remove_line(text: &str, line: &str, path: &str) -> Result<String, ReviewError> {
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        if l.trim_end_matches(['\n', '\r']) == line {
            return Ok(format!("{}{}", &text[..pos], &text[pos + l.len()..]));
        }
        pos += l.len();
    }
    Err(ReviewError::refused(format!("{path}: the entry `{line}` is no longer there")))
}

/// Add `line` as the last item of `## section` (created at the end when missing).
fn insert_into(text: &str, section: &str, line: &str) -> String {
    let nl = crate::store::write::edit::newline_of(text);
    let heading = format!("## {section}");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(h) = lines.iter().position(|l| l.trim_end() == heading) else {
        let sep = if text.ends_with('\n') { "" } else { nl };
        return format!("{text}{sep}{nl}{heading}{nl}{nl}{line}{nl}");
    };
    let end = lines[h + 1..].iter().position(|l| l.starts_with("## ")).map_or(lines.len(), |i| h + 1 + i);
    let last_item = (h + 1..end).rev().find(|&i| !lines[i].trim().is_empty());
    let at = match last_item {
        Some(i) => i + 1,
        // An empty section: after the heading and its blank line.
        None => (h + 2).min(end),
    };
    let mut out: String = lines[..at].concat();
    if !out.ends_with('\n') {
        out += nl;
    }
    out += line;
    out += nl;
    if last_item.is_none() && at == end && end < lines.len() {
        out += nl;
    }
    out + &lines[at..].concat()
}

/// `- Updated: YYYY-MM-DD HH:MM +00:00` in the file's header.
fn touch_updated(text: &str, reviewer: &Reviewer) -> String {
    let at = &reviewer.at;
    let stamp = format!("- Updated: {} {:02}:{:02} +00:00", reviewer.date(), at.hour(), at.minute());
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        if l.starts_with("## ") {
            break;
        }
        if l.starts_with("- Updated:") {
            let end = l.trim_end_matches(['\n', '\r']).len();
            return format!("{}{stamp}{}", &text[..pos], &text[pos + end..]);
        }
        pos += l.len();
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_move_between_sections() {
        let t = "# M\n\n- Updated: x\n\n## Patterns\n\n- a\n\n## Promotion Candidates\n\n- c\n\n## Pruned Or Revised\n";
        let removed = remove_line(t, "- c", "m.md").unwrap();
        let out = insert_into(&removed, "Patterns", "- c");
        assert_eq!(
            out,
            "# M\n\n- Updated: x\n\n## Patterns\n\n- a\n- c\n\n## Promotion Candidates\n\n\n## Pruned Or Revised\n"
        );
        let pruned = insert_into(t, "Pruned Or Revised", "- p");
        assert!(pruned.ends_with("## Pruned Or Revised\n- p\n"), "{pruned}");
        let missing = insert_into("# M\n", "Review Guidance", "- r");
        assert_eq!(missing, "# M\n\n## Review Guidance\n\n- r\n");
        assert!(remove_line(t, "- gone", "m.md").unwrap_err().to_string().contains("m.md"));
        assert_eq!(with_evidence("- d: t (evidence: a)", "b"), "- d: t (evidence: a; b)");
        assert_eq!(with_evidence("- d: t (evidence: a; b)", "b"), "- d: t (evidence: a; b)");
        assert_eq!(line_evidence("- d: t (evidence: a; b)").as_deref(), Some("a; b"));
        let r = Reviewer { by: "human:t".into(), at: time::macros::datetime!(2026-09-01 08:05 UTC) };
        assert!(touch_updated(t, &r).contains("- Updated: 2026-09-01 08:05 +00:00\n"));
    }
}
