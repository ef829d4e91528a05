//! awareness homes: long-term entry lines become entities keyed like the framework, the other
//! files one entity each, and events.jsonl is the history.
use crate::support;
use folio::store::Store;
use serde_json::{Value, json};
use support::*;

fn home() -> String {
    fixture("awareness-home").to_str().unwrap().to_string()
}

fn show(id: &str) -> Value {
    folio_json(&["show", &home(), id, "--json"])
}

#[test]
fn entity_counts_per_section_and_file_kind() {
    let stats = folio_json(&["stats", &home(), "--json"]);
    assert_eq!(stats["dialect"], "awareness");
    assert_eq!(stats["detected_by"], "memory/long-term.md found");
    assert_eq!(stats["entities"], 24);
    assert_eq!(
        stats["by_kind"],
        json!({"Preferences": 3, "Patterns": 2, "Project Conventions": 2, "Review Guidance": 1,
               "Promotion Candidates": 7, "Pruned Or Revised": 3,
               "board": 1, "evaluation": 1, "instructions": 1, "personality": 1, "worklog": 2})
    );
    assert_eq!(stats["history_events"], 10);
}

#[test]
fn entries_are_keyed_lined_and_spanned() {
    let store = Store::open(&fixture("awareness-home"), None).unwrap();
    let entries: Vec<_> = store.entities.iter().filter(|e| e.path == "memory/long-term.md").collect();
    assert_eq!(entries.len(), 18);
    let ids_lines: Vec<(&str, u32)> = entries.iter().map(|e| (e.id.as_str(), e.line)).take(3).collect();
    // Keys as the framework's `entryKey` computes them for these texts.
    assert_eq!(ids_lines, [("1ws8tqk", 10), ("1jfb8nc", 11), ("1ncexu6", 12)]);
    let i = store.find("1ncexu6").unwrap();
    let e = store.entity(i);
    assert_eq!(e.span, 603..702);
    assert_eq!(
        store.read_entity_text(i).unwrap(),
        "- 2026-08-05: Prefer local-first memory operations (evidence: User approved local event log design)"
    );
    assert_eq!(e.kind.as_deref(), Some("Preferences"));
    assert_eq!(e.status.as_deref(), Some("curated"));
    assert_eq!(e.created.as_deref(), Some("2026-08-05"));
    assert_eq!(e.sources, ["User approved local event log design"]);
    assert_eq!(e.title, "Prefer local-first memory operations");
    // The same candidate text twice: the first line keeps the key, the second is numbered.
    assert_eq!((store.entity(store.find("y1z4fp").unwrap()).line), 30);
    assert_eq!((store.entity(store.find("y1z4fp-2").unwrap()).line), 31);
}

#[test]
fn statuses_follow_sections_and_pruning() {
    for (id, status) in [
        ("13kgzw0", "curated"),
        ("y1z4fp", "candidate"),
        // A candidate whose text was pruned is no longer active; the pruned line is `pruned`.
        ("19mh0bp", "inactive"),
        ("19mh0bp-2", "pruned"),
    ] {
        assert_eq!(show(id)["status"], status, "{id}");
    }
    let pruned = show("19mh0bp-2");
    assert_eq!(pruned["kind"], "Pruned Or Revised");
    assert_eq!(pruned["line"], 54);
}

#[test]
fn fields_of_an_entry_via_show_json() {
    let v = show("19mh0bp-2");
    assert_eq!(
        v["fields"],
        json!({"date": "2026-08-09", "key": "19mh0bp", "text": "Prefer pnpm over npm in the web projects",
               "evidence": "user message 2026-08-09", "reason": "the team standardised on bun",
               "section": "Pruned Or Revised"})
    );
    let v = show("1ncexu6");
    assert_eq!(v["fields"]["evidence"], "User approved local event log design");
    assert_eq!(v["fields"].get("reason"), None);
}

#[test]
fn invalid_entry_lines_are_reported_at_their_line() {
    let store = Store::open(&fixture("awareness-home"), None).unwrap();
    let mut found: Vec<(u32, &str, &str)> = store
        .entities
        .iter()
        .flat_map(|e| e.problems.iter().map(move |p| (p.line, p.rule, e.kind.as_deref().unwrap_or(""))))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            (35, "invalid-field", "Promotion Candidates"),
            (36, "invalid-field", "Promotion Candidates"),
            (55, "invalid-field", "Pruned Or Revised"),
        ]
    );
    let msg =
        |line: u32| store.entities.iter().flat_map(|e| &e.problems).find(|p| p.line == line).unwrap().message.clone();
    assert!(msg(35).contains("followed by `: `"), "{}", msg(35));
    assert!(msg(36).contains("no `(evidence: …)`"), "{}", msg(36));
    assert!(msg(55).contains("reason"), "{}", msg(55));
}

