//! Merge (canonicalization): fold entity A into entity B. B keeps its own body unless the
//! reviewer supplies the merged one (`appended_body` offers both texts: appending A's by
//! default would turn superseded text into live text), gains A's aliases and sources and a
//! `merged_from` trail; every inbound link and typed edge to A is repointed to B
//! (`repoint::plan_merge`), and B's own links to A are unwrapped to their labels, never made
//! self-links; A is archived. awareness entries are lines: A is pruned with reason
//! `merged into …`.
use serde_json::{Value, json};

use super::plan::{Decision, Plan};
use super::{ReviewError, Reviewer, fields};
use crate::store::model::entity::EntityIdx;
use crate::store::read::frontmatter::{self, Block};
use crate::store::write::audit::AuditEvent;
use crate::store::{Store, model::digest, write::repoint};

pub fn plan(
    store: &Store,
    from: EntityIdx,
    into: EntityIdx,
    body: Option<&str>,
    reviewer: &Reviewer,
) -> Result<Plan, ReviewError> {
    let (a, b) = (store.entity(from), store.entity(into));
    if from == into {
        return Err(ReviewError::refused(format!("{}: cannot merge `{}` into itself", a.path, a.id)));
    }
    let summary = format!("merged `{}` into `{}`", a.id, b.id);
    let event = AuditEvent::new("merge", &reviewer.by, summary)
        .entity(&a.id, &a.title, &a.path)
        .entity(&b.id, &b.title, &b.path)
        .detail("from", a.id.clone())
        .detail("into", b.id.clone());
    let mut plan = Plan::new("merge", event, reviewer);
    // A's record is not an approval (it leaves the active set); B's is.
    for (idx, verdict) in [(from, "merged"), (into, "merge")] {
        let text = store.read_entity_text(idx).map_err(|e| ReviewError::refused(e.to_string()))?;
        plan.decisions.push(Decision {
            entity: store.entity(idx).id.clone(),
            verdict: verdict.into(),
            hash_before: digest::of(text.as_bytes()),
            renamed_to: None,
        });
    }
    // What the merge does to the target's review state, said before it is confirmed: its
    // `merge` verdict is an approval, so a target still awaiting review leaves the inbox.
    let status = b.status.as_deref().map(|s| format!("; its status `{s}` stays")).unwrap_or_default();
    plan.review_state.push(format!(
        "review state: `{}` is recorded as approved by this merge (out of the inbox afterwards{status})",
        b.id
    ));
    let format = store.kind().format();
    let rules = format.review();
    if let Some(done) = rules.merge_entries(store, from, into, &mut plan) {
        return done.map(|()| plan);
    }
    if a.path == b.path || store.entities.iter().filter(|e| e.path == a.path || e.path == b.path).count() != 2 {
        return Err(ReviewError::refused(format!(
            "{} / {}: only entities with a file of their own merge",
            a.path, b.path
        )));
    }
    if let Some(why) = format.read_only_reason(&a.path).or_else(|| format.read_only_reason(&b.path)) {
        return Err(ReviewError::refused(why));
    }
    let mut moved = repoint::plan_merge(store, from, &b.path).map_err(ReviewError::refused)?;
    plan.notes = moved.skipped.clone();
    // Files the format never writes keep their links as they are.
    moved.referrers.retain(|path, _| match format.read_only_reason(path) {
        Some(why) => {
            plan.notes.push(format!("{why}; its links were left as they are"));
            false
        }
        None => true,
    });
    let mut before: Vec<(String, String)> = Vec::new();
    for (path, (_, new)) in moved.referrers.iter().chain(&moved.catalogs) {
        before.push((
            path.clone(),
            store.storage().read(path).ok().and_then(|b| String::from_utf8(b).ok()).unwrap_or_default(),
        ));
        plan.draft.set_text(store, path, new.clone())?;
    }
    for path in moved.referrers.keys() {
        let own = (*path == b.path).then_some(b.id.as_str());
        super::edges::tidy(store, &mut plan, path, own)?;
    }
    // What the preview lists is what the diff shows: each line as repointing and tidying left it.
    for (path, old) in &before {
        let new = plan.draft.text(store, path)?.clone();
        plan.repointed.extend(rules.repointed_lines(path, old, &new));
    }
    for path in moved.referrers.keys() {
        // INTO is stamped with its other fields.
        if *path != b.path {
            rules.touched_by_merge(store, path, &mut plan)?;
        }
    }
    fold_fields(store, from, into, &mut plan)?;
    let b_path = b.path.clone();
    if let Some(text) = body {
        let b_text = plan.draft.text(store, &b_path)?;
        let start = body_start(b_text);
        b_text.replace_range(start.., text);
        // The reviewer's body may still link to FROM (copied from either text): unwrapped.
        let unwrapped = repoint::unwrap_links_in(store, &b_path, b_text, from);
        *b_text = unwrapped;
    }
    plan.draft.archive(store, &a.path.clone())?;
    plan.event = plan.event.clone().detail("repointed", plan.repointed.len());
    rules.merge_event(a, b, &mut plan);
    Ok(plan)
}

