//! Plain markdown vaults: Obsidian-style LLM wikis and Claude-style memory folders.
use crate::support;
use support::*;

/// An LLM wiki in claude-obsidian's conventions: spaces in file names, links by file name, aliases.
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

/// Obsidian resolves a wikilink by path or file name, never through `title:` or `aliases:`
/// (issue 39: an alias only feeds its link suggestions, which insert `[[file|alias]]`).
#[test]
fn obsidian_links_resolve_by_path_and_file_name_never_by_title_or_alias() {
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
            // `related:` in the frontmatter first, as Obsidian lists it.
            ("Compounding Knowledge".into(), "concepts/Compounding Knowledge".into()),
            ("Compounding Knowledge".into(), "concepts/Compounding Knowledge".into()),
            ("entities/Andrej Karpathy".into(), "entities/Andrej Karpathy".into()),
            ("../overview.md".into(), "overview".into()),
            ("Missing Page".into(), "-".into()),
        ]
    );
    assert_eq!(v["links"][1]["label"], "compounding");
    assert_eq!(v["links"][4]["status"], "broken");
    // `related: ["[[Compounding Knowledge]]"]` is a typed edge as well as a link.
    assert_eq!(v["edges"][0]["type"], "related");
    assert_eq!(v["edges"][0]["resolved"], "concepts/Compounding Knowledge");
    // Linked by file name from the index page; Compounding Knowledge's `[[wiki pattern]]` names
    // an alias, which Obsidian leaves unresolved.
    let back = folio_json(&["show", r, "concepts/LLM Wiki Pattern", "--json"])["backlinks"].clone();
    assert_eq!(back, serde_json::json!(["index"]));
    let other = folio_json(&["show", r, "concepts/Compounding Knowledge", "--json"]);
    assert_eq!(other["links"][0]["target"], "wiki pattern");
    assert_eq!(other["links"][0]["status"], "broken");
    // A `title:` is no name either.
    write(&root, "people/ak.md", "---\ntype: entity\ntitle: Ada King\n---\n# Ada King\n");
    write(&root, "people/links.md", "---\ntype: note\n---\n[[Ada King]] [[ak]]\n");
    let v = folio_json(&["show", r, "people/links", "--json"]);
    let got: Vec<&str> = v["links"].as_array().unwrap().iter().map(|l| l["status"].as_str().unwrap()).collect();
    assert_eq!(got, ["broken", "entity"]);
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

/// Issue 16 defect 6: a vault's wikilinks reach every file in it by name, as Obsidian's do —
/// bases, canvases and attachments by their file name with its extension; a link without one
/// names only a `.md` note (issue 39: `[[Wiki Map]]` is not `Wiki Map.canvas`).
#[test]
fn wikilinks_reach_canvases_bases_and_attachments() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    write(
        &root,
        "index.md",
        "---\ntype: meta\n---\n# Index\n\n[[dashboard.base]] [[Wiki Map]] [[claude-obsidian-presentation]]\n\
         [[paper.pdf]] [[Diagram.PNG]] [[Notes]] [[No Such Thing]] [[Wiki Map.canvas]] [[wiki-mode]]\n",
    );
    write(&root, "Notes.md", "---\ntype: note\n---\n# Notes\n\nBack to [[index]].\n");
    write(&root, "meta/dashboard.base", "views: []\n");
    write(&root, "Wiki Map.canvas", "{}\n");
    write(&root, "canvases/claude-obsidian-presentation.canvas", "{}\n");
    write(&root, "raw/paper.pdf", "%PDF-1.4\n");
    write(&root, "_attachments/diagram.png", "png");
    // A note and a canvas of one name: the note wins, as in Obsidian.
    write(&root, "canvases/Notes.canvas", "{}\n");
    // A script is no note: `[[wiki-mode]]` does not reach it.
    write(&root, "scripts/wiki-mode.py", "print()\n");
    let r = root.to_str().unwrap();
    let v = folio_json(&["show", r, "index", "--json"]);
    let links: Vec<(String, String, String)> = v["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let s = |k: &str| l[k].as_str().unwrap_or("-").to_string();
            (s("target"), s("status"), s("resolved"))
        })
        .collect();
    let row = |t: &str, st: &str, to: &str| (t.to_string(), st.to_string(), to.to_string());
    assert_eq!(
        links,
        [
            row("dashboard.base", "file", "meta/dashboard.base"),
            row("Wiki Map", "broken", "-"),
            row("claude-obsidian-presentation", "broken", "-"),
            row("paper.pdf", "file", "raw/paper.pdf"),
            row("Diagram.PNG", "file", "_attachments/diagram.png"),
            row("Notes", "entity", "Notes"),
            row("No Such Thing", "broken", "-"),
            row("Wiki Map.canvas", "file", "Wiki Map.canvas"),
            row("wiki-mode", "broken", "-"),
        ]
    );
    let lint = folio_json(&["lint", "--format", "json", r]);
    let broken: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        broken,
        [
            "`Wiki Map` does not resolve inside the store",
            "`claude-obsidian-presentation` does not resolve inside the store",
            "`No Such Thing` does not resolve inside the store",
            "`wiki-mode` does not resolve inside the store",
        ]
    );
}

