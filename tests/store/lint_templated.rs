//! Near-duplicates and possible contradictions on templated stores (issue 41): two days of one
//! worklog and two metrics filled in from one template are alike in form, not in subject, and
//! are not reported; one fact told twice, and a copy-edited page, still are.
use crate::support;
use std::collections::BTreeSet;
use std::path::Path;

use support::*;

/// The (id, other id) pairs a rule reports, each once and sorted.
fn pairs(root: &Path, rule: &str) -> BTreeSet<(String, String)> {
    let v = folio_json(&["lint", "--format", "json", root.to_str().unwrap()]);
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            let me = f["entity"].as_str().unwrap().to_string();
            // "near-duplicate of `other` (…)", "may contradict `other`: …"
            let other = f["message"].as_str().unwrap().split('`').nth(1).unwrap().to_string();
            if me <= other { (me, other) } else { (other, me) }
        })
        .collect()
}

#[test]
fn consecutive_daily_worklogs_are_no_duplicates_and_their_dates_no_contradiction() {
    let (_dir, home) = scratch(&fixture("awareness-home"));
    for day in ["2026-08-12", "2026-08-13"] {
        let text = std::fs::read(fixture(&format!("worklogs/{day}.md"))).unwrap();
        write(&home, &format!("worklog/{day}.md"), text);
    }
    let near = pairs(&home, "near-duplicate");
    assert!(near.iter().all(|(a, b)| !(a.starts_with("worklog/") && b.starts_with("worklog/"))), "{near:?}");
    assert!(pairs(&home, "possible-contradiction").is_empty());
    // The home's one fact learned on two days (`approve-twin`) is still a near-duplicate.
    assert!(near.contains(&("19mh0bp".into(), "19mh0bp-2".into())), "{near:?}");
}

/// A metric reference of the GA4 bundle's shape: one sentence frame, one SQL skeleton.
fn metric(name: &str, who: &str, filter: &str) -> String {
    format!(
        "---\ntype: Reference\ntitle: {name} Metric\ndescription: Builds an audience of {name}.\n---\n\n\
         Builds an audience of {name}, defined as users who have logged at least one event {who}.\n\n\
         # Schema\nThis reference describes a query pattern and does not map to a single database schema.\n\n\
         # Common query patterns\n\n```sql\nSELECT\n  COUNT(DISTINCT user_id) AS audience_count\nFROM\n  `YOUR_TABLE.events_*` AS T\n\
         CROSS JOIN\n  T.event_params\nWHERE\n  event_params.key = 'engagement_time_msec' AND {filter}\n\
         AND _TABLE_SUFFIX BETWEEN '20180521' AND '20240131';\n```\n"
    )
}

#[test]
fn a_copy_edited_page_among_template_siblings_is_still_a_near_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "index.md", "---\ntype: Index\n---\n# Metrics\n");
    let metrics = [
        ("Frequently Active Users", "on N of the last M days, where M is larger than N", "days_active >= 4"),
        ("Highly Active Users", "with an engagement time above the ninetieth percentile", "engagement_msec > p90"),
        ("N-Day Active Users", "in the last N days with a positive engagement time", "event_date > today - 20"),
        ("Lapsed Users", "only before their most recent visit a week or more ago", "days_since_visit > 7"),
        ("Purchasers", "with a purchase event and a positive revenue value", "event_name = 'purchase'"),
        ("Returning Users", "in two distinct sessions a week apart or more", "sessions >= 2"),
    ];
    for (name, who, filter) in metrics {
        let file = format!("metrics/{}.md", name.to_lowercase().replace([' ', '-'], "_"));
        write(root, &file, metric(name, who, filter));
    }
    // The GA4 bundles themselves are in `lint::okf_corpora_lint_with_known_counts`.
    assert_eq!(pairs(root, "near-duplicate"), BTreeSet::new(), "siblings of one template");
    // Another agent restates one metric, copying the page and editing a few words.
    let copy = metric("Frequently Active Users", "on N of the last M days, where M exceeds N", "days_active >= 4")
        .replace("Frequently Active Users Metric", "Frequent Users Metric");
    write(root, "metrics/frequent_users.md", copy);
    assert_eq!(
        pairs(root, "near-duplicate"),
        BTreeSet::from([("metrics/frequent_users".into(), "metrics/frequently_active_users".into())]),
    );
}
