//! The near-duplicate profiles in folio's persistent cache, beside the store's snapshot and its
//! text index, never in the store: a second `folio lint` on an unchanged store reads and
//! tokenises no body for the content rules. An entity's profile (its content words, before
//! rarity: it depends on its own text alone) is kept while its file has the size and mtime it
//! had when it was read (the store cache's per-file check, `side::kept`); the entities of
//! changed, added or moved files are read again, and the file is rewritten when anything
//! changed but a few (`FEW_READ_OF`). The rarity weights, MinHash signatures and pairs are
//! computed on every pass: they depend on the whole store.
use std::path::Path;
use std::time::SystemTime;

use super::side::{self, Key, Made};
use super::{Cache, PROFILES_EXT};
use crate::store::Store;
use crate::store::lint::near_duplicate::{self, Profile};
use crate::store::model::entity::EntityIdx;

const MAGIC: &[u8; 8] = b"FOLIOP1\n";
/// Bumped whenever the layout or what a profile holds (tokenizer, stems, weights) changes.
pub const FORMAT: u32 = 2;
const WHAT: &str = "near-duplicate profiles";
const LAYOUT: side::Layout = side::Layout { magic: MAGIC, format: FORMAT, what: WHAT };

/// The profile of every entity of `store`, in store order: from the cache file where the
/// entities' files are unchanged, the rest read; written back when anything changed (only for
/// stores the store cache keeps: cacheable formats, `MIN_ENTITIES` entities or more).
pub fn open(cache: Option<&Cache>, store: &Store) -> (Vec<Profile>, Made) {
    let n = store.entities.len();
    let Some(cache) = cache.filter(|_| super::cacheable(store.kind())) else {
        return (near_duplicate::all_profiles(store), Made { tokenised: n, ..Made::default() });
    };
    let started = SystemTime::now();
    let path = cache.side_file(&store.root, store.kind(), PROFILES_EXT);
    let mut made = Made::default();
    // The load made every profile while it held the files (a store read from its files with
    // a cache beside it, most of them changed): the saved ones are older, and reading the
    // stale ones' bodies again took as long as the load (docs/benchmarks.md, "Forty-fourth
    // session").
    let loaded = store.take_loaded_profiles();
    let saved = match loaded {
        Some(_) => None,
        None => read(&path, store, cache.lean_keys_digest()).unwrap_or_else(|why| {
            made.warnings.push(format!("{}: {why}; ignored", path.display()));
            None
        }),
    };
    let (profiles, rewrite) = match (loaded, saved) {
        (Some(loaded), _) => (loaded, true),
        (None, None) => (near_duplicate::all_profiles(store), true),
        (None, Some((keep, old))) => {
            made.reused = keep.iter().flatten().count();
            if side::unchanged(&keep, n) {
                (old, false)
            } else {
                // Each saved profile its own entity's or stale (the usual case after an edit):
                // a few read again leave the file as it is, as for the inbox's facts.
                let in_order =
                    keep.len() == n && keep.iter().enumerate().all(|(i, k)| k.is_none_or(|to| to as usize == i));
                let mut slots: Vec<Option<Profile>> = vec![None; n];
                for (p, to) in old.into_iter().zip(&keep) {
                    if let Some(to) = to {
                        slots[*to as usize] = Some(p);
                    }
                }
                let fresh: Vec<EntityIdx> = (0..n as EntityIdx).filter(|&i| slots[i as usize].is_none()).collect();
                let few = in_order && fresh.len() * FEW_READ_OF <= n;
                let mut read = near_duplicate::profiles_of(store, &fresh).into_iter();
                (slots.into_iter().map(|p| p.or_else(|| read.next()).unwrap_or_default()).collect(), !few)
            }
        }
    };
    made.tokenised = n - made.reused;
    if rewrite && n >= super::MIN_ENTITIES {
        // Fresh entities were read after `started`, their keys are the store's stat of them:
        // the older of the two instants is what the next open may trust mtimes against.
        if let Err(e) = write(cache, &path, store, &profiles, started.min(store.read_since)) {
            made.warnings.push(e);
        }
    }
    (profiles, made)
}

/// At most one entity in this many read again, with the saved profiles each their own
/// entity's, the file is left as it is: those few are read again next time rather than the
/// whole file (28 MB for opendray's brain of 95k nodes) written for them.
const FEW_READ_OF: usize = 1000;

/// The cached profiles, each with its entity's number in `store` where it still holds
/// (`side::kept`); `None` when there is no file; an error says why a file present cannot be
/// used.
type Saved = (Vec<Option<EntityIdx>>, Vec<Profile>);

