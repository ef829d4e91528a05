//! What the mirror folder last took from the database: the three tables' sums
//! (`rows::tables`) and per node the version it read (`rows::Version`) and the file it
//! wrote. Binary and compact — a warm open reads it for every node of a 100k-node brain —
//! and rewritten only when a sync changed something. A torn or foreign file reads as empty:
//! every node is then compared by its file again.
use std::collections::HashMap;
use std::io;
use std::path::Path;

use super::rows::{TableSum, Tables, Version};

/// The versions say whether a row changed, not whether folio renders it differently: bump
/// the digit when `rows::Node::render` changes what it writes, so every node is rendered again.
const MAGIC: &[u8; 8] = b"FOLIOMR2";

/// A node's version and its file in the mirror, by node id.
pub type Nodes = HashMap<String, (Version, String), foldhash::fast::RandomState>;

/// What a sync took: the tables as they read then (None: not known, compare every node), and
/// each visible node.
#[derive(Debug, Default, PartialEq)]
pub struct Taken {
    pub tables: Option<Tables>,
    pub nodes: Nodes,
}

pub fn read(path: &Path) -> Taken {
    std::fs::read(path).ok().and_then(|b| decode(&b)).unwrap_or_default()
}

/// Written atomically: a reader sees the old manifest or the new one.
pub fn write(path: &Path, taken: &Taken) -> io::Result<()> {
    crate::store::read::fsio::write_atomic(path, &encode(taken))
}

fn encode(taken: &Taken) -> Vec<u8> {
    let mut out = Vec::with_capacity(72 + taken.nodes.len() * 80);
    out.extend_from_slice(MAGIC);
    let t = taken.tables.unwrap_or_default();
    out.push(u8::from(taken.tables.is_some()));
    for s in [t.nodes, t.edges, t.sources] {
        out.extend_from_slice(&s.rows.to_le_bytes());
        out.extend_from_slice(&s.xor.to_le_bytes());
    }
    out.extend_from_slice(&(taken.nodes.len() as u64).to_le_bytes());
    for (id, (v, rel)) in &taken.nodes {
        for n in [v.xmin, v.edges, v.sources] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for s in [id, rel] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    out
}

fn decode(b: &[u8]) -> Option<Taken> {
    let mut r = Reader(b.strip_prefix(MAGIC)?);
    let known = match r.take(1)? {
        [0] => false,
        [1] => true,
        _ => return None,
    };
    let mut sum = || Some(TableSum { rows: r.i64()?, xor: r.i64()? });
    let tables = Tables { nodes: sum()?, edges: sum()?, sources: sum()? };
    let n = r.u64()? as usize;
    // The count is checked against the bytes actually there before anything is reserved.
    let mut nodes = Nodes::with_capacity_and_hasher(n.min(b.len() / 32), Default::default());
    for _ in 0..n {
        let version = Version { xmin: r.u64()?, edges: r.u64()?, sources: r.u64()? };
        let id = r.string()?;
        let rel = r.string()?;
        nodes.insert(id, (version, rel));
    }
    r.0.is_empty().then_some(Taken { tables: known.then_some(tables), nodes })
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        self.u64().map(|n| n as i64)
    }

    fn string(&mut self) -> Option<String> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_and_a_damaged_one_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m");
        let mut t = Taken::default();
        let v = |xmin| Version { xmin, edges: 3, sources: u64::MAX };
        t.nodes.insert("svc-pg".into(), (v(7), "entities/service/svc-pg.md".into()));
        t.nodes.insert("ünïcode".into(), (v(u64::MAX), "facts/_n_code-0123456789.md".into()));
        write(&p, &t).unwrap();
        assert_eq!(read(&p), t);
        let sum = |rows, xor| TableSum { rows, xor };
        t.tables = Some(Tables { nodes: sum(2, -5), edges: sum(0, 0), sources: sum(1, i64::MIN) });
        write(&p, &t).unwrap();
        assert_eq!(read(&p), t);
        let bytes = std::fs::read(&p).unwrap();
        for cut in [0, 7, 8, 20, bytes.len() - 1] {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            assert!(read(&p) == Taken::default(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        std::fs::write(&p, &extra).unwrap();
        assert!(read(&p) == Taken::default(), "trailing bytes");
        std::fs::write(&p, b"{\"svc-pg\": [\"x\", \"y\"]}").unwrap();
        assert!(read(&p) == Taken::default(), "the old JSON manifest");
        let mut v1 = b"FOLIOMR1".to_vec();
        v1.extend_from_slice(&1u64.to_le_bytes());
        v1.extend_from_slice(&7u64.to_le_bytes());
        for s in ["svc-pg", "entities/service/svc-pg.md"] {
            v1.extend_from_slice(&(s.len() as u32).to_le_bytes());
            v1.extend_from_slice(s.as_bytes());
        }
        std::fs::write(&p, &v1).unwrap();
        assert!(read(&p) == Taken::default(), "the first binary manifest (one version per node)");
    }
}
