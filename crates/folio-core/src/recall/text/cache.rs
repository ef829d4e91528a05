//! The text index in folio's persistent cache, beside the store's snapshot and never in the
//! store: a second `folio recall --text` or TUI `/` on an unchanged store reads no body. An
//! entity's postings are kept while its file has the size and mtime it had when it was indexed
//! (the store cache's own per-file check); the entities of changed, added or moved files are
//! read and tokenised again, and the file is rewritten when anything changed.
use std::path::Path;
use std::time::SystemTime;

use super::cached_index::{self, CachedIndex};
use super::index::{TextIndex, weighted_text};
use crate::store::Store;
use crate::store::keep::cache::side::{self, Key, Made};
use crate::store::keep::cache::{self, Cache, TEXT_EXT};
use crate::store::model::entity::EntityIdx;

const MAGIC: &[u8; 8] = b"FOLIOT3\n";
/// Bumped whenever the layout or what is indexed (tokenizer, title weight) changes.
pub const FORMAT: u32 = 3;
const WHAT: &str = "text index";
const LAYOUT: side::Layout = side::Layout { magic: MAGIC, format: FORMAT, what: WHAT };

/// What of a cached index is checked before it answers (the rest is checked as it is read).
#[derive(Debug, Clone, Copy)]
pub enum Check<'a> {
    /// Every byte: the index answers whatever is typed for a session (the TUI).
    Everything,
    /// The dictionary blocks and posting lists of these words: one query (the CLI).
    Words(&'a [String]),
}

/// How a cached index was used.
enum Reused {
    /// As it is, read on demand: the store is the one it was made from.
    Whole(TextIndex),
    /// Read whole and updated, with the number of entities whose postings it kept.
    Updated(TextIndex, usize),
}

/// The text index of `store`: from the cache file where its entities' files are unchanged,
/// the rest read and tokenised; written back when anything changed (only for stores the store
/// cache would keep: cacheable formats, `cache::MIN_ENTITIES` entities or more). An unchanged
/// store's index is read from the file on demand, every byte of it checked first.
pub fn open(cache: Option<&Cache>, store: &Store) -> (TextIndex, Made) {
    open_checking(cache, store, Check::Everything)
}

/// `open` for one query of `words` (`TextRecall::query_words`): of an unchanged store's file
/// only the header, lengths and those words' blocks and lists are read and checked.
pub fn open_for(cache: Option<&Cache>, store: &Store, words: &[String]) -> (TextIndex, Made) {
    open_checking(cache, store, Check::Words(words))
}

fn open_checking(cache: Option<&Cache>, store: &Store, check: Check) -> (TextIndex, Made) {
    let n = store.entities.len();
    let Some(cache) = cache.filter(|_| cache::cacheable(store.kind())) else {
        return (TextIndex::build(store), Made { tokenised: n, ..Made::default() });
    };
    let started = SystemTime::now();
    let path = cache.side_file(&store.root, store.kind(), TEXT_EXT);
    let mut made = Made::default();
    let reused = CachedIndex::open(&path, MAGIC, FORMAT, WHAT, store)
        .and_then(|file| file.map(|file| reuse(file, store, check)).transpose());
    let (index, unchanged) = match reused {
        Ok(None) => (TextIndex::build(store), false),
        Ok(Some(Reused::Whole(index))) => {
            made.reused = n;
            (index, true)
        }
        Ok(Some(Reused::Updated(index, kept))) => {
            made.reused = kept;
            (index, false)
        }
        Err(why) => {
            made.warnings.push(format!("{}: {why}; ignored", path.display()));
            (TextIndex::build(store), false)
        }
    };
    made.tokenised = n - made.reused;
    if !unchanged {
        save(cache, store, &index, started, &mut made);
    }
    (index, made)
}

/// The index of `store` built anew, because a cached one read as `open` left it turned out
/// `damaged` (`why`), and written back.
pub fn rebuild(cache: Option<&Cache>, store: &Store, why: &str) -> (TextIndex, Made) {
    let started = SystemTime::now();
    let index = TextIndex::build(store);
    let mut made = Made { tokenised: store.entities.len(), ..Made::default() };
    if let Some(cache) = cache.filter(|_| cache::cacheable(store.kind())) {
        let path = cache.side_file(&store.root, store.kind(), TEXT_EXT);
        made.warnings.push(format!("{}: {why}; ignored", path.display()));
        save(cache, store, &index, started, &mut made);
    }
    (index, made)
}

