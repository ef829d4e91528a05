//! evolve stores: the real corpora and a realistic project fixture, through the CLI.
use crate::support;
use support::*;

use folio::store::Store;

const FIXTURE: &str = "evolve-project";

fn fixture_path() -> String {
    fixture(FIXTURE).to_str().unwrap().to_string()
}

fn problem_rules(show: &serde_json::Value) -> Vec<(String, u64)> {
    show["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["rule"].as_str().unwrap().to_string(), p["line"].as_u64().unwrap()))
        .collect()
}

#[test]
fn demo_workspace_corpus_is_found_from_the_project_folder() {
    let path = corpus("evolve/altk-evolve-demo-workspace");
    let stats = folio_json(&["stats", path.to_str().unwrap(), "--json"]);
    assert_eq!(stats["dialect"], "evolve");
    assert_eq!(stats["detected_by"], ".evolve/entities/ found");
    assert!(stats["root"].as_str().unwrap().ends_with(".evolve/entities"));
    assert_eq!(stats["entities"], 2);
    assert_eq!(stats["by_kind"]["guideline"], 2);
    assert_eq!(stats["links"], 0);
    // The demo workspace ships no audit.log: no history and nothing to warn about.
    assert_eq!(stats["history_events"], 0);
    assert_eq!(stats["warnings"].as_array().unwrap().len(), 0);

    let id = "guideline/on-macos-use-mdls-as-the-primary-tool-for-extracting-image";
    let show = folio_json(&["show", path.to_str().unwrap(), id, "--json"]);
    assert_eq!(show["id"], id);
    assert_eq!(show["kind"], "guideline");
    assert_eq!(show["description"], "When extracting image metadata (EXIF, GPS, camera info) on a macOS system");
    assert_eq!(
        show["title"],
        "On macOS, use `mdls` as the primary tool for extracting image EXIF/metadata — it is always…"
    );
    assert_eq!(problem_rules(&show), [("legacy-trigger".to_string(), 3)]);
}

#[test]
fn published_repo_corpus_is_sniffed_and_has_no_history() {
    let Some(path) = corpus_or_skip("evolve/public-repo-vinodmut") else { return };
    let p = path.to_str().unwrap();
    let stats = folio_json(&["stats", p, "--json"]);
    assert_eq!(stats["dialect"], "evolve");
    assert_eq!(stats["detected_by"], "4 of 4 sampled files have evolve frontmatter");
    assert_eq!(stats["entities"], 4);
    assert_eq!(stats["history_events"], 0);
    assert_eq!(stats["warnings"].as_array().unwrap().len(), 0);
    // Every entity only has the legacy trigger.
    assert_eq!(stats["problems"], 4);

    let id = "guideline/for-uv-managed-python-projects-use-uv-run-pytest-instead-of";
    let show = folio_json(&["show", p, id, "--json"]);
    assert_eq!(
        show["description"],
        "When running tests in a Python project that uses uv for dependency management (indicated by pyproject.toml with uv.lock file)"
    );
    assert_eq!(
        show["title"],
        "For uv-managed Python projects, use `uv run pytest` instead of `python3 -m pytest` to run tests"
    );
    assert_eq!(show["updated"], "2026-04-27T18:55:21Z");
    assert_eq!(
        show["sources"],
        serde_json::json!([
            ".evolve/trajectories/trajectory_2026-04-27T16-17-15.json",
            "vinodmut/test-evolve-guidelines"
        ])
    );
    assert_eq!(show["fields"]["owner"], "vinodmut");
    assert_eq!(show["fields"]["visibility"], "public");
    assert_eq!(show["fields"].as_object().unwrap().len(), 7);

    let recall = folio_json(&["recall", p, "publish github", "--json"]);
    assert_eq!(recall["results"].as_array().unwrap().len(), 1);
    assert_eq!(recall["results"][0]["id"], "guideline/when-publishing-to-github-from-this-sandbox-environment-git");
}

#[test]
fn fixture_stats_count_entities_links_history_and_warnings() {
    let stats = folio_json(&["stats", &fixture_path(), "--json"]);
    assert_eq!(stats["dialect"], "evolve");
    assert_eq!(stats["entities"], 15);
    assert_eq!(stats["by_kind"], serde_json::json!({"feedback": 1, "guideline": 13, "project": 1}));
    assert_eq!(stats["links"], 10);
    assert_eq!(stats["unresolved_links"], 1);
    assert_eq!(stats["history_events"], 11);
    // 10 legacy triggers, 1 retention flag, 1 wrapped frontmatter line, 1 date-only published_at.
    assert_eq!(stats["problems"], 13);
    let warnings = stats["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["code"], "invalid-audit-line");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.contains(".evolve/audit.log:8: not JSON"), "{message}");
}

#[test]
fn fixture_entities_show_descriptions_links_and_problems() {
    let f = fixture_path();
    // Legacy trigger only: the trigger is the description, and the problem points at it.
    let focused = folio_json(&["show", &f, "guideline/run-focused-tests-on-shared-machines", "--json"]);
    assert_eq!(
        focused["description"],
        "When running a Rust test suite on a machine shared with other agents (2 cores, several builds at once)"
    );
    assert_eq!(problem_rules(&focused), [("legacy-trigger".to_string(), 3)]);
    assert_eq!(focused["links"][0]["status"], "entity");
    assert_eq!(focused["links"][0]["resolved"], "guideline/run-cargo-clippy-with-all-targets-before-committing");
    assert_eq!(
        focused["backlinks"],
        serde_json::json!([
            "guideline/prefer-git-worktrees-for-parallel-branches",
            "guideline/run-cargo-clippy-with-all-targets-before-committing"
        ])
    );

    // Description and trigger both set: the description wins, no problem.
    let worktrees = folio_json(&["show", &f, "guideline/prefer-git-worktrees-for-parallel-branches", "--json"]);
    assert_eq!(
        worktrees["description"],
        "When several agents or tasks work on branches of one repository at the same time"
    );
    assert_eq!(worktrees["updated"], "2026-05-07T08:15:00Z");
    assert!(problem_rules(&worktrees).is_empty());
    let statuses: Vec<(&str, &str)> = worktrees["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["target"].as_str().unwrap(), l["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [("run-focused-tests-on-shared-machines", "entity"), ("git-worktree-cleanup-checklist", "broken")]
    );

    // Retention-flagged: status and a stale problem on the flag's line.
    let flagged = folio_json(&["show", &f, "guideline/read-the-audit-log-before-deleting-guidelines", "--json"]);
    assert_eq!(flagged["status"], "retention-flagged");
    assert_eq!(problem_rules(&flagged), [("legacy-trigger".to_string(), 3), ("stale".to_string(), 5)]);
    assert_eq!(
        flagged["problems"][1]["message"],
        "flagged by evolve's retention on 2026-08-20T00:00:00Z (reason: age, rule: stale-guidelines)"
    );

    // A bundle-absolute markdown link (the OKF-aligned style) resolves too.
    let ripgrep = folio_json(&["show", &f, "guideline/prefer-ripgrep-over-grep-for-code-search", "--json"]);
    assert_eq!(ripgrep["links"][0]["resolved"], "guideline/quote-paths-with-spaces-in-shell-commands");

    // A subscribed entity keeps its clone prefix in its id; a private one links to it by slug.
    let uv = folio_json(&["show", &f, "subscribed/alice-guidelines/guideline/use-uv-run-for-scripts", "--json"]);
    assert_eq!(uv["fields"]["owner"], "alice");
    assert_eq!(uv["sources"], serde_json::json!(["alice/alice-guidelines"]));
    assert_eq!(problem_rules(&uv), [("legacy-trigger".to_string(), 3), ("invalid-field".to_string(), 7)]);
    assert_eq!(
        uv["backlinks"],
        serde_json::json!([
            "guideline/check-uv-lock-before-adding-dependencies",
            "subscribed/alice-guidelines/guideline/document-environment-quirks-in-guidelines"
        ])
    );

    let wrapped = folio_json(&["show", &f, "guideline/when-a-ci-job-times-out-split-the-test-suite", "--json"]);
    assert_eq!(problem_rules(&wrapped), [("invalid-frontmatter".to_string(), 4), ("legacy-trigger".to_string(), 3)]);
    assert_eq!(wrapped["description"], "When a CI job is killed at its time limit while the tests");
}

#[test]
fn the_clone_readme_and_licence_are_not_entities() {
    let f = fixture_path();
    let out = folio(&["show", &f, "subscribed/alice-guidelines/README", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let store = Store::open(&fixture(FIXTURE), None).unwrap();
    let others: Vec<&str> = store.other_files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(others, ["subscribed/alice-guidelines/LICENSE", "subscribed/alice-guidelines/README.md"]);
}

#[test]
fn fixture_recall_and_graph() {
    let f = fixture_path();
    let recall = folio_json(&["recall", &f, "worktree", "--json"]);
    assert_eq!(recall["results"][0]["id"], "guideline/prefer-git-worktrees-for-parallel-branches");
    let graph = folio_json(&["graph", &f, "--format", "json"]);
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 15);
    assert_eq!(graph["edges"].as_array().unwrap().len(), 9);
    assert_eq!(
        graph["broken"],
        serde_json::json!([{"from": "guideline/prefer-git-worktrees-for-parallel-branches", "target": "git-worktree-cleanup-checklist"}])
    );
}

#[test]
fn fixture_history_comes_from_the_audit_log() {
    let store = Store::open(&fixture(FIXTURE), None).unwrap();
    let history = store.dialect.history(&store.root);
    let kinds: Vec<&str> = history.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "subscribe",
            "sync",
            "recall",
            "influence",
            "influence",
            "synthesize_skill",
            "publish",
            "retention",
            "subscribe",
            "unsubscribe",
            "review"
        ]
    );
    let retention = &history[7];
    assert_eq!(retention.line, 9);
    assert_eq!(retention.raw["action"], "flag");
    assert_eq!(retention.entities, ["guideline/read-the-audit-log-before-deleting-guidelines"]);
    assert_eq!(retention.ts.as_deref(), Some("2026-08-20T00:00:00.104455Z"));
    assert_eq!(
        history[2].entities,
        [
            "guideline/run-focused-tests-on-shared-machines",
            "subscribed/alice-guidelines/guideline/use-uv-run-for-scripts"
        ]
    );
    // Every event id the log names (except the publish row's file name) is an entity here.
    for e in history.iter().filter(|e| e.kind != "publish") {
        for id in &e.entities {
            assert!(store.find(id).is_some(), "{id}");
        }
    }
}

#[test]
fn detection_from_the_project_from_entities_and_from_below() {
    let project = fixture(FIXTURE);
    let entities = project.join(".evolve/entities");
    for (path, reason) in [
        (project.clone(), ".evolve/entities/ found"),
        (project.join(".evolve"), "entities/ inside .evolve"),
        (entities.clone(), "an .evolve/entities folder"),
    ] {
        let stats = folio_json(&["stats", path.to_str().unwrap(), "--json"]);
        assert_eq!((stats["dialect"].as_str(), stats["detected_by"].as_str()), (Some("evolve"), Some(reason)));
        assert_eq!(stats["entities"], 15);
        assert_eq!(stats["history_events"], 11);
    }
    // No PATH: found from a type folder inside entities/.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["stats", "--json"])
        .current_dir(entities.join("guideline"))
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["dialect"], "evolve");
    assert_eq!(stats["entities"], 15);
}

