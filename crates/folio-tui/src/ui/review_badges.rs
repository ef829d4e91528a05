//! The inbox's reasons as short coloured badges (two letters each, coloured by tier), and the
//! legend that spells each out with its count, wrapped to the queue column's width.
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::model::Model;
use folio_core::store::review::queue::Reason;

/// The badge of a reason: two letters, unique among the reasons.
pub fn badge(r: Reason) -> &'static str {
    match r {
        Reason::HiddenContent => "HC",
        Reason::VerdictConflict => "VC",
        Reason::Contradiction => "CT",
        Reason::ChangedSinceApproval => "CH",
        Reason::ChangedSinceVeto => "CV",
        Reason::PromotionCandidate => "PM",
        Reason::Candidate => "CA",
        Reason::Draft => "DR",
        Reason::ShadowPlaybook => "SP",
        Reason::PendingReview => "PR",
        Reason::LintError => "LE",
        Reason::NearDuplicate => "ND",
        Reason::PossibleContradiction => "PC",
        Reason::LowConfidence => "LC",
        Reason::RetentionFlagged => "RF",
        Reason::NeverReviewed => "NR",
    }
}

/// A badge's colour: the more urgent its tier, the louder.
pub fn style(model: &Model, r: Reason) -> Style {
    let role = match r.tier() {
        1 => "error",
        2 => "warn",
        3 => "pending",
        4 => "tag",
        5 => "code",
        _ => "muted",
    };
    model.theme.style(role)
}

/// An item's badges, one space apart.
pub fn spans(model: &Model, reasons: &[Reason]) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for (n, &r) in reasons.iter().enumerate() {
        if n > 0 {
            out.push(Span::raw(" "));
        }
        out.push(Span::styled(badge(r), style(model, r)));
    }
    out
}

/// Columns the badges of `reasons` take.
pub fn width(reasons: &[Reason]) -> usize {
    (reasons.len() * 3).saturating_sub(1)
}

/// The legend with counts (`DR draft 12 · LE lint-error 3 …`), wrapped to `width` columns: every
/// reason and its whole count is shown, never cut.
pub fn legend(model: &Model, counts: &[(Reason, usize)], width: usize) -> Vec<Line<'static>> {
    let muted = model.theme.style("muted");
    let mut lines: Vec<Line> = Vec::new();
    let mut used = 0usize;
    let mut current: Vec<Span> = Vec::new();
    for &(r, n) in counts {
        let entry = format!("{} {n}", r.code());
        let w = badge(r).len() + 1 + entry.chars().count();
        let sep = if current.is_empty() { 0 } else { 3 };
        if !current.is_empty() && used + sep + w > width {
            lines.push(Line::from(std::mem::take(&mut current)));
            used = 0;
        }
        if !current.is_empty() {
            current.push(Span::styled(" · ", muted));
            used += 3;
        }
        current.push(Span::styled(badge(r), style(model, r)));
        current.push(Span::styled(format!(" {entry}"), muted));
        used += w;
    }
    if !current.is_empty() {
        lines.push(Line::from(current));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_core::store::review::queue::ALL;

    #[test]
    fn every_reason_has_its_own_two_letter_badge() {
        let mut seen: Vec<&str> = ALL.iter().map(|&r| badge(r)).collect();
        assert!(seen.iter().all(|b| b.len() == 2));
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), ALL.len());
    }
}
