//! Issue 26 item 7 on the CLI: before a verdict that takes an entity away or moves its file,
//! every inbound reference is listed (links, typed edges, `sources` entries, catalog entries);
//! those the change leaves broken are marked, named in the log entry when it goes ahead, and
//! then reported by `folio lint`.
use crate::support;
use support::*;

fn run(args: &[&str]) -> (String, String) {
    let o = folio(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    (stdout(&o), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn forget_lists_and_logs_the_links_it_breaks_and_lint_reports_them() {
    let (_dir, root) = scratch(&fixture("aip10-wiki"));
    let r = root.to_str().unwrap();
    let (out, _) = run(&["review", r, "forget", "alex-park", "--as", "human:ann", "--dry-run"]);
    for expected in [
        "6 inbound references:\n",
        "  _index.md:22 catalog entry → alex-park (entities/alex-park.md)\n",
        "  concepts/investor-relations-2026.md:1 edge links → alex-park (alex-park)\n",
        "  entities/lead-investor.md:20 link → alex-park (alex-park)\n",
        "⚠ 5 left broken (logged; lint reports them):\n",
        "1 catalog regenerated:\n  _index.md\n",
        "--- a/_index.md\n+++ b/_index.md\n",
        "5 inbound links left broken",
    ] {
        assert!(out.contains(expected), "{expected:?} missing:\n{out}");
    }
    // The catalog entry is not among the broken: the regenerated catalog drops it.
    let broken = &out[out.find("⚠").unwrap()..out.find("would forget").unwrap()];
    assert!(!broken.contains("_index.md"), "{broken}");

    run(&["review", r, "forget", "alex-park", "--as", "human:ann"]);
    let log = std::fs::read_to_string(root.join("_log.md")).unwrap();
    assert!(log.contains("5 inbound links left broken"), "{log}");
    let lint = stdout(&folio(&["lint", r]));
    for at in ["entities/lead-investor.md:20:", "summaries/2026-04-27-investor-call.md:14:"] {
        assert!(lint.lines().any(|l| l.starts_with(at) && l.contains("broken-link")), "{at}\n{lint}");
    }
}

#[test]
fn a_moving_promote_lists_sources_entries_and_catalog_entries() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    let before = std::fs::read_to_string(root.join("tables/orders.md")).unwrap();
    let (out, _) = run(&["review", r, "promote", "tables/orders", "--to", "Metric", "--as", "human:ann", "--dry-run"]);
    for expected in [
        // OKF reads `sources[].resource` as a typed edge: listed once, as such.
        "  computations/revenue-ytd.md:1 edge source → tables/orders (tables/orders.md)\n",
        "  policies/revenue-recognition.md:46 link → tables/orders (/tables/orders.md)\n",
        "  tables/index.md:3 catalog entry → tables/orders (orders.md)\n",
    ] {
        assert!(out.contains(expected), "{expected:?} missing:\n{out}");
    }
    assert!(!out.contains(":1 source → tables/orders"), "not twice:\n{out}");
    assert_eq!(std::fs::read_to_string(root.join("tables/orders.md")).unwrap(), before, "a dry run writes nothing");
}

#[test]
fn an_approval_in_place_lists_no_impact() {
    let (_dir, root) = scratch(&fixture("aip10-wiki"));
    let (out, _) = run(&["review", root.to_str().unwrap(), "approve", "alex-park", "--as", "human:ann", "--dry-run"]);
    assert!(!out.contains("inbound reference"), "{out}");
    assert!(out.contains("_log.md gains these bytes:\n"), "{out}");
}
