//! Links resolve exactly as each format's own tools resolve them (issue 25): one table per
//! format of link forms → the resolution folio must give, with the tool's rule beside each row.
//! Every row runs through the real binary (`show --json` for the resolution), and the rows
//! that must be findings are exactly the `broken-link` / `link-escapes-root` findings of `lint`.
use crate::support;
use support::*;

use std::collections::BTreeSet;
use std::path::Path;

/// What a link must resolve to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Entity(&'static str),
    File(&'static str),
    Broken,
    Escapes,
    Anchor,
    External,
}

/// One row: the link as written, what it must resolve to, and the tool's rule that says so.
struct Row {
    link: &'static str,
    want: Want,
    rule: &'static str,
}

const fn row(link: &'static str, want: Want, rule: &'static str) -> Row {
    Row { link, want, rule }
}

/// Write `rows` one per paragraph into `from` (after `head`), then check each link's
/// resolution and that lint reports exactly the broken and escaping ones.
fn check(root: &Path, from_rel: &str, from_id: &str, head: &str, rows: &[Row]) {
    let body: String = rows.iter().map(|r| format!("{}\n\n", r.link)).collect();
    write(root, from_rel, format!("{head}{body}"));
    let r = root.to_str().unwrap();
    let shown = folio_json(&["show", r, from_id, "--json"]);
    let links = shown["links"].as_array().unwrap_or_else(|| panic!("{shown}"));
    assert_eq!(links.len(), rows.len(), "one link per row in {from_rel}: {links:#?}");
    let mut failures = Vec::new();
    for (row, got) in rows.iter().zip(links) {
        let status = got["status"].as_str().unwrap_or("-");
        let resolved = got["resolved"].as_str().unwrap_or("-");
        let ok = match row.want {
            Want::Entity(id) => status == "entity" && resolved == id,
            Want::File(path) => status == "file" && resolved == path,
            Want::Broken => status == "broken",
            Want::Escapes => status == "escapes-root",
            Want::Anchor => status == "anchor",
            Want::External => status == "external",
        };
        if !ok {
            failures.push(format!("{:<40} want {:?}, got {status} {resolved}   ({})", row.link, row.want, row.rule));
        }
    }
    assert!(failures.is_empty(), "{from_rel}:\n{}", failures.join("\n"));
    // The path as the store names it (evolve's root is `.evolve/entities`).
    let path = shown["path"].as_str().unwrap().to_string();
    let lint = folio_json(&["lint", "--format", "json", r]);
    let found: BTreeSet<(String, u64)> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == path.as_str() && (f["rule"] == "broken-link" || f["rule"] == "link-escapes-root"))
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap()))
        .collect();
    let first_line = head.lines().count() as u64 + 1;
    let expected: BTreeSet<(String, u64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let line = first_line + 2 * i as u64;
            match r.want {
                Want::Broken => Some(("broken-link".to_string(), line)),
                Want::Escapes => Some(("link-escapes-root".to_string(), line)),
                _ => None,
            }
        })
        .collect();
    assert_eq!(found, expected, "lint's link findings in {from_rel} are exactly the broken and escaping rows");
}

/// An Obsidian vault (the folder holding `.obsidian/`) in claude-obsidian's layout.
fn obsidian_vault(root: &Path) {
    write(root, ".obsidian/app.json", "{\"userIgnoreFilters\": [\"_templates/\"]}\n");
    write(root, ".github/workflows/ci.yml", "on: push\n");
    write(root, "_templates/page.md", "# {{title}}\n\n[[{{link}}]]\n");
    write(
        root,
        "wiki/concepts/Hot Cache.md",
        "---\ntype: concept\naliases: [cache layer]\n---\n# Hot Cache\n\n## Eviction\n\nOld entries go. ^block1\n",
    );
    write(root, "wiki/entities/_index.md", "# Entities\n");
    write(root, "wiki/notes/note.md", "# Note beside\n");
    write(root, "wiki/other/note.md", "# Note elsewhere\n");
    write(root, "wiki/attachments/diagram.png", "png");
    write(root, "wiki/raw/paper.pdf", "%PDF-1.4\n");
    write(root, "wiki/Map.canvas", "{}\n");
    write(root, "wiki/meta/dash.base", "views: []\n");
}

