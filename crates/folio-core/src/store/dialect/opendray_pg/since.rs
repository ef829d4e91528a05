//! Which nodes changed since the snapshot, asked of the server without listing every node.
//!
//! Every row an UPDATE or INSERT writes gets the writing transaction's id as its `xmin`, and
//! no transaction that began after a snapshot was taken has an id below that snapshot's
//! oldest running one (`horizon`). So the rows whose `xmin` is at or after the horizon the
//! snapshot kept are all the rows written since (and some it already saw: its own
//! decisions'). A deleted row leaves nothing to find: the nodes table's count and XOR sum
//! (`rows::tables`) are worked out from the snapshot's and the changed rows, and when they
//! are not the ones the server sums — a row deleted, or one the view hid (archived) shown
//! again — the caller lists every node as before.
use std::path::Path;

use postgres::GenericClient;

use super::rows::{self, TableSum, Tables, Version};
use super::snapshot;

/// More changed rows than this and every node is listed instead (one query either way).
const FEW: i64 = 5_000;

/// How far back (in transactions) a horizon is trusted: `age()` compares 32-bit ids modulo
/// 2^32, so one from more than 2^31 transactions ago would read as new.
const OLDEST: u64 = 1 << 30;

/// The oldest transaction the current snapshot sees as running (64-bit, with its epoch):
/// kept with the snapshot read in the same transaction.
pub fn horizon(c: &mut impl GenericClient) -> Result<u64, postgres::Error> {
    let r = c.query_one("SELECT txid_snapshot_xmin(txid_current_snapshot())::int8", &[])?;
    Ok(r.get::<_, i64>(0) as u64)
}

/// Whether `horizon` (a snapshot's) can be compared with rows' `xmin`: known, not ahead of
/// the server's, and recent enough (`OLDEST`).
pub fn trusted(c: &mut impl GenericClient, horizon: u64) -> Result<bool, postgres::Error> {
    let now = self::horizon(c)?;
    Ok(horizon != 0 && horizon <= now && now - horizon <= OLDEST)
}

/// Rows whose `xmin` is at or after the horizon `$1` (an `int8`), in SQL (`rows`).
pub const WRITTEN_SINCE: &str = "age(xmin) <= age(($1::int8 % 4294967296)::text::xid)";

/// One node row written at or after the horizon.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    pub xmin: u64,
    /// Its term in the nodes' sum (`rows::tables`).
    pub term: i64,
    pub archived: bool,
}

/// The node rows written at or after `horizon`, when there are few (None: too many, or the
/// horizon too old to compare with).
pub fn rows(c: &mut impl GenericClient, horizon: u64) -> Result<Option<Vec<Row>>, postgres::Error> {
    if !trusted(c, horizon)? {
        return Ok(None);
    }
    let found = c.query(
        "SELECT id, xmin::text, hashtextextended(id || ' ' || xmin::text, 0), archived_at IS NOT NULL \
         FROM knowledge_nodes WHERE age(xmin) <= age(($1::int8 % 4294967296)::text::xid) LIMIT $2",
        &[&(horizon as i64), &(FEW + 1)],
    )?;
    if found.len() as i64 > FEW {
        return Ok(None);
    }
    Ok(Some(
        found
            .iter()
            .map(|r| Row {
                id: r.get(0),
                xmin: r.get::<_, &str>(1).parse().unwrap_or(u64::MAX),
                term: r.get(2),
                archived: r.get(3),
            })
            .collect(),
    ))
}

/// The XOR of the nodes' sum terms of these rows as they were (id, `xmin`).
pub fn terms(c: &mut impl GenericClient, was: &[(&str, u64)]) -> Result<i64, postgres::Error> {
    if was.is_empty() {
        return Ok(0);
    }
    let ids: Vec<&str> = was.iter().map(|(id, _)| *id).collect();
    let xmins: Vec<String> = was.iter().map(|(_, x)| x.to_string()).collect();
    let r = c.query_one(
        "SELECT coalesce(bit_xor(hashtextextended(i || ' ' || x, 0)), 0) FROM unnest($1::text[], $2::text[]) AS u(i, x)",
        &[&ids, &xmins],
    )?;
    Ok(r.get(0))
}

