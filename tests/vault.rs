//! Plain markdown vaults: Obsidian-style LLM wikis and Claude-style memory folders.
mod common;
use common::*;

/// An LLM wiki in claude-obsidian's conventions: spaces in file names, title links, aliases.
fn llm_wiki() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    write(
        &root,
        "index.md",
        "---\ntype: meta\ntitle: \"Index\"\n---\n## Concepts\n- [[LLM Wiki Pattern]] — the pattern (status: mature)\n",
    );
    write(
        &root,
        "concepts/LLM Wiki Pattern.md",
        "---\ntype: concept\ntitle: \"LLM Wiki Pattern\"\nstatus: mature\nupdated: 2026-04-02\ntags:\n  - wiki\n  - llm\nrelated:\n  - \"[[Compounding Knowledge]]\"\naliases: [wiki pattern]\n---\n# LLM Wiki Pattern\n\nSee [[Compounding Knowledge|compounding]] and [[entities/Andrej Karpathy]].\nAlso [the overview](../overview.md) and [[Missing Page]].\n",
    );
    write(
        &root,
        "concepts/Compounding Knowledge.md",
        "---\ntype: concept\ntitle: Compounding Knowledge\n---\nBuilds on [[wiki pattern]].\n",
    );
    write(&root, "entities/Andrej Karpathy.md", "---\ntype: entity\n---\n# Andrej Karpathy\n");
    write(&root, "overview.md", "# Overview\n\n[[concepts/_index|Concepts]]\n");
    write(&root, "concepts/_index.md", "# Concepts\n");
    (dir, root)
}

#[test]
fn obsidian_links_resolve_by_title_path_and_alias() {
    let (_d, root) = llm_wiki();
    let r = root.to_str().unwrap();
    let stats = folio_json(&["stats", r, "--json"]);
    assert_eq!(stats["dialect"], "vault");
    assert_eq!(stats["entities"], 6);
    let v = folio_json(&["show", r, "concepts/LLM Wiki Pattern", "--json"]);
    assert_eq!(v["title"], "LLM Wiki Pattern");
    assert_eq!(v["kind"], "concept");
    assert_eq!(v["status"], "mature");
    assert_eq!(v["tags"], serde_json::json!(["wiki", "llm"]));
    let links: Vec<(String, String)> = v["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["target"].as_str().unwrap().to_string(), l["resolved"].as_str().unwrap_or("-").to_string()))
        .collect();
    assert_eq!(
        links,
        [
            ("Compounding Knowledge".into(), "concepts/Compounding Knowledge".into()),
            ("entities/Andrej Karpathy".into(), "entities/Andrej Karpathy".into()),
            ("../overview.md".into(), "overview".into()),
            ("Missing Page".into(), "-".into()),
        ]
    );
    assert_eq!(v["links"][0]["label"], "compounding");
    assert_eq!(v["links"][3]["status"], "broken");
    // `related: ["[[Compounding Knowledge]]"]` is a typed edge.
    assert_eq!(v["edges"][0]["type"], "related");
    assert_eq!(v["edges"][0]["resolved"], "concepts/Compounding Knowledge");
    // Linked by alias from Compounding Knowledge, and by title from the index page.
    let back = folio_json(&["show", r, "concepts/LLM Wiki Pattern", "--json"])["backlinks"].clone();
    assert_eq!(back, serde_json::json!(["concepts/Compounding Knowledge", "index"]));
}

#[test]
fn recall_and_graph_on_a_vault() {
    let (_d, root) = llm_wiki();
    let r = root.to_str().unwrap();
    let hits = folio_json(&["recall", r, "karpathy", "--json"]);
    assert_eq!(hits["results"][0]["id"], "entities/Andrej Karpathy");
    let g = folio_json(&["graph", r, "--format", "json", "--around", "concepts/Compounding Knowledge", "--depth", "1"]);
    let nodes: Vec<&str> = g["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(nodes, ["concepts/Compounding Knowledge", "concepts/LLM Wiki Pattern"]);
    let dot = stdout(&folio(&["graph", r, "--format", "dot"]));
    assert!(dot.starts_with("digraph folio {"));
    assert!(dot.contains("\"concepts/LLM Wiki Pattern\" -> \"concepts/Compounding Knowledge\""));
    assert!(dot.contains("broken:Missing Page"));
    let mermaid = stdout(&folio(&["graph", r, "--format", "mermaid"]));
    assert!(mermaid.starts_with("flowchart LR\n"));
    assert!(mermaid.contains("-- \"related\" -->"));
}

#[test]
fn claude_memory_folder_without_frontmatter() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    write(&root, "MEMORY.md", "# Memory index\n\n- [User role](user_role.md)\n- [Testing](feedback_testing.md)\n");
    write(
        &root,
        "user_role.md",
        "---\nname: user role\ndescription: The user is a data scientist\ntype: user\n---\nThe user works on pipelines.\n",
    );
    write(&root, "feedback_testing.md", "Integration tests must hit a real database.\n");
    let r = root.to_str().unwrap();
    let stats = folio_json(&["stats", r, "--json"]);
    assert_eq!(stats["entities"], 3);
    assert_eq!(stats["unresolved_links"], 0);
    assert_eq!(stats["orphans"], 1, "MEMORY.md itself is not linked");
    let v = folio_json(&["show", r, "user_role", "--json"]);
    assert_eq!(v["description"], "The user is a data scientist");
    assert_eq!(v["backlinks"], serde_json::json!(["MEMORY"]));
    // No catalogs in a vault: index has nothing to do.
    let out = folio(&["index", "--check", r]);
    assert_eq!(out.status.code(), Some(0));
}

/// Issue 16#3: the root `index.md` hub of an LLM wiki is its entry point, not an orphan; a
/// page nothing links to elsewhere still is.
#[test]
fn root_index_hub_is_not_an_orphan() {
    let (_d, root) = llm_wiki();
    write(&root, "notes/index.md", "# A folder page nothing links to\n");
    let r = root.to_str().unwrap();
    let lint = folio_json(&["lint", r, "--format", "json"]);
    let orphans: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "orphan")
        .map(|f| f["entity"].as_str().unwrap())
        .collect();
    assert_eq!(orphans, ["notes/index"]);
}
