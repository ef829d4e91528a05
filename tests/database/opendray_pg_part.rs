//! A decision on a database reads its nodes alone (`opendray_pg::part`), not the cached store
//! of every node; and `review list` through the store cache says what a list without it says.
//! Each test spoils what the command should not read: a store cache that is read says so.
use crate::support::PINNED_NOW;
use crate::support::opendray_seed as seed;
use crate::support::pg::{Pg, folio_db, said};

use std::path::Path;

/// Flip a byte in the middle of every file of the store cache under `state`: an open that
/// decodes it warns (`folio: cache: …`) and reads the snapshot instead.
pub(crate) fn spoil_cache(state: &Path) -> usize {
    let mut spoiled = 0;
    for f in crate::support::pg::files_under(&state.join("cache")) {
        if f.extension().is_some_and(|e| e == "folio-cache") {
            let mut b = std::fs::read(&f).unwrap();
            let mid = b.len() / 2;
            b[mid] ^= 0x55;
            std::fs::write(&f, b).unwrap();
            spoiled += 1;
        }
    }
    spoiled
}

/// A brain of 1,200 nodes (large enough for the store cache), opened once; its live ids.
pub(crate) fn cached_brain(state: &Path) -> Option<(Pg, postgres::Client, String, Vec<String>)> {
    let pg = Pg::start()?;
    let mut c = pg.opendray_db("brain");
    let url = pg.conninfo("brain");
    folio_gen::fill_database(folio::store::dialect::by_name("opendray-pg").unwrap(), 1200, 1, &url).unwrap();
    let ids = c
        .query("SELECT id FROM knowledge_nodes WHERE archived_at IS NULL ORDER BY id LIMIT 5", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    // On the clock every later command reads: the store cache keeps age-based findings.
    let o = folio_db(state, &["stats", &url], &[("FOLIO_NOW", PINNED_NOW)]);
    assert!(o.status.success(), "{}", said(&o));
    Some((pg, c, url, ids))
}

/// approve and undo by id read the node from the snapshot and never decode the cached store
/// (spoiled here: a read of it would say so); the preview of an approval so is the one the
/// whole store gives (named by its path, which only the whole store finds), and the rows are
/// written and restored as by any decision.
#[test]
fn an_approval_and_its_undo_read_their_node_alone() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, mut c, url, ids)) = cached_brain(s) else { return };
    let id = ids[2].as_str();
    let shown = folio_db(s, &["show", &url, id, "--json"], &[]);
    let path =
        serde_json::from_slice::<serde_json::Value>(&shown.stdout).unwrap()["path"].as_str().unwrap().to_string();
    assert!(spoil_cache(s) >= 1, "no store cache was written");
    let pinned = [("FOLIO_NOW", PINNED_NOW)];
    let by_id = folio_db(s, &["review", &url, "approve", id, "--as", "human:ann", "--dry-run"], &pinned);
    let whole = folio_db(s, &["review", &url, "approve", &path, "--as", "human:ann", "--dry-run"], &pinned);
    assert!(by_id.status.success() && whole.status.success(), "{}{}", said(&by_id), said(&whole));
    assert!(
        String::from_utf8_lossy(&whole.stderr).contains("cache"),
        "the spoiled cache went unnoticed: {}",
        said(&whole)
    );
    assert_eq!(String::from_utf8_lossy(&by_id.stdout), String::from_utf8_lossy(&whole.stdout));
    // The whole open above wrote the cache again: spoiled again for the decision itself.
    assert!(spoil_cache(s) >= 1);
    let before = seed::row(&mut c, id);
    let o = folio_db(s, &["review", &url, "approve", id, "--as", "human:ann"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("cache"), "the cached store was read: {}", said(&o));
    assert_eq!(seed::row(&mut c, id)["provenance"]["approved"]["by"], "human:ann");
    let o = folio_db(s, &["undo", &url, "--as", "human:ann"], &[]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("cache"), "the cached store was read: {}", said(&o));
    // Undo gives the row back as it was, its `updated_at` too (its own history entry stays).
    let after = seed::row(&mut c, id);
    assert!(after["provenance"]["approved"].is_null(), "{after:#}");
    assert_eq!((&after["updated_at"], &after["body"]), (&before["updated_at"], &before["body"]));
    let log = folio_db(s, &["log", &url, "--json"], &[]);
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(log.contains("undid approve") && log.contains(id), "{log}");
}