#[test]
fn okf_aligned_catalogs_are_not_entities_but_a_typed_index_is() {
    let (_tmp, project) = scratch(&fixture(FIXTURE));
    let entities = project.join(".evolve/entities");
    write(
        &entities,
        "index.md",
        "---\nokf_version: \"0.1\"\n---\n\n# Subdirectories\n\n* [guideline](guideline/index.md)\n",
    );
    write(&entities, "guideline/index.md", "# guideline\n\n* [a](/guideline/a.md) - when a\n");
    write(
        &entities,
        "project/index.md",
        "---\ntype: project\ndescription: When indexing\n---\nAn entity slugified to index.\n",
    );
    let store = Store::open(&project, None).unwrap();
    assert_eq!(store.entities.len(), 16);
    assert!(store.find("project/index").is_some());
    let catalogs: Vec<&str> = store
        .other_files
        .iter()
        .filter(|(_, role)| *role == folio::store::dialect::FileRole::Catalog)
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(catalogs, ["guideline/index.md", "index.md"]);
}

#[test]
fn hostile_entity_files_never_stop_the_load() {
    let (_tmp, project) = scratch(&fixture(FIXTURE));
    let g = project.join(".evolve/entities/guideline");
    write(&g, "binary.md", b"---\ntype: guideline\n---\n\x00\x01\x02".as_slice());
    write(&g, "latin1.md", b"---\ntype: guideline\ntrigger: caf\xe9\n---\nfact\n".as_slice());
    write(&g, "unterminated.md", "---\ntype: guideline\ntrigger: x\nbody without a closing line\n");
    write(&project, ".evolve/audit.log", b"\xff\xfe\x00garbage\n{\"event\": \"recall\"}\n".as_slice());
    let stats = folio_json(&["stats", project.to_str().unwrap(), "--json"]);
    assert_eq!(stats["entities"], 18);
    assert_eq!(stats["history_events"], 1);
    let message = stats["warnings"][0]["message"].as_str().unwrap();
    assert!(message.ends_with("audit.log:1: not valid UTF-8; the line is skipped"), "{message}");
    let latin = folio_json(&["show", project.to_str().unwrap(), "guideline/latin1", "--json"]);
    assert_eq!(latin["description"], "caf\u{fffd}");
    let rules: Vec<(String, u64)> = problem_rules(&latin);
    assert_eq!(rules, [("non-utf8".to_string(), 3), ("legacy-trigger".to_string(), 3)]);
    let unterminated = folio_json(&["show", project.to_str().unwrap(), "guideline/unterminated", "--json"]);
    assert_eq!(unterminated["problems"][0]["rule"], "invalid-frontmatter");
}