/// INTO's body followed by FROM's under a `## Merged from` heading, FROM's links re-aimed from
/// its folder to INTO's and links between the two unwrapped: what `--append-body` and the
/// merge editor offer. Never the default, as it would turn superseded text into live text.
pub fn appended_body(store: &Store, from: EntityIdx, into: EntityIdx) -> Result<String, ReviewError> {
    let (a, b) = (store.entity(from), store.entity(into));
    let moved = repoint::plan_merge(store, from, &b.path).map_err(ReviewError::refused)?;
    let b_text = match moved.referrers.get(&b.path) {
        Some((_, t)) => t.clone(),
        None => store.read_entity_text(into).map_err(|e| ReviewError::refused(e.to_string()))?,
    };
    let a_text = &moved.moved;
    let own = &b_text[body_start(&b_text)..];
    let theirs = a_text[body_start(a_text)..].trim();
    let nl = crate::store::write::edit::newline_of(&b_text);
    let sep = if own.ends_with('\n') || own.is_empty() { "" } else { nl };
    Ok(format!("{own}{sep}{nl}{}", merged_section(&a.title, theirs, nl)))
}

/// FROM's body as a section of INTO's: `## Merged from TITLE`, then FROM's text with its
/// headings moved below the section's (the shallowest becomes `###`), so INTO keeps its own
/// outline. FROM's leading `# TITLE` is dropped: the section's heading already names it.
/// Headings inside fenced code are text and stay as they are.
pub fn merged_section(title: &str, theirs: &str, nl: &str) -> String {
    let lines: Vec<&str> = theirs.trim().lines().collect();
    let mut fence: Option<&str> = None;
    let mut headings = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        match fence {
            Some(f) if t.starts_with(f) => fence = None,
            Some(_) => {}
            None if t.starts_with("```") || t.starts_with("~~~") => fence = Some(&t[..3]),
            None => {
                if let Some(level) = heading_level(line) {
                    headings.push((k, level));
                }
            }
        }
    }
    let first_text = lines.iter().position(|l| !l.trim().is_empty());
    let drop = headings.first().filter(|&&(k, level)| {
        Some(k) == first_text && level == 1 && lines[k][1..].trim().trim_end_matches('#').trim() == title.trim()
    });
    let drop = drop.map(|&(k, _)| k);
    let shallowest = headings.iter().filter(|(k, _)| Some(*k) != drop).map(|&(_, l)| l).min().unwrap_or(3);
    let shift = 3usize.saturating_sub(shallowest);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (k, line) in lines.iter().enumerate() {
        if Some(k) == drop {
            continue;
        }
        match headings.iter().find(|(h, _)| *h == k) {
            Some(&(_, level)) => {
                let deeper = (level + shift).min(6);
                out.push(format!("{}{}", "#".repeat(deeper), &line[level..]));
            }
            None => out.push(line.to_string()),
        }
    }
    // The dropped title leaves no blank line at the top.
    let start = out.iter().position(|l| !l.trim().is_empty()).unwrap_or(out.len());
    let body = out[start..].join(nl);
    format!("## Merged from {title}{nl}{nl}{body}{nl}")
}

/// The level of an ATX heading (`## Title`, no indent), or None.
fn heading_level(line: &str) -> Option<usize> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[level..];
    ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some(level)
}

/// B gains A's aliases (and A's title as one), A's sources and the merge trail, each added to
/// B's lists in their own style.
fn fold_fields(store: &Store, from: EntityIdx, into: EntityIdx, plan: &mut Plan) -> Result<(), ReviewError> {
    let (a, b) = (store.entity(from), store.entity(into));
    let path = b.path.clone();
    let mut aliases: Vec<Value> = a.aliases.iter().map(|s| json!(s)).collect();
    if !a.title.is_empty() && a.title != b.title {
        aliases.push(json!(a.title));
    }
    if !aliases.is_empty() {
        fields::append(&mut plan.draft, store, &path, "aliases", &aliases)?;
    }
    let sources = new_sources(store, from, into, plan)?;
    if !sources.is_empty() {
        fields::append(&mut plan.draft, store, &path, "sources", &sources)?;
    }
    store.kind().format().review().merge_trail(store, &path, json!(a.id), plan)
}

