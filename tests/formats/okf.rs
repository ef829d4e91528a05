//! OKF bundles from the real corpora load with the right facts and catalogs.
use crate::support;
use support::*;

#[test]
fn every_okf_bundle_loads_with_fresh_reference_catalogs() {
    for (bundle, entities) in [
        ("okf-v0.1/ga4", 11),
        ("okf-v0.1/stackoverflow", 49),
        ("okf-v0.1/crypto_bitcoin", 5),
        ("okf-v0.2/ga4", 9),
        ("okf-v0.2/crypto_bitcoin", 9),
        ("okf-v0.2/acme_retail", 9),
    ] {
        let path = corpus(bundle);
        let stats = folio_json(&["stats", path.to_str().unwrap(), "--json"]);
        assert_eq!(stats["dialect"], "okf", "{bundle}");
        assert_eq!(stats["entities"], entities, "{bundle}");
        assert_eq!(stats["unresolved_links"], 0, "{bundle}");
        // Bundles written by OKF's reference generator are byte-identical to folio's catalogs;
        // acme_retail's catalogs were written by hand, list every concept and folder, and so
        // are current too (issue 22).
        let check = folio(&["index", "--check", path.to_str().unwrap()]);
        assert_eq!(check.status.code(), Some(0), "{bundle}: {}", stdout(&check));
    }
}

#[test]
fn show_reports_fields_links_and_backlinks() {
    let path = corpus("okf-v0.2/acme_retail");
    let v = folio_json(&["show", path.to_str().unwrap(), "metrics/gross-margin", "--json"]);
    assert_eq!(v["id"], "metrics/gross-margin");
    assert_eq!(v["path"], "metrics/gross-margin.md");
    assert_eq!(v["kind"], "Metric");
    assert_eq!(v["title"], "Gross Margin");
    assert_eq!(v["fields"]["status"], "stable");
    assert_eq!(v["fields"]["verified"][0]["by"], "human:jsmith@acme");
    let links = v["links"].as_array().unwrap();
    assert!(links.iter().all(|l| l["status"] != "broken"));
    assert!(!v["backlinks"].as_array().unwrap().is_empty());
}

#[test]
fn index_regenerates_only_what_changed_and_is_idempotent() {
    let (_tmp, store) = scratch(&corpus("okf-v0.2/acme_retail"));
    let s = store.to_str().unwrap();
    let first = folio(&["index", s]);
    assert_eq!(first.status.code(), Some(0));
    // Its hand-written catalogs are current: nothing to write (issue 22).
    assert!(stdout(&first).contains("0 written"), "{}", stdout(&first));
    // The hand-kept attesters catalog (no concepts) is left alone and still listed.
    let root = std::fs::read_to_string(store.join("index.md")).unwrap();
    assert!(root.contains("* [attesters](attesters/index.md) - Deterministic verification code"));
    assert_eq!(std::fs::read_to_string(store.join("attesters/index.md")).unwrap().lines().next(), Some("# Attester"));
    let second = folio(&["index", s]);
    assert!(stdout(&second).contains("0 written"), "{}", stdout(&second));
    assert_eq!(folio(&["index", "--check", s]).status.code(), Some(0));
}

#[test]
fn index_refuses_to_overwrite_a_concept_named_index() {
    let (_tmp, store) = scratch(&corpus("okf-v0.2/crypto_bitcoin"));
    write(&store, "tables/index.md", "---\ntype: Table\ntitle: Not a catalog\n---\nprecious\n");
    write(&store, "tables/new.md", "---\ntype: BigQuery Table\ntitle: New\n---\n");
    let before = std::fs::read(store.join("tables/index.md")).unwrap();
    let out = folio(&["index", store.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tables/index.md"));
    assert_eq!(std::fs::read(store.join("tables/index.md")).unwrap(), before);
    // Nothing else was written either.
    assert_eq!(folio(&["index", "--check", store.to_str().unwrap()]).status.code(), Some(1));
}

#[test]
fn a_log_with_frontmatter_is_a_reserved_file_finding() {
    // `okf validate` rejects acme_retail's log.md ("log.md must not contain frontmatter");
    // folio reports the same break of OKF v0.2 §9 as `reserved-file`, an error.
    let acme = corpus("okf-v0.2/acme_retail");
    let v = folio_json(&["lint", "--format", "json", acme.to_str().unwrap()]);
    let found: Vec<(&str, &str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "reserved-file")
        .map(|f| (f["path"].as_str().unwrap(), f["severity"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), ("log.md", "error"));
    assert!(found[0].2.contains("frontmatter (type, title)"), "{found:?}");
    let explained = stdout(&folio(&["lint", "--explain", "reserved-file"]));
    assert!(explained.contains("`log.md` with frontmatter"), "{explained}");
}
