//! opendray's live brain in PostgreSQL, named by a connection string (docs/opendray-database.md).
use crate::store::lint::rules::r;
use crate::store::model::entity::Severity::{Info, Warn};
use crate::store::dialect::spec::{FormatSpec};

/// A skill loaded by agents but never used long after it was made (opendray's use counts).
pub const NEVER_USED: &str = "never-used";
/// A skill that ended in failure more often than in success.
pub const FAILING: &str = "failing";
/// A node still a candidate long after it was made.
pub const OLD_CANDIDATE: &str = "old-candidate";

pub const SPEC: FormatSpec = FormatSpec {
    name: "opendray-pg",
    markers: &["a PostgreSQL connection string to opendray's brain"],
    store_is_folder: false,
    folder_pages: &[],
    hub_pages: &[],
    field_labels: ("kind", "maturity"),
    rules: &[
        r(
            NEVER_USED,
            Warn,
            "A skill that agents have never used (`use_count` 0) though it was made more than 30 days ago: a retirement candidate (opendray).",
            false,
        ),
        r(
            FAILING,
            Warn,
            "A skill whose sessions ended in failure more often than in success (`failure_count` > `success_count`): a retirement candidate (opendray).",
            false,
        ),
        r(
            OLD_CANDIDATE,
            Info,
            "A node still at maturity `candidate` more than 14 days after it was made: approve, promote or veto it.",
            false,
        ),
    ],
    ..FormatSpec::FOLDER
};
