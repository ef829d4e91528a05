//! AIP-10 wikis: the fixture wiki through the CLI, extends chains, per-page problems, the
//! `_index.md` catalog and `sources/`.
use crate::support;
use std::path::Path;

use serde_json::{Value, json};
use support::*;

fn wiki() -> std::path::PathBuf {
    fixture("aip10-wiki")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stats(p: &Path) -> Value {
    folio_json(&["stats", s(p), "--json"])
}

fn show(p: &Path, id: &str) -> Value {
    folio_json(&["show", s(p), id, "--json"])
}

/// (rule, manifest lint that raised it) of every problem `show` reports for an entity. The
/// lint's severity rides on the problem (checked in the dialect's unit tests); `show` names the
/// lint in the message.
fn problems(p: &Path, id: &str) -> Vec<(String, Option<String>)> {
    show(p, id)["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let message = x["message"].as_str().unwrap();
            let lint =
                message.split_once("(lint `").and_then(|(_, rest)| rest.split_once('`')).map(|(id, _)| id.into());
            (x["rule"].as_str().unwrap().to_string(), lint)
        })
        .collect()
}

fn codes(stats: &Value) -> Vec<String> {
    stats["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap().to_string()).collect()
}

#[test]
fn fixture_wiki_loads_with_slug_ids_and_resolved_links() {
    let st = stats(&wiki());
    assert_eq!(st["dialect"], "aip10");
    assert_eq!(st["entities"], 14, "the tombstoned entries/old-draft.md is not an entity");
    assert_eq!(
        st["by_kind"],
        json!({"comparison": 1, "concept": 8, "investor": 1, "person": 1, "summary": 2, "timeline": 1})
    );
    assert_eq!(st["links"], 22);
    assert_eq!(st["unresolved_links"], 0);
    assert_eq!(st["orphans"], 3);
    assert_eq!(st["stale_catalogs"], 0);
    assert_eq!(st["history_events"], 4);
    assert_eq!(st["files_with_problems"], 3);

    let graph = folio_json(&["graph", s(&wiki()), "--format", "json"]);
    let mut ids: Vec<&str> = graph["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "2026-04-15-board-deck",
            "2026-04-27-investor-call",
            "2026-q2-runway",
            "alex-park",
            "bridge-note-terms",
            "compounding-knowledge-pattern",
            "cost-cut-plan",
            "hiring-freeze",
            "investor-relations-2026",
            "lead-investor",
            "monthly-investor-update-template",
            "q4-2014-targets",
            "rag-vs-wiki-comparison",
            "runway-extension-q2",
        ]
    );
    assert!(graph["broken"].as_array().unwrap().is_empty());
    let edges = graph["edges"].as_array().unwrap();
    let has =
        |from: &str, to: &str, ty: &str| edges.iter().any(|e| e["from"] == from && e["to"] == to && e["type"] == ty);
    assert!(has("hiring-freeze", "runway-extension-q2", "contradicts"));
    assert!(has("runway-extension-q2", "hiring-freeze", "contradicts"));
    assert!(has("compounding-knowledge-pattern", "rag-vs-wiki-comparison", "supersedes"));
    assert!(has("investor-relations-2026", "bridge-note-terms", "links"));
    assert_eq!(edges.iter().filter(|e| e["type"] == "links").count(), 7);
}

