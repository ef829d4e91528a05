//! What review decisions mean in one format. Each format answers in its own folder
//! (`dialect/<format>/review.rs`) through `Format::review`; the generic verdict and merge code
//! (`verdict.rs`, `merge.rs`) asks and never matches on which format it is. The defaults are
//! what a format without review fields does: the log line is the verdict, veto and forget take
//! the file out of the store into folio's archive.
use serde_json::{Value, json};

use super::ledger::VerdictRecord;
use super::plan::Plan;
use super::queue::Reason;
use super::verdict::Verdict;
use super::{ReviewError, Reviewer, fields};
use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::frontmatter::Fields;
use crate::store::write::audit::AuditEvent;

pub trait ReviewRules: Sync {
    /// What this format itself marks as awaiting a decision on entity `e` (fields `f`).
    fn queue_reasons(&self, _e: &Entity, _f: &Fields) -> Vec<Reason> {
        Vec::new()
    }

    /// Whether the format's own fields record that a person reviewed the entity as it stands
    /// (OKF: a `human:` entry of `verified` dated at or after its last change): it is then not
    /// "never reviewed". The format's own markers (`queue_reasons`) still apply.
    fn reviewed_in_fields(&self, _e: &Entity, _f: &Fields) -> bool {
        false
    }

    /// Field values that take an entity out of the active set (never queued).
    fn inactive(&self, _f: &Fields) -> bool {
        false
    }

    /// Where approving entity `idx` files it (`Verdict::Approve { kind }`), when the format
    /// files approvals under a section: an awareness candidate's, as the framework's
    /// `memory promote --kind` asks — the sections to pick from and the one inferred, if any.
    /// None: approval needs nothing more.
    fn approve_filing(&self, _store: &Store, _idx: EntityIdx) -> Option<super::filing::Filing> {
        None
    }

    /// What `verdict` writes to entity `idx` (docs/review.md, "Per format").
    fn verdict(&self, store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
        log_only(store, idx, verdict, plan)
    }

    /// The word the store's own log records a verdict with (evolve's rows say `approved`).
    fn verdict_word(&self, verdict: &Verdict) -> &'static str {
        verdict.name()
    }

    /// Verdicts the store's own log holds (evolve's `{"event": "review", "verdict":
    /// "approved", …}` rows, whoever wrote them), oldest first, less those an undo took back.
    fn logged_verdicts(&self, _store: &Store) -> Vec<VerdictRecord> {
        Vec::new()
    }

    /// The file `logged_verdicts` reads for the store at `root` (None: it reads none), which
    /// the inbox's kept listing is keyed on (`keep::cache::inbox_memo`).
    fn logged_verdicts_file(&self, _root: &std::path::Path) -> Option<std::path::PathBuf> {
        None
    }

    /// The verb the log records a verdict under.
    fn log_verb(&self, verdict: &Verdict) -> &'static str {
        verdict.name()
    }

    /// Whether the log line carries the content hash(es) each verdict was taken on.
    fn logs_hashes(&self) -> bool {
        false
    }

    /// Formats whose entities are lines of a shared file fold a merge in their own way;
    /// `Some` when this one did (the plan is then complete).
    fn merge_entries(
        &self,
        _store: &Store,
        _from: EntityIdx,
        _into: EntityIdx,
        _plan: &mut Plan,
    ) -> Option<Result<(), ReviewError>> {
        None
    }

    /// Record on INTO (at `path`, fields `f` as the draft has them) that it absorbed `trail`.
    fn merge_trail(&self, store: &Store, path: &str, trail: Value, plan: &mut Plan) -> Result<(), ReviewError> {
        fields::append(&mut plan.draft, store, path, "merged_from", &[trail])
    }

    /// A file whose links a merge re-aimed (not INTO itself): anything the format stamps on
    /// every write.
    fn touched_by_merge(&self, _store: &Store, _path: &str, _plan: &mut Plan) -> Result<(), ReviewError> {
        Ok(())
    }

    /// The preview's lines for one file a merge re-aimed, from its text before and after
    /// (a line diff by default; a format that rewrites a whole block says edge by edge).
    fn repointed_lines(&self, path: &str, old: &str, new: &str) -> Vec<String> {
        super::merge::changed_lines(path, old, new)
    }

    /// The merge's log event in the format's own shape (`plan.event` is the generic one).
    fn merge_event(&self, _a: &Entity, _b: &Entity, _plan: &mut Plan) {}

    /// A person confirmed that `idx` contradicts `other`: record it in the format's own field
    /// on `idx`. `false` when the format has no such field (nothing is written).
    fn confirm_contradiction(
        &self,
        _store: &Store,
        _idx: EntityIdx,
        _other: EntityIdx,
        _plan: &mut Plan,
    ) -> Result<bool, ReviewError> {
        Ok(false)
    }

    /// The page left where a vetoed or forgotten entity's file was, so links into it keep
    /// resolving (`stub`), saying `why`, written at `at` (RFC 3339); None when this format's own
    /// tool would read such a page as live knowledge.
    fn stub(&self, _e: &Entity, _why: &str, _at: &str) -> Option<String> {
        None
    }
}

/// The rules of a format without review fields of its own (vault, EloPhanto).
pub struct LogOnly;

impl ReviewRules for LogOnly {
    /// A note saying what was there (EloPhanto reads it as a note that the knowledge is gone).
    fn stub(&self, e: &Entity, why: &str, _at: &str) -> Option<String> {
        Some(super::stub::page(&e.title, &[], why, false))
    }
}

/// The log line is the verdict; veto and forget take the file out of the indexed tree into
/// the folio archive; there is no ladder to promote along.
pub fn log_only(store: &Store, idx: EntityIdx, verdict: &Verdict, plan: &mut Plan) -> Result<(), ReviewError> {
    let path = store.entity(idx).path.clone();
    match verdict {
        Verdict::Veto { .. } | Verdict::Forget => plan.draft.archive(store, &path),
        Verdict::Promote { .. } => {
            Err(ReviewError::refused(format!("{path}: {} has no maturity levels to promote along", store.kind())))
        }
        Verdict::Approve { .. } => Ok(()),
    }
}

/// `{by, at}` (and `reason`): who decided and when, as formats record it in a field.
pub fn stamp(reviewer: &Reviewer, reason: Option<&str>) -> Value {
    let mut v = json!({"by": reviewer.by, "at": reviewer.timestamp()});
    if let Some(r) = reason {
        v["reason"] = json!(r);
    }
    v
}

/// A promotion with no default next step needs `--to`.
pub fn needs_to(store: &Store, idx: EntityIdx, what: &str) -> ReviewError {
    let e = store.entity(idx);
    ReviewError::refused(format!("{}: nothing to promote `{}` along by default; name {what}", e.path, e.id))
}

/// A log event naming `a` (the merged entity) the way a review line does.
pub fn review_line(a: &Entity, by: &str, summary: String) -> AuditEvent {
    AuditEvent::new("review", by, summary).entity(&a.id, &a.title, &a.path)
}
