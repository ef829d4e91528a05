//! A decision's part of the database: the nodes it is about, their rows read from the
//! database by id and rendered as an open renders them, instead of the cached store of every
//! node, and without the open's check of the whole tables. Decoding that store (100k
//! entities, ≈ 0.2 s of CPU) and the tables' sums (a scan of every row on the server) were
//! most of a verdict's time (docs/benchmarks.md, "Round: issue 43 (eighth session: a verdict
//! and the list without the whole store)"). The write then locks and compares each node's row
//! as for any decision (`storage`), and the snapshot takes the nodes it wrote (`snapshot::append`);
//! a change an agent made meanwhile elsewhere is found by the next open, whose sums then differ.
//!
//! A part holds what a decision about its nodes reads: their own fields, texts, links and
//! edges, and for a decision that takes them away (a veto, a forget: `inbound`), every node
//! that may link into them and every node claiming one of their names (`inbound`), so that
//! the links it leaves broken are the ones the whole store finds. All of it is read in one
//! transaction, as of one moment. A merge's repointing, and a decision whose folder this
//! spelling has not led to yet, open the whole store (`Store::open_part`'s callers choose).
use std::path::Path;

use super::conn::Locator;
use super::{OpendrayPg, inbound, mirror, rows, schema, snapshot};
use crate::store::dialect::format::Part;
use crate::store::dialect::{Dialect, MemoryFiles};

/// The format opened on the nodes `names` names (ids, or paths the snapshot knows) in the
/// database `locator` names, whose folder is `root`: their rows as the database has them now,
/// those the view shows; with `inbound`, and the nodes that may link into them
/// (`inbound::referrers`). None when `root` is not that database's folder (yet), or the nodes
/// linking in cannot be told so: the whole store is opened instead. An error is the
/// database's (unreachable, refused), one line.
pub fn open(
    locator: &str,
    archived: bool,
    root: &Path,
    names: &[String],
    inbound: bool,
) -> Option<Result<Part, String>> {
    let marker = mirror::Marker::read(root)?;
    if names.is_empty() || marker.archived != archived {
        return None;
    }
    let at = Locator::parse(locator).ok()?;
    let files = (|| {
        let mut c = at.connect()?;
        schema::check(&mut c, &at)?;
        if mirror::dir_for(&at.identity(&mut c)?, archived)? != root {
            return Ok(None);
        }
        let ids = ids_of(root, names);
        let mut tx = c
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(|e| at.explain(&e))?;
        let read = read(&mut tx, root, &ids, archived, inbound).map_err(|e| at.explain(&e))?;
        tx.commit().map_err(|e| at.explain(&e))?;
        // The decision's write follows at once, on this connection.
        at.park(c);
        Ok(read)
    })();
    match files {
        Ok(Some(files)) => {
            let reason = format!("{} (PostgreSQL)", at.redacted);
            Some(Ok((Box::new(OpendrayPg::open_on(root, files)) as Box<dyn Dialect>, reason)))
        }
        Ok(None) => None,
        Err(why) => Some(Err(why)),
    }
}

/// The renderings of the nodes `ids` names (and with `inbound`, of those that may link into
/// them) that the view shows, by path; None when the nodes linking in cannot be told.
fn read(
    tx: &mut postgres::Transaction<'_>,
    root: &Path,
    ids: &[String],
    archived: bool,
    inbound: bool,
) -> Result<Option<MemoryFiles>, postgres::Error> {
    let shown = |n: &rows::Node| archived || n.archived_at.is_none();
    let mut nodes: Vec<rows::Node> = rows::by_ids(tx, ids)?.into_iter().filter(shown).collect();
    if inbound {
        let Some(names) = inbound::names(&nodes) else { return Ok(None) };
        let Some(mut more) = inbound::referrers(tx, root, &names, archived)? else { return Ok(None) };
        more.retain(|id| !ids.contains(id));
        nodes.extend(rows::by_ids(tx, &more)?.into_iter().filter(shown));
    }
    let files: MemoryFiles = nodes.iter().map(|n| (n.path(), n.render())).collect();
    if inbound && files.iter().any(|(_, text)| inbound::has_path_wikilink(text)) {
        return Ok(None);
    }
    Ok(Some(files))
}

/// The node ids `names` gives: each name as an id, and the id of the node the snapshot has at
/// each name that is a path (an undo names the files it restores).
fn ids_of(root: &Path, names: &[String]) -> Vec<String> {
    let mut ids = names.to_vec();
    let paths: Vec<String> = names.iter().filter(|n| n.contains('/')).cloned().collect();
    if !paths.is_empty() {
        ids.extend(snapshot::ids_at(root, &paths));
    }
    ids.sort();
    ids.dedup();
    ids
}