#[test]
fn show_resolves_wikilinks_by_slug_and_relative_markdown_links() {
    let lead = show(&wiki(), "lead-investor");
    assert_eq!(lead["path"], "entities/lead-investor.md");
    assert_eq!(lead["kind"], "investor");
    assert_eq!(lead["sources"], json!(["2026-04-27-investor-call", "2026-04-15-board-deck"]));
    assert_eq!(lead["confidence"], 0.9);
    let links: Vec<(&str, &str, &str)> = lead["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["syntax"].as_str().unwrap(), l["target"].as_str().unwrap(), l["resolved"].as_str().unwrap()))
        .collect();
    assert_eq!(
        links,
        [
            ("wiki", "alex-park", "alex-park"),
            ("markdown", "../concepts/investor-relations-2026.md", "investor-relations-2026")
        ]
    );
    let mut back: Vec<&str> = lead["backlinks"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    back.sort();
    assert_eq!(
        back,
        [
            "2026-04-27-investor-call",
            "alex-park",
            "bridge-note-terms",
            "investor-relations-2026",
            "runway-extension-q2"
        ]
    );
    // A page nested under entries/ links back up with a relative path.
    let timeline = show(&wiki(), "2026-q2-runway");
    assert_eq!(timeline["links"][0]["resolved"], "2026-04-15-board-deck");
    assert_eq!(timeline["description"], "2026-04-15: board deck (summary).");
}

#[test]
fn merged_config_and_chains_are_exposed() {
    let info = &stats(&wiki())["info"];
    assert_eq!(info["chain"], json!(["KNOWLEDGE.md"]));
    assert_eq!(info["merged"]["name"], "finance-wiki");
    assert_eq!(info["merged"]["curation"]["conflictResolution"], "defer");
    let views = info["views"].as_array().unwrap();
    assert_eq!(views.len(), 2);
    let cfo = &views[1];
    assert_eq!(cfo["path"], "views/finance/cfo-assistant/KNOWLEDGE.md");
    assert_eq!(
        cfo["chain"],
        json!(["views/finance/cfo-assistant/KNOWLEDGE.md", "views/finance/KNOWLEDGE.md", "KNOWLEDGE.md"])
    );
    let m = &cfo["merged"];
    assert_eq!(m["name"], "cfo-assistant-view");
    assert_eq!(
        m["curation"],
        json!({"tone": "sales", "depth": "deep", "autoLink": "byName", "conflictResolution": "recency"})
    );
    assert_eq!(m["queryHints"]["scopeTo"], json!(["Deal"]));
    assert_eq!(m["queryHints"]["preferRecent"], true);
    assert_eq!(m["appliesTo"], json!(["ws://operators/cfo-assistant"]));
    assert_eq!(m["curator"], "ws://operators/cfo-assistant");
    let team = &views[0]["merged"];
    assert_eq!(views[0]["chain"], json!(["views/finance/KNOWLEDGE.md", "KNOWLEDGE.md"]));
    assert_eq!(team["curation"]["conflictResolution"], "recency");
    assert_eq!(team["curator"], "ws://operators/wiki-curator");
    let types: Vec<&str> =
        team["entityTypes"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(types, ["Person", "Investor", "Concept", "Summary", "Comparison", "Timeline", "Deal"]);
    assert_eq!(team["entityTypes"][0]["fields"], json!(["name", "role", "contact", "affiliations", "internal_owner"]));
    let lints: Vec<(&str, &str)> = team["lints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["id"].as_str().unwrap(), l["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(
        lints,
        [
            ("require-source", "error"),
            ("max-age-ten-years", "info"),
            ("min-confidence-concept", "warn"),
            ("broken-ref", "error"),
            ("investor-recency", "warn")
        ]
    );
    assert_eq!(team["metadata"], json!({"acme": {"cost_center": "finance", "pii_class": "confidential"}}));

    // Opening the view folder itself resolves its chain from there.
    let view = stats(&wiki().join("views/finance"));
    assert_eq!(view["dialect"], "aip10");
    assert_eq!(view["info"]["chain"], json!(["KNOWLEDGE.md", "../../KNOWLEDGE.md"]));
    assert_eq!(view["info"]["merged"]["curation"]["conflictResolution"], "recency");
}

#[test]
fn a_modified_source_is_the_only_store_warning() {
    let st = stats(&wiki());
    assert_eq!(codes(&st), ["source-modified"]);
    let w = &st["warnings"][0];
    assert_eq!(w["path"], "sources/2026-04-15-board-deck.txt");
    assert!(w["message"].as_str().unwrap().contains("sha256:5d41402abc4b"), "{w}");
}

#[test]
fn fixture_pages_carry_the_expected_problems() {
    let w = wiki();
    assert_eq!(problems(&w, "bridge-note-terms"), [("unsourced".into(), Some("require-source".into()))]);
    assert_eq!(problems(&w, "cost-cut-plan"), [("low-confidence".into(), Some("min-confidence-concept".into()))]);
    assert_eq!(problems(&w, "q4-2014-targets"), [("stale".into(), Some("max-age-ten-years".into()))]);
    // Person stubs may go unsourced (require-source applies to Concept); comparisons too.
    assert!(problems(&w, "alex-park").is_empty());
    assert!(problems(&w, "rag-vs-wiki-comparison").is_empty());
    assert!(problems(&w, "runway-extension-q2").is_empty());
}

#[test]
fn index_writes_the_catalog_then_check_is_clean() {
    let (_tmp, store) = scratch(&wiki());
    std::fs::remove_file(store.join("_index.md")).unwrap();
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(1));
    let out = folio(&["index", s(&store)]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("wrote _index.md"));
    let written = std::fs::read_to_string(store.join("_index.md")).unwrap();
    assert_eq!(written, std::fs::read_to_string(wiki().join("_index.md")).unwrap());
    let headings: Vec<&str> = written.lines().filter(|l| l.starts_with("# ")).collect();
    assert_eq!(headings, ["# comparison", "# concept", "# investor", "# person", "# summary", "# timeline"]);
    assert!(written.contains(
        "* [Hiring freeze through Q3](concepts/hiring-freeze.md) `hiring-freeze` - The board deck assumes two senior \
         hires in Q2, which the runway plan rules out: the freeze holds until 2026-09-30.\n"
    ));
    assert!(!written.contains("old-draft") && !written.contains("sources/"));
    assert_eq!(written.lines().filter(|l| l.starts_with("* [")).count(), 14);
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(0));
    assert!(stdout(&folio(&["index", s(&store)])).contains("0 written"));

    // A new page makes the catalog stale until it is regenerated.
    write(&store, "concepts/new-idea.md", "---\nslug: new-idea\nkind: concept\ntitle: New idea\n---\nFresh.\n");
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(1));
}

#[test]
fn index_refuses_an_index_with_page_frontmatter() {
    let (_tmp, store) = scratch(&wiki());
    let page = "---\nschema: knowledge.entry/v1\nslug: index\nkind: concept\ntitle: Not a catalog\n---\nprecious\n";
    write(&store, "_index.md", page);
    let check = folio(&["index", "--check", s(&store)]);
    assert_eq!(check.status.code(), Some(1));
    assert!(stdout(&check).contains("not-a-catalog: _index.md"));
    let out = folio(&["index", s(&store)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("_index.md"));
    assert_eq!(std::fs::read_to_string(store.join("_index.md")).unwrap(), page);
}

#[test]
fn sources_never_become_entities() {
    let (_tmp, store) = scratch(&wiki());
    // A file under sources/ that looks exactly like a page.
    write(
        &store,
        "sources/deep/looks-like-a-page.md",
        "---\nschema: knowledge.entry/v1\nslug: looks-like-a-page\nkind: concept\ntitle: Raw\n---\n[[lead-investor]]\n",
    );
    let st = stats(&store);
    assert_eq!(st["entities"], 14);
    assert_eq!(folio(&["show", s(&store), "looks-like-a-page"]).status.code(), Some(2));
    let lead = show(&store, "lead-investor");
    assert_eq!(lead["backlinks"].as_array().unwrap().len(), 5, "a raw source's wikilink is not a backlink");
}

#[test]
fn history_reads_the_log() {
    // `stats` counts them; the events and their entities are checked in the log module's unit
    // tests. Here: an extra heading outside the grammar adds nothing.
    let (_tmp, store) = scratch(&wiki());
    let mut log = std::fs::read_to_string(store.join("_log.md")).unwrap();
    log.push_str("\n## Not an event\n\n## [2026-05-01T00:00:00Z] query | runway\n\n- Created [[cost-cut-plan]]\n");
    write(&store, "_log.md", log);
    assert_eq!(stats(&store)["history_events"], 5);
}

fn chain_store(dir: &Path, root_extends: &str) -> std::path::PathBuf {
    let root = dir.join("wiki");
    write(&root, "KNOWLEDGE.md", format!("---\nschema: knowledge.workspace/v1\nname: wiki\n{root_extends}---\n"));
    write(&root, "_manifest.json", r#"{"version":1,"hashAlgo":"sha256","sources":{}}"#);
    write(
        &root,
        "concepts/a.md",
        "---\nschema: knowledge.entry/v1\nslug: a\nkind: concept\ntitle: A\nsources: [s]\nupdated_at: 2026-04-01\n---\n",
    );
    root
}

#[test]
fn extends_cycle_is_a_warning_and_the_wiki_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let root = chain_store(dir.path(), "extends: ../base/KNOWLEDGE.md\n");
    write(dir.path(), "base/KNOWLEDGE.md", "---\nname: base\nextends: ../wiki/KNOWLEDGE.md\n---\n");
    let st = stats(&root);
    assert_eq!(st["entities"], 1);
    assert_eq!(codes(&st), ["extends-cycle"]);
    let message = st["warnings"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("../base/KNOWLEDGE.md: extends `../wiki/KNOWLEDGE.md`"), "{message}");
    assert_eq!(st["info"]["chain"], json!(["KNOWLEDGE.md"]));
    assert_eq!(st["info"]["merged"]["name"], "wiki");
}

#[test]
fn extends_missing_parent_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = chain_store(dir.path(), "extends: ../nowhere/KNOWLEDGE.md\n");
    let st = stats(&root);
    assert_eq!(codes(&st), ["extends-missing"]);
    assert_eq!(st["warnings"][0]["path"], "KNOWLEDGE.md");
    assert!(st["warnings"][0]["message"].as_str().unwrap().contains("../nowhere/KNOWLEDGE.md does not exist"));
    assert_eq!(st["info"]["chain"], json!(["KNOWLEDGE.md"]));
    assert_eq!(st["entities"], 1);
}

#[test]
fn extends_deeper_than_eight_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = chain_store(dir.path(), "extends: ../p1\n");
    for i in 1..=9 {
        write(dir.path(), &format!("p{i}/KNOWLEDGE.md"), format!("---\nname: p{i}\nextends: ../p{}\n---\n", i + 1));
    }
    write(dir.path(), "p10/KNOWLEDGE.md", "---\nname: p10\ncuration: {tone: dry}\n---\n");
    let st = stats(&root);
    assert_eq!(codes(&st), ["extends-depth"]);
    assert_eq!(st["info"]["chain"], json!(["KNOWLEDGE.md"]));
    assert!(st["info"]["merged"].get("curation").is_none());

    // Eight hops is within the limit: the whole chain merges.
    write(dir.path(), "p8/KNOWLEDGE.md", "---\nname: p8\ncuration: {tone: dry}\n---\n");
    let st = stats(&root);
    assert!(codes(&st).is_empty(), "{:?}", st["warnings"]);
    assert_eq!(st["info"]["chain"].as_array().unwrap().len(), 9);
    assert_eq!(st["info"]["chain"][8], "../p8/KNOWLEDGE.md");
    assert_eq!(st["info"]["merged"]["curation"]["tone"], "dry");
    assert_eq!(st["info"]["merged"]["name"], "wiki");
}

