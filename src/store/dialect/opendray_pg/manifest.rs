//! What the mirror folder last took from the database: per node, the version it read
//! (`rows::versions`) and the file it wrote. Binary and compact — a warm open reads it for
//! every node of a 100k-node brain — and rewritten only when a sync changed something.
//! A torn or foreign file reads as empty: every node is then compared by its file again.
use std::collections::HashMap;
use std::io;
use std::path::Path;

/// The versions say whether a row changed, not whether folio renders it differently: bump
/// the digit when `rows::Node::render` changes what it writes, so every node is rendered again.
const MAGIC: &[u8; 8] = b"FOLIOMR1";

/// A node's version and its file in the mirror, by node id.
pub type Taken = HashMap<String, (u64, String), foldhash::fast::RandomState>;

pub fn read(path: &Path) -> Taken {
    std::fs::read(path).ok().and_then(|b| decode(&b)).unwrap_or_default()
}

/// Written atomically: a reader sees the old manifest or the new one.
pub fn write(path: &Path, taken: &Taken) -> io::Result<()> {
    crate::store::read::fsio::write_atomic(path, &encode(taken))
}

fn encode(taken: &Taken) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + taken.len() * 64);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(taken.len() as u64).to_le_bytes());
    for (id, (version, rel)) in taken {
        out.extend_from_slice(&version.to_le_bytes());
        for s in [id, rel] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    out
}

fn decode(b: &[u8]) -> Option<Taken> {
    let mut r = Reader(b.strip_prefix(MAGIC)?);
    let n = u64::from_le_bytes(r.take(8)?.try_into().ok()?) as usize;
    // The count is checked against the bytes actually there before anything is reserved.
    let mut taken = Taken::with_capacity_and_hasher(n.min(b.len() / 16), Default::default());
    for _ in 0..n {
        let version = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let id = r.string()?;
        let rel = r.string()?;
        taken.insert(id, (version, rel));
    }
    r.0.is_empty().then_some(taken)
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
        t.insert("svc-pg".into(), (7, "entities/service/svc-pg.md".into()));
        t.insert("ünïcode".into(), (u64::MAX, "facts/_n_code-0123456789.md".into()));
        write(&p, &t).unwrap();
        assert_eq!(read(&p), t);
        let bytes = std::fs::read(&p).unwrap();
        for cut in [0, 7, 8, 20, bytes.len() - 1] {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            assert!(read(&p).is_empty(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        std::fs::write(&p, &extra).unwrap();
        assert!(read(&p).is_empty(), "trailing bytes");
        std::fs::write(&p, b"{\"svc-pg\": [\"x\", \"y\"]}").unwrap();
        assert!(read(&p).is_empty(), "the old JSON manifest");
    }
}
