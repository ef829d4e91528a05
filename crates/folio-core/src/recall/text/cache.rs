//! The text index in folio's persistent cache, beside the store's snapshot and never in the
//! store: a second `folio recall --text` or TUI `/` on an unchanged store reads no body. An
//! entity's postings are kept while its file has the size and mtime it had when it was indexed
//! (the store cache's own per-file check); the entities of changed, added or moved files are
//! read and tokenised again, and the file is rewritten when anything changed.
use std::path::Path;
use std::time::SystemTime;

use super::cached_index::{self, CachedIndex, digest};
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
    if file.lengths.len() == n && file.meta.whole && file.meta.digest == digest(store) {
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
    let whole = side::unchanged(&side::kept(&keys, read_since_ns, store), store.entities.len());
    let sections =
        cached_index::sections(index.sorted_lists().into_iter(), index.lengths(), &keys, digest(store), whole)?;
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
}