const OBSIDIAN: &[Row] = &[
    row("[[Hot Cache]]", Want::Entity("wiki/concepts/Hot Cache"), "shortest path: a unique name is enough"),
    row("[[hot cache]]", Want::Entity("wiki/concepts/Hot Cache"), "names are case-insensitive"),
    row("[[wiki/concepts/Hot Cache]]", Want::Entity("wiki/concepts/Hot Cache"), "absolute path from the vault root"),
    row("[[../concepts/Hot Cache]]", Want::Entity("wiki/concepts/Hot Cache"), "relative path from the linking note"),
    row("[[concepts/Hot Cache]]", Want::Entity("wiki/concepts/Hot Cache"), "a partial path matches the path's end"),
    row("[[entities/_index|Entities]]", Want::Entity("wiki/entities/_index"), "partial path with an alias"),
    row("[[Hot Cache#Eviction]]", Want::Entity("wiki/concepts/Hot Cache"), "#heading links the note"),
    row("[[Hot Cache#^block1]]", Want::Entity("wiki/concepts/Hot Cache"), "#^block links the note"),
    row("[[#Local heading]]", Want::Anchor, "a heading of the same note"),
    row("[[cache layer]]", Want::Broken, "aliases: only feed link suggestions; a link never resolves by one"),
    row("![[Hot Cache]]", Want::Entity("wiki/concepts/Hot Cache"), "an embed links what it shows"),
    row("![[diagram.png]]", Want::File("wiki/attachments/diagram.png"), "embedded attachment, by file name"),
    row("[[paper.pdf]]", Want::File("wiki/raw/paper.pdf"), "attachments with extensions"),
    row("[[Map]]", Want::Broken, "a link without an extension names only a .md note"),
    row("[[Map.canvas]]", Want::File("wiki/Map.canvas"), "canvases by file name with the extension"),
    row("[[dash.base]]", Want::File("wiki/meta/dash.base"), "bases by file name"),
    row("| [[Hot Cache\\|cache]] |", Want::Entity("wiki/concepts/Hot Cache"), "`\\|` escapes a table's pipe"),
    row("[[note]]", Want::Entity("wiki/notes/note"), "of two notes of one name, the one beside the linking note"),
    row("[[page]]", Want::File("_templates/page.md"), "excluded files still resolve (userIgnoreFilters)"),
    row("[ci](../../.github/workflows/ci.yml)", Want::File(".github/workflows/ci.yml"), "hidden folders that exist"),
    row("[[Missing Page]]", Want::Broken, "no note, no file of that name"),
    row("[[../gone/x]]", Want::Broken, "relative to the linking note: inside the vault, missing"),
    row("[[../../../outside]]", Want::Escapes, "leaves the vault from every place"),
    row("[site](https://obsidian.md)", Want::External, "URLs are external"),
];

#[test]
fn obsidian_links_resolve_as_obsidian_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    obsidian_vault(&root);
    check(&root, "wiki/notes/links.md", "wiki/notes/links", "---\ntype: note\n---\n# Links\n\n", OBSIDIAN);
    // The template placeholder in the excluded folder is no finding.
    let lint = folio_json(&["lint", "--format", "json", root.to_str().unwrap()]);
    assert!(!lint.to_string().contains("{{link}}"), "{lint}");
}

/// Opened at a subfolder of the vault, links resolve from the vault's root, and `stats` says so.
#[test]
fn a_vault_opened_at_a_subfolder_resolves_from_the_vault_root() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    obsidian_vault(&vault);
    let root = vault.join("wiki");
    let rows = [
        row("[[wiki/concepts/Hot Cache]]", Want::Entity("concepts/Hot Cache"), "absolute path from the vault root"),
        row("[[concepts/Hot Cache]]", Want::Entity("concepts/Hot Cache"), "a path from the opened folder"),
        row("[[Hot Cache]]", Want::Entity("concepts/Hot Cache"), "shortest path"),
        row("[[wiki/concepts/Cold Cache]]", Want::Broken, "from the vault root, missing"),
    ];
    check(&root, "notes/links.md", "notes/links", "# Links\n\n", &rows);
    let stats = folio_json(&["stats", root.to_str().unwrap(), "--json"]);
    assert_eq!(stats["enclosing"]["what"], "Obsidian vault");
    assert_eq!(stats["enclosing"]["below"], "wiki/");
    let text = stdout(&folio(&["stats", root.to_str().unwrap()]));
    assert!(text.contains("inside the Obsidian vault at ") && text.contains("opened at its folder wiki/"), "{text}");
}