#[test]
fn a_bad_date_and_a_valid_line_in_a_scratch_home() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "memory/long-term.md",
        "# Long-Term Memory\n\n## Patterns\n\n- None yet.\n- 2026-02-3x: a (evidence: b)\n- 2026-02-03: ok (evidence: c)\n",
    );
    let store = Store::open(tmp.path(), None).unwrap();
    assert_eq!(store.entities.len(), 2);
    assert_eq!(store.entities[0].problems[0].line, 6);
    assert!(store.entities[0].problems[0].message.contains("`2026-02-3x`"));
    assert!(store.entities[1].problems.is_empty());
    assert_eq!(store.entities[1].id, "3hmjl");
}

#[test]
fn history_events_and_their_entity_ids() {
    let store = Store::open(&fixture("awareness-home"), None).unwrap();
    let history = store.dialect.history(&store.root);
    let got: Vec<(&str, Vec<&str>, u32)> =
        history.iter().map(|h| (h.kind.as_str(), h.entities.iter().map(String::as_str).collect(), h.line)).collect();
    assert_eq!(
        got,
        [
            ("memory.candidate.created", vec!["1ncexu6"], 1),
            ("memory.promoted", vec!["1ncexu6"], 2),
            ("memory.promoted", vec!["13kgzw0"], 3),
            ("memory.candidate.created", vec!["19mh0bp"], 4),
            ("memory.pruned", vec!["19mh0bp"], 5),
            ("memory.candidate.created", vec!["y1z4fp"], 6),
            ("memory.used", vec!["13kgzw0"], 7),
            ("evaluation.created", vec!["evaluations/2026-08-11"], 8),
            ("memory.candidate.created", vec!["y1z4fp"], 9),
            ("pattern.suggested", vec!["y1z4fp"], 10),
        ]
    );
    assert_eq!(history[0].ts.as_deref(), Some("2026-08-04 09:12 +02:00"));
    assert_eq!(history[0].path, "memory/events.jsonl");
    assert_eq!(history[9].raw["count"], 2);
    // Every id an event names is an entity of the store.
    for h in &history {
        for id in &h.entities {
            assert!(store.find(id).is_some(), "{id}");
        }
    }
    let warnings = store.dialect.warnings();
    let w: Vec<(&str, &str)> = warnings.iter().map(|w| (w.code.as_str(), w.message.as_str())).collect();
    assert_eq!(w.len(), 2);
    assert!(w.iter().all(|(c, _)| *c == "invalid-event-line"));
    assert!(w[0].1.starts_with("memory/events.jsonl:11: not valid JSON"));
    assert_eq!(w[1].1, "memory/events.jsonl:12: record has no `type`");
}

#[test]
fn other_files_are_one_entity_each() {
    let v = show("worklog/2026-08-10");
    assert_eq!(v["kind"], "worklog");
    assert_eq!(v["title"], "Daily Worklog - 2026-08-10");
    assert_eq!(v["created"], "2026-08-10");
    let v = show("awareness/current");
    assert_eq!(v["kind"], "board");
    assert_eq!(v["updated"], "2026-08-11 18:40 +02:00");
    assert_eq!(v["fields"]["Operator"], "codex (kevin's homelab)");
    let v = show("evaluations/2026-08-11");
    assert_eq!(v["kind"], "evaluation");
    assert_eq!(v["created"], "2026-08-11");
    // The personality template says `Updated: never`: no update time.
    assert_eq!(show("memory/personality")["updated"], Value::Null);
}

#[test]
fn hostile_and_broken_files_never_panic() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "memory/long-term.md",
        b"# L\n\n## Preferences\n\n- 2026-01-01: caf\xe9 \x1b[31m (evidence: x)\n".as_slice(),
    );
    write(tmp.path(), "memory/events.jsonl", b"\xff\xfe\n{\"type\":\"memory.used\",\"key\":\"k\"}\n".as_slice());
    write(tmp.path(), "worklog/bin.md", b"\0\0\0binary".as_slice());
    let store = Store::open(tmp.path(), None).unwrap();
    let rules: Vec<&str> = store.entities.iter().flat_map(|e| e.problems.iter().map(|p| p.rule)).collect();
    assert!(rules.contains(&"non-utf8") && rules.contains(&"control-chars") && rules.contains(&"binary"), "{rules:?}");
    assert_eq!(store.dialect.history(&store.root).len(), 1);
    assert_eq!(store.dialect.warnings().len(), 1);
}

/// The framework links nothing to anything (issue 39): every file of a home was reported as an
/// orphan. A format without links has no orphan rule.
#[test]
fn a_home_has_no_orphans() {
    assert_eq!(folio_json(&["stats", &home(), "--json"])["orphans"], 0);
    let lint = folio_json(&["lint", &home(), "--format", "json"]);
    let orphans = lint["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "orphan").count();
    assert_eq!(orphans, 0, "{lint}");
}