/// Issue 41: 14 of the fixture's 15 guidelines had a lint mark in the catalog. `legacy-trigger`
/// fires on 10 of 15 (the store's, not each row's) and `orphan` is an info: four rows keep `!`.
#[test]
fn the_catalog_marks_only_rows_with_warnings_of_their_own() {
    use folio::store::lint::{self, marks::Mark};
    let store = Store::open(&fixture(FIXTURE), None).unwrap();
    let report = lint::lint(&store, &lint::LintConfig::default());
    let marks = lint::marks::of_report(&store, &report.findings);
    assert_eq!(marks.store_wide, [("legacy-trigger".to_string(), 10)]);
    let mut issues: Vec<&str> = (0..store.entities.len())
        .filter(|&i| marks.get(i as u32) == Mark::Issue)
        .map(|i| store.entities[i].id.as_str())
        .collect();
    issues.sort();
    assert_eq!(
        issues,
        [
            "guideline/prefer-git-worktrees-for-parallel-branches",
            "guideline/read-the-audit-log-before-deleting-guidelines",
            "guideline/when-a-ci-job-times-out-split-the-test-suite",
            "subscribed/alice-guidelines/guideline/use-uv-run-for-scripts",
        ]
    );
    let noted = marks.marks.iter().filter(|&&m| m == Mark::Note).count();
    assert_eq!(noted, 10, "infos and the store-wide rule mark dimly; one guideline has no finding");
    // Before the lint pass, the loader's findings mark the same rows `!` (orphans need the pass).
    let loaded = lint::marks::of_loaded(&store);
    assert_eq!(loaded.store_wide, marks.store_wide);
    let early: Vec<bool> = loaded.marks.iter().map(|&m| m == Mark::Issue).collect();
    let late: Vec<bool> = marks.marks.iter().map(|&m| m == Mark::Issue).collect();
    assert_eq!(early, late);
}