/// A one-page wiki with the fixture's manifest lints, for per-page problem cases.
fn one_page(dir: &Path, frontmatter: &str) -> Vec<(String, Option<String>)> {
    let root = dir.join("w");
    let manifest = std::fs::read_to_string(wiki().join("KNOWLEDGE.md")).unwrap();
    write(&root, "KNOWLEDGE.md", manifest);
    write(&root, "_manifest.json", r#"{"version":1,"sources":{}}"#);
    write(&root, "concepts/p.md", format!("---\n{frontmatter}---\n# P\n\nBody.\n"));
    let mut out = problems(&root, "concepts/p.md");
    out.sort();
    out
}

const BASE: &str = "schema: knowledge.entry/v1\nslug: p\nkind: concept\ntitle: P\nsources: [s]\n\
    confidence: 0.9\nupdated_at: 2026-04-27T15:00:00Z\n";

#[test]
fn per_page_problems_positive_and_negative() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let case = |from: &str, to: &str| one_page(d, &BASE.replace(from, to));
    let one = |rule: &str, sev: Option<&str>| vec![(rule.to_string(), sev.map(String::from))];
    assert!(one_page(d, BASE).is_empty(), "the base page is clean");

    // invalid-field
    assert_eq!(case("confidence: 0.9", "confidence: 1.2"), one("invalid-field", None));
    assert_eq!(case("confidence: 0.9", "confidence: high"), one("invalid-field", None));
    assert!(case("confidence: 0.9", "confidence: 1").is_empty());
    assert_eq!(case("2026-04-27T15:00:00Z", "April 27th"), one("invalid-field", None));
    assert!(case("2026-04-27T15:00:00Z", "2026-04-27T17:00:00+02:00").is_empty());
    assert_eq!(case("kind: concept", "kind: deal"), one("invalid-field", None), "Deal is only in the view");
    assert!(case("kind: concept", "kind: Concept").is_empty(), "kinds compare case-insensitively");
    assert_eq!(case("slug: p", "slug: concepts/P"), one("invalid-field", None));
    assert!(case("slug: p", "slug: 2026-04-15-paper").is_empty());

    // unsourced: the require-source lint applies to Concept, not to Person.
    assert_eq!(case("sources: [s]\n", ""), one("unsourced", Some("require-source")));
    assert_eq!(case("sources: [s]\n", "sources: []\n"), one("unsourced", Some("require-source")));
    assert_eq!(
        case("sources: [s]\nconfidence: 0.9\n", ""),
        one("unsourced", Some("require-source")),
        "confidence defaults to 1"
    );
    assert!(one_page(d, &BASE.replace("sources: [s]\n", "").replace("kind: concept", "kind: person")).is_empty());

    // low-confidence: min-confidence-concept (min 0.5).
    assert_eq!(case("confidence: 0.9", "confidence: 0.49"), one("low-confidence", Some("min-confidence-concept")));
    assert!(case("confidence: 0.9", "confidence: 0.5").is_empty());
    assert!(
        one_page(d, &BASE.replace("confidence: 0.9", "confidence: 0.1").replace("kind: concept", "kind: person"))
            .is_empty()
    );

    // stale: max-age-ten-years (3650 days).
    assert_eq!(case("2026-04-27T15:00:00Z", "2014-01-01"), one("stale", Some("max-age-ten-years")));
    assert!(case("2026-04-27T15:00:00Z", "2025-01-01").is_empty());
}

