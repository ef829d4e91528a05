//! The snapshot a store was decoded from, kept while an open brings the store up to date, so
//! that the snapshot written after it takes the earlier bytes of every chunk whose entities
//! the open left as they were instead of encoding them again: after one changed file of a
//! 100k-entity store, encoding every chunk was most of the write (docs/benchmarks.md,
//! "Twenty-second session").
//!
//! "Left as they were" is told by the entities themselves, not by what the open says it did:
//! each decoded entity is held by a `Weak`, so its allocation is never reused while this is
//! kept, and any change to an entity (`Arc::make_mut`, a re-read entity put in its place)
//! gives the store another allocation at that place. A chunk is reused when every place in it
//! holds the very allocation decoded there.
use std::fs::File;
use std::sync::{Arc, Weak};

use rayon::prelude::*;

use super::CHUNK;
use crate::store::Store;
use crate::store::model::entity::Entity;

pub struct Earlier {
    file: File,
    /// Each entity chunk's section in `file`: (offset of its body, length, stored CRC).
    chunks: Vec<(u64, u64, u32)>,
    /// The decoded entities in their places, once `note` was called (empty: nothing reused).
    entities: Vec<Weak<Entity>>,
}

impl Earlier {
    pub fn new(file: File, chunks: Vec<(u64, u64, u32)>) -> Earlier {
        Earlier { file, chunks, entities: Vec::new() }
    }

    /// This snapshot, which `store` was just decoded from, with its entities noted for the
    /// write that follows re-reading `paths` (relative to the root) — when some files are to
    /// be re-read and each is an entity file the store holds, so that its entities may keep
    /// their places. A file added or gone has the store linked whole, which moves every
    /// entity (and, with each noted, would hold every decoded one until the write): then None.
    pub fn noted_for(mut self, store: &Store, paths: &[String]) -> Option<Earlier> {
        let held = |p: &str| {
            let at = store.entities.partition_point(|e| e.path.as_str() < p);
            store.entities.get(at).is_some_and(|e| e.path == p)
        };
        if paths.is_empty() || !paths.iter().all(|p| held(p)) {
            return None;
        }
        self.note(&store.entities);
        Some(self)
    }

    /// Remember `entities`, the store as decoded, before anything changes it (a weak count
    /// per entity, paid only before a re-read).
    fn note(&mut self, entities: &[Arc<Entity>]) {
        self.entities = entities.par_iter().map(Arc::downgrade).collect();
    }

