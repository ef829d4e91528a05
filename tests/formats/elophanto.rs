//! EloPhanto `knowledge/` folders: the real corpus and a runtime-shaped fixture, through the CLI.
//! The real corpus is not in the repository (its licence is non-commercial): its tests read it
//! from ../shared and say they are not run without it.
use crate::support;
use support::*;

use folio::store::Store;
use serde_json::json;

fn fixture_path() -> String {
    fixture("elophanto-knowledge").to_str().unwrap().to_string()
}

fn link_statuses(show: &serde_json::Value) -> Vec<(String, String, Option<String>)> {
    show["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_string(),
                l["status"].as_str().unwrap().to_string(),
                l["resolved"].as_str().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn corpus_is_detected_with_knowledge_as_root() {
    let Some(path) = corpus_or_skip("elophanto") else { return };
    let stats = folio_json(&["stats", path.to_str().unwrap(), "--json"]);
    assert_eq!(stats["dialect"], "elophanto");
    assert_eq!(stats["detected_by"], "knowledge/system/ found");
    assert!(stats["root"].as_str().unwrap().ends_with("elophanto/knowledge"));
    // 11 system files, the changelog among them (an entity as well as the log: issue 16#4),
    // and 3 organization roles.
    assert_eq!(stats["entities"], 14);
    assert_eq!(stats["by_kind"], json!({"organization-roles": 3, "system": 11}));
    assert_eq!(stats["problems"], 0);
    assert_eq!(stats["history_events"], 4);
    // Real links out of the knowledge folder: CONTRIBUTING.md and three `link` placeholders in
    // a role template, and a source file path in local-artifact-viewing.
    assert_eq!(stats["unresolved_links"], 5);
    let store = Store::open(&path, None).unwrap();
    assert!(store.other_files.is_empty(), "{:?}", store.other_files);
    assert!(store.entities.iter().any(|e| e.path == "system/changelog.md"));
}

#[test]
fn corpus_system_files_read_comma_tags_dates_and_scope() {
    let Some(path) = corpus_or_skip("elophanto") else { return };
    let p = path.to_str().unwrap();
    let identity = folio_json(&["show", p, "system/identity", "--json"]);
    assert_eq!(identity["title"], "Agent Identity");
    assert_eq!(identity["kind"], "system");
    assert_eq!(identity["tags"], json!(["identity", "self", "agent"]));
    assert_eq!((identity["created"].as_str(), identity["updated"].as_str()), (Some("2026-02-17"), Some("2026-05-18")));
    assert_eq!(identity["fields"]["scope"], "system");
    assert!(identity["description"].as_str().unwrap().starts_with("I am a self-evolving AI agent."));

    // yaml.dump wrote this one: alphabetical keys, quoted dates.
    let remotion = folio_json(&["show", p, "system/remotion-video-creation", "--json"]);
    assert_eq!(remotion["title"], "Remotion Video Creation Capability");
    assert_eq!(remotion["updated"], "2026-03-11");
    assert_eq!(remotion["tags"].as_array().unwrap().len(), 7);

    let capabilities = folio_json(&["show", p, "system/capabilities", "--json"]);
    assert_eq!(
        capabilities["fields"]["covers"],
        json!(["tools/**/*.py", "channels/*.py", "core/router.py", "core/registry.py"])
    );
}

#[test]
fn corpus_organization_roles_have_no_frontmatter() {
    let Some(path) = corpus_or_skip("elophanto") else { return };
    let p = path.to_str().unwrap();
    for (id, title) in [
        ("organization-roles/product-sprint-prioritizer", "Organization Role: Sprint Prioritizer"),
        ("organization-roles/testing-api-tester", "Organization Role: API Tester"),
        ("organization-roles/engineering-technical-writer", "Organization Role: Technical Writer"),
    ] {
        let show = folio_json(&["show", p, id, "--json"]);
        assert_eq!(show["title"], title);
        assert_eq!(show["kind"], "organization-roles");
        assert_eq!(show["fields"], json!({}), "{id}");
        assert_eq!(show["tags"], json!([]));
        assert_eq!(show["problems"], json!([]));
    }
}

#[test]
fn corpus_history_comes_from_the_changelog_oldest_first() {
    let Some(path) = corpus_or_skip("elophanto") else { return };
    let store = Store::open(&path, None).unwrap();
    let history = store.dialect.history(&store.root);
    let entries: Vec<(Option<&str>, u32, &str)> =
        history.iter().map(|e| (e.ts.as_deref(), e.line, e.raw["title"].as_str().unwrap())).collect();
    assert_eq!(
        entries,
        [
            (Some("2026-02-17"), 62, "Phase 0 — Foundation (2026-02-17)"),
            (Some("2026-02-17"), 50, "Phase 1 — Knowledge & Memory (2026-02-17)"),
            (Some("2026-02-18"), 25, "2026-02-18 — Skills, Security, Telegram, Self-Modification"),
            (Some("2026-02-26"), 11, "2026-02-26 — Smart Skill Matching, Security Hardening, Prompt Optimization"),
        ]
    );
    assert!(history.iter().all(|e| e.kind == "changelog" && e.path == "system/changelog.md"));
    assert!(history[3].raw["text"].as_str().unwrap().starts_with(
        "- Redesigned skill matching: scores by triggers (+3), name (+2), description (+1), substring (+1)"
    ));
}

#[test]
fn fixture_counts_kinds_links_and_history() {
    let stats = folio_json(&["stats", &fixture_path(), "--json"]);
    assert_eq!(stats["dialect"], "elophanto");
    assert_eq!(stats["entities"], 14);
    assert_eq!(
        stats["by_kind"],
        json!({"learned/failures": 2, "learned/lessons": 3, "learned/patterns": 2, "organization-roles": 1, "system": 4, "user": 2})
    );
    assert_eq!(stats["links"], 14);
    assert_eq!(stats["unresolved_links"], 1);
    assert_eq!(stats["problems"], 1);
    assert_eq!(stats["history_events"], 5);
    // Same result when named explicitly.
    let named = folio_json(&["stats", &fixture_path(), "--dialect", "elophanto", "--json"]);
    assert_eq!(named["entities"], 14);
}

#[test]
fn fixture_lessons_link_by_root_relative_paths() {
    let f = fixture_path();
    let lesson = folio_json(&["show", &f, "learned/lessons/verify-file-url-before-starting-http-server", "--json"]);
    assert_eq!(lesson["kind"], "learned/lessons");
    assert_eq!(lesson["title"], "Verify file URL before starting an HTTP server");
    assert_eq!(lesson["tags"], json!(["browser", "artifacts", "file-protocol"]));
    assert_eq!(lesson["fields"]["scope"], "learned");
    assert_eq!(
        lesson["fields"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["title", "scope", "tags", "created", "updated"]
    );
    assert_eq!(
        lesson["description"],
        "When a task produces a local HTML file and the next step is to open it in the browser."
    );
    assert_eq!(
        link_statuses(&lesson),
        [
            ("system/known-limitations.md".into(), "entity".into(), Some("system/known-limitations".into())),
            (
                "learned/patterns/batch-browser-screenshots.md".into(),
                "entity".into(),
                Some("learned/patterns/batch-browser-screenshots".into())
            ),
        ]
    );
    // The changelog is an entity too (issue 16#4): its mention of the lesson is a backlink.
    assert_eq!(lesson["backlinks"], json!(["learned/patterns/batch-browser-screenshots", "system/changelog"]));

    let failure = folio_json(&["show", &f, "learned/failures/twitter-login-captcha-loop", "--json"]);
    let statuses = link_statuses(&failure);
    assert_eq!(statuses[0].1, "entity");
    assert_eq!(statuses[1], ("learned/failures/chrome-profile-lock.md".into(), "broken".into(), None));

    // A relative markdown link from two folders down.
    let oom = folio_json(&["show", &f, "learned/failures/remotion-render-out-of-memory", "--json"]);
    assert_eq!(link_statuses(&oom)[0].2.as_deref(), Some("user/projects/newsletter-launch"));

    let prefs = folio_json(&["show", &f, "user/preferences", "--json"]);
    assert_eq!(
        prefs["backlinks"],
        json!([
            "learned/lessons/confirm-timezone-before-scheduling",
            "learned/patterns/draft-then-approve-social-posts"
        ])
    );
}

#[test]
fn fixture_scope_outside_the_enum_is_reported_on_its_line() {
    let show = folio_json(&["show", &fixture_path(), "user/projects/newsletter-launch", "--json"]);
    assert_eq!(show["kind"], "user");
    let problems = show["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["rule"], "invalid-field");
    assert_eq!((problems[0]["line"].as_u64(), problems[0]["column"].as_u64()), (Some(6), Some(8)));
    assert_eq!(problems[0]["message"], "`scope` is `project`, not one of system, user, learned, plugin");
}

#[test]
fn fixture_history_names_linked_entities() {
    let store = Store::open(&fixture("elophanto-knowledge"), None).unwrap();
    let history = store.dialect.history(&store.root);
    assert_eq!(history.len(), 5);
    let newest = history.last().unwrap();
    assert_eq!(newest.ts.as_deref(), Some("2026-03-12"));
    assert_eq!(newest.line, 11);
    assert_eq!(
        newest.entities,
        [
            "learned/lessons/verify-file-url-before-starting-http-server",
            "learned/lessons/check-rate-limits-before-bulk-posting"
        ]
    );
    for id in &newest.entities {
        assert!(store.find(id).is_some(), "{id}");
    }
}

#[test]
fn recall_finds_learned_knowledge_by_tag_and_title() {
    let recall = folio_json(&["recall", &fixture_path(), "captcha", "--json"]);
    assert_eq!(recall["results"][0]["id"], "learned/failures/twitter-login-captcha-loop");
}

#[test]
fn hostile_files_never_stop_the_load() {
    let (_tmp, root) = scratch(&fixture("elophanto-knowledge"));
    write(&root, "learned/lessons/broken-yaml.md", "---\ntitle: [unclosed\nscope: learned\n---\n# Broken\n");
    write(&root, "learned/lessons/bad-date.md", "---\ntitle: Bad date\ncreated: March 3rd\nscope: learned\n---\n");
    write(&root, "user/binary.md", b"\x00\x01\x02\x03".as_slice());
    write(&root, "system/changelog.md", b"# Changelog\n\xff\xfe\n## 2026-01-01 \xe9t\xe9\n- \xff\n".as_slice());
    let r = root.to_str().unwrap();
    let stats = folio_json(&["stats", r, "--dialect", "elophanto", "--json"]);
    // 14 + the three hostile files (the changelog was already one of the 14).
    assert_eq!(stats["entities"], 17);
    assert_eq!(stats["history_events"], 1);
    let broken = folio_json(&["show", r, "learned/lessons/broken-yaml", "--json"]);
    assert_eq!(broken["problems"][0]["rule"], "invalid-frontmatter");
    assert_eq!(broken["title"], "Broken");
    let bad = folio_json(&["show", r, "learned/lessons/bad-date", "--json"]);
    assert_eq!(bad["problems"][0]["rule"], "invalid-field");
    assert_eq!(bad["problems"][0]["line"], 3);
}
