//! The awareness home's other markdown files, one entity each: the board, daily worklogs,
//! evaluations, the personality/preferences/patterns notes, user memories, AGENTS.md.
//! They have no frontmatter: their metadata are `- Key: value` bullets under the `# ` title.
use serde_json::Value;

use crate::store::dialect::{SourceFile, derived_description, first_heading};
use crate::store::model::entity::Entity;
use crate::store::read::frontmatter::Fields;
use crate::store::read::links;

/// What a file is, from its path inside the home (a `channels/<name>/` prefix is ignored).
pub fn kind_of(rel: &str) -> &'static str {
    let inner = channel_inner(rel);
    match inner {
        "AGENTS.md" => "instructions",
        "awareness/current.md" => "board",
        "memory/preferences.md" => "preferences",
        "memory/patterns.md" => "patterns",
        "memory/personality.md" => "personality",
        _ if inner.starts_with("worklog/") => "worklog",
        _ if inner.starts_with("evaluations/") => "evaluation",
        _ if inner.starts_with("memory/users/") => "user",
        _ => "document",
    }
}

/// The path inside a channel's state folder (`channels/ops/worklog/x.md` → `worklog/x.md`).
pub fn channel_inner(rel: &str) -> &str {
    rel.strip_prefix("channels/").and_then(|r| r.split_once('/')).map(|(_, inner)| inner).unwrap_or(rel)
}

pub fn parse(file: &SourceFile) -> Entity {
    let mut e = Entity {
        id: file.rel.strip_suffix(".md").unwrap_or(file.rel).to_string(),
        path: file.rel.to_string(),
        kind: Some(kind_of(file.rel).into()),
        line: 1,
        span: 0..file.text.len() as u32,
        problems: file.problems.to_vec(),
        ..Default::default()
    };
    e.title = first_heading(file.text).unwrap_or_else(|| e.stem().to_string());
    if !file.parseable {
        return e;
    }
    let meta = metadata(file.text);
    let get = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
    // The framework writes `Updated: never` until the first change.
    e.updated = get("Updated").filter(|u| u != "never").map(Into::into);
    e.created = dated_stem(e.stem()).or_else(|| title_date(&e.title)).map(Into::into);
    e.description = derived_description(after_metadata(file.text)).map(Into::into);
    e.links = links::extract(file.text, 0, file.lines);
    e
}

/// `- Key: value` bullets between the `# ` title and the first `## ` section.
pub fn metadata(text: &str) -> Fields {
    let mut f = Fields::new();
    for line in header(text).lines() {
        if let Some((k, v)) = line.strip_prefix("- ").and_then(|b| b.split_once(": ")) {
            let key = k.trim();
            // Labels are short (`Updated`, `Last update`); longer text is a sentence with a colon.
            if !key.is_empty() && key.split(' ').count() <= 3 {
                f.insert(key.to_string(), Value::String(v.trim().to_string()));
            }
        }
    }
    f
}

/// The text before the first `## ` heading.
fn header(text: &str) -> &str {
    let end = text.match_indices("\n## ").next().map(|(i, _)| i + 1).unwrap_or(text.len());
    &text[..end]
}

/// The body without the title and the metadata bullets (for a one-line summary).
fn after_metadata(text: &str) -> &str {
    let head = header(text);
    let mut cut = 0;
    for line in head.split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with("# ") || (t.starts_with("- ") && t.contains(": ")) {
            cut += line.len();
        } else {
            break;
        }
    }
    &text[cut..]
}

/// Worklogs and evaluations are named by their day.
fn dated_stem(stem: &str) -> Option<String> {
    let b = stem.as_bytes();
    let ok = b.len() == 10 && b[4] == b'-' && b[7] == b'-' && stem.bytes().filter(u8::is_ascii_digit).count() == 8;
    ok.then(|| stem.to_string())
}

/// `# Daily Worklog - 2026-08-10` → the date.
fn title_date(title: &str) -> Option<String> {
    title.rsplit_once(" - ").and_then(|(_, d)| dated_stem(d.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::lines::LineIndex;

    #[test]
    fn kinds_by_path_and_channel() {
        assert_eq!(kind_of("worklog/2026-08-10.md"), "worklog");
        assert_eq!(kind_of("channels/ops/worklog/2026-08-10.md"), "worklog");
        assert_eq!(kind_of("channels/ops/memory/users/ana.md"), "user");
        assert_eq!(kind_of("awareness/current.md"), "board");
        assert_eq!(kind_of("evaluations/2026-08-11.md"), "evaluation");
        assert_eq!(kind_of("AGENTS.md"), "instructions");
        assert_eq!(kind_of("notes/x.md"), "document");
    }

    #[test]
    fn board_metadata_title_and_summary() {
        let t = "# Agent Awareness\n\n- Updated: 2026-08-11 18:40 +02:00\n- Operator: codex\n\nPrivate board.\n\n## Current Focus\n\n- Task: HL-42\n";
        let lines = LineIndex::new(t);
        let e =
            parse(&SourceFile { rel: "awareness/current.md", text: t, lines: &lines, problems: &[], parseable: true });
        assert_eq!(e.title, "Agent Awareness");
        assert_eq!(e.updated.as_deref(), Some("2026-08-11 18:40 +02:00"));
        assert_eq!(e.description.as_deref(), Some("Private board."));
        let m = metadata(t);
        assert_eq!(m.keys().collect::<Vec<_>>(), ["Updated", "Operator"]);
    }

    #[test]
    fn dated_files() {
        assert_eq!(dated_stem("2026-08-10").as_deref(), Some("2026-08-10"));
        assert_eq!(dated_stem("current"), None);
        assert_eq!(title_date("Awareness Evaluation - 2026-08-11").as_deref(), Some("2026-08-11"));
    }
}