/// A name the part does not hold by id (a title, a typo, an `--expect` for a node not decided
/// on) is looked up as before, in the whole store: the part is only ever a shortcut.
#[test]
fn a_verdict_on_a_name_the_part_does_not_find_opens_the_whole_store() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, _c, url, ids)) = cached_brain(s) else { return };
    let typo = format!("{}x", ids[0]);
    let o = folio_db(s, &["review", &url, "approve", &typo, "--as", "human:ann"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("no entity `{typo}`")), "{}", said(&o));
    // `--expect` naming a node not decided on: the whole store's refusal, not "no entity".
    let other = format!("{}=sha256:00", ids[1]);
    let o = folio_db(s, &["review", &url, "approve", &ids[0], "--expect", &other, "--as", "human:ann"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not among the entities decided"), "{}", said(&o));
}

/// After an agent changed a row, `review list` through the store cache (whose cached store lags
/// by that row and re-reads it) says what a list without any cache says, in text and JSON, and
/// again on the next run (the memos it wrote then read back).
#[test]
fn the_cached_list_agrees_with_the_uncached_one_after_a_changed_row() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, mut c, url, ids)) = cached_brain(s) else { return };
    let list = |json: bool, env: &[(&str, &str)]| {
        let mut args = vec!["review", url.as_str(), "list"];
        if json {
            args.push("--json");
        }
        let mut env = env.to_vec();
        env.push(("FOLIO_NOW", PINNED_NOW));
        let o = folio_db(s, &args, &env);
        assert!(o.status.success(), "{}", said(&o));
        o.stdout
    };
    let _ = list(false, &[]);
    c.execute("UPDATE knowledge_nodes SET body = body || ' changed', maturity = 'candidate' WHERE id = $1", &[&ids[1]])
        .unwrap();
    let stats = folio_db(s, &["stats", &url], &[("FOLIO_NOW", PINNED_NOW)]);
    assert!(stats.status.success(), "{}", said(&stats));
    for json in [false, true] {
        let cached = list(json, &[]);
        let again = list(json, &[]);
        let uncached = list(json, &[("FOLIO_NO_CACHE", "1")]);
        assert!(String::from_utf8_lossy(&uncached).contains(ids[1].as_str()), "the changed row is listed");
        assert_eq!(String::from_utf8_lossy(&cached), String::from_utf8_lossy(&uncached), "json: {json}");
        assert_eq!(String::from_utf8_lossy(&again), String::from_utf8_lossy(&uncached), "json: {json}, again");
    }
}

/// The store cache's file under `state`, as found on disk (a rewrite is a new file renamed
/// over it, or new bytes).
fn cache_stamp(state: &Path) -> Vec<(std::path::PathBuf, u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt as _;
    crate::support::pg::files_under(&state.join("cache"))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "folio-cache"))
        .map(|f| {
            let m = std::fs::metadata(&f).unwrap();
            (f, m.ino(), m.modified().unwrap())
        })
        .collect()
}

/// A reviewer's session: an approval and its undo, a look at the store, another two
/// decisions... Every decision opens its part, none the whole store (which writes the store
/// cache again): an open keeps its cached store lagging only while the next 16 decisions may
/// still lag behind it. Before, an open let it lag as far as a decision may, and one decision
/// in every 32 opened the whole store (1–2.5 s at 100k nodes).
#[test]
fn decisions_between_opens_never_open_the_whole_store() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some((_pg, _c, url, ids)) = cached_brain(s) else { return };
    for round in 0..20 {
        folio_db(s, &["stats", &url], &[]);
        let before = cache_stamp(s);
        assert!(!before.is_empty(), "no store cache was written");
        let o = folio_db(s, &["review", &url, "approve", &ids[1], "--as", "human:ann"], &[]);
        assert!(o.status.success(), "{}", said(&o));
        let o = folio_db(s, &["undo", &url, "--as", "human:ann"], &[]);
        assert!(o.status.success(), "{}", said(&o));
        assert_eq!(
            cache_stamp(s),
            before,
            "round {round}: a decision opened the whole store (the cache was written again)"
        );
    }
}
