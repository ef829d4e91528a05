//! Detection that is sure before it claims a store (issue 39): a format's marker file whose
//! content is not the format's opens the folder as a plain vault, with a warning naming why,
//! and nothing is written into it as that format. The cases are the ones met in public
//! repositories (docs/conformance.md, "Detection").
use crate::support;
use serde_json::Value;
use support::*;

use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn look_alike_warnings(stats: &Value) -> Vec<(String, String)> {
    stats["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "look-alike")
        .map(|w| (w["path"].as_str().unwrap().to_string(), w["message"].as_str().unwrap().to_string()))
        .collect()
}

/// A Next.js repository keeping its notes in a root `KNOWLEDGE.md` (Blockether/mission-control):
/// read as an AIP-10 wiki it had 15 lint errors and `lint --fix --dry-run` proposed writing
/// `_index.md` at its root.
#[test]
fn a_knowledge_md_without_the_workspace_schema_is_no_aip10_wiki() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mission-control");
    write(
        &root,
        "KNOWLEDGE.md",
        "# KNOWLEDGE.md -- Mission Control\n\nLast updated: 2026-03-05\n\n## Architecture\n\nNext.js 14 App Router dashboard.\n",
    );
    write(&root, "README.md", "# Mission Control\n\nSee [the knowledge](KNOWLEDGE.md).\n");
    write(&root, "docs/deploy.md", "# Deploy\n\n`npm run build`\n");
    write(&root, "src/app/page.tsx", "export default function Page() {}\n");
    let before = tree(&root, &[]);
    let st = folio_json(&["stats", s(&root), "--json"]);
    assert_eq!(st["dialect"], "vault");
    assert_eq!(
        st["detected_by"],
        "KNOWLEDGE.md has no frontmatter declaring `schema: knowledge.workspace/v1`, so this folder is not an AIP-10 \
         wiki; read as a plain markdown vault"
    );
    let warnings = look_alike_warnings(&st);
    assert_eq!(warnings.len(), 1, "{st}");
    assert_eq!(warnings[0].0, "KNOWLEDGE.md");
    assert!(
        warnings[0].1.ends_with("nothing is written here as aip10 (`--dialect aip10` opens it as one)"),
        "{warnings:?}"
    );
    // No AIP-10 findings (unsourced pages, invalid fields), and no `_index.md` to write.
    let lint = folio_json(&["lint", s(&root), "--format", "json"]);
    let rules: Vec<&str> = lint["findings"].as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).collect();
    assert!(
        !rules.iter().any(|r| ["unsourced", "invalid-field", "missing-catalog", "stale-catalog"].contains(r)),
        "{rules:?}"
    );
    let o = folio(&["lint", s(&root), "--fix", "--dry-run"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("_index.md"), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(tree(&root, &[]), before, "nothing was written into the folder");
    // The person may still say it is one.
    let forced = folio_json(&["stats", s(&root), "--dialect", "aip10", "--json"]);
    assert_eq!(forced["dialect"], "aip10");
}

/// An OpenClaw workspace's `memory/long-term.md` of "CONFIRMED" lines (Lezzur/LisaHayes): read
/// as an awareness home its 9 memories were invisible (no framework section holds them).
#[test]
fn a_long_term_md_outside_the_frameworks_layout_is_no_awareness_home() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("workspace");
    let confirmed: String = (1..=9).map(|i| format!("- CONFIRMED: rule number {i} holds.\n")).collect();
    write(
        &root,
        "memory/long-term.md",
        format!("# 🧠 CONFIRMED LONG-TERM MEMORY\n\nPermanent, confirmed truths.\n\n{confirmed}"),
    );
    write(&root, "memory/2026-05-01.md", "# 2026-05-01\n\n- talked about the roadmap\n");
    write(&root, "SOUL.md", "# Soul\n");
    let before = tree(&root, &[]);
    let st = folio_json(&["stats", s(&root), "--json"]);
    assert_eq!(st["dialect"], "vault");
    assert!(
        st["detected_by"].as_str().unwrap().starts_with(
            "memory/long-term.md has list items before any section (`- CONFIRMED: rule number 1 holds.`), so this folder is not an awareness-framework home"
        ),
        "{st}"
    );
    assert_eq!(look_alike_warnings(&st)[0].0, "memory/long-term.md");
    // The memories are visible: the file is one note holding all nine lines.
    let show = folio_json(&["show", s(&root), "memory/long-term", "--json"]);
    assert_eq!(show["path"], "memory/long-term.md", "{show}");
    let o = folio(&["lint", s(&root), "--fix"]);
    assert!(o.status.code() != Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(tree(&root, &[&root.join(".folio")]), before, "nothing of the workspace was rewritten");
}

/// The framework's own template, and a home with only some of its sections, stay awareness homes;
/// a file that adds a section of its own with list items does not.
#[test]
fn the_frameworks_layout_is_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let template = std::fs::read_to_string(corpus("awareness/templates/memory-long-term.md")).unwrap();
    write(&dir.path().join("home"), "memory/long-term.md", &template);
    assert_eq!(folio_json(&["stats", s(&dir.path().join("home")), "--json"])["dialect"], "awareness");
    let fixture = folio_json(&["stats", s(&fixture("awareness-home")), "--json"]);
    assert_eq!(
        (fixture["dialect"].as_str(), fixture["detected_by"].as_str()),
        (Some("awareness"), Some("memory/long-term.md found"))
    );
    let mixed = dir.path().join("mixed");
    write(
        &mixed,
        "memory/long-term.md",
        "# Long-term Memory\n\n## Preferences\n- （待补充）\n\n## Decisions\n- 2026-05-29：记忆采用双层文件结构。\n",
    );
    let st = folio_json(&["stats", s(&mixed), "--json"]);
    assert_eq!(st["dialect"], "vault", "{st}");
    assert!(st["detected_by"].as_str().unwrap().contains("list items under `## Decisions`"), "{st}");
}