    /// Chunk `k`'s section in the earlier file when `chunk`, the store's entities at its
    /// places now, are the ones decoded there.
    pub(super) fn chunk(&self, k: usize, chunk: &[Arc<Entity>]) -> Option<(u64, u64, u32)> {
        let section = *self.chunks.get(k)?;
        let was = self.entities.get(k * CHUNK..)?;
        let was = &was[..was.len().min(CHUNK)];
        let same =
            was.len() == chunk.len() && was.iter().zip(chunk).all(|(w, e)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(e)));
        same.then_some(section)
    }

    pub(super) fn file(&self) -> &File {
        &self.file
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CHUNK, CHUNKS_AT_ONCE, Header, decode, decode_file, encode};
    use super::*;

    fn header() -> Header {
        Header {
            format: super::super::FORMAT,
            build: "b".into(),
            dialect: "vault".into(),
            root: "/s".into(),
            read_since_ns: 1,
            files_token: None,
            entities: 0,
            chunks: 0,
        }
    }

    fn entities(n: usize) -> Vec<Arc<Entity>> {
        let entity = |i: usize| Entity { id: format!("e{i}"), path: format!("e{i:05}.md"), ..Entity::default() };
        (0..n).map(|i| Arc::new(entity(i))).collect()
    }

    /// `encode`'s bytes of `es`, with the chunks `earlier` may lend.
    fn encoded(es: &[Arc<Entity>], earlier: Option<&Earlier>) -> Vec<u8> {
        encode(header(), es, &[], &[], 0, None, None, earlier).unwrap().into_bytes().unwrap()
    }

    /// The same, written to a file as the cache writes it.
    fn written(es: &[Arc<Entity>], earlier: Option<&Earlier>, to: &std::path::Path) -> Vec<u8> {
        let file = File::create(to).unwrap();
        encode(header(), es, &[], &[], 0, None, None, earlier).unwrap().write_to(&file).unwrap();
        std::fs::read(to).unwrap()
    }

    fn lent(earlier: &Earlier, es: &[Arc<Entity>]) -> Vec<bool> {
        es.chunks(CHUNK).enumerate().map(|(k, c)| earlier.chunk(k, c).is_some()).collect()
    }

    #[test]
    fn only_chunks_whose_entities_stayed_in_place_are_taken_and_the_bytes_are_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let (path, out) = (dir.path().join("c.folio-cache"), dir.path().join("new.folio-cache"));
        std::fs::write(&path, encoded(&entities(CHUNK * 3 + 5), None)).unwrap();
        let file = File::open(&path).unwrap();
        let snapshot = decode_file(&file).unwrap();
        let mut es = snapshot.entities;
        let mut earlier = Earlier::new(file, snapshot.chunks);
        // Not noted: nothing is lent.
        assert_eq!(lent(&earlier, &es), [false; 4]);
        earlier.note(&es);
        assert_eq!(lent(&earlier, &es), [true; 4]);
        // An entity re-read into chunk 1; one changed in place in chunk 2 (as a relink does).
        es[CHUNK + 9] = Arc::new(Entity { title: "Re-read".into(), ..(*es[CHUNK + 9]).clone() });
        Arc::make_mut(&mut es[2 * CHUNK + 1]).title = "Relinked".into();
        assert_eq!(lent(&earlier, &es), [true, false, false, true]);
        let fresh = encoded(&es, None);
        assert_eq!(encoded(&es, Some(&earlier)), fresh);
        assert_eq!(written(&es, Some(&earlier), &out), fresh);
        assert_eq!(decode(&fresh).unwrap().entities[2 * CHUNK + 1].title, "Relinked");
        // Places moved (an entity gone from chunk 0): no later chunk is the earlier one.
        let moved: Vec<Arc<Entity>> = es[1..].to_vec();
        assert_eq!(lent(&earlier, &moved), [false; 4]);
        assert_eq!(written(&moved, Some(&earlier), &out), encoded(&moved, None));
        // The earlier file damaged since it was decoded: the chunk copied from it is refused
        // when the new snapshot is decoded, as any damaged section is.
        let mut bytes = std::fs::read(&path).unwrap();
        let (at, ..) = earlier.chunks[3];
        bytes[at as usize + 2] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        written(&es, Some(&earlier), &out);
        assert!(decode_file(&File::open(&out).unwrap()).unwrap_err().contains("checksum"));
        // Cut short since (truncated in place): the write fails rather than leave a short chunk.
        std::fs::write(&path, &bytes[..at as usize]).unwrap();
        let file = File::create(&out).unwrap();
        let sections = encode(header(), &es, &[], &[], 0, None, None, Some(&earlier)).unwrap();
        assert!(sections.write_to(&file).unwrap_err().to_string().contains("cut short"));
    }

    /// More chunks than `encode` makes at once (three groups): those made while the file is
    /// written, lent ones among them, give the bytes of every chunk made before writing.
    #[test]
    fn chunks_made_while_the_file_is_written_give_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, out) = (dir.path().join("c.folio-cache"), dir.path().join("new.folio-cache"));
        let n = CHUNK * (2 * CHUNKS_AT_ONCE + 1) + 7;
        std::fs::write(&path, encoded(&entities(n), None)).unwrap();
        let file = File::open(&path).unwrap();
        let snapshot = decode_file(&file).unwrap();
        let mut es = snapshot.entities;
        let mut earlier = Earlier::new(file, snapshot.chunks);
        earlier.note(&es);
        // One entity re-read in a chunk of the second group: every other chunk is lent.
        let changed = CHUNK * (CHUNKS_AT_ONCE + 1) + 3;
        es[changed] = Arc::new(Entity { title: "Re-read".into(), ..(*es[changed]).clone() });
        let lent = lent(&earlier, &es);
        assert_eq!(lent.iter().filter(|l| !**l).count(), 1, "{lent:?}");
        let fresh = encoded(&es, None);
        assert_eq!(written(&es, None, &out), fresh);
        assert_eq!(written(&es, Some(&earlier), &out), fresh);
        let back = decode_file(&File::open(&out).unwrap()).unwrap();
        assert_eq!(back.entities.len(), n);
        assert_eq!(back.entities[changed].title, "Re-read");
        assert_eq!(back.entities[n - 1].path, es[n - 1].path);
    }
}
