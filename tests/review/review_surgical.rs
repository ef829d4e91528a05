//! Verdicts and merges write in each list's own style and never break a link (issue 16
//! defects 2 and 5), on scratch copies of acme_retail with the real binary.
use crate::support;
use support::*;

use std::path::Path;

fn broken_links(root: &Path) -> usize {
    let v = folio_json(&["lint", "--format", "json", root.to_str().unwrap()]);
    v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "broken-link").count()
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn approving_adds_one_stamp_line_to_a_block_list_of_stamps() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let before = read(&root, "metrics/gross-margin.md");
    let o = folio(&["review", root.to_str().unwrap(), "approve", "metrics/gross-margin", "--as", "human:ceo"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = read(&root, "metrics/gross-margin.md");
    let old_item = "verified:\n  - { by: human:jsmith@acme, at: 2026-07-01T09:00:00Z }\n";
    let at = before.find(old_item).unwrap() + old_item.len();
    // Everything before and after the new line is byte for byte what it was.
    assert!(after.starts_with(&before[..at]), "{after}");
    assert!(after.ends_with(&before[at..]), "{after}");
    let added = &after[at..after.len() - (before.len() - at)];
    assert!(added.starts_with("  - { by: ") && added.contains("human:ceo") && added.ends_with(" }\n"), "{added:?}");
    assert_eq!(added.lines().count(), 1, "{added:?}");
}

#[test]
fn merging_keeps_every_link_and_every_list_in_its_style() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    assert_eq!(broken_links(&root), 0);
    let into_before = read(&root, "computations/gross-margin-period.md");
    let o = folio(&[
        "review",
        root.to_str().unwrap(),
        "merge",
        "metrics/gross-margin",
        "computations/gross-margin-period",
        "--append-body",
        "--as",
        "human:ceo",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The merged-in body's relative links were relative to metrics/: re-aimed from computations/.
    assert_eq!(broken_links(&root), 0, "a merge broke links");
    let into = read(&root, "computations/gross-margin-period.md");
    assert!(into.contains("[Revenue](../metrics/revenue.md)"), "{into}");
    // INTO's block list of source mappings is untouched (both of A's sources are already there).
    let sources_at = into_before.find("sources:\n").unwrap();
    let sources_end = into_before.find("\n---\n").unwrap();
    assert!(into.contains(&into_before[sources_at..sources_end]), "{into}");
    let v = folio_json(&["show", root.to_str().unwrap(), "computations/gross-margin-period", "--json"]);
    assert_eq!(v["sources"].as_array().map(Vec::len), Some(2), "{v}");
}

#[test]
fn a_merged_source_mapping_stays_a_mapping() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    // Revenue cites the revenue policy; a concept citing only the margin standard gains it.
    let into = "metrics/gross-margin-legacy.md";
    let before = read(&root, into);
    let o = folio(&[
        "review",
        root.to_str().unwrap(),
        "merge",
        "metrics/revenue",
        "metrics/gross-margin-legacy",
        "--as",
        "human:ceo",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = read(&root, into);
    let v = folio_json(&["show", root.to_str().unwrap(), "metrics/gross-margin-legacy", "--json"]);
    let fields = &v["fields"];
    let sources = fields["sources"].as_array().cloned().unwrap_or_default();
    assert!(!sources.is_empty(), "{v}");
    assert!(sources.iter().all(|s| s.is_object()), "every source is a mapping: {sources:?}\n{after}");
    assert_eq!(broken_links(&root), 0);
    assert_ne!(before, after);
}

#[test]
fn a_new_source_joins_a_block_list_of_mappings_as_a_block_mapping() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let into = "computations/revenue-ytd.md";
    let before = read(&root, into);
    let o = folio(&[
        "review",
        root.to_str().unwrap(),
        "merge",
        "metrics/gross-margin",
        "computations/revenue-ytd",
        "--as",
        "human:ceo",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = read(&root, into);
    let last_old = "    last_modified: 2026-07-01T00:00:00Z\n";
    let at = before.find(last_old).unwrap() + last_old.len();
    assert!(after.starts_with(&before[..at]), "{after}");
    assert!(
        after[at..].starts_with("  - id: margin-standard\n    resource: policies/margin-standard.md\n"),
        "{}",
        &after[at..]
    );
    assert_eq!(broken_links(&root), 0);
}