const OKF: &[Row] = &[
    row("[abs](/metrics/revenue.md)", Want::Entity("metrics/revenue"), "§6.2 bundle-absolute path"),
    row("[rel](../metrics/revenue.md)", Want::Entity("metrics/revenue"), "§6.2 relative path"),
    row("[same](gross-margin.md)", Want::Entity("computations/gross-margin"), "relative to the linking file's folder"),
    row("[folder](../metrics/)", Want::File("metrics/index.md"), "a folder lands on its index.md"),
    row("[h](#how)", Want::Anchor, "an anchor of the same concept"),
    row("[web](https://example.com/a.md)", Want::External, "URLs are external"),
    row("[gone](../metrics/gone.md)", Want::Broken, "inside the bundle, missing"),
    row("[out](../../outside.md)", Want::Escapes, "leaves the bundle"),
];

#[test]
fn okf_links_and_references_resolve_as_the_spec_says() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write(&root, "metrics/revenue.md", "---\ntype: Metric\ntitle: Revenue\ndescription: Revenue.\n---\n# Revenue\n");
    write(
        &root,
        "computations/gross-margin.md",
        "---\ntype: Metric\ntitle: Gross margin\ndescription: Margin.\n---\n# Gross margin\n\n[links](links.md)\n",
    );
    // Cited only by `sources[].resource` and `executor.resource` (§6.2): not orphans.
    write(
        &root,
        "policies/revenue-recognition.md",
        "---\ntype: Policy\ntitle: Rev rec\ndescription: Policy.\n---\n# P\n",
    );
    write(&root, "skills/run-on-bq.md", "---\ntype: Skill\ntitle: Run\ndescription: Skill.\n---\n# S\n");
    let head = "---\ntype: Computation\ntitle: Links\ndescription: Link forms.\nexecutor:\n  resource: skills/run-on-bq.md\n\
                sources:\n  - id: policy\n    resource: /policies/revenue-recognition.md\n  - id: web\n    resource: https://wiki/x\n---\n# Links\n\n";
    write(&root, "index.md", "# Bundle\n");
    write(&root, "metrics/index.md", "# Metric\n\n* [Revenue](revenue.md)\n");
    check(&root, "computations/links.md", "computations/links", head, OKF);
    let shown = folio_json(&["show", root.to_str().unwrap(), "computations/links", "--json"]);
    let edges: Vec<(&str, &str)> = shown["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e["resolved"].as_str().unwrap_or("-")))
        .collect();
    assert_eq!(edges, [("source", "policies/revenue-recognition"), ("executor", "skills/run-on-bq")]);
    let lint = folio_json(&["lint", "--format", "json", root.to_str().unwrap()]);
    let orphans: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "orphan")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(!orphans.iter().any(|p| p.starts_with("policies/") || p.starts_with("skills/")), "{orphans:?}");
}

const AIP10: &[Row] = &[
    row("[[hiring-freeze]]", Want::Entity("hiring-freeze"), "AIP-10: a slug names the entry"),
    row("[plan](./runway-extension-q2.md)", Want::Entity("runway-extension-q2"), "AIP-10: relative .md paths"),
    row("[[no-such-slug]]", Want::Broken, "no entry of that slug"),
];

#[test]
fn aip10_links_resolve_by_slug_and_relative_path() {
    let (_d, root) = scratch(&fixture("aip10-wiki"));
    let head = "---\nschema: knowledge.entry/v1\nslug: link-forms\nkind: concept\ntitle: Link forms\nsources:\n  - 2026-04-15-board-deck\nupdated_at: 2026-04-27T17:00:00Z\n---\n# Link forms\n\n";
    check(&root, "concepts/link-forms.md", "link-forms", head, AIP10);
}

const EVOLVE: &[Row] = &[
    row("[[check-lockfile]]", Want::Entity("feedback/check-lockfile"), "evolve: [[slug]] names an entity"),
    row("[[Check-Lockfile]]", Want::Entity("feedback/check-lockfile"), "slugs are case-insensitive"),
    row("[[missing-note]]", Want::Broken, "no entity of that slug"),
];

#[test]
fn evolve_wikilinks_resolve_by_slug() {
    let (_d, root) = scratch(&fixture("evolve-wikilinks"));
    let head = "---\ntype: guideline\ntrigger: When linking\n---\n";
    check(&root, ".evolve/entities/guideline/link-forms.md", "guideline/link-forms", head, EVOLVE);
}