/// A's `sources` items as A writes them (an OKF `{id, resource, title, …}` mapping stays a
/// mapping), without those B already names.
fn new_sources(store: &Store, from: EntityIdx, into: EntityIdx, plan: &mut Plan) -> Result<Vec<Value>, ReviewError> {
    let (a, b) = (store.entity(from), store.entity(into));
    if a.sources.is_empty() {
        return Ok(Vec::new());
    }
    let a_fields = fields::read(&mut plan.draft, store, &a.path.clone())?;
    let items: Vec<Value> = match a_fields.get("sources") {
        Some(Value::Array(items)) => items.clone(),
        _ => a.sources.iter().map(|s| json!(s)).collect(),
    };
    let names = |v: &Value| -> String {
        let v = v.get("resource").or_else(|| v.get("id")).unwrap_or(v);
        frontmatter::scalar_text(v).trim_start_matches("./").to_string()
    };
    let b_fields = fields::read(&mut plan.draft, store, &b.path.clone())?;
    let known: Vec<String> = match b_fields.get("sources") {
        Some(Value::Array(items)) => items.iter().map(names).collect(),
        _ => b.sources.clone(),
    };
    Ok(items.into_iter().filter(|i| !known.contains(&names(i))).collect())
}

fn body_start(text: &str) -> usize {
    match frontmatter::locate(text) {
        Block::Closed { body_start, .. } => body_start,
        _ => 0,
    }
}

/// `path:LINE: old → new` for every line a repointing changes, `path:LINE: old → (removed)`
/// for one it deletes (a repeated or self edge), from a line diff of the two texts.
pub fn changed_lines(path: &str, old: &str, new: &str) -> Vec<String> {
    use similar::{DiffOp, TextDiff};
    let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let mut out = Vec::new();
    for op in TextDiff::from_slices(&o, &n).ops() {
        let (old_at, old_len, new_at, new_len) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete { old_index, old_len, new_index } => (old_index, old_len, new_index, 0),
            DiffOp::Insert { old_index, new_index, new_len } => (old_index, 0, new_index, new_len),
            DiffOp::Replace { old_index, old_len, new_index, new_len } => (old_index, old_len, new_index, new_len),
        };
        for k in 0..old_len.max(new_len) {
            let line = if k < old_len { old_at + k + 1 } else { new_at + k + 1 };
            let was = o.get(old_at + k).filter(|_| k < old_len).map(|l| l.trim()).unwrap_or("(nothing)");
            let now = n.get(new_at + k).filter(|_| k < new_len).map(|l| l.trim()).unwrap_or("(removed)");
            out.push(format!("{path}:{line}: {was} → {now}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::merged_section;

    /// Issue 41: FROM's title is no heading of INTO's, its sections sit below `## Merged from`.
    #[test]
    fn the_merged_text_keeps_the_target_outline() {
        let theirs = "# Memory Model\n\nIntro.\n\n## Layers\n\nText.\n\n### Detail\n\n```sh\n# a comment\n```\n";
        let got = merged_section("Memory Model", theirs, "\n");
        let want =
            "## Merged from Memory Model\n\nIntro.\n\n### Layers\n\nText.\n\n#### Detail\n\n```sh\n# a comment\n```\n";
        assert_eq!(got, want);
    }

    #[test]
    fn a_title_unlike_the_source_name_is_demoted_not_lost() {
        let got = merged_section("amounts", "# Amounts in minor units\r\n\r\nCents.", "\r\n");
        assert_eq!(got, "## Merged from amounts\r\n\r\n### Amounts in minor units\r\n\r\nCents.\r\n");
        let flat = merged_section("Flat", "No heading.\n#hashtag is text", "\n");
        assert_eq!(flat, "## Merged from Flat\n\nNo heading.\n#hashtag is text\n");
        let deep = merged_section("D", "###### Six\n# One", "\n");
        assert_eq!(deep, "## Merged from D\n\n###### Six\n### One\n", "levels stop at six");
    }
}
