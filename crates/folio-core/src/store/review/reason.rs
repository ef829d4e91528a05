//! Why an entity waits in the review inbox (`Reason`), and the tiers the inbox orders them in
//! (docs/review.md, "The review queue").
use serde::Serialize;

/// One reason an entity is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    Draft,
    Candidate,
    ShadowPlaybook,
    Contradiction,
    LowConfidence,
    PendingReview,
    ChangedSinceApproval,
    /// An agent changed what a human vetoed or forgot (it was never approved since).
    ChangedSinceVeto,
    NeverReviewed,
    RetentionFlagged,
    PromotionCandidate,
    /// Find by content: the body nearly repeats another entity's (lint `near-duplicate`).
    NearDuplicate,
    /// Find by content: the entity may state the opposite of a near-duplicate (lint
    /// `possible-contradiction`): a person confirms it as a contradiction or dismisses it.
    PossibleContradiction,
    /// Terminal control characters or invisible text in the entity.
    HiddenContent,
    /// Lint reports an error on the entity.
    LintError,
    /// Reviewers decided apart (two clones merged through git) and disagree: one approved, one
    /// vetoed. Both verdicts are shown; folio picks neither.
    VerdictConflict,
}

/// How many tiers the inbox has (docs/review.md, "The inbox in the terminal UI"; issue 18).
pub const TIERS: u8 = 6;

/// Every reason, in tier order (the header counts them in this order).
pub const ALL: [Reason; 16] = [
    Reason::HiddenContent,
    Reason::VerdictConflict,
    Reason::Contradiction,
    Reason::ChangedSinceApproval,
    Reason::ChangedSinceVeto,
    Reason::PromotionCandidate,
    Reason::Candidate,
    Reason::Draft,
    Reason::ShadowPlaybook,
    Reason::PendingReview,
    Reason::LintError,
    Reason::NearDuplicate,
    Reason::PossibleContradiction,
    Reason::LowConfidence,
    Reason::RetentionFlagged,
    Reason::NeverReviewed,
];

impl Reason {
    pub fn code(self) -> &'static str {
        match self {
            Reason::Draft => "draft",
            Reason::Candidate => "candidate",
            Reason::ShadowPlaybook => "shadow-playbook",
            Reason::Contradiction => "contradiction",
            Reason::LowConfidence => "low-confidence",
            Reason::PendingReview => "pending-review",
            Reason::ChangedSinceApproval => "changed-since-approval",
            Reason::ChangedSinceVeto => "changed-since-veto",
            Reason::NeverReviewed => "never-reviewed",
            Reason::RetentionFlagged => "retention-flagged",
            Reason::PromotionCandidate => "promotion-candidate",
            Reason::NearDuplicate => "near-duplicate",
            Reason::PossibleContradiction => "possible-contradiction",
            Reason::HiddenContent => "hidden-content",
            Reason::LintError => "lint-error",
            Reason::VerdictConflict => "verdict-conflict",
        }
    }

    /// The reason's code, back to the reason (`reason:` filters).
    pub fn parse(code: &str) -> Option<Reason> {
        ALL.into_iter().find(|r| r.code() == code)
    }

    /// Where the reason ranks in the inbox, 1 most urgent: (1) hidden content and
    /// contradictions, (2) an agent changed what a human approved, (3) promotion requests and
    /// candidates/drafts, (4) lint findings, (5) retention-flagged, (6) never reviewed.
    pub fn tier(self) -> u8 {
        match self {
            Reason::HiddenContent | Reason::Contradiction | Reason::VerdictConflict => 1,
            Reason::ChangedSinceApproval | Reason::ChangedSinceVeto => 2,
            Reason::PromotionCandidate
            | Reason::Candidate
            | Reason::Draft
            | Reason::ShadowPlaybook
            | Reason::PendingReview => 3,
            Reason::LintError | Reason::NearDuplicate | Reason::PossibleContradiction | Reason::LowConfidence => 4,
            Reason::RetentionFlagged => 5,
            Reason::NeverReviewed => 6,
        }
    }
}