/// Issue 16 defect 7: wikilinks in frontmatter values are links — `lint` reports the
/// dangling ones, and `graph --format json` agrees with it.
#[test]
fn frontmatter_wikilinks_are_checked_like_body_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    write(
        &root,
        "entities/Claude SEO.md",
        "---\ntype: entity\nrelated: [\"[[E-commerce SEO]]\", \"[[Schema Markup|schema]]\"]\nsource: \"[[Index]]\"\n---\n# Claude SEO\n",
    );
    write(&root, "concepts/Schema Markup.md", "---\ntype: concept\n---\n# Schema Markup\n[[Claude SEO]]\n");
    write(&root, "index.md", "---\ntype: meta\n---\n# Index\n[[Schema Markup]]\n");
    let r = root.to_str().unwrap();
    let lint = folio_json(&["lint", "--format", "json", r]);
    let broken: Vec<(String, u64, u64)> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link")
        .map(|f| {
            (f["message"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(broken, [("`E-commerce SEO` does not resolve inside the store".to_string(), 3, 12)]);
    let v = folio_json(&["show", r, "entities/Claude SEO", "--json"]);
    let resolved: Vec<&str> =
        v["links"].as_array().unwrap().iter().map(|l| l["resolved"].as_str().unwrap_or("-")).collect();
    assert_eq!(resolved, ["-", "concepts/Schema Markup", "index"]);
    let graph = folio_json(&["graph", r, "--format", "json"]);
    let text = graph.to_string();
    assert!(text.contains("E-commerce SEO"), "{text}");
    assert!(!text.contains("broken:Schema") && !text.contains("broken:Index"), "{text}");
}

/// Issue 16 defect 7: an LLM wiki opened at its repository root, as Obsidian opens it. Links
/// into hidden folders that exist, partial-path wikilinks and the templates Obsidian's
/// "Excluded files" keep out are no findings; the wiki's `log.md` is its event log. Only the
/// two planted dangling links are reported.
#[test]
fn a_wiki_at_its_repository_root_lints_as_obsidian_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    write(&root, ".obsidian/app.json", "{\"userIgnoreFilters\": [\"_templates/\", \"/\\\\.draft\\\\.md$/\"]}\n");
    write(&root, ".github/workflows/ci.yml", "on: push\n");
    write(&root, ".claude-plugin/plugin.json", "{}\n");
    write(
        &root,
        "README.md",
        "# Repo\n\nCI: [ci](.github/workflows/ci.yml), [plugin](.claude-plugin/plugin.json), \
         [gone](.github/missing.yml). Start at [[wiki/index]].\n",
    );
    write(&root, "_templates/entity.md", "---\ntype: entity\n---\n# {{title}}\n\nSee [[{{related}}]].\n");
    write(&root, "wiki/notes/idea.draft.md", "[[Never Written]]\n");
    write(
        &root,
        "wiki/index.md",
        "---\ntype: meta\n---\n# Index\n\n[[entities/_index|Entities]] · [[concepts/Hot Cache]] · \
         [[Template|tpl]] [[entity]] [[Missing Concept]]\n",
    );
    write(&root, "wiki/entities/_index.md", "# Entities\n\n[[index]]\n");
    write(&root, "wiki/concepts/Hot Cache.md", "---\ntype: concept\n---\n# Hot Cache\n\n[[index]] [[log]]\n");
    write(
        &root,
        "wiki/log.md",
        "---\ntype: meta\n---\n# Wiki Log\n\n## [2026-04-07] ingest | [[Hot Cache]]\n- Created [[Hot Cache]]\n\n\
         ## [2026-04-08] query | What is a hot cache?\n\n## [2026-04-09] lint | weekly pass\n",
    );
    let r = root.to_str().unwrap();
    let stats = folio_json(&["stats", r, "--json"]);
    assert_eq!(stats["dialect"], "vault");
    // README, index, _index, Hot Cache, log; the excluded template and draft are files, not notes.
    assert_eq!(stats["entities"], 5, "{stats}");
    let lint = folio_json(&["lint", "--format", "json", r]);
    let mut broken: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link" || f["rule"] == "link-escapes-root")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    broken.sort();
    assert_eq!(
        broken,
        [
            "`.github/missing.yml` does not resolve inside the store",
            "`Missing Concept` does not resolve inside the store",
            "`Template` does not resolve inside the store",
        ],
        "{lint}"
    );
    let v = folio_json(&["show", r, "wiki/index", "--json"]);
    let resolved: Vec<&str> =
        v["links"].as_array().unwrap().iter().map(|l| l["resolved"].as_str().unwrap_or("-")).collect();
    assert_eq!(resolved, ["wiki/entities/_index", "wiki/concepts/Hot Cache", "-", "_templates/entity.md", "-"]);
    let log = folio_json(&["log", r, "--json"]);
    let kinds: Vec<&str> = log.as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["lint", "query", "ingest"], "newest first: {log}");
    assert_eq!(log[2]["entities"], serde_json::json!(["Hot Cache"]));
    assert_eq!(log[2]["path"], "wiki/log.md");
    assert_eq!(log[2]["line"], 6);
}

/// Issue 23: a page whose `status:` asks for review is queued for it (the catalog marks it
/// pending), and approving it (a log line) takes it out of the inbox.
#[test]
fn a_proposed_page_is_queued_as_a_candidate_until_approved() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    write(&root, "a.md", "---\nstatus: proposed\n---\n# A\n\n[[b]]\n");
    write(&root, "b.md", "---\nstatus: mature\n---\n# B\n\n[[a]]\n");
    let r = root.to_str().unwrap();
    let reasons = |id: &str| -> Vec<String> {
        let v = folio_json(&["review", r, "list", "--json"]);
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["id"] == id)
            .flat_map(|i| i["reasons"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()))
            .collect()
    };
    assert!(reasons("a").contains(&"candidate".to_string()), "{:?}", reasons("a"));
    assert!(!reasons("b").contains(&"candidate".to_string()));
    let o = folio(&["review", r, "approve", "a", "--as", "human:t"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(reasons("a").is_empty(), "approved: out of the inbox");
}

/// Issue 22: an LLM wiki's hubs list their folder's pages (the root `index.md` every page);
/// `lint` names the missing ones, and `folio index` adds just those lines, in the hub's own
/// list style, as an undoable write. A root page that is an introduction is no hub.
#[test]
fn hub_pages_list_their_folder_and_keeping_them_current_adds_only_the_missing_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    let index = "---\ntype: meta\n---\n# Wiki Index\n\nWhat this wiki holds.\n\n## Entities\n* [[Alice]] — a person\n* [[Bob]]\n\n## Concepts\n* [[Hot Cache]]\n\nUpdated by hand.\n";
    let entities_hub = "# Entities\n\n- [[Alice]]\n";
    write(&root, "index.md", index);
    write(&root, "entities/_index.md", entities_hub);
    write(&root, "entities/Alice.md", "# Alice\n");
    write(&root, "entities/Bob.md", "# Bob\n");
    write(&root, "entities/Carol.md", "# Carol\n");
    write(&root, "concepts/Hot Cache.md", "# Hot Cache\n");
    write(&root, "log.md", "# Log\n");
    let r = root.to_str().unwrap();
    let lint = folio_json(&["lint", "--format", "json", r]);
    let stale: Vec<(String, String)> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "catalog-stale")
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["message"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        stale,
        [
            (
                "entities/_index.md".to_string(),
                "catalog entries are wrong: missing [[Bob]]; missing [[Carol]]".to_string()
            ),
            ("index.md".to_string(), "catalog entries are wrong: missing [[Carol]]".to_string()),
        ],
        "{lint}"
    );
    let o = folio(&["index", r]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(root.join("index.md")).unwrap(),
        index.replace("* [[Hot Cache]]\n", "* [[Hot Cache]]\n* [[Carol]]\n"),
        "one line added after the last entry; order, headings, prose kept"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("entities/_index.md")).unwrap(),
        "# Entities\n\n- [[Alice]]\n- [[Bob]]\n- [[Carol]]\n"
    );
    assert_eq!(folio(&["index", r, "--check"]).status.code(), Some(0));
    let u = folio(&["undo", r]);
    assert!(u.status.success(), "{}", String::from_utf8_lossy(&u.stderr));
    assert_eq!(std::fs::read_to_string(root.join("index.md")).unwrap(), index, "undone byte for byte");
    // An introduction at the root that names one page of four is no catalog.
    write(&root, "index.md", "# Welcome\n\nStart with [[Alice]].\n");
    let lint = folio_json(&["lint", "--format", "json", r]);
    assert!(
        lint["findings"].as_array().unwrap().iter().all(|f| !(f["rule"] == "catalog-stale" && f["path"] == "index.md"))
    );
}

