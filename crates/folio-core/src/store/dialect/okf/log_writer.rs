//! OKF's `log.md`: newest first under `## YYYY-MM-DD` headings, one `* **Verb**: …` line per
//! event, following the log's own bullet character and spacing.
use time::OffsetDateTime;

use crate::store::write::audit::{self, AuditEvent};

fn okf_line(event: &AuditEvent, bullet: char) -> String {
    let links: Vec<String> = event
        .entities
        .iter()
        .map(|e| {
            format!(
                "[{}](/{})",
                crate::store::write::catalog::one_line(&e.title).replace(['[', ']'], ""),
                e.path.replace(' ', "%20")
            )
        })
        .collect();
    let about = if links.is_empty() { String::new() } else { format!(" {}:", links.join(", ")) };
    format!(
        "{bullet} **{}**:{about} {} ({})",
        audit::capitalised(&event.verb),
        crate::store::write::catalog::one_line(&event.summary),
        event.by
    )
}

/// Newest first: the entry joins today's `## YYYY-MM-DD` section at its top, or a new section
/// goes above the first dated one. Frontmatter and the `# Title` stay where they are.
pub fn append(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let nl = crate::store::write::edit::newline_of(old);
    let date = format!("{:04}-{:02}-{:02}", at.year(), at.month() as u8, at.day());
    // Follow the log's own habits: its bullet character, a blank line under each date.
    let bullet = old.lines().map(str::trim_start).find(|l| l.starts_with("- **") || l.starts_with("* **"));
    let bullet = bullet.and_then(|l| l.chars().next()).unwrap_or('*');
    let spaced = old
        .split_inclusive('\n')
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0].starts_with("## ") && w[1].trim().is_empty());
    let gap = if spaced { nl } else { "" };
    let entry = okf_line(event, bullet);
    if old.trim().is_empty() {
        return format!("# Directory Update Log{nl}{nl}## {date}{nl}{entry}{nl}");
    }
    let mut pos = 0;
    for line in old.split_inclusive('\n') {
        let heading = line.trim_end();
        if let Some(d) = heading.strip_prefix("## ") {
            if d.trim() == date {
                let after = pos + line.len();
                // Skip a blank line directly under the heading, as hand-written logs have.
                let rest = &old[after..];
                let skip = if rest.starts_with(nl) { nl.len() } else { 0 };
                let at = after + skip;
                return format!("{}{entry}{nl}{}", &old[..at], &old[at..]);
            }
            return format!("{}## {date}{nl}{gap}{entry}{nl}{nl}{}", &old[..pos], &old[pos..]);
        }
        pos += line.len();
    }
    let sep = if old.ends_with("\n\n") || old.ends_with("\r\n\r\n") {
        ""
    } else if old.ends_with('\n') {
        nl
    } else {
        "\n\n"
    };
    format!("{old}{sep}## {date}{nl}{gap}{entry}{nl}")
}
