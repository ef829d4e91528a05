//! `folio history`: an entity's past. (Only the store's log and folio's journal are read so far;
//! the git part of issue 20 is still to come.)
mod common;
use common::*;

use std::fs;

#[test]
fn history_lists_the_log_events_that_name_the_entity_and_only_those() {
    let (_d, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    // The corpus copy is read-only; the log and the entity must be writable to be written.
    for rel in ["log.md", "tables/orders.md", "tables"] {
        let p = root.join(rel);
        let mut perms = fs::metadata(&p).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        fs::set_permissions(&p, perms).unwrap();
    }
    let before = folio_json(&["history", r, "tables/orders", "--json"]);
    let n_before = before["versions"].as_array().unwrap().len();
    let o = folio(&["set", r, "tables/orders", "status", "draft", "--as", "human:ann"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let after = folio_json(&["history", r, "tables/orders", "--json"]);
    assert_eq!(after["id"], "tables/orders");
    let versions = after["versions"].as_array().unwrap();
    assert_eq!(versions.len(), n_before + 1, "{after}");
    // Newest first: the set just made leads.
    assert_eq!(versions[0]["kind"], "set");
    assert!(versions[0]["summary"].as_str().unwrap().contains("set `status` to `draft` (human:ann)"), "{after}");
    assert!(versions.iter().all(|v| v["path"] == "log.md"));
}
