//! Issue 26, the impact choice "leave a stub": a veto or forget that takes a file away may leave
//! a short page in its place (in the format's own grammar: OKF a deprecated concept, AIP-10 an
//! archived page, a vault note with a warning callout) so the links into it keep resolving;
//! logged, undoable byte for byte, and refused where the format's own tool would read a stub as
//! live knowledge (evolve).
use crate::support;
use support::*;

fn ok(args: &[&str]) -> String {
    let o = folio(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

#[test]
fn okf_forget_with_a_stub_keeps_every_inbound_reference_resolving_and_undoes_byte_exact() {
    let (_d, root) = writable_scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    let original = std::fs::read(root.join("tables/orders.md")).unwrap();
    let out = ok(&["review", r, "forget", "tables/orders", "--stub", "--as", "human:ann", "--dry-run"]);
    assert!(!out.contains("left broken"), "a stub breaks nothing:\n{out}");
    assert!(out.contains("# tables/orders.md: a stub stays in its place"), "the dry run shows the stub:\n{out}");
    ok(&["review", r, "forget", "tables/orders", "--stub", "--as", "human:ann"]);
    let stub = std::fs::read_to_string(root.join("tables/orders.md")).unwrap();
    assert!(stub.contains("status: \"deprecated\"") && stub.contains("type: \"BigQuery Table\""), "{stub}");
    assert!(stub.contains("forgotten by human:ann on "), "{stub}");
    let lint = stdout(&folio(&["lint", r]));
    assert!(!lint.contains("broken-link"), "no link broken:\n{lint}");
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    assert!(log.contains("left a stub at tables/orders.md"), "{log}");
    // The stub is what the forget left: it is not queued as a new item.
    let queued = folio_json(&["review", r, "list", "--json"]);
    assert!(!queued["items"].as_array().unwrap().iter().any(|i| i["id"] == "tables/orders"), "{queued}");
    ok(&["undo", r, "--as", "human:ann"]);
    assert_eq!(std::fs::read(root.join("tables/orders.md")).unwrap(), original, "undo restores the concept");
}

#[test]
fn aip10_and_vault_stubs_are_in_their_own_grammar() {
    let (_d, root) = writable_scratch(&fixture("aip10-wiki"));
    let r = root.to_str().unwrap();
    ok(&["review", r, "forget", "alex-park", "--stub", "--as", "human:ann"]);
    let stub = std::fs::read_to_string(root.join("entities/alex-park.md")).unwrap();
    assert!(stub.contains("status: \"archived\""), "{stub}");
    assert!(stub.contains("schema: \"knowledge.entry/v1\"") && stub.contains("slug: \"alex-park\""), "{stub}");
    let lint = stdout(&folio(&["lint", r]));
    assert!(!lint.lines().any(|l| l.contains("broken-link") && l.contains("alex-park")), "{lint}");
    assert!(!lint.lines().any(|l| l.starts_with("entities/alex-park.md")), "the stub is a valid page:\n{lint}");

    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    write(&vault, ".obsidian/app.json", "{}");
    write(&vault, "Hot Cache.md", "# Hot Cache\n\nKeeps prices.\n");
    write(&vault, "Checkout.md", "# Checkout\n\nSee [[Hot Cache]].\n");
    let v = vault.to_str().unwrap();
    ok(&["review", v, "veto", "Hot Cache", "--reason", "wrong TTL", "--stub", "--as", "human:ann"]);
    let stub = std::fs::read_to_string(vault.join("Hot Cache.md")).unwrap();
    assert!(stub.contains("> [!warning] Removed from the knowledge base\n> vetoed by human:ann on "), "{stub}");
    assert!(stub.contains(": wrong TTL"), "{stub}");
    assert!(!stdout(&folio(&["lint", v])).contains("broken-link"));
}

#[test]
fn a_format_that_keeps_no_stubs_refuses_and_writes_nothing() {
    let (_d, root) = writable_scratch(&corpus("evolve/altk-evolve-demo-workspace"));
    let r = root.to_str().unwrap();
    let before = tree(&root, &[]);
    let o = folio(&[
        "review",
        r,
        "veto",
        "guideline/on-macos-use-mdls-as-the-primary-tool-for-extracting-image",
        "--reason",
        "x",
        "--stub",
        "--as",
        "human:ann",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("keeps no stubs"), "{err}");
    assert_eq!(tree(&root, &[]), before, "nothing written");
    let o = folio(&[
        "review",
        r,
        "approve",
        "guideline/on-macos-use-mdls-as-the-primary-tool-for-extracting-image",
        "--stub",
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--stub goes with veto or forget"));
}
