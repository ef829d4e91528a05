//! The awareness framework's own statistics over a home (`awareness memory stats`, its
//! `src/memory-metrics.js` at fyso-dev/awareness-framework e4644e0, `summarizeStore` and what
//! the outcome and utilization parts count), before and after every decision folio offers on
//! an awareness home, and after its undo (issue 39).
//!
//! The framework's package is not on the npm registry these machines reach, so its counting is
//! ported here line for line: events are `memory/events.jsonl` lines that parse as JSON (it
//! drops the others), counted by `type`; curated entries are `- YYYY-MM-DD: text (evidence: …)`
//! lines of the four curated sections of `memory/long-term.md` (`parseCuratedEntries`).
//!
//! A decision changes them by exactly what it is (an approval one more `memory.promoted` of its
//! kind and one more entry in its section, a veto one more `memory.pruned`), introduces no event
//! type the framework does not know, and its undo leaves every figure as before the decision:
//! the framework has no undo event, so folio takes the decision's lines back out of the log.
use crate::support;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use support::*;

/// What the framework's `memory stats --since all` reports of a home's store and use.
#[derive(Debug, Clone, PartialEq, Default)]
struct Stats {
    candidates_created: usize,
    candidates_by_source: BTreeMap<String, usize>,
    promoted: usize,
    promoted_by_kind: BTreeMap<String, usize>,
    pruned: usize,
    patterns_suggested: usize,
    used_events: usize,
    /// `countBy(entries, 'section')` over the curated entries.
    section_density: BTreeMap<String, usize>,
    /// `promotionSourceMix`: each promotion's candidate source (the newest candidate of the
    /// same text created no later), else `direct`.
    source_mix: BTreeMap<String, usize>,
    /// Event types the framework does not count anywhere.
    unknown_types: BTreeMap<String, usize>,
}

const CURATED: &[&str] = &["Preferences", "Patterns", "Project Conventions", "Review Guidance"];
const KNOWN: &[&str] = &[
    "memory.candidate.created",
    "memory.promoted",
    "memory.pruned",
    "memory.used",
    "evaluation.created",
    "pattern.suggested",
];

/// `normalizeEntryText`: NFD, combining marks dropped, lower case, whitespace collapsed (the
/// fixture is ASCII, so NFD changes nothing here).
fn normalized(text: &str) -> String {
    text.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn count(map: &mut BTreeMap<String, usize>, key: &str) {
    if !key.is_empty() {
        *map.entry(key.to_string()).or_default() += 1;
    }
}

fn stats(home: &Path) -> Stats {
    let events: Vec<Value> = std::fs::read_to_string(home.join("memory/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.is_object())
        .collect();
    let mut s = Stats::default();
    let mut candidates: Vec<&Value> = Vec::new();
    for e in &events {
        match str_of(e, "type") {
            "memory.candidate.created" => {
                s.candidates_created += 1;
                count(&mut s.candidates_by_source, str_of(e, "source"));
                candidates.push(e);
            }
            "memory.promoted" => {
                s.promoted += 1;
                count(&mut s.promoted_by_kind, str_of(e, "kind"));
            }
            "memory.pruned" => s.pruned += 1,
            "pattern.suggested" => s.patterns_suggested += 1,
            "memory.used" => s.used_events += 1,
            t if KNOWN.contains(&t) => {}
            t => count(&mut s.unknown_types, if t.is_empty() { "(none)" } else { t }),
        }
    }
    candidates.sort_by(|a, b| str_of(a, "timestamp").cmp(str_of(b, "timestamp")));
    for p in events.iter().filter(|e| str_of(e, "type") == "memory.promoted") {
        let (text, at) = (normalized(str_of(p, "text")), str_of(p, "timestamp"));
        let source = candidates
            .iter()
            .rev()
            .find(|c| normalized(str_of(c, "text")) == text && (at.is_empty() || str_of(c, "timestamp") <= at))
            .map(|c| str_of(c, "source"))
            .unwrap_or("direct");
        count(&mut s.source_mix, source);
    }
    let long_term = std::fs::read_to_string(home.join("memory/long-term.md")).unwrap_or_default();
    let mut section = None;
    for line in long_term.split('\n') {
        if let Some(h) = line.strip_prefix("## ") {
            section = CURATED.contains(&h.trim()).then(|| h.trim().to_string());
            continue;
        }
        let Some(section) = &section else { continue };
        let Some(rest) = line.strip_prefix("- ") else { continue };
        let dated = rest.len() > 12
            && rest.is_char_boundary(10)
            && rest[..10]
                .bytes()
                .enumerate()
                .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() })
            && &rest[10..12] == ": ";
        if !dated {
            continue;
        }
        let body = &rest[12..];
        let text = match body.rfind(" (evidence:") {
            Some(i) if body.ends_with(')') => body[..i].trim(),
            _ => body.trim(),
        };
        let placeholder = matches!(text.to_ascii_lowercase().trim_end_matches('.'), "none" | "none yet");
        if !text.is_empty() && !placeholder {
            count(&mut s.section_density, section);
        }
    }
    s
}

/// One decision, the figures it must move (`(promoted, pruned)` added, and the kind and
/// section one approval is filed under).
struct Decision<'a> {
    args: &'a [&'a str],
    promoted: usize,
    pruned: usize,
    filed: Option<(&'a str, &'a str)>,
    /// folio's own lines for a change the framework has no event for (a same-text twin's
    /// line dropped into the kept one): not counted by its statistics.
    own: &'a [&'a str],
}