/// Bring the snapshot (header `h`, read by this open) up to the database by the node rows
/// written since its horizon alone — when the edges' and fact sources' sums did not move and
/// the nodes' sum accounts for every other row. The snapshot's new generation and the paths
/// whose renderings changed; None when that cannot be told so (the caller compares every
/// node's version).
pub fn refresh(
    tx: &mut postgres::Transaction<'_>,
    archived: bool,
    root: &Path,
    h: &snapshot::Header,
    tables: Tables,
    horizon: u64,
) -> Result<Option<(u64, Vec<String>)>, Failed> {
    let Some(was) = h.tables else { return Ok(None) };
    if was.edges != tables.edges || was.sources != tables.sources {
        return Ok(None);
    }
    let Some(written) = rows(tx, h.horizon)? else { return Ok(None) };
    let ids: Vec<&str> = written.iter().map(|r| r.id.as_str()).collect();
    let snapshot::Found::Intact((head, old)) = snapshot::entries_of(root, &ids) else { return Ok(None) };
    if head.generation != h.generation {
        return Ok(None);
    }
    // Rows the snapshot holds at another xmin: their old terms leave the sum, the new ones
    // enter it; rows it does not hold enter it and add to the count.
    let mut moved: Vec<(&str, u64)> = Vec::new();
    let mut sum = TableSum { rows: was.nodes.rows, xor: was.nodes.xor };
    for r in &written {
        match old.get(&r.id) {
            Some(e) if e.version.xmin == r.xmin => {}
            Some(e) => {
                moved.push((r.id.as_str(), e.version.xmin));
                sum.xor ^= r.term;
            }
            None => {
                sum.xor ^= r.term;
                sum.rows += 1;
            }
        }
    }
    sum.xor ^= terms(tx, &moved)?;
    if sum != tables.nodes {
        return Ok(None);
    }
    // What the view shows of each: gone, or fetched again (new, or its row written).
    let mut stale: Vec<String> = Vec::new();
    let mut fresh: Vec<String> = Vec::new();
    let mut changes: Vec<snapshot::Change> = Vec::new();
    for r in &written {
        let shown = archived || !r.archived;
        match old.get(&r.id) {
            Some(_) if !shown => changes.push(snapshot::Change::Remove(r.id.clone())),
            Some(e) if e.version.xmin != r.xmin => stale.push(r.id.clone()),
            None if shown => {
                stale.push(r.id.clone());
                fresh.push(r.id.clone());
            }
            _ => {}
        }
    }
    let (edges, sources) = match fresh.is_empty() {
        true => Default::default(),
        false => (rows::sets(tx, rows::Part::Edges, Some(&fresh))?, rows::sets(tx, rows::Part::Sources, Some(&fresh))?),
    };
    let fetched = rows::by_ids(tx, &stale)?;
    let xmin: std::collections::HashMap<&str, u64> = written.iter().map(|r| (r.id.as_str(), r.xmin)).collect();
    let texts = snapshot::Texts::open(root, &head).ok();
    let mut texts_now: Vec<(String, Option<String>)> = Vec::new();
    for n in fetched {
        let was = old.get(&n.id);
        let v = Version {
            xmin: xmin.get(n.id.as_str()).copied().unwrap_or(u64::MAX),
            edges: was.map_or_else(|| edges.get(&n.id).copied().unwrap_or(0), |e| e.version.edges),
            sources: was.map_or_else(|| sources.get(&n.id).copied().unwrap_or(0), |e| e.version.sources),
        };
        let (rel, text) = (n.path(), n.render());
        let same = was.is_some_and(|e| e.rel == rel && texts.as_ref().is_some_and(|t| t.text(e).is_ok_and(|t| t == text)));
        if same {
            changes.push(snapshot::Change::Version(n.id.clone(), v));
            continue;
        }
        if let Some(e) = was.filter(|e| e.rel != rel) {
            texts_now.push((e.rel.clone(), None));
        }
        texts_now.push((rel.clone(), Some(text.clone())));
        changes.push(snapshot::Change::Put(n.id.clone(), snapshot::Node { version: v, rel, text }));
    }
    for c in &changes {
        if let snapshot::Change::Remove(id) = c
            && let Some(e) = old.get(id)
        {
            texts_now.push((e.rel.clone(), None));
        }
    }
    let from = h.generation;
    let appended = snapshot::append(root, from, changes, snapshot::Sums::Are(tables, horizon))
        .map_err(|e| Failed::Io(format!("{}: {e}", root.display())))?;
    let Some((generation, changed)) = appended else { return Ok(None) };
    // What this process holds of the nodes follows, or is read again when asked for.
    if snapshot::holds(root, from) {
        snapshot::patch(root, texts_now);
        snapshot::renumber(root, generation);
    } else {
        snapshot::forget(root);
    }
    Ok(Some((generation, changed)))
}

/// Why `refresh` failed: the server's error, or the snapshot's files.
#[derive(Debug)]
pub enum Failed {
    Sql(postgres::Error),
    Io(String),
}

impl From<postgres::Error> for Failed {
    fn from(e: postgres::Error) -> Self {
        Failed::Sql(e)
    }
}