/// Write `index` (made from reads begun at `started`) for the next open, when the store is one
/// the cache keeps.
fn save(cache: &Cache, store: &Store, index: &TextIndex, started: SystemTime, made: &mut Made) {
    if store.entities.len() < cache::MIN_ENTITIES {
        return;
    }
    let path = cache.side_file(&store.root, store.kind(), TEXT_EXT);
    // Fresh entities were read after `started`, their keys are the store's stat of them:
    // the older of the two instants is what the next open may trust mtimes against.
    let as_of = started.min(store.read_since);
    if let Err(e) = write(cache, &path, store, index, as_of) {
        made.warnings.push(e);
    }
}

/// The cached index `file` for `store`: read on demand when it was made from this very store
/// (its digest, every key trusted), the parts `check` asks for checked; else read whole, its
/// kept entities' postings kept and the others' read and tokenised again.
fn reuse(file: CachedIndex, store: &Store, check: Check) -> Result<Reused, String> {
    let n = store.entities.len();
    if file.lengths.len() == n && file.meta.whole && file.meta.digest == side::keys_digest(store) {
        match check {
            Check::Everything => file.check_all()?,
            Check::Words(words) => {
                for w in words {
                    file.postings(w)?;
                }
            }
        }
        return Ok(Reused::Whole(TextIndex::of_file(file)));
    }
    let keys = file.keys()?;
    if keys.len() != file.lengths.len() {
        return Err(format!("{} entities indexed, {} listed", file.lengths.len(), keys.len()));
    }
    let keep = side::kept(&keys, file.header.read_since_ns, store);
    let saved = TextIndex::of_file(file);
    let saved = match saved.in_memory() {
        Some(whole) => whole.into_owned(),
        None => return Err(saved.damaged().unwrap_or_default()),
    };
    let mut taken = vec![false; n];
    for &to in keep.iter().flatten() {
        taken[to as usize] = true;
    }
    use rayon::prelude::*;
    let fresh: Vec<(EntityIdx, String)> = (0..n as EntityIdx)
        .into_par_iter()
        .filter(|&i| !taken[i as usize])
        .map(|i| (i, weighted_text(store, i)))
        .collect();
    Ok(Reused::Updated(saved.update(&keep, &fresh, n), keep.iter().flatten().count()))
}

