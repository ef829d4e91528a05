//! `folio lint --ignore/--unignore` and how ignored findings show up: left out of the findings,
//! counted in the summary, listed with `--show-ignored`, in JSON as `suppressed` with the
//! reason, in SARIF with a suppression; an ignore whose entity is gone is a `stale-ignore`.

use crate::support;
use serde_json::Value;
use support::{fixture, folio, folio_json, scratch, stdout};

fn orphans(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "orphan")
        .map(|f| f["entity"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn ignore_list_and_unignore_from_the_cli() {
    let (_dir, root) = scratch(&fixture("lint-okf"));
    let store = root.to_str().unwrap();
    let before = folio_json(&["lint", "--format", "json", store]);
    assert!(orphans(&before, "findings").contains(&"orphan".to_string()), "the fixture has an orphan");
    assert_eq!(before["summary"]["ignored"], 0);

    let o = folio(&[
        "lint",
        store,
        "--ignore",
        "orphan",
        "--entity",
        "orphan",
        "--reason",
        "entry point",
        "--as",
        "human:ann",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ignored orphan on orphan (.folio/config.toml"));
    let config = std::fs::read_to_string(root.join(".folio/config.toml")).unwrap();
    assert!(
        config.contains("[[ignore]]") && config.contains("reason = \"entry point\"") && config.contains("human:ann")
    );
    assert!(
        std::fs::read_to_string(root.join("log.md")).unwrap().contains("Ignore"),
        "the write is in the store's log"
    );

    let after = folio_json(&["lint", "--format", "json", store]);
    assert!(!orphans(&after, "findings").contains(&"orphan".to_string()));
    assert_eq!(orphans(&after, "suppressed"), ["orphan"]);
    let s = after["suppressed"].as_array().unwrap().iter().find(|f| f["rule"] == "orphan").unwrap();
    assert_eq!(s["reason"], "entry point");
    assert_eq!(after["summary"]["ignored"], 1);
    assert_eq!(after["summary"]["total"].as_u64().unwrap() + 1, before["summary"]["total"].as_u64().unwrap());

    let text = stdout(&folio(&["lint", store]));
    assert!(text.contains("; 1 ignored (--show-ignored lists them)"), "{text}");
    assert!(!text.contains("orphan.md:1:1: info orphan"), "{text}");
    let listed = stdout(&folio(&["lint", store, "--show-ignored"]));
    assert!(
        listed.contains(
            "1 ignored:\norphan.md:1:1: info orphan: no other entity links to this one (ignored: entry point)"
        ),
        "{listed}"
    );

    let sarif = folio_json(&["lint", "--format", "sarif", store]);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let suppressed: Vec<&Value> = results.iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(suppressed[0]["ruleId"], "orphan");
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "external");
    assert_eq!(suppressed[0]["suppressions"][0]["justification"], "entry point");

    // Twice is refused; an unknown entity or rule is a clear error.
    let again = folio(&["lint", store, "--ignore", "orphan", "--entity", "orphan", "--reason", "x"]);
    assert_ne!(again.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already ignored"));
    let missing = folio(&["lint", store, "--ignore", "orphan", "--entity", "nope", "--reason", "x"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no entity `nope`"));
    let unknown = folio(&["lint", store, "--ignore", "orphans", "--entity", "orphan", "--reason", "x"]);
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown lint rule `orphans`"));

    // The entity goes: the ignore is reported as stale, on its line of the config.
    std::fs::remove_file(root.join("orphan.md")).unwrap();
    let stale = folio_json(&["lint", "--format", "json", store]);
    let f = stale["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "stale-ignore").expect("stale-ignore");
    assert_eq!(f["path"], ".folio/config.toml");
    assert!(f["line"].as_u64().unwrap() >= 1);
    assert!(f["message"].as_str().unwrap().contains("`orphan`"));

    let o = folio(&["lint", store, "--unignore", "orphan", "--entity", "orphan"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let clean = folio_json(&["lint", "--format", "json", store]);
    assert!(clean["findings"].as_array().unwrap().iter().all(|f| f["rule"] != "stale-ignore"));
    assert!(!std::fs::read_to_string(root.join(".folio/config.toml")).unwrap().contains("[[ignore]]"));
}
