//! `memory/long-term.md`: one entity per entry line (`- YYYY-MM-DD: text (evidence: …)`),
//! grouped by the `## ` section it sits in.
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::entry_key::{entry_key, normalize_search_text};
use crate::store::dialect::SourceFile;
use crate::store::model::entity::{Entity, Problem, rule};
use crate::store::read::frontmatter::Fields;

/// Sections the framework curates (its `CURATED_SECTIONS`).
pub const CURATED: &[&str] = &["Preferences", "Patterns", "Project Conventions", "Review Guidance"];
pub const CANDIDATES: &str = "Promotion Candidates";
pub const PRUNED: &str = "Pruned Or Revised";

/// Titles longer than this (in characters) are shortened; the description keeps the text.
const TITLE_CHARS: usize = 80;

/// One line of the file that is, or tries to be, an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub section: String,
    pub date: String,
    pub text: String,
    pub evidence: Option<String>,
    pub reason: Option<String>,
    /// What is wrong with the line, when it does not follow the grammar.
    pub error: Option<String>,
    /// 1-based line and byte range (without the line break).
    pub line: u32,
    pub span: Range<usize>,
}

/// The framework's other sections (its template's): notes and rules, not entries.
pub const OTHER_SECTIONS: &[&str] = &["Review Notes", "Event Log", "Guardrails"];

/// Whether a long-term memory file follows the framework's layout, as its template and its
/// `memory promote` / `forget` write it: at least one of its entry sections (`## Preferences`
/// … `## Pruned Or Revised`), and every list item under a `## ` heading of the framework's
/// (before the first one, only its `- Updated:` / `- Scope:` lines). folio shows entries of
/// those sections only, so a file with list items elsewhere would lose them from view: why
/// not, naming the first such place.
pub fn layout(text: &str) -> Result<(), String> {
    let mut section: Option<&str> = None;
    let mut entry_sections = 0;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(h) = line.strip_prefix("## ") {
            let h = h.trim();
            entry_sections += usize::from(is_entry_section(h));
            section = Some(h);
            continue;
        }
        if !(line.starts_with("- ") || line.starts_with("* ")) {
            continue;
        }
        match section {
            None if line.starts_with("- Updated:") || line.starts_with("- Scope:") => {}
            None => return Err(format!("has list items before any section (`{}`)", shown(line))),
            Some(s) if is_entry_section(s) || OTHER_SECTIONS.contains(&s) => {}
            Some(s) => {
                return Err(format!("has list items under `## {s}`, which is not one of the framework's sections"));
            }
        }
    }
    if entry_sections == 0 {
        return Err(format!(
            "has none of the framework's entry sections (`## {}`, `## {CANDIDATES}`, `## {PRUNED}`)",
            CURATED.join("`, `## ")
        ));
    }
    Ok(())
}

/// A line as a message quotes it: at most 60 characters.
fn shown(line: &str) -> String {
    let mut out: String = line.chars().take(60).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

/// Whether a section holds entries: every bullet there must be one.
fn is_entry_section(section: &str) -> bool {
    CURATED.contains(&section) || section == CANDIDATES || section == PRUNED
}

/// Every entry line of the file, in order; malformed lines in entry sections carry an error.
pub fn entries(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section: Option<String> = None;
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some(h) = line.strip_prefix("## ") {
            section = Some(h.trim().to_string());
            continue;
        }
        let Some(section) = &section else { continue };
        let Some(bullet) = line.strip_prefix("- ") else { continue };
        if is_placeholder(bullet) {
            continue;
        }
        let dated = looks_dated(bullet);
        if !dated && !is_entry_section(section) {
            continue;
        }
        let mut entry = parse_entry(section, bullet);
        entry.line = i as u32 + 1;
        entry.span = start..start + line.len();
        out.push(entry);
    }
    out
}

/// `- None yet.` and its variants (the framework's `isPlaceholder`).
fn is_placeholder(bullet: &str) -> bool {
    let t = bullet.trim().trim_end_matches('.').to_ascii_lowercase();
    t == "none" || t == "none yet"
}

/// Starts like an entry (`2026-…`), so a bad date is an error rather than prose.
fn looks_dated(bullet: &str) -> bool {
    bullet.len() >= 4 && bullet.as_bytes()[..4].iter().all(u8::is_ascii_digit)
}