/// Issue 39: a store opened at a folder of an Obsidian vault resolves as Obsidian does from the
/// vault root: a note's name reaches notes elsewhere in the vault (an excluded folder's too),
/// a path from the vault root or from the note leaves the folder, however the folder is named
/// on the command line; a link without an extension still names only notes.
#[test]
fn a_store_opened_inside_a_vault_resolves_from_the_vault_root() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    write(&vault, ".obsidian/app.json", "{\"userIgnoreFilters\": [\"skills/\"]}\n");
    write(&vault, "docs/methodology-modes-guide.md", "# Guide\n");
    write(&vault, "docs/releases/v1.6.0.md", "# v1.6.0\n");
    write(&vault, "skills/wiki/references/mcp-setup.md", "# MCP setup\n");
    write(&vault, "scripts/wiki-mode.py", "print()\n");
    write(
        &vault,
        "wiki/references/methodology-modes.md",
        "---\ntype: reference\nrelated:\n  - \"[[methodology-modes-guide]]\"\n  - \"[[wiki-mode]]\"\n---\n\
         # Modes\n\n[[mcp-setup]] [[docs/methodology-modes-guide]] [notes](../../docs/releases/v1.6.0.md)\n",
    );
    write(&vault, "wiki/index.md", "---\ntype: meta\n---\n# Index\n\n[[methodology-modes]]\n");
    let statuses = |args: &[&str], cwd: &std::path::Path| -> Vec<(String, String)> {
        let own = tempfile::tempdir().unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
            .args(args)
            .current_dir(cwd)
            .env("FOLIO_NOW", PINNED_NOW)
            .env("XDG_CACHE_HOME", own.path().join("cache"))
            .env("XDG_DATA_HOME", own.path().join("data"))
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {o:?}"));
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["target"].as_str().unwrap().to_string(), l["status"].as_str().unwrap().to_string()))
            .collect()
    };
    let want: Vec<(String, String)> = [
        ("methodology-modes-guide", "file"),
        ("wiki-mode", "broken"),
        ("mcp-setup", "file"),
        ("docs/methodology-modes-guide", "file"),
        ("../../docs/releases/v1.6.0.md", "file"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let abs = vault.join("wiki");
    assert_eq!(statuses(&["show", abs.to_str().unwrap(), "references/methodology-modes", "--json"], dir.path()), want);
    assert_eq!(statuses(&["show", "wiki", "references/methodology-modes", "--json"], &vault), want, "a relative root");
    // At the vault root the same links resolve to the same files.
    let at_root =
        statuses(&["show", vault.to_str().unwrap(), "wiki/references/methodology-modes", "--json"], dir.path());
    let statuses_only: Vec<&str> = at_root.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(statuses_only, ["entity", "broken", "file", "entity", "entity"], "the excluded note is a file");
    let lint = folio_json(&["lint", "--format", "json", abs.to_str().unwrap()]);
    let broken: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(broken, ["`wiki-mode` does not resolve inside the store"]);
}

/// Issue 39: a template's placeholders (`[[{{note}}]]`) are filled in when a note is made from
/// it; in a template folder (one named `templates`, or the Templates plugin's folder) they are
/// no broken links. A real dangling link there still is.
#[test]
fn template_placeholders_in_template_folders_are_not_broken_links() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    write(&vault, ".obsidian/templates.json", "{\"folder\": \"meta/blueprints\"}\n");
    write(&vault, "skills/wiki-mode/templates/para/project-template.md", "# {{title}}\n\nUp: [[{{note}}]]\n");
    write(&vault, "meta/blueprints/daily.md", "# {{date}}\n\n[[{{date:YYYY-MM-DD}}]] [[Missing Page]]\n");
    write(&vault, "notes/a.md", "# A\n\n[[{{not a template folder}}]]\n");
    let lint = folio_json(&["lint", "--format", "json", vault.to_str().unwrap()]);
    let mut broken: Vec<(&str, &str)> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link")
        .map(|f| (f["path"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    broken.sort();
    assert_eq!(
        broken,
        [
            ("meta/blueprints/daily.md", "`Missing Page` does not resolve inside the store"),
            ("notes/a.md", "`{{not a template folder}}` does not resolve inside the store"),
        ]
    );
}

/// Issue 39: `folio index` on claude-obsidian's hubs. A hub whose frontmatter holds a
/// `related:` list of wikilinks and whose body has headings but no list gets its entry in the
/// body, never in the frontmatter; a hub grouped by kind (`## People`, `## Products & Tools`)
/// gets each entry under the section its kind belongs to.
#[test]
fn index_puts_hub_entries_in_the_body_under_the_section_of_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    let sources = "---\ntype: meta\ntitle: \"Sources Index\"\nrelated:\n  - \"[[index]]\"\n  - \"[[Andrej Karpathy]]\"\n---\n\n\
                   # Sources Index\n\nNavigation: [[index]]\n\n---\n\n## Transcripts\n\n\n---\n\n## Articles\n\n\
                   <!-- Add article source pages here -->\n\n---\n\n## Add new sources here after each ingest.\n";
    let entities = "---\ntype: meta\nrelated:\n  - \"[[index]]\"\n  - \"[[Andrej Karpathy]]\"\n---\n\n# Entities Index\n\n\
                    ## People\n\n- [[Andrej Karpathy]] — AI researcher\n\n---\n\n## Organizations\n\n\
                    <!-- Add organization pages here -->\n\n---\n\n## Products & Tools\n\n\
                    <!-- Add tool and product pages here -->\n\n---\n\n## Add new entities here as they are identified.\n";
    write(&root, "sources/_index.md", sources);
    write(
        &root,
        "sources/ecosystem-research.md",
        "---\ntype: source\ntags:\n  - research\nrelated: [\"[[index]]\"]\n---\n# Research\n",
    );
    write(&root, "entities/_index.md", entities);
    write(
        &root,
        "entities/Andrej Karpathy.md",
        "---\ntype: entity\ntags: [entity, person]\nrelated: [\"[[index]]\"]\n---\n# AK\n",
    );
    write(
        &root,
        "entities/kepano-obsidian-skills.md",
        "---\ntype: entity\ntags: [github-repo, official]\nrelated: [\"[[index]]\"]\n---\n# k\n",
    );
    write(
        &root,
        "entities/Ada Lovelace.md",
        "---\ntype: entity\ntags: [entity, person]\nrelated: [\"[[index]]\"]\n---\n# Ada\n",
    );
    write(
        &root,
        "index.md",
        "---\ntype: meta\n---\n# Index\n\n[[sources/_index|Sources]] · [[entities/_index|Entities]]\n",
    );
    let r = root.to_str().unwrap();
    let o = folio(&["index", r, "--as", "human:t"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = std::fs::read_to_string(root.join("sources/_index.md")).unwrap();
    assert_eq!(got, format!("{sources}- [[ecosystem-research]]\n"));
    let yaml =
        |text: &str| -> serde_yaml_ng::Value { serde_yaml_ng::from_str(text.split("---\n").nth(1).unwrap()).unwrap() };
    assert_eq!(yaml(&got), yaml(sources), "the frontmatter is untouched");
    assert_eq!(
        std::fs::read_to_string(root.join("entities/_index.md")).unwrap(),
        entities
            .replace(
                "- [[Andrej Karpathy]] — AI researcher\n",
                "- [[Andrej Karpathy]] — AI researcher\n- [[Ada Lovelace]]\n"
            )
            .replace(
                "<!-- Add tool and product pages here -->\n",
                "<!-- Add tool and product pages here -->\n- [[kepano-obsidian-skills]]\n"
            )
    );
    assert_eq!(folio(&["index", r, "--check"]).status.code(), Some(0));
}
