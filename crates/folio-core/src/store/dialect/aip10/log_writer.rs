//! AIP-10's `_log.md`: chronological, `## [ISO] <type> | <subject>` headings with bullets.
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::store::write::audit::{self, AuditEvent};

/// Appended at the end (AIP-10 logs are chronological): `## [ISO] manual | verb subject`.
pub fn append(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let ts = at.replace_nanosecond(0).unwrap_or(at).format(&Rfc3339).unwrap_or_default();
    let subject = event.entities.first().map(|e| e.id.clone()).unwrap_or_else(|| "store".into());
    let mut out = old.to_string();
    if !out.is_empty() {
        out.push_str(if out.ends_with("\n\n") {
            ""
        } else if out.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        });
    }
    match &event.log_heading {
        Some((kind, subject)) => out += &format!("## [{ts}] {kind} | {subject}\n\n"),
        None => out += &format!("## [{ts}] manual | {} {subject}\n\n", event.verb),
    }
    if event.bullets.is_empty() {
        for e in &event.entities {
            out += &format!("- {} [[{}]].\n", audit::capitalised(&event.verb), e.id);
        }
        out += &format!("- {} (by {}).\n", crate::store::write::catalog::one_line(&event.summary), event.by);
    } else {
        for b in &event.bullets {
            out += &format!("- {}\n", crate::store::write::catalog::one_line(b));
        }
    }
    out
}