fn parse_entry(section: &str, bullet: &str) -> Entry {
    let mut e = Entry {
        section: section.to_string(),
        date: String::new(),
        text: bullet.trim().to_string(),
        evidence: None,
        reason: None,
        error: None,
        line: 0,
        span: 0..0,
    };
    if !looks_dated(bullet) {
        e.error = Some("entry line is not `- YYYY-MM-DD: text (evidence: …)`".into());
        return e;
    }
    let date = bullet.get(..10).unwrap_or(bullet);
    if !is_date(date) {
        let written = bullet.split([':', ' ']).next().unwrap_or(bullet);
        e.error = Some(format!("entry date `{written}` is not a YYYY-MM-DD date"));
        return e;
    }
    let Some(body) = bullet[10..].strip_prefix(": ") else {
        e.error = Some("entry date is not followed by `: ` and the text".into());
        return e;
    };
    e.text = body.trim().to_string();
    e.date = date.to_string();
    let pruned = section == PRUNED;
    match split_trailer(body, pruned) {
        Some((text, evidence, reason)) => {
            e.text = text;
            e.evidence = Some(evidence);
            e.reason = reason;
        }
        None if pruned => e.error = Some("pruned entry has no `(reason: …; evidence: …)`".into()),
        None => e.error = Some("entry has no `(evidence: …)`".into()),
    }
    if e.error.is_none() && e.text.is_empty() {
        e.error = Some("entry has no text".into());
    }
    e
}

/// `YYYY-MM-DD` with a month 01–12 and a day 01–31.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: Range<usize>| s[r].bytes().all(|c| c.is_ascii_digit());
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month: u32 = s[5..7].parse().unwrap_or(0);
    let day: u32 = s[8..10].parse().unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

/// The text before the trailing `(evidence: E)` — or `(reason: R; evidence: E)` for pruned
/// entries — and its parts. Evidence must not be empty.
fn split_trailer(body: &str, pruned: bool) -> Option<(String, String, Option<String>)> {
    let body = body.trim_end();
    let inner_end = body.strip_suffix(')')?;
    let marker = if pruned { " (reason:" } else { " (evidence:" };
    let at = inner_end.rfind(marker)?;
    let text = inner_end[..at].trim().to_string();
    let inside = &inner_end[at + marker.len()..];
    let (reason, evidence) = if pruned {
        let (r, ev) = inside.rsplit_once("; evidence:")?;
        (Some(r.trim().to_string()).filter(|r| !r.is_empty()), ev)
    } else {
        (None, inside)
    };
    let evidence = evidence.trim().to_string();
    if evidence.is_empty() || (pruned && reason.is_none()) {
        return None;
    }
    Some((text, evidence, reason))
}

/// The entities of a long-term memory file.
pub fn parse(file: &SourceFile) -> Vec<Entity> {
    let found = if file.parseable { entries(file.text) } else { Vec::new() };
    let pruned: HashSet<String> =
        found.iter().filter(|e| e.section == PRUNED).map(|e| normalize_search_text(&e.text)).collect();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut out: Vec<Entity> = found
        .iter()
        .map(|entry| {
            let key = entry_key(&entry.text);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            // The same text recurs (a candidate later promoted, then pruned): the first line
            // keeps the framework's key, later ones are numbered.
            let id = if *n == 1 { key } else { format!("{key}-{n}") };
            to_entity(file.rel, entry, id, &pruned)
        })
        .collect();
    if out.is_empty() && !file.problems.is_empty() {
        out.push(whole_file(file));
    } else if let Some(first) = out.first_mut() {
        first.problems.splice(0..0, file.problems.iter().cloned());
    }
    out
}

fn to_entity(rel: &str, entry: &Entry, id: String, pruned: &HashSet<String>) -> Entity {
    let status = if entry.section == PRUNED {
        Some("pruned")
    } else if pruned.contains(&normalize_search_text(&entry.text)) {
        // Pruned or revised text stays in the file but is no longer active memory.
        Some("inactive")
    } else if CURATED.contains(&entry.section.as_str()) {
        Some("curated")
    } else if entry.section == CANDIDATES {
        Some("candidate")
    } else {
        None
    };
    let mut problems = Vec::new();
    if let Some(error) = &entry.error {
        problems.push(Problem::new(rule::INVALID_FIELD, error.clone(), entry.line, 1));
    }
    Entity {
        id,
        path: rel.to_string(),
        kind: Some(entry.section.as_str().into()),
        title: shorten(&entry.text),
        description: Some(entry.text.as_str().into()),
        status: status.map(Into::into),
        created: (!entry.date.is_empty()).then(|| entry.date.as_str().into()),
        sources: entry.evidence.iter().cloned().collect(),
        problems,
        line: entry.line,
        span: entry.span.start as u32..entry.span.end as u32,
        body_start: entry.span.start as u32,
        ..Default::default()
    }
}

