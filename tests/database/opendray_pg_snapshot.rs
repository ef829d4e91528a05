//! The database's snapshot read in parts (`opendray_pg::snapshot`): an index checked without
//! the texts, each text read by its offset and checked by its own checksum, decisions and
//! refreshes appended to it. Each test spoils bytes that a read would find, so what a command
//! did not read shows in what it does not say.
use crate::support::opendray_seed as seed;
use crate::support::pg::{folio_db, folio_ok};

use std::path::{Path, PathBuf};

use serde_json::Value;

fn json_env(state: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    let o = folio_db(state, args, env);
    assert!(o.status.success() || o.status.code() == Some(1), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn json(state: &Path, args: &[&str]) -> Value {
    json_env(state, args, &[])
}

fn texts(root: &Path) -> PathBuf {
    root.join(".folio/snapshot.texts")
}

fn index(root: &Path) -> PathBuf {
    root.join(".folio/snapshot.bin")
}

/// Flip a bit in every 40th byte of the texts between `from` and `to`: any text there that a
/// command reads no longer matches its checksum.
fn spoil(root: &Path, from: usize, to: usize) {
    let mut b = std::fs::read(texts(root)).unwrap();
    for at in (from..to).step_by(40) {
        b[at] ^= 0x01;
    }
    std::fs::write(texts(root), b).unwrap();
}

/// Flip a bit in each text before `to` but those of `spared` (the nodes a command reads
/// whatever the snapshot: lint compares the two near-duplicate services' bodies).
fn spoil_but(root: &Path, to: usize, spared: &[&str]) {
    let mut b = std::fs::read(texts(root)).unwrap();
    let starts: Vec<usize> = (16..to).filter(|&at| b[at..].starts_with(b"---\nid: ")).collect();
    let mut spoiled = 0;
    for at in starts {
        let id_line = &b[at + 8..];
        let id = &id_line[..id_line.iter().position(|&c| c == b'\n').unwrap()];
        if !spared.iter().any(|s| s.as_bytes() == id) {
            b[at + 1] ^= 0x01;
            spoiled += 1;
        }
    }
    assert!(spoiled >= 1000, "{spoiled} texts spoiled");
    std::fs::write(texts(root), b).unwrap();
}

fn warnings(stats: &Value) -> String {
    stats["warnings"].to_string()
}

/// approve, merge and undo take their nodes into the snapshot: their texts appended, the
/// others left where they were, the tables' sums moved by the decision's own writes. A
/// reopen with no change in the database (through the store cache: a brain of more than a
/// thousand nodes) then reads the index's header and the decision's texts alone — every other
/// node's text is spoiled and never read (no rebuild is said) — and shows the decision; the
/// index is not written again.
#[test]
fn decisions_reach_the_snapshot_and_a_reopen_reads_no_other_text() {
    let Some(pg) = crate::support::pg::Pg::start() else { return };
    let mut c = pg.opendray_db("brain");
    let url = pg.conninfo("brain");
    folio_gen::fill_database(folio::store::dialect::by_name("opendray-pg").unwrap(), 1200, 1, &url).unwrap();
    let pair: Vec<String> = c
        .query(
            "SELECT id FROM knowledge_nodes WHERE kind = 'entity' AND archived_at IS NULL AND entity_type = \
             (SELECT entity_type FROM knowledge_nodes WHERE kind = 'entity' AND archived_at IS NULL \
              GROUP BY 1 HAVING count(*) > 1 ORDER BY 1 LIMIT 1) ORDER BY id LIMIT 2",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let (dup, keep) = (pair[0].as_str(), pair[1].as_str());
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    let live = stats["entities"].as_i64().unwrap();
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    let first = std::fs::read(texts(&root)).unwrap();
    let steps: [(Vec<&str>, &str, i64, &str); 3] = [
        (vec!["review", &url, "approve", dup, "--as", "human:ann"], dup, live, "human:ann"),
        (vec!["review", &url, "merge", dup, keep, "--as", "human:bo"], keep, live - 1, "merged_from"),
        (vec!["undo", &url, "--as", "human:bo"], dup, live, "human:ann"),
    ];
    for (args, id, entities, shows) in steps {
        let before = std::fs::read(texts(&root)).unwrap();
        folio_ok(s, &args);
        let after = std::fs::read(texts(&root)).unwrap();
        assert!(after.len() > before.len() && after.starts_with(&before), "{args:?}: the texts were rewritten");
        // Every text written before the decision spoiled: a command that read one would say
        // the snapshot was rebuilt.
        spoil_but(&root, before.len(), &[]);
        let index_before = std::fs::read(index(&root)).unwrap();
        let stats = json(s, &["stats", &url, "--json"]);
        assert_eq!(stats["entities"], entities, "{args:?}: {stats:#}");
        assert_eq!(warnings(&stats), "[]", "{args:?}: a spoiled text was read");
        assert_eq!(std::fs::read(index(&root)).unwrap(), index_before, "{args:?}: the index was written again");
        let shown = json(s, &["show", &url, id, "--json"]);
        assert!(shown.to_string().contains(shows), "{args:?}: {shown:#}");
        assert_eq!(std::fs::read(index(&root)).unwrap(), index_before, "{args:?}: the index was written again");
        // Put back for the next decision.
        let mut whole = std::fs::read(texts(&root)).unwrap();
        whole[..before.len()].copy_from_slice(&before);
        std::fs::write(texts(&root), whole).unwrap();
    }
    assert!(std::fs::read(texts(&root)).unwrap().starts_with(&first));
}

/// A node's text that does not match its own checksum is found when it is read — here by a
/// load without the store cache — and the snapshot is rebuilt from the database, said once.
#[test]
fn a_text_that_does_not_match_its_checksum_is_rebuilt_with_a_warning() {
    let Some((_pg, _c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    let len = std::fs::metadata(texts(&root)).unwrap().len() as usize;
    spoil(&root, 100, 101);
    let no_cache = [("FOLIO_NO_CACHE", "1")];
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!(stats["entities"], 7, "{stats:#}");
    let said = warnings(&stats);
    assert!(said.contains("snapshot.bin") && said.contains("checksum") && said.contains("rebuilt"), "{said}");
    assert_eq!(json_env(s, &["show", &url, "svc-pg", "--json"], &no_cache)["title"], "PostgreSQL dev");
    assert_eq!(warnings(&json_env(s, &["stats", &url, "--json"], &no_cache)), "[]");
    assert_eq!(std::fs::metadata(texts(&root)).unwrap().len() as usize, len, "rebuilt whole, nothing appended");
}

/// The brain at `url` opened once, then a bit of its index's last entry flipped (its header
/// intact); the database folder and the damaged bytes.
fn opened_with_a_damaged_index(s: &Path, url: &str) -> (PathBuf, Vec<u8>) {
    let stats = json(s, &["stats", url, "--json"]);
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    let mut b = std::fs::read(index(&root)).unwrap();
    let last = b.len() - 3;
    b[last] ^= 0x10;
    std::fs::write(index(&root), &b).unwrap();
    (root, b)
}

/// An index that does not check (its header intact, the database unchanged: an unchanged open
/// trusts the header alone) is found by the first read of the index, and rebuilt.
#[test]
fn a_damaged_index_is_rebuilt_with_a_warning() {
    let Some((_pg, _c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let (root, b) = opened_with_a_damaged_index(s, &url);
    let stats = json_env(s, &["stats", &url, "--json"], &[("FOLIO_NO_CACHE", "1")]);
    assert_eq!(stats["entities"], 7, "{stats:#}");
    assert!(warnings(&stats).contains("rebuilt from the database"), "{stats:#}");
    assert_ne!(std::fs::read(index(&root)).unwrap(), b);
}

/// A torn append (a process stopped while adding texts, before its new index) is bytes no
/// index names: nothing is said, every node reads, and the next append goes after them.
#[test]
fn a_torn_append_is_never_read() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new().append(true).open(texts(&root)).unwrap();
    f.write_all(b"---\nid: svc-pg\ntitle: torn half of a rend").unwrap();
    drop(f);
    let no_cache = [("FOLIO_NO_CACHE", "1")];
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!((stats["entities"].clone(), warnings(&stats)), (Value::from(7), "[]".to_string()));
    assert_eq!(json_env(s, &["show", &url, "svc-pg", "--json"], &no_cache)["title"], "PostgreSQL dev");
    c.batch_execute("UPDATE knowledge_nodes SET title = 'Host A2' WHERE id = 'host-a'").unwrap();
    assert_eq!(json(s, &["show", &url, "host-a", "--json"])["title"], "Host A2");
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!((stats["entities"].clone(), warnings(&stats)), (Value::from(7), "[]".to_string()));
    assert_eq!(json_env(s, &["show", &url, "host-a", "--json"], &no_cache)["title"], "Host A2");
}

/// Rows written since the snapshot are found by their `xmin` alone (`opendray_pg::since`):
/// the changes go to the index's tail — the index before it is not rewritten — and what
/// the database deleted, or a hidden row shown again, sends the open back to comparing
/// every node, so nothing is missed.
#[test]
fn a_few_changed_rows_are_appended_to_the_index_tail() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    let before = std::fs::read(index(&root)).unwrap();
    c.batch_execute("UPDATE knowledge_nodes SET title = 'Host A2' WHERE id = 'host-a'").unwrap();
    assert_eq!(json(s, &["show", &url, "host-a", "--json"])["title"], "Host A2");
    let after = std::fs::read(index(&root)).unwrap();
    // The header is written in place; the index after it is as it was, the change after it.
    let at = 200.min(before.len());
    assert!(after.len() > before.len() && after[at..before.len()] == before[at..], "the index was rewritten");
    // A new node, a node archived (hidden from this view) and one deleted, each seen.
    c.batch_execute(
        "INSERT INTO knowledge_nodes (id, kind, title, body, maturity, provenance) VALUES \
           ('fa-new', 'fact', 'A new fact', 'New.', 'candidate', '{}');
         UPDATE knowledge_nodes SET archived_at = now() WHERE id = 'tool-y';",
    )
    .unwrap();
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!(stats["entities"], 7, "{stats:#}");
    assert_eq!(json(s, &["show", &url, "fa-new", "--json"])["title"], "A new fact");
    c.batch_execute(
        "DELETE FROM knowledge_fact_sources WHERE node_id = 'fa-new'; DELETE FROM knowledge_nodes WHERE id = 'fa-new'",
    )
    .unwrap();
    let no_cache = [("FOLIO_NO_CACHE", "1")];
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!((stats["entities"].clone(), warnings(&stats)), (Value::from(6), "[]".to_string()), "{stats:#}");
    // Shown again: the row was hidden, so the snapshot never held it.
    c.batch_execute("UPDATE knowledge_nodes SET archived_at = NULL WHERE id = 'tool-y'").unwrap();
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!((stats["entities"].clone(), warnings(&stats)), (Value::from(7), "[]".to_string()), "{stats:#}");
    assert_eq!(json(s, &["show", &url, "tool-y", "--json"])["title"], "psql");
}

/// The index's tail of changes is checked by its own checksum: a damaged one is never
/// trusted, and the snapshot is rebuilt with the `database-snapshot` warning; bytes past it
/// (an append stopped before its header was written) are nobody's and never read.
#[test]
fn a_damaged_tail_is_rebuilt_with_a_warning_and_a_torn_one_is_never_read() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    let no_cache = [("FOLIO_NO_CACHE", "1")];
    // Torn: bytes past the tail are never read, and the next append goes over them.
    c.batch_execute("UPDATE knowledge_nodes SET title = 'Host A2' WHERE id = 'host-a'").unwrap();
    folio_ok(s, &["stats", &url]);
    let mut f = std::fs::OpenOptions::new().append(true).open(index(&root)).unwrap();
    use std::io::Write as _;
    f.write_all(b"\x01half of an entry").unwrap();
    drop(f);
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!((stats["entities"].clone(), warnings(&stats)), (Value::from(7), "[]".to_string()));
    c.batch_execute("UPDATE knowledge_nodes SET title = 'Host A3' WHERE id = 'host-a'").unwrap();
    assert_eq!(json_env(s, &["show", &url, "host-a", "--json"], &no_cache)["title"], "Host A3");
    assert_eq!(warnings(&json_env(s, &["stats", &url, "--json"], &no_cache)), "[]");
    // Damaged: a flipped bit in the tail's last change.
    let mut b = std::fs::read(index(&root)).unwrap();
    let last = b.len() - 2;
    b[last] ^= 0x10;
    std::fs::write(index(&root), &b).unwrap();
    let stats = json_env(s, &["stats", &url, "--json"], &no_cache);
    assert_eq!(stats["entities"], 7, "{stats:#}");
    let said = warnings(&stats);
    assert!(said.contains("database-snapshot") && said.contains("tail") && said.contains("rebuilt"), "{said}");
    assert_eq!(json_env(s, &["show", &url, "host-a", "--json"], &no_cache)["title"], "Host A3");
    assert_eq!(warnings(&json_env(s, &["stats", &url, "--json"], &no_cache)), "[]");
}

/// A decision whose node's text no longer matches its checksum reads the node from the
/// database again (the snapshot rebuilt) and is taken, instead of stopping at the damage. The
/// brain is large enough for the store cache, so the decision reads its node's text alone, by
/// its offset, as after any cached open.
#[test]
fn a_decision_on_a_damaged_text_reads_the_database_again() {
    let Some(pg) = crate::support::pg::Pg::start() else { return };
    let mut c = pg.opendray_db("brain");
    let url = pg.conninfo("brain");
    folio_gen::fill_database(folio::store::dialect::by_name("opendray-pg").unwrap(), 1200, 1, &url).unwrap();
    let id: String = c
        .query_one("SELECT id FROM knowledge_nodes WHERE archived_at IS NULL ORDER BY id LIMIT 1 OFFSET 7", &[])
        .unwrap()
        .get(0);
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let stats = json(s, &["stats", &url, "--json"]);
    let root = PathBuf::from(stats["root"].as_str().unwrap());
    let live = stats["entities"].as_i64();
    let mut b = std::fs::read(texts(&root)).unwrap();
    let head = format!("---\nid: {id}\n").into_bytes();
    let at = b.windows(head.len()).rposition(|w| w == head.as_slice()).unwrap();
    b[at + head.len() + 2] ^= 0x01;
    std::fs::write(texts(&root), b).unwrap();
    let o = folio_db(s, &["review", &url, "approve", &id, "--as", "human:ann"], &[]);
    assert!(o.status.success(), "{}", crate::support::pg::said(&o));
    assert_eq!(seed::row(&mut c, &id)["provenance"]["approved"]["by"], "human:ann");
    let stats = json(s, &["stats", &url, "--json"]);
    assert_eq!((stats["entities"].as_i64(), warnings(&stats)), (live, "[]".to_string()), "rebuilt by the decision");
}

/// A decision whose open finds the index damaged and rebuilds it says so (a write command
/// lists no store warnings, and the next open finds the snapshot intact and has nothing to
/// say), and is taken: one by path reads the index to find its node. One by id reads its rows
/// alone and is taken without a word; the next open finds the index damaged and says so.
#[test]
fn a_decision_on_a_damaged_index_says_it_was_rebuilt() {
    let Some((_pg, mut c, url)) = seed::brain() else { return };
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let rebuilt = |err: &str| err.contains("warning: database-snapshot:") && err.contains("rebuilt from the database");
    opened_with_a_damaged_index(s, &url);
    let by_path = ["review", &url, "approve", "entities/service/svc-pg.md", "--as", "human:ann"];
    let o = folio_db(s, &by_path, &[("FOLIO_NO_CACHE", "1")]);
    let said = crate::support::pg::said(&o);
    assert!(o.status.success() && rebuilt(&String::from_utf8_lossy(&o.stderr)), "{said}");
    assert_eq!(seed::row(&mut c, "svc-pg")["provenance"]["approved"]["by"], "human:ann");

    opened_with_a_damaged_index(s, &url);
    let o = folio_db(s, &["review", &url, "approve", "pb-deploy", "--as", "human:ann"], &[("FOLIO_NO_CACHE", "1")]);
    let said = crate::support::pg::said(&o);
    assert!(o.status.success() && !rebuilt(&String::from_utf8_lossy(&o.stderr)), "{said}");
    assert_eq!(seed::row(&mut c, "pb-deploy")["provenance"]["approved"]["by"], "human:ann");
    let stats = json_env(s, &["stats", &url, "--json"], &[("FOLIO_NO_CACHE", "1")]);
    assert!(warnings(&stats).contains("rebuilt from the database"), "{stats:#}");
    let list = folio_ok(s, &["review", &url, "list"]);
    assert!(!list.contains("svc-pg ") && !list.contains("pb-deploy"), "both out of the inbox:\n{list}");
}
