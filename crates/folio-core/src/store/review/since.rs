//! What an item's detail says about its last approval, from the same records the queue's
//! `changed-since-approval` reason reads (folio's ledger, then the store's own log): the
//! word diff when the approved text is kept, or who approved it when only the record is (a
//! `review` row in evolve's audit log names a hash, not a text), so a detail never calls an
//! approved item "never approved".
use super::diff;
use super::ledger::{Ledger, VerdictRecord, is_approval};
use super::queue::{self, QueueItem};
use crate::store::Store;

#[derive(Debug, Clone, PartialEq)]
pub enum SinceApproval {
    /// The approved text is kept: the word diff from it to the text now.
    Changes { old: String, ops: Vec<(diff::Op, String)> },
    /// Approved, by `by` at `at`, but the text it approved is kept nowhere folio reads.
    TextNotKept { by: String, at: String },
    /// No approval on record.
    Never,
}

impl SinceApproval {
    /// The heading a detail shows above the diff or the whole text.
    pub fn heading(&self) -> String {
        match self {
            SinceApproval::Changes { .. } => "Changes since the last approval:".into(),
            SinceApproval::TextNotKept { by, at } => {
                format!("Approved by {by} at {at}; that text is not kept, so the whole text:")
            }
            SinceApproval::Never => "Never approved: the whole text".into(),
        }
    }
}

/// The item's change since its last approval, as `SinceApproval` says it.
pub fn since_approval(store: &Store, item: &QueueItem) -> SinceApproval {
    if let Some((old, ops)) = queue::since_approval(store, item) {
        return SinceApproval::Changes { old, ops };
    }
    let Some(hash) = item.approved_hash.as_deref() else { return SinceApproval::Never };
    let ledger = Ledger::open(store);
    let logged;
    let record: Option<&VerdictRecord> = match ledger.last_approval(&item.id).filter(|r| r.hash == hash) {
        Some(r) => Some(r),
        None => {
            logged = store.kind().format().review().logged_verdicts(store);
            logged.iter().rev().find(|r| r.entity == item.id && r.hash == hash && is_approval(&r.verdict))
        }
    };
    match record {
        Some(r) => SinceApproval::TextNotKept { by: r.by.clone(), at: r.ts.clone() },
        None => SinceApproval::TextNotKept { by: "someone".into(), at: "an unrecorded time".into() },
    }
}
