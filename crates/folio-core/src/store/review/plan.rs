//! A planned review decision: the file changes (a `Draft`), the audit event and the verdicts
//! to remember. Preview it with `diff`, write it with `apply` (one hash-checked changeset, its
//! undo record filed); `store::undo::undo` reverts it.
use super::draft::Draft;
use super::ledger::{Ledger, VerdictRecord, is_approval};
use super::{ReviewError, Reviewer};
use crate::store::write::audit::AuditEvent;
use crate::store::write::changeset::{self, Applied, WriteError, WriteOptions};
use crate::store::write::preview::{self, Preview};
use crate::store::write::state::State;
use crate::store::{Store, model::digest, read::readonly};

/// One verdict on one entity inside a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub entity: String,
    pub verdict: String,
    /// Digest of the entity's text as the reviewer saw it.
    pub hash_before: String,
    /// The entity's id after the changeset when the verdict moves it (OKF promote to a type).
    pub renamed_to: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub verb: String,
    pub draft: Draft,
    pub event: AuditEvent,
    pub decisions: Vec<Decision>,
    pub reviewer: Reviewer,
    /// Links and typed edges a merge repoints, one line each (`path: old → new`).
    pub repointed: Vec<String>,
    /// Things the plan left alone, and why.
    pub notes: Vec<String>,
    /// What the plan does to review state beyond its verdicts' entities (a merge approves its
    /// target), said before it is confirmed.
    pub review_state: Vec<String>,
}

impl Plan {
    pub fn new(verb: &str, event: AuditEvent, reviewer: &Reviewer) -> Plan {
        Plan {
            verb: verb.to_string(),
            draft: Draft::default(),
            event,
            decisions: Vec::new(),
            reviewer: reviewer.clone(),
            repointed: Vec::new(),
            notes: Vec::new(),
            review_state: Vec::new(),
        }
    }

    /// Every file change as a unified diff (the audit line is added on apply).
    pub fn diff(&self) -> String {
        self.draft.diff()
    }

    /// The catalogs this plan regenerates and the bytes it logs, as the write will (the event
    /// is logged at the time the plan was made, in preview and write alike).
    pub fn preview(&self, store: &Store) -> Preview {
        let mut p = preview::of(store, &self.draft.writes(), &self.event, self.logged_at());
        p.ledger = self.ledger_lines(store);
        p
    }

    /// `preview`, over the store as it reads after this plan (`Store::overlaid`).
    pub fn preview_over(&self, store: &Store, after: &Store) -> Preview {
        let mut p = preview::over(store, after, &self.draft.writes(), &self.event, self.logged_at());
        p.ledger = self.ledger_lines(store);
        p
    }

    /// What the review ledger gains when the plan is applied (`Verdicts` below writes it).
    fn ledger_lines(&self, store: &Store) -> Vec<String> {
        if self.decisions.is_empty() {
            return Vec::new();
        }
        let state = State::for_store(&store.root, store.kind());
        let verdicts = state.verdicts_path();
        let rel = crate::store::model::relpath::from_root(&store.root, &verdicts);
        let n = self.decisions.len();
        let mut out = vec![format!("{rel} gains {n} verdict line{}", if n == 1 { "" } else { "s" })];
        let approvals = self.decisions.iter().filter(|d| is_approval(&d.verdict)).count();
        if approvals > 0 {
            let dir = crate::store::model::relpath::from_root(&store.root, &verdicts.with_file_name("approved"));
            let texts = if approvals == 1 { "text" } else { "texts" };
            out.push(format!("{dir}/ keeps the approved {texts} (one file each, when not kept yet)"));
        }
        out
    }

    pub(super) fn logged_at(&self) -> time::OffsetDateTime {
        self.event.at.unwrap_or(self.reviewer.at)
    }

    /// Write the plan as one changeset, then remember its verdicts.
    pub fn apply(mut self, store: &Store, opts: &WriteOptions) -> Result<Applied, ReviewError> {
        self.event.at = Some(self.logged_at());
        let state = State::for_store(&store.root, store.kind());
        for (path, original) in self.draft.archived() {
            let on_disk = store.storage().read(path).ok();
            if on_disk.as_deref() != Some(original.as_bytes()) {
                // A database store's node changed in its rows, not on disk: named as a row.
                let row = (!store.kind().spec().store_is_folder)
                    .then(|| store.entities.iter().find(|e| e.path == path).map(|e| e.id.to_string()))
                    .flatten();
                return Err(WriteError::Conflict { path: path.to_string(), on_disk, intended: None, row }.into());
            }
        }
        let writes = self.draft.writes();
        let paths: Vec<&str> = writes.iter().map(|w| w.path.as_str()).collect();
        // Refused before anything reaches the archive (the engine would refuse the writes).
        if let Some(why) = readonly::refusal(&store.root, store.kind(), &paths, opts.read_only) {
            return Err(WriteError::ReadOnly(why).into());
        }
        for (path, original) in self.draft.archived() {
            state.archive(path, original.as_bytes()).map_err(|err| WriteError::Io { path: path.to_string(), err })?;
        }
        let then = std::sync::Arc::new(Verdicts { decisions: self.decisions, reviewer: self.reviewer.clone() });
        Ok(changeset::apply_writes_then(store, writes, self.event, then, opts)?)
    }
}

/// A plan's verdicts, written to the review ledger as the last writes of its changeset: each
/// names the entity's text as the changeset left it and the changeset itself.
#[derive(Debug)]
struct Verdicts {
    decisions: Vec<Decision>,
    reviewer: Reviewer,
}

impl changeset::Then for Verdicts {
    fn writes(&self, written: &Store, changeset: &str) -> Result<Vec<changeset::Write>, WriteError> {
        let ledger = Ledger::read(written).map_err(|err| WriteError::Io { path: "folio review ledger".into(), err })?;
        let mut verdicts = Vec::new();
        for d in &self.decisions {
            let entity = d.renamed_to.clone().unwrap_or_else(|| d.entity.clone());
            let now = written.by_id(&entity);
            // A text that cannot be read is an error here: recorded without it, the verdict would
            // name the wrong text.
            let text = match now {
                Some(i) => Some(written.read_entity_text(i).map_err(|e| WriteError::Invalid(e.to_string()))?),
                None => None,
            };
            let (hash, snapshot, after) = match (is_approval(&d.verdict), text) {
                (true, Some(t)) => (digest::of(t.as_bytes()), Some(t), None),
                (false, Some(t)) => (d.hash_before.clone(), None, Some(digest::of(t.as_bytes()))),
                (false, None) => (d.hash_before.clone(), None, None),
                (true, None) => (d.hash_before.clone(), None, None),
            };
            // What this reviewer saw decided on the entity: this decision follows all of it.
            let seen = Some(ledger.heads(&entity).iter().map(|r| r.key()).collect());
            let record = VerdictRecord {
                seen,
                entity,
                verdict: d.verdict.clone(),
                hash,
                by: self.reviewer.by.clone(),
                ts: self.reviewer.timestamp(),
                after,
                changeset: Some(changeset.to_string()),
            };
            verdicts.push((record, snapshot));
        }
        ledger.writes(written, verdicts).map_err(|err| WriteError::Io { path: "folio review ledger".into(), err })
    }
}