/// Write the index (held in memory) atomically beside the store's snapshot (temporary file,
/// then rename), in the layout `cached_index` reads on demand.
fn write(cache: &Cache, path: &Path, store: &Store, index: &TextIndex, as_of: SystemTime) -> Result<(), String> {
    let keys = Key::all(store);
    // Whether the next open of this very store may take every record as it is: as `kept`
    // will judge them against this file's header.
    let read_since_ns = side::header(store, FORMAT, as_of).read_since_ns;
    let same = side::SameKeys::of(store, &keys, read_since_ns);
    let sections =
        cached_index::sections(index.sorted_lists().into_iter(), index.lengths(), &keys, same.digest, same.whole)?;
    let sections: Vec<&[u8]> = sections.iter().map(Vec::as_slice).collect();
    LAYOUT.write(cache, path, store, as_of, &sections)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    /// A vault of `MIN_ENTITIES` + 1 notes (enough to be cached with one removed), written an
    /// hour ago.
    fn vault() -> tempfile::TempDir {
        crate::store::keep::cache::side::fixture::aged_vault(|i| {
            (format!("Note {i}"), format!("Body of note {i} about w{} and ledgers.", i % 37))
        })
    }

    fn load(dir: &Path) -> Store {
        Store::load(dir, crate::store::dialect::vault::KIND, "test".into())
    }

    /// Every word's postings and every entity's length, whatever the words' numbers.
    fn same(a: &TextIndex, b: &TextIndex) {
        let (mut wa, mut wb) = (a.starting_with(""), b.starting_with(""));
        wa.sort();
        wb.sort();
        assert_eq!(wa, wb);
        for w in &wa {
            assert_eq!(a.postings(w), b.postings(w), "{w}");
        }
        assert_eq!(a.len(), b.len());
        assert!((0..a.len() as EntityIdx).all(|i| a.length(i) == b.length(i)));
    }

    #[test]
    fn a_second_open_reads_no_body_and_an_edited_file_is_read_again() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (first, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (store.entities.len(), 0), "{:?}", made.warnings);
        assert!(cache.side_file(&store.root, store.kind(), TEXT_EXT).exists());
        let (second, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (0, store.entities.len()), "{:?}", made.warnings);
        assert_eq!(first, second);

        // One note gains a word, one goes: only the edited one is read again.
        let edited = dir.path().join("note-3.md");
        fs::write(&edited, "---\ntitle: Note 3\n---\nNow about zanzibar.\n").unwrap();
        // Older than the slack of the next reads, so the open after the next trusts it.
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        fs::File::options().write(true).open(&edited).unwrap().set_modified(earlier).unwrap();
        fs::remove_file(dir.path().join("note-4.md")).unwrap();
        let store = load(dir.path());
        let (third, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (1, store.entities.len() - 1));
        let edited = store.find("note-3").unwrap();
        assert_eq!(third.postings("zanzibar"), [super::super::index::Posting { idx: edited, count: 1 }]);
        same(&third, &TextIndex::build(&store));
        // …and the rewritten file answers the next open without reading anything.
        let (fourth, made) = open(Some(&cache), &store);
        assert_eq!(made.tokenised, 0);
        same(&fourth, &third);
    }

    #[test]
    fn a_corrupt_or_foreign_index_file_is_rebuilt_with_a_warning() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (good, _) = open(Some(&cache), &store);
        let file = cache.side_file(&store.root, store.kind(), TEXT_EXT);
        let bytes = fs::read(&file).unwrap();
        let mut flipped = bytes.clone();
        let at = flipped.len() - 5;
        flipped[at] ^= 1;
        for (bad, why) in [(flipped, "checksum"), (bytes[..bytes.len() / 2].to_vec(), "truncated"), (b"x".to_vec(), "")]
        {
            fs::write(&file, &bad).unwrap();
            let (index, made) = open(Some(&cache), &store);
            assert_eq!(made.tokenised, store.entities.len());
            assert!(made.warnings.len() == 1 && made.warnings[0].contains(why), "{:?}", made.warnings);
            same(&index, &good);
        }
        // Another store's index under this store's name is not used.
        let other = vault();
        let moved = load(other.path());
        fs::copy(&file, cache.side_file(&moved.root, moved.kind(), TEXT_EXT)).unwrap();
        let (_, made) = open(Some(&cache), &moved);
        assert!(made.warnings.iter().any(|w| w.contains("written for")), "{:?}", made.warnings);
        // `cache clear` takes the index with the snapshot.
        cache.save(&store).unwrap();
        assert_eq!(cache.clear(Some((&store.root, store.kind()))).unwrap(), 1);
        assert!(!file.exists());
    }
    /// Flip one byte of the cache file of `store` at `at`.
    fn flip(cache: &Cache, store: &Store, at: u64) {
        let file = cache.side_file(&store.root, store.kind(), TEXT_EXT);
        let mut bytes = fs::read(&file).unwrap();
        bytes[at as usize] ^= 0x5a;
        fs::write(&file, bytes).unwrap();
    }

    fn places(cache: &Cache, store: &Store, word: &str) -> (u64, u64) {
        let path = cache.side_file(&store.root, store.kind(), TEXT_EXT);
        CachedIndex::open(&path, MAGIC, FORMAT, WHAT, store).unwrap().unwrap().places_of(word)
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_query_reads_only_its_words_and_a_damaged_list_or_block_is_rebuilt_with_a_warning() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (good, _) = open(Some(&cache), &store);
        // The list of "w5" damaged: a query of other words neither reads nor minds it.
        let (block, list) = places(&cache, &store, "w5");
        flip(&cache, &store, list);
        let (index, made) = open_for(Some(&cache), &store, &words(&["ledgers", "w7"]));
        assert_eq!((made.tokenised, made.warnings.len()), (0, 0), "{:?}", made.warnings);
        assert_eq!(index.postings("w7"), good.postings("w7"));
        assert_eq!(index.df("ledgers"), store.entities.len() as u32);
        assert!(index.heap_bytes() < good.heap_bytes() / 4, "the lists stay in the file");
        // A query of "w5" finds the damage, builds the index anew and writes it back.
        let (index, made) = open_for(Some(&cache), &store, &words(&["w5"]));
        assert_eq!(made.tokenised, store.entities.len());
        assert!(made.warnings.len() == 1 && made.warnings[0].contains("posting list: checksum mismatch"), "{made:?}");
        assert_eq!(index.postings("w5"), good.postings("w5"));
        let (index, made) = open_for(Some(&cache), &store, &words(&["w5"]));
        assert_eq!((made.tokenised, made.warnings.len()), (0, 0), "rewritten: {:?}", made.warnings);
        assert_eq!(index.postings("w5"), good.postings("w5"));
        // A damaged dictionary block, found by the query that reads it; the TUI's open checks all.
        flip(&cache, &store, block + 3);
        let (_, made) = open_for(Some(&cache), &store, &words(&["w5"]));
        assert!(made.warnings.len() == 1 && made.warnings[0].contains("dictionary block"), "{made:?}");
        flip(&cache, &store, places(&cache, &store, "w9").1);
        let (index, made) = open(Some(&cache), &store);
        assert!(made.warnings.len() == 1 && made.warnings[0].contains("postings: checksum"), "{made:?}");
        same(&index, &good);
    }

    #[test]
    fn a_list_damaged_after_the_open_is_not_trusted() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (good, _) = open(Some(&cache), &store);
        let (index, _) = open_for(Some(&cache), &store, &words(&["ledgers"]));
        assert_eq!(index.damaged(), None);
        // Written over in place (not as folio writes it) after the query's open.
        let file = cache.side_file(&store.root, store.kind(), TEXT_EXT);
        let at = places(&cache, &store, "w3").1;
        let mut f = fs::File::options().write(true).open(&file).unwrap();
        use std::io::{Seek, Write};
        f.seek(std::io::SeekFrom::Start(at)).unwrap();
        f.write_all(&[0xff, 0xff]).unwrap();
        drop(f);
        assert_eq!(index.postings("w3"), [], "not read as postings");
        assert!(index.damaged().is_some_and(|why| why.contains("checksum")), "{:?}", index.damaged());
        assert!(index.update(&[], &[], store.entities.len()).damaged().is_some(), "nor updated from");
        let (rebuilt, made) = rebuild(Some(&cache), &store, &index.damaged().unwrap());
        assert!(made.warnings[0].contains("checksum"), "{made:?}");
        same(&rebuilt, &good);
    }

    #[test]
    fn a_changed_file_is_read_again_and_a_file_written_during_the_reads_is_never_trusted() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        let set = |p: &Path, t: SystemTime| fs::File::options().write(true).open(p).unwrap().set_modified(t).unwrap();
        // Written now: within the slack of the index's reads, so not trusted as it is.
        let fresh = dir.path().join("note-7.md");
        fs::write(&fresh, "---\ntitle: Note 7\n---\nAbout okapis.\n").unwrap();
        let store = load(dir.path());
        let (_, made) = open_for(Some(&cache), &store, &words(&["okapis"]));
        assert_eq!(made.tokenised, store.entities.len());
        let (index, made) = open_for(Some(&cache), &store, &words(&["okapis"]));
        assert_eq!(made.tokenised, 1, "the note written during the reads is read again");
        assert_eq!(index.df("okapis"), 1);
        // New words under an mtime older than the index: the size tells the change.
        fs::write(&fresh, "---\ntitle: Note 7\n---\nAbout quaggas.\n").unwrap();
        set(&fresh, earlier);
        fs::remove_file(dir.path().join("note-8.md")).unwrap();
        let store = load(dir.path());
        let (index, made) = open_for(Some(&cache), &store, &words(&["quaggas", "okapis"]));
        assert_eq!(made.tokenised, 1, "{:?}", made.warnings);
        assert_eq!(
            index.postings("quaggas"),
            [super::super::index::Posting { idx: store.find("note-7").unwrap(), count: 1 }]
        );
        assert_eq!(index.df("okapis"), 0, "the old words are gone");
        same(&index, &TextIndex::build(&store));
        // Unchanged since: read on demand, nothing tokenised, the removed note nowhere.
        let (index, made) = open_for(Some(&cache), &store, &words(&["quaggas"]));
        assert_eq!((made.tokenised, made.reused), (0, store.entities.len()));
        assert!(store.find("note-8").is_none());
        same(&index, &TextIndex::build(&store));
    }
}
