//! Reading an OKF `log.md`: `## YYYY-MM-DD` sections of `* **Verb**: prose` entries (dash
//! bullets and a frontmatter block, as real logs have, are accepted too).
use crate::store::model::history::HistoryEvent;
use crate::store::read::frontmatter::{self, Block};

/// Events of one `log.md` (`rel` is its path for the events), oldest first.
pub fn parse(text: &str, rel: &str) -> Vec<HistoryEvent> {
    let skip = match frontmatter::locate(text) {
        Block::Closed { body_start, .. } => body_start,
        _ => 0,
    };
    let first_line = text[..skip].matches('\n').count() as u32;
    let mut date: Option<String> = None;
    let mut out = Vec::new();
    for (i, line) in text[skip..].lines().enumerate() {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("## ") {
            let d = d.trim();
            date = is_date(d).then(|| d.to_string());
            continue;
        }
        let Some(entry) = t.strip_prefix("* ").or_else(|| t.strip_prefix("- ")) else { continue };
        if date.is_none() {
            continue;
        }
        let kind = entry
            .strip_prefix("**")
            .and_then(|r| r.split_once("**"))
            .map(|(verb, _)| verb.trim_end_matches(':').trim().to_lowercase())
            .unwrap_or_else(|| "entry".into());
        out.push(HistoryEvent {
            ts: date.clone(),
            kind,
            entities: link_ids(entry),
            path: rel.to_string(),
            line: first_line + i as u32 + 1,
            raw: match actor(entry) {
                Some(by) => serde_json::json!({ "text": entry, "by": by }),
                None => serde_json::json!({ "text": entry }),
            },
        });
    }
    // Newest first in the file; oldest first for the model (stable within a day).
    out.reverse();
    out
}

/// Who an entry says acted: the identity folio ends its own entries with (`… (human:ann)`),
/// or the agent an entry opens with in a code span (`` `claude-code/1.0.61` drafted … ``).
fn actor(entry: &str) -> Option<String> {
    let prose = entry.strip_prefix("**").and_then(|r| r.split_once("**")).map_or(entry, |(_, rest)| rest);
    let prose = prose.trim_start_matches(':').trim();
    let trailing = prose.strip_suffix(')').and_then(|r| r.rsplit_once('(')).map(|(_, who)| who);
    if let Some(who) = trailing.filter(|w| w.contains(':') && !w.is_empty() && !w.contains(char::is_whitespace)) {
        return Some(who.to_string());
    }
    let (agent, _) = prose.strip_prefix('`')?.split_once('`')?;
    (!agent.is_empty() && !agent.contains(char::is_whitespace)).then(|| agent.to_string())
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && s.chars().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Concept ids named by `[..](/id.md)` links in an entry.
fn link_ids(entry: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = entry;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].trim_start_matches('/');
        if let Some(id) = target.strip_suffix(".md") {
            ids.push(crate::store::read::links::percent_decode(id));
        }
        rest = &after[end..];
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_name_who_acted() {
        let t = "## 2026-11-19\n* **Approve**: [R](/runbooks/r.md): approved (human:ann)\n\
                 * **Creation**: `claude-code/1.0.61` drafted [X](/apis/x.md); awaiting review.\n\
                 * **Update**: Regenerated (weekly) from the repository.\n";
        let by: Vec<Option<String>> =
            parse(t, "log.md").iter().map(|e| e.raw.get("by").and_then(|v| v.as_str()).map(String::from)).collect();
        assert_eq!(by, [None, Some("claude-code/1.0.61".into()), Some("human:ann".into())]);
    }

    #[test]
    fn parses_sections_verbs_and_links() {
        let t = "---\ntype: Log\n---\n# Log\n\n## 2026-05-22\n* **Update**: Added [C](/tables/customer-metrics.md).\n\
                 - **Verified** x\n\n## 2026-05-15\n* **Initialization**: Created.\n";
        let e = parse(t, "log.md");
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].kind, "initialization");
        assert_eq!(e[0].ts.as_deref(), Some("2026-05-15"));
        assert_eq!(e[0].line, 11);
        assert_eq!(e[2].kind, "update");
        assert_eq!(e[2].entities, ["tables/customer-metrics"]);
        assert_eq!(e[1].kind, "verified");
    }
}