fn decide(d: &Decision) {
    let (_dir, home) = writable_scratch(&fixture("awareness-home"));
    let h = home.to_str().unwrap();
    let log_before = std::fs::read(home.join("memory/events.jsonl")).unwrap();
    let before = stats(&home);
    let mut args = vec!["review", h];
    args.extend(d.args);
    args.extend(["--as", "human:stats"]);
    let o = folio(&args);
    assert!(o.status.success(), "{:?}: {}", d.args, String::from_utf8_lossy(&o.stderr));
    let after = stats(&home);
    let mut expected = before.unknown_types.clone();
    for t in d.own {
        count(&mut expected, t);
    }
    assert_eq!(after.unknown_types, expected, "{:?} logged an event type the framework does not know", d.args);
    assert_eq!(after.promoted - before.promoted, d.promoted, "{:?}: {after:?}", d.args);
    assert_eq!(after.pruned - before.pruned, d.pruned, "{:?}: {after:?}", d.args);
    assert_eq!(after.candidates_created, before.candidates_created, "{:?}", d.args);
    if let Some((kind, section)) = d.filed {
        let by_kind = |s: &Stats| s.promoted_by_kind.get(kind).copied().unwrap_or(0);
        let density = |s: &Stats| s.section_density.get(section).copied().unwrap_or(0);
        assert_eq!(by_kind(&after) - by_kind(&before), d.promoted, "{:?}: {after:?}", d.args);
        assert_eq!(density(&after) - density(&before), d.promoted, "{:?}: {after:?}", d.args);
    }
    let o = folio(&["undo", h, "--as", "human:stats"]);
    assert!(o.status.success(), "undo {:?}: {}", d.args, String::from_utf8_lossy(&o.stderr));
    assert_eq!(stats(&home), before, "{:?}: the framework's statistics after the undo", d.args);
    assert_eq!(
        std::fs::read(home.join("memory/events.jsonl")).unwrap(),
        log_before,
        "{:?}: the log after the undo",
        d.args
    );
}

#[test]
fn every_decision_moves_the_frameworks_statistics_by_itself_and_its_undo_moves_them_back() {
    let grafana = "6myssd";
    for d in [
        Decision {
            args: &["approve", grafana, "--kind", "preference"],
            promoted: 1,
            pruned: 0,
            filed: Some(("preference", "Preferences")),
            own: &[],
        },
        // Two same-text candidates: one promotion, the twin's line folded into it.
        Decision {
            args: &["approve", "y1z4fp", "--kind", "project"],
            promoted: 1,
            pruned: 0,
            filed: Some(("project", "Project Conventions")),
            own: &[],
        },
        Decision {
            args: &["promote", grafana, "--to", "review"],
            promoted: 1,
            pruned: 0,
            filed: Some(("review", "Review Guidance")),
            own: &[],
        },
        Decision {
            args: &["veto", grafana, "--reason", "dashboards moved"],
            promoted: 0,
            pruned: 1,
            filed: None,
            own: &[],
        },
        Decision { args: &["forget", grafana], promoted: 0, pruned: 1, filed: None, own: &[] },
        Decision { args: &["merge", "y1z4fp-2", "y1z4fp"], promoted: 0, pruned: 0, filed: None, own: &["folio.merge"] },
        Decision { args: &["merge", grafana, "y1z4fp"], promoted: 0, pruned: 1, filed: None, own: &["folio.merge"] },
        Decision {
            args: &["approve", "--filter", "reason:promotion-candidate", "--kind", "pattern"],
            // Four promotions: the restic twins are one, and `- 2026-08-11 Keep the board …`
            // (no `: ` after its date) is no entry to the framework, so it is approved as it
            // stands, named only in folio's own line.
            promoted: 4,
            pruned: 0,
            filed: Some(("pattern", "Patterns")),
            own: &["folio.approve"],
        },
    ] {
        decide(&d);
    }
}

/// The undo also keeps what an agent appended to the log after the decision.
#[test]
fn an_undo_keeps_the_lines_agents_added_since() {
    let (_dir, home) = writable_scratch(&fixture("awareness-home"));
    let h = home.to_str().unwrap();
    let log = home.join("memory/events.jsonl");
    let before = std::fs::read_to_string(&log).unwrap();
    let o = folio(&["review", h, "approve", "6myssd", "--kind", "pattern", "--as", "human:stats"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let agent = "{\"timestamp\":\"2026-11-27 12:01 +00:00\",\"type\":\"memory.used\",\"key\":\"13kgzw0\",\"section\":\"Review Guidance\",\"text\":\"x\",\"note\":\"\"}\n";
    std::fs::write(&log, format!("{}{agent}", std::fs::read_to_string(&log).unwrap())).unwrap();
    let o = folio(&["undo", h, "--as", "human:stats"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), format!("{before}{agent}"));
}