/// Stands for a long-term file that could not be read, so its reading problems are reported.
fn whole_file(file: &SourceFile) -> Entity {
    Entity {
        id: file.rel.strip_suffix(".md").unwrap_or(file.rel).to_string(),
        path: file.rel.to_string(),
        kind: Some("long-term".into()),
        title: "Long-Term Memory".into(),
        problems: file.problems.to_vec(),
        line: 1,
        span: 0..file.text.len() as u32,
        ..Default::default()
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= TITLE_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(TITLE_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// `Dialect::fields` of an entry: `{date, text, evidence, reason, section, key}` from its line.
pub fn entry_fields(entity: &Entity, file_text: &str) -> Fields {
    let mut f = Fields::new();
    let Some(line) = file_text.get(entity.span.start as usize..entity.span.end as usize) else { return f };
    let section = entity.kind.clone().unwrap_or_default();
    let entry = parse_entry(&section, line.strip_prefix("- ").unwrap_or(line));
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            f.insert(k.to_string(), serde_json::Value::String(v));
        }
    };
    put("date", Some(entry.date).filter(|d| !d.is_empty()));
    put("key", Some(entry_key(&entry.text)));
    put("text", Some(entry.text));
    put("evidence", entry.evidence);
    put("reason", entry.reason);
    put("section", Some(section.to_string()));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Long-Term Memory\n\n- Updated: 2026-08-11 18:40 +02:00\n\n## Preferences\n\n\
        - 2026-08-01: Prefer pnpm over npm (evidence: user said so)\n- None yet.\n\n## Review Notes\n\n\
        - Use `awareness memory candidates` to inspect raw candidates.\n\n## Pruned Or Revised\n\n\
        - 2026-08-09: Prefer pnpm over npm (reason: switched to bun; evidence: worklog/2026-08-09.md)\n";

    #[test]
    fn entry_lines_with_sections_lines_and_spans() {
        let es = entries(FILE);
        assert_eq!(es.len(), 2);
        assert_eq!(es[0].section, "Preferences");
        assert_eq!((es[0].line, es[0].date.as_str(), es[0].text.as_str()), (7, "2026-08-01", "Prefer pnpm over npm"));
        assert_eq!(es[0].evidence.as_deref(), Some("user said so"));
        assert_eq!(&FILE[es[0].span.clone()], "- 2026-08-01: Prefer pnpm over npm (evidence: user said so)");
        assert_eq!(es[1].section, "Pruned Or Revised");
        assert_eq!(es[1].reason.as_deref(), Some("switched to bun"));
        assert_eq!(es[1].evidence.as_deref(), Some("worklog/2026-08-09.md"));
        assert!(es.iter().all(|e| e.error.is_none()));
    }

    #[test]
    fn malformed_lines_in_entry_sections_are_errors() {
        let err = |section: &str, bullet: &str| parse_entry(section, bullet).error;
        assert!(err("Patterns", "2026-13-01: x (evidence: y)").unwrap().contains("2026-13-01"));
        assert!(err("Patterns", "2026-8-1: x (evidence: y)").unwrap().contains("not a YYYY-MM-DD"));
        assert!(err("Patterns", "2026-08-01: x").unwrap().contains("evidence"));
        assert!(err("Patterns", "2026-08-01 x (evidence: y)").unwrap().contains("followed by"));
        assert!(err("Patterns", "2026-08-01: x (evidence: )").unwrap().contains("evidence"));
        assert!(err("Patterns", "Use this: prose").unwrap().contains("is not `- YYYY-MM-DD"));
        assert!(err(PRUNED, "2026-08-01: x (evidence: y)").unwrap().contains("reason"));
        assert_eq!(err("Patterns", "2026-08-01: x (see a) (evidence: y (z))"), None);
        assert_eq!(parse_entry("Patterns", "2026-08-01: x (see a) (evidence: y (z))").text, "x (see a)");
        // Prose bullets outside entry sections are not entries at all.
        assert!(entries("## Guardrails\n\n- Do not store secrets.\n").is_empty());
        assert!(entries("## Guardrails\n\n- 2026-99-01: odd\n")[0].error.is_some());
    }

    #[test]
    fn long_titles_are_shortened_on_a_character_boundary() {
        let t = shorten(&"é".repeat(100));
        assert_eq!(t.chars().count(), TITLE_CHARS);
        assert!(t.ends_with('…'));
        assert_eq!(shorten("short"), "short");
    }
}