/// `known`: `store`'s `side::keys_digest` where it is known already.
fn read(path: &Path, store: &Store, known: Option<u64>) -> Result<Option<Saved>, String> {
    let Some(mut r) = LAYOUT.open(path, store)? else { return Ok(None) };
    let same: side::SameKeys = r.next("same keys")?;
    let profiles = decode(&r.next_raw()?).ok_or("profiles: malformed")?;
    // A store whose keys all match needs no key read; else no 100k paths and ids are held.
    let Some(keep) = LAYOUT.kept(path, store, same, known, &mut r, 1)? else { return Ok(None) };
    if profiles.len() != keep.len() || keep.len() as u64 != r.header.entities {
        return Err(format!("{} profiles, {} entities listed", profiles.len(), keep.len()));
    }
    Ok(Some((keep, profiles)))
}

/// The file: its header, whether its profiles hold for a store with the same keys
/// (`side::SameKeys`), the profiles, then the keys (read only when the first says nothing).
fn write(cache: &Cache, path: &Path, store: &Store, profiles: &[Profile], as_of: SystemTime) -> Result<(), String> {
    let keys = Key::all(store);
    let same = side::SameKeys::of(store, &keys, side::header(store, FORMAT, as_of).read_since_ns);
    let profiles = encode(profiles).ok_or("a profile whose words are out of order")?;
    LAYOUT.write(cache, path, store, as_of, &[&side::encode(&same)?, &profiles, &side::encode(&keys)?])
}

/// Profiles as bytes: per profile its word count, then per word the gap from the previous
/// word's hash, shifted left once, with the low bit set for a word weighing `CODE_WEIGHT`
/// (only prose and code weights occur), all as varints: under half the bytes of bincode's
/// (hash, f32) pairs (docs/benchmarks.md, "Cache figures").
fn encode(profiles: &[Profile]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for p in profiles {
        push_varint(&mut out, p.len() as u64);
        let mut last = 0u32;
        for (i, &h) in p.hashes().iter().enumerate() {
            let code = u64::from(p.weight(i) != 1.0);
            push_varint(&mut out, u64::from(h.checked_sub(last)?) << 1 | code);
            last = h;
        }
    }
    Some(out)
}

