//! "Edit, then approve" as one plan: the approval is planned on the store as it stands and the
//! person's edit is laid over the entity's text in the approved file, so the confirm dialog
//! shows both in one diff, `y` writes them as one changeset (one undo) and `n` writes nothing.
use super::editor::Edits;
use super::jobs::EditSeed;
use folio_core::store::review::{self, Plan, Reviewer, Verdict};
use folio_core::store::{Store, model::digest};

/// `kind`: what the approval files the entity as, where its format files approvals under a section (`approve_filing`).
pub fn plan(
    store: &Store,
    seed: &EditSeed,
    edits: &Edits,
    reviewer: &Reviewer,
    kind: Option<String>,
) -> Result<Plan, String> {
    let path = &seed.path;
    let idx = store
        .find(&seed.id)
        .filter(|&i| store.entity(i).id == seed.id)
        .ok_or_else(|| format!("{path}: `{}` is no longer in the store; nothing was written", seed.id))?;
    let on_disk = store.storage().read(path).map_err(|e| format!("{path}: {e}"))?;
    if digest::of(&on_disk) != seed.file_digest {
        return Err(format!("{path}: changed on disk since the editor opened; nothing was written"));
    }
    let approve = Verdict::Approve { over: None, kind };
    let mut plan = review::verdict::plan(store, &[idx], &approve, reviewer, true).map_err(|e| e.to_string())?;
    let original = seed.entity_text();
    let edited = edits.apply_to(original)?;
    if edited == original {
        return Ok(plan);
    }
    let whole_file = seed.span == (0..seed.file_text.len());
    if !whole_file && !original.trim_end_matches('\n').contains('\n') && edited.trim_end_matches('\n').contains('\n') {
        return Err(format!("{path}: `{}` is one line of its file: keep the edit on one line", seed.id));
    }
    if plan.draft.moves().iter().any(|(from, _)| from == path) {
        return Err(format!("{path}: approving moves the file; save the edit first, then approve"));
    }
    let approved = plan.draft.result(path).unwrap_or(&seed.file_text).to_string();
    let (combined, at) = lay_over(seed, &approved, edits, &edited).ok_or_else(|| {
        format!("{path}: the approval rewrites `{}` itself; save the edit first, then approve", seed.id)
    })??;
    // Where an entity's id comes from its text (an awareness entry), the edit renames it: the
    // approval is remembered under the id the edited text has.
    if let Some(new_id) = id_at(store, path, &combined, at).filter(|id| *id != seed.id) {
        for d in plan.decisions.iter_mut().filter(|d| d.entity == seed.id) {
            d.renamed_to = Some(new_id.clone());
        }
    }
    plan.draft.set_text(store, path, combined).map_err(|e| e.to_string())?;
    plan.event.summary = format!("{} after editing it", plan.event.summary);
    plan.notes.push(format!("with your edit of `{}`: y writes both as one change, n writes neither", seed.id));
    Ok(plan)
}

/// The approved file with the edit in it: where the text around the entity is as it was, the
/// edit is laid over the entity's approved text (fields surgically, the body replaced); where
/// the approval moved the entity unchanged (an awareness entry changing section), the edited
/// text takes its place. None: the entity cannot be found in the approved file.
/// The file text and the byte where the edited entity starts in it.
fn lay_over(seed: &EditSeed, approved: &str, edits: &Edits, edited: &str) -> Option<Result<(String, usize), String>> {
    let before = &seed.file_text[..seed.span.start];
    let after = &seed.file_text[seed.span.end..];
    if approved.len() >= before.len() + after.len() && approved.starts_with(before) && approved.ends_with(after) {
        let entity = &approved[before.len()..approved.len() - after.len()];
        return Some(edits.apply_to(entity).map(|e| (format!("{before}{e}{after}"), before.len())));
    }
    let original = seed.entity_text();
    let mut found = approved.match_indices(original);
    match (found.next(), found.next()) {
        (Some((at, _)), None) => {
            let mut out = approved.to_string();
            out.replace_range(at..at + original.len(), edited);
            Some(Ok((out, at)))
        }
        _ => None,
    }
}

/// The id of the entity starting at byte `at` of `text` (the file at `path`), as the store's
/// dialect reads it.
fn id_at(store: &Store, path: &str, text: &str, at: usize) -> Option<String> {
    use folio_core::store::dialect::SourceFile;
    let lines = folio_core::store::model::lines::LineIndex::new(text);
    let file = SourceFile { rel: path, text, lines: &lines, problems: &[], parseable: true };
    let entities = store.dialect.parse(&file);
    entities.into_iter().find(|e| e.span.start as usize == at).map(|e| e.id)
}
