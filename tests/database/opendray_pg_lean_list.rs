//! The review inbox of a database through the open without links (`cache::open_after` with
//! `Cache::for_inbox`): when the store cache was written at the generation the database is still
//! at, the inbox decodes no link and takes lint from its memo. Its listing must be the one a
//! store opened with no cache gives, after every kind of change, and it must not be taken for a
//! database that changed since the cache was written. In this process, as `review list` runs it
//! (src/cli/review.rs), so that the test sees which way the store was opened.
use std::path::Path;

use folio::store::keep::cache::{Cache, hashes};
use folio::store::review::filter::Filter;
use folio::store::{Reads, Store};

use crate::support::PINNED_NOW;
use crate::support::pg::{self, Pg, folio_db, said};

/// The inbox of `url` as `review list --json` builds it, through `cache` (or none): whether the
/// store came without links, and the items with the reasons' counts, as JSON.
fn inbox(url: &str, cache: Option<&Cache>) -> (bool, String) {
    let lean = cache.map(Cache::for_inbox);
    let (store, warnings) = Store::open_with(Path::new(url), None, lean.as_ref(), Reads::Entities).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let leaned = lean.as_ref().filter(|c| c.lean_digest().is_some());
    if leaned.is_some() {
        assert!(store.entities.iter().all(|e| e.links.is_empty()), "a store opened without links holds links");
    }
    let linted = match leaned {
        Some(lean) => match hashes::lint_lean(lean, store) {
            Some(linted) => linted,
            None => {
                let (whole, _) = Store::open_with(Path::new(url), None, cache, Reads::Entities).unwrap();
                hashes::lint_whole(cache, whole)
            }
        },
        None => hashes::lint_whole(cache, store),
    };
    let (listed, _spent) = hashes::list_linted(cache, linted, &Filter::parse("").unwrap(), |listing, warnings| {
        assert!(warnings.is_empty(), "{warnings:?}");
        let counts: Vec<String> = listing.counts().iter().map(|(r, n)| format!("{}={n}", r.code())).collect();
        format!("{counts:?}\n{}", serde_json::to_string_pretty(&listing.collect()).unwrap())
    });
    (leaned.is_some(), listed)
}

struct Brain {
    _pg: Pg,
    client: postgres::Client,
    url: String,
    cache: Cache,
}

impl Brain {
    /// The inbox through the cache, which must equal the one without; whether it was lean.
    fn listed(&self, when: &str) -> (bool, String) {
        let (lean, cached) = inbox(&self.url, Some(&self.cache));
        let (_, bare) = inbox(&self.url, None);
        assert!(cached == bare, "{when}: the inbox through the cache (lean: {lean}) differs from the one without it");
        (lean, cached)
    }

    /// The next inbox, which must open without links and equal one without a cache: the list
    /// before it (the first after a change, or the first of all) linted anew, left lint's memo
    /// for these rows and wrote the cache at them.
    fn listed_lean(&self, when: &str) -> String {
        let (lean, listed) = self.listed(when);
        assert!(lean, "{when}: the list after the one that followed a change did not open without links");
        listed
    }

    /// Changes one row, then checks that the next inbox is not opened without links (the
    /// cache is of the rows before) and that the one after it is.
    fn changed(&mut self, sql: &str, id: &str, when: &str) -> String {
        assert_eq!(self.client.execute(sql, &[&id]).unwrap(), 1, "{sql}");
        let (lean, _) = self.listed(when);
        assert!(!lean, "{when}: the inbox opened without links over a cache of the rows before");
        self.listed_lean(when)
    }
}

#[test]
fn the_inbox_without_links_lists_as_no_cache_and_is_never_taken_after_a_change() {
    pg::state_dir();
    let Some(pg) = Pg::start() else { return };
    let client = pg.opendray_db("brain");
    let url = pg.conninfo("brain");
    folio_gen::fill_database(folio::store::dialect::by_name("opendray-pg").unwrap(), 1200, 5, &url).unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let mut b = Brain { _pg: pg, client, url, cache: Cache::new(cache_dir.path()) };
    let ids: Vec<String> = b
        .client
        .query("SELECT id FROM knowledge_nodes WHERE archived_at IS NULL ORDER BY id LIMIT 3", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let (lean, first) = b.listed("the first open");
    assert!(!lean, "no cache yet");
    let unchanged = b.listed_lean("unchanged");
    assert_eq!(unchanged, first);
    assert!(unchanged.contains(&format!("\"{}\"", ids[0])), "{} is in the inbox", ids[0]);

    let changed = b.changed(
        "UPDATE knowledge_nodes SET body = body || ' Changed since.' WHERE id = $1",
        &ids[0],
        "a changed row",
    );
    assert_ne!(changed, unchanged, "the changed row's item names its new text");

    let added = b.changed(
        "INSERT INTO knowledge_nodes (id, kind, entity_type, title, body) \
         VALUES ($1, 'entity', 'tool', 'A node just added', 'Written by an agent a moment ago.')",
        "zz-added-node",
        "a new row",
    );
    assert!(added.contains("zz-added-node") && !changed.contains("zz-added-node"), "the new row is listed");

    let quoted = format!("\"{}\"", ids[1]);
    let archived = b.changed("UPDATE knowledge_nodes SET archived_at = now() WHERE id = $1", &ids[1], "a row archived");
    assert!(added.contains(&quoted) && !archived.contains(&quoted), "the archived row leaves the inbox");

    // A decision by another folio (its own state folder and cache): the row changes under
    // this one's cache.
    let other = tempfile::tempdir().unwrap();
    let o = folio_db(
        other.path(),
        &["review", &b.url, "approve", &ids[2], "--as", "human:ann"],
        &[("FOLIO_NOW", PINNED_NOW)],
    );
    assert!(o.status.success(), "{}", said(&o));
    let (lean, _) = b.listed("a decision by another folio");
    assert!(!lean, "a decision by another folio: the inbox opened without links over the rows before");
    let decided = b.listed_lean("a decision by another folio");
    assert_ne!(decided, archived, "the approved row's item changed");
}
