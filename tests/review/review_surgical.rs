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

/// A page's `metadata:` written as a 16-line block mapping, as AIP-10's fixtures write it.
const BLOCK_METADATA_PAGE: &str = "---
schema: knowledge.entry/v1
slug: runway
kind: concept
title: Runway
sources: [call]
updated_at: 2026-04-27T15:30:00Z
metadata:
  lint:
    stale: true
    stale_since: 2026-04-01
    stale_reason: the runway moved
  fork:
    parent_wiki: company
    parent_slug: runway-extension
    forked_at: 2026-03-01
    forked_reason: team view
  layer:
    mode: lens
  acme:
    owner: finance
    review: quarterly
    tags:
      - runway
      - cash
---

Runway is 18 months.
";

/// The lines of `after` that are not in `before`, and the number of `before`'s lines gone.
fn line_changes(before: &str, after: &str) -> (Vec<String>, usize) {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let added = new.iter().filter(|l| !old.contains(l)).map(|l| l.to_string()).collect();
    let removed = old.iter().filter(|l| !new.contains(l)).count();
    (added, removed)
}

/// AIP-10 veto (issue 39): a veto rewrote a page's 16-line block `metadata:` mapping as one
/// flow line. The veto is one key (`metadata.folio.vetoed`): one line added in the mapping, and
/// `updated_at`, which every AIP-10 write sets, changed; every other byte stays.
#[test]
fn an_aip10_veto_adds_one_line_to_a_block_metadata_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wiki");
    write(&root, "KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: w\n---\n");
    write(&root, "concepts/runway.md", BLOCK_METADATA_PAGE);
    let o =
        folio(&["review", root.to_str().unwrap(), "veto", "runway", "--reason", "wrong number", "--as", "human:ann"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = read(&root, "concepts/runway.md");
    let (added, removed) = line_changes(BLOCK_METADATA_PAGE, &after);
    assert_eq!(removed, 1, "only `updated_at` is replaced:\n{after}");
    assert_eq!(added.len(), 2, "{added:?}");
    assert!(added[0].starts_with("updated_at: "), "{added:?}");
    assert!(added[1].starts_with("  folio: {vetoed: {by: \"human:ann\""), "{added:?}");
    assert!(added[1].contains("reason: wrong number"), "{added:?}");
    // The new entry is the mapping's last, after `acme`'s block: the 16 lines above it are kept.
    let block = &BLOCK_METADATA_PAGE
        [BLOCK_METADATA_PAGE.find("metadata:\n").unwrap()..BLOCK_METADATA_PAGE.find("---\n\nRunway").unwrap()];
    assert!(after.contains(&format!("{block}{}\n---\n", added[1])), "{after}");
    let v = folio_json(&["show", root.to_str().unwrap(), "runway", "--json"]);
    assert_eq!(v["fields"]["metadata"]["lint"]["stale_reason"], "the runway moved", "{v}");
    assert_eq!(v["fields"]["metadata"]["folio"]["vetoed"]["reason"], "wrong number", "{v}");
}
