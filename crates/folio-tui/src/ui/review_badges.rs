//! The inbox's reasons as short coloured badges (two letters each, coloured by tier), and the
//! legend that spells each out with its count, wrapped to the queue column's width.
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::settings::theme::Theme;
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
pub fn style(theme: &Theme, r: Reason) -> Style {
    let role = match r.tier() {
        1 => "error",
        2 => "warn",
        3 => "pending",
        4 => "tag",
        5 => "code",
        _ => "muted",
    };
    theme.style(role)
}

/// An item's badges, one space apart.
pub fn spans(theme: &Theme, reasons: &[Reason]) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for (n, &r) in reasons.iter().enumerate() {
        if n > 0 {
            out.push(Span::raw(" "));
        }
        out.push(Span::styled(badge(r), style(theme, r)));
    }
    out
}

/// Columns the badges of `reasons` take.
pub fn width(reasons: &[Reason]) -> usize {
    (reasons.len() * 3).saturating_sub(1)
}

/// The legend with counts (`DR draft 12 · LE lint-error 3 …`), wrapped to `width` columns: every
/// reason and its whole count is shown, never cut (only a name wider than the column itself).
pub fn legend(theme: &Theme, counts: &[(Reason, usize)], width: usize) -> Vec<Line<'static>> {
    let muted = theme.style("muted");
    let mut lines: Vec<Line> = Vec::new();
    let mut used = 0usize;
    let mut current: Vec<Span> = Vec::new();
    for &(r, n) in counts {
        // The count is always whole; a name wider than the column is shortened (the detail's
        // `queued` line spells it out).
        let room = width.saturating_sub(badge(r).len() + 2 + n.to_string().len());
        let name: String = if r.code().chars().count() > room && room > 1 {
            r.code().chars().take(room - 1).chain(['…']).collect()
        } else {
            r.code().to_string()
        };
        let entry = format!("{name} {n}");
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
        current.push(Span::styled(badge(r), style(theme, r)));
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

    fn text(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn the_legend_wraps_and_keeps_every_count_whole() {
        let theme = Theme::dark();
        let counts = [(Reason::HiddenContent, 1), (Reason::Draft, 3), (Reason::PossibleContradiction, 12)];
        assert_eq!(
            text(&legend(&theme, &counts, 80)),
            ["HC hidden-content 1 · DR draft 3 · PC possible-contradiction 12"]
        );
        assert_eq!(
            text(&legend(&theme, &counts, 24)),
            ["HC hidden-content 1", "DR draft 3", "PC possible-contradi… 12"]
        );
    }

    #[test]
    fn every_reason_has_its_own_two_letter_badge() {
        let mut seen: Vec<&str> = ALL.iter().map(|&r| badge(r)).collect();
        assert!(seen.iter().all(|b| b.len() == 2));
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), ALL.len());
    }
}
