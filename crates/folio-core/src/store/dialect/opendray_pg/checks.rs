//! The brain's own per-node guards, beyond what the export's checks find (an entity without
//! `entity_type`, an edge type outside the vocabulary): skills never used long after they
//! were made, skills that fail more than they succeed, candidates left waiting.
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::store::model::entity::Problem;
use crate::store::read::frontmatter::view::{Val, View};

/// Days after which a never-used skill is a retirement candidate.
pub const NEVER_USED_DAYS: i64 = 30;
/// Days a candidate may wait for a decision.
pub const CANDIDATE_DAYS: i64 = 14;

pub fn node(f: &View) -> Vec<Problem> {
    node_at(f, crate::store::model::timestamp::now())
}

fn node_at(f: &View, now: OffsetDateTime) -> Vec<Problem> {
    let mut out = Vec::new();
    let count = |k: &str| match f.get(k) {
        Some(Val::Num(n)) => n.as_i64().unwrap_or(0),
        _ => 0,
    };
    let age_days =
        f.str("created_at").and_then(|t| OffsetDateTime::parse(&t, &Rfc3339).ok()).map(|t| (now - t).whole_days());
    let kind = f.str("kind").unwrap_or_default();
    // The problems sit on the frontmatter's first line (the rendering puts no key elsewhere).
    let at = |rule, msg: String| Problem::new(rule, msg, 2, 1);
    if kind == "skill" && count("use_count") == 0 && age_days.is_some_and(|d| d > NEVER_USED_DAYS) {
        out.push(at(
            super::spec::NEVER_USED,
            format!("never used in {} days since it was made (use_count 0)", age_days.unwrap_or_default()),
        ));
    }
    let (ok, failed) = (count("success_count"), count("failure_count"));
    if kind == "skill" && failed > ok {
        out.push(at(super::spec::FAILING, format!("failed {failed} times, succeeded {ok}")));
    }
    if f.str("maturity").as_deref() == Some("candidate") && age_days.is_some_and(|d| d > CANDIDATE_DAYS) {
        out.push(at(
            super::spec::OLD_CANDIDATE,
            format!("a candidate for {} days (more than {CANDIDATE_DAYS})", age_days.unwrap_or_default()),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::frontmatter::parse_yaml;
    use time::macros::datetime;

    fn rules(y: &str) -> Vec<&'static str> {
        node_at(&View::from_fields(parse_yaml(y).unwrap()), datetime!(2026-03-01 0:00 UTC)).iter().map(|p| p.rule).collect()
    }

    #[test]
    fn guards_fire_past_their_thresholds_only() {
        let old = "created_at: 2026-01-01T00:00:00.000000Z\n";
        let new = "created_at: 2026-02-25T00:00:00.000000Z\n";
        assert_eq!(rules(&format!("kind: skill\nuse_count: 0\n{old}")), [crate::store::dialect::opendray_pg::spec::NEVER_USED]);
        assert!(rules(&format!("kind: skill\nuse_count: 2\n{old}")).is_empty());
        assert!(rules(&format!("kind: skill\nuse_count: 0\n{new}")).is_empty());
        assert_eq!(rules("kind: skill\nuse_count: 5\nsuccess_count: 1\nfailure_count: 3\n"), [crate::store::dialect::opendray_pg::spec::FAILING]);
        assert!(rules("kind: skill\nuse_count: 5\nsuccess_count: 3\nfailure_count: 3\n").is_empty());
        assert_eq!(rules(&format!("kind: entity\nmaturity: candidate\n{old}")), [crate::store::dialect::opendray_pg::spec::OLD_CANDIDATE]);
        assert!(rules(&format!("kind: entity\nmaturity: candidate\n{new}")).is_empty());
    }
}