/// `encode`'s profiles back; `None` when the bytes are not what it writes.
fn decode(bytes: &[u8]) -> Option<Vec<Profile>> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < bytes.len() {
        let n = read_varint(bytes, &mut at)? as usize;
        // Each word takes a byte at least: a count beyond what is left is corrupt.
        if n > bytes.len() - at {
            return None;
        }
        let mut words = Vec::with_capacity(n);
        let mut last = 0u32;
        for _ in 0..n {
            let v = read_varint(bytes, &mut at)?;
            last = last.checked_add(u32::try_from(v >> 1).ok()?)?;
            words.push((last, v & 1 == 1));
        }
        out.push(Profile::of_sorted(words.into_iter()));
    }
    Some(out)
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    /// A vault of `MIN_ENTITIES` + 1 notes written an hour ago, two of them near-duplicates.
    fn vault() -> tempfile::TempDir {
        side::fixture::aged_vault(|i| {
            let body = match i {
                1 | 2 => "Parse the EXIF metadata with Pillow before exiftool; pillow reads orientation tags.".into(),
                _ => format!("Body of note {i} about w{} and ledgers q{i} r{i} s{i}.", i % 37),
            };
            (format!("Note {i}"), body)
        })
    }

    #[test]
    fn profiles_survive_their_encoding() {
        let sorted = |words: &[(u32, bool)]| Profile::of_sorted(words.iter().copied());
        let profiles = vec![
            sorted(&[(0, false), (7, true), (u32::MAX - 1, false), (u32::MAX, true)]),
            Profile::default(),
            sorted(&[(300, false)]),
        ];
        assert_eq!(
            profiles[0].words().map(|(_, w)| w).collect::<Vec<_>>(),
            [1.0, near_duplicate::CODE_WEIGHT, 1.0, near_duplicate::CODE_WEIGHT]
        );
        let bytes = encode(&profiles).unwrap();
        assert_eq!(decode(&bytes).unwrap(), profiles);
        assert_eq!(decode(&bytes[..bytes.len() - 1]), None, "cut in a word");
        assert_eq!(decode(&[9, 1]), None, "more words than bytes");
        assert!(encode(&[sorted(&[(5, false), (2, false)])]).is_none(), "hashes out of order");
    }

    fn load(dir: &Path) -> Store {
        Store::load(dir, crate::store::dialect::vault::KIND, "test".into())
    }

    #[test]
    fn a_second_open_reads_no_body_and_an_edited_file_is_read_again() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let (first, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (store.entities.len(), 0), "{:?}", made.warnings);
        assert_eq!(first, near_duplicate::all_profiles(&store));
        let (second, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (0, store.entities.len()), "{:?}", made.warnings);
        assert_eq!(first, second);

        // One note changes, one goes, one comes: only the edited and the new one are read.
        let edited = dir.path().join("note-3.md");
        fs::write(&edited, "---\ntitle: Note 3\n---\nNow about zanzibar and its spice markets.\n").unwrap();
        let earlier = SystemTime::now() - Duration::from_secs(1800);
        fs::File::options().write(true).open(&edited).unwrap().set_modified(earlier).unwrap();
        fs::remove_file(dir.path().join("note-4.md")).unwrap();
        fs::write(dir.path().join("added.md"), "---\ntitle: Added\n---\nA new note on tide tables.\n").unwrap();
        let store = load(dir.path());
        let (third, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, made.reused), (2, store.entities.len() - 2), "{:?}", made.warnings);
        assert_eq!(third, near_duplicate::all_profiles(&store), "the same profiles as reading every body");
    }

    /// A note or two edited of a thousand: read again each time, the file left as it is; more,
    /// and the file is written again with them.
    #[test]
    fn a_few_edited_notes_are_read_again_and_more_write_the_file_again() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let n = store.entities.len();
        assert_eq!(open(Some(&cache), &store).1.tokenised, n);
        let file = cache.side_file(&store.root, store.kind(), PROFILES_EXT);
        let written = fs::read(&file).unwrap();
        let edit = |i: usize, body: &str| {
            let p = dir.path().join(format!("note-{i}.md"));
            fs::write(&p, format!("---\ntitle: Note {i}\n---\n{body}\n")).unwrap();
            let earlier = SystemTime::now() - Duration::from_secs(1800);
            fs::File::options().write(true).open(&p).unwrap().set_modified(earlier).unwrap();
        };
        edit(3, "Now about zanzibar and its spice markets.");
        let store = load(dir.path());
        for _ in 0..2 {
            let (profiles, made) = open(Some(&cache), &store);
            assert_eq!((made.tokenised, made.reused), (1, n - 1), "{:?}", made.warnings);
            assert_eq!(profiles, near_duplicate::all_profiles(&store));
            assert_eq!(fs::read(&file).unwrap(), written, "the file left as it was");
        }
        edit(5, "Tide tables of the northern coast.");
        edit(6, "Tide tables of the southern coast.");
        let store = load(dir.path());
        let (profiles, made) = open(Some(&cache), &store);
        assert_eq!((made.tokenised, profiles), (3, near_duplicate::all_profiles(&store)));
        assert_ne!(fs::read(&file).unwrap(), written, "written again");
        assert_eq!(open(Some(&cache), &store).1.tokenised, 0);
    }

    #[test]
    fn a_corrupt_or_foreign_file_is_rebuilt_with_a_warning_and_lint_agrees_either_way() {
        let dir = vault();
        let cdir = tempfile::tempdir().unwrap();
        let cache = Cache::new(cdir.path());
        let store = load(dir.path());
        let config = crate::store::lint::LintConfig::default();
        let want = crate::store::lint::lint(&store, &config);
        assert!(want.findings.iter().any(|f| f.rule == near_duplicate::RULE), "the planted pair is found");
        let (good, _) = open(Some(&cache), &store);
        let cached = crate::store::lint::lint_with(&store, &config, &|| open(Some(&cache), &store).0);
        assert_eq!(cached, want);
        let file = cache.side_file(&store.root, store.kind(), PROFILES_EXT);
        let bytes = fs::read(&file).unwrap();
        // A byte of the profiles flipped (the keys, last, are not read for this very store).
        let mut flipped = bytes.clone();
        let at = side::fixture::sections(&flipped)[2].end - 3;
        flipped[at] ^= 1;
        for (bad, why) in [(flipped, "checksum"), (bytes[..bytes.len() / 2].to_vec(), "truncated"), (b"x".to_vec(), "")]
        {
            fs::write(&file, &bad).unwrap();
            let (profiles, made) = open(Some(&cache), &store);
            assert_eq!(made.tokenised, store.entities.len());
            assert!(made.warnings.len() == 1 && made.warnings[0].contains(why), "{:?}", made.warnings);
            assert_eq!(profiles, good);
        }
        // `cache clear` takes the profiles with the snapshot.
        cache.save(&store).unwrap();
        assert_eq!(cache.clear(Some((&store.root, store.kind()))).unwrap(), 1);
        assert!(!file.exists());
    }
}
