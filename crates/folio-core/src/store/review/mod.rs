//! Review: the inbox of agent-written knowledge and the human verdicts on it (approve, veto,
//! forget, promote, merge, bulk), mapped onto each dialect's own fields as docs/review.md says.
//!
//! Every face (CLI, TUI pane) works the same way: `queue::build` lists what awaits a decision
//! and why; `verdict::plan` (or `merge::plan`) turns a decision into a `Plan` — one changeset
//! that can be previewed (`Plan::diff`) before `Plan::apply` writes it; `store::undo::undo`
//! reverts it and drops its verdicts from the ledger (the items return to the queue).
use time::OffsetDateTime;

pub mod authorship;
pub mod baseline;
pub mod contradiction;
pub mod diff;
pub mod draft;
pub mod edges;
pub mod expect;
pub mod fields;
pub mod filing;
pub mod filter;
pub mod group;
pub mod impact;
pub mod ledger;
pub mod listing;
pub mod merge;
pub mod merge_candidates;
pub mod plan;
pub mod queue;
pub mod reason;
pub mod retype;
pub mod rules;
pub mod since;
pub mod stub;
pub mod text_facts;
pub mod verdict;

pub use plan::Plan;
pub use queue::{QueueItem, Reason};
pub use verdict::Verdict;

/// Who decides, and when (injected so tests and goldens can fix the clock).
#[derive(Debug, Clone)]
pub struct Reviewer {
    /// `human:<id>`.
    pub by: String,
    pub at: OffsetDateTime,
}

impl Reviewer {
    pub fn now(by: &str) -> Self {
        Reviewer { by: by.to_string(), at: crate::store::write::audit::now() }
    }

    /// `YYYY-MM-DD`.
    pub fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.at.year(), self.at.month() as u8, self.at.day())
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn timestamp(&self) -> String {
        format!("{}T{:02}:{:02}:{:02}Z", self.date(), self.at.hour(), self.at.minute(), self.at.second())
    }
}

/// Why a verdict could not be planned or applied. Messages name the file or entity.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Write(#[from] crate::store::write::changeset::WriteError),
}

impl ReviewError {
    pub fn refused(msg: impl Into<String>) -> Self {
        ReviewError::Refused(msg.into())
    }
}
