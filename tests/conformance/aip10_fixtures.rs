//! AIP-10 against agentproto's own fixtures (agentproto/ts `packages/knowledge` test fixtures,
//! in `../shared`): AIP-10 has no public reader of wikis to run (its reference package holds a
//! manifest parser only, and is not on the registries these machines reach), so folio is
//! checked against what the fixtures declare (issue 39). Every workspace fixture, as a
//! folder's `KNOWLEDGE.md`, opens that folder as an AIP-10 wiki (detection is sure: it declares
//! the workspace schema); every entry fixture, as a page of it, reads with the slug, kind and
//! title its frontmatter gives.
use crate::support;
use folio::store::Store;
use folio::store::read::frontmatter;
use support::*;

fn fixtures(suffix: &str) -> Option<Vec<(String, String)>> {
    let dir = corpus_or_skip("aip-10/ts-fixtures")?;
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(suffix))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap()))
        .collect();
    out.sort();
    Some(out)
}

#[test]
fn every_workspace_fixture_opens_a_wiki_and_every_entry_reads_as_declared() {
    let (Some(workspaces), Some(entries)) = (fixtures(".workspace.md"), fixtures(".entry.md")) else { return };
    assert!(workspaces.len() >= 4 && entries.len() >= 5, "{} workspaces, {} entries", workspaces.len(), entries.len());
    for (name, text) in &workspaces {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wiki");
        write(&root, "KNOWLEDGE.md", text);
        for (file, entry) in &entries {
            write(&root, &format!("entries/{}", file.replace(".entry", "")), entry);
        }
        let st = folio_json(&["stats", root.to_str().unwrap(), "--json"]);
        assert_eq!(st["dialect"], "aip10", "{name}: {st}");
        let store = Store::open(&root, None).unwrap();
        for (file, entry) in &entries {
            let fields = folio::store::dialect::yaml_fields(entry);
            let want = |k: &str| frontmatter::get_str(&fields, k).unwrap_or_default();
            let path = format!("entries/{}", file.replace(".entry", ""));
            let e =
                store.entities.iter().find(|e| e.path == path).unwrap_or_else(|| panic!("{name}: {path} is no page"));
            assert_eq!(e.id, want("slug"), "{name}: {path}");
            assert_eq!(e.kind.as_deref().unwrap_or_default(), want("kind"), "{name}: {path}");
            assert_eq!(e.title, want("title"), "{name}: {path}");
        }
    }
}