#[test]
fn floor_rule_without_require_source_lints() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(&root, "KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: w\n---\n");
    write(&root, "_manifest.json", r#"{"sources":{}}"#);
    let page = |kind: &str| {
        format!(
            "---\nschema: knowledge.entry/v1\nslug: {kind}-page\nkind: {kind}\ntitle: T\nupdated_at: 2026-04-27\n---\n"
        )
    };
    for kind in ["entity", "concept", "summary", "comparison", "timeline"] {
        write(&root, &format!("pages/{kind}.md"), page(kind));
    }
    for (id, expect) in
        [("entity-page", 1), ("concept-page", 1), ("summary-page", 1), ("comparison-page", 0), ("timeline-page", 0)]
    {
        let found = problems(&root, id);
        assert_eq!(found.len(), expect, "{id}: {found:?}");
        assert!(found.iter().all(|(rule, lint)| rule == "unsourced" && lint.is_none()));
    }
}

#[test]
fn malformed_manifest_and_pages_never_stop_a_load() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(&root, "KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: [unclosed\n---\n");
    write(&root, "_manifest.json", "{\"sources\": ");
    write(&root, "entities/bin.md", b"---\nslug: bin\n---\n\x00\x01binary".as_slice());
    write(&root, "entities/latin1.md", b"---\nslug: latin\nkind: entity\n---\ncaf\xe9\n".as_slice());
    write(&root, "entities/bad-yaml.md", "---\nslug: [x\n---\nbody\n");
    let st = stats(&root);
    assert_eq!(st["entities"], 3);
    assert_eq!(codes(&st), ["workspace-invalid", "manifest-invalid"]);
    assert!(st["warnings"][0]["message"].as_str().unwrap().starts_with("KNOWLEDGE.md: frontmatter does not parse"));
    assert!(st["warnings"][1]["message"].as_str().unwrap().starts_with("_manifest.json: not valid JSON"));
    let rules: Vec<String> = problems(&root, "latin").into_iter().map(|p| p.0).collect();
    assert!(rules.contains(&"non-utf8".to_string()), "{rules:?}");
    assert_eq!(problems(&root, "entities/bad-yaml.md")[0].0, "invalid-frontmatter");
}
