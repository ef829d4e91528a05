//! Every entity's description and body tokenised once into one per-store term table: a
//! vocabulary (each distinct word once) and, per entity, its words as (term number, count,
//! where it occurs). The near-duplicate pass and the full-text index both derive from it, so a
//! store's bodies are read and tokenised once, and per-word work (stopwords, stems, hashes)
//! happens once per distinct word instead of once per occurrence.
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rayon::prelude::*;

use super::body_text::{self, WordKey};
use super::content_words::{CODE_WEIGHT, Profile, profile_hash};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::read::fsio::FolderOpener;

/// Entities per build task: enough that merging the tasks' vocabularies stays cheap.
const CHUNK: usize = 512;

/// Odd multiplier spreading a short key over the recent slots (the golden ratio's bits).
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// Slots of the tokeniser's cache of recent short words (32 KB).
const RECENT: usize = 1024;

/// The word occurs in prose (outside fenced code and its fence lines).
pub const IN_PROSE: u8 = 1;
/// The word occurs inside fenced code.
pub const IN_CODE: u8 = 2;

/// One word of one entity (8 bytes: the table holds one per distinct word of every entity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    pub id: u32,
    /// Occurrences, saturating (BM25 saturates long before).
    pub count: u16,
    /// `IN_PROSE` | `IN_CODE`; 0 when it only occurs on a fence line (```` ```python ````).
    pub places: u8,
}

#[derive(Debug, Default)]
pub struct Content {
    /// Term number → word (lower case).
    pub words: Vec<Box<str>>,
    /// The terms of the entities as their build tasks (or the loading threads) left them,
    /// numbered anew in place: one array of every term would copy the table's largest part
    /// once more.
    chunks: Vec<Chunk>,
    /// Entity `i`'s chunk and place in it, when the chunks do not hold the entities in order
    /// (the loading threads read files in no order); empty when chunk `c` holds entities
    /// `c * CHUNK..`.
    at: Vec<(u32, u32)>,
    len: usize,
}

/// The terms of some entities: `CHUNK` of them in a build task's, any number in a loading
/// thread's.
#[derive(Debug)]
struct Chunk {
    /// Where each entity's terms start in `terms` (one more entry than entities).
    starts: Vec<u32>,
    terms: Vec<Term>,
    /// Words in each entity's description and body.
    lengths: Vec<u32>,
}

/// What one build task or loading thread found: its own vocabulary and its entities' terms in
/// local numbers.
pub struct Part {
    vocab: Vec<Box<str>>,
    terms: Chunk,
    /// The entities' near-duplicate profiles, in place of their terms, from a tokeniser that
    /// makes them (`Tokeniser::profiling`).
    profiles: Vec<Profile>,
}

impl Part {
    /// The profiles a profiling tokeniser made, one per entity in the order tokenised.
    pub fn into_profiles(self) -> Vec<Profile> {
        self.profiles
    }
}

impl Content {
    /// The table of the store's entities: the one its load made while it read the files
    /// (`Store::take_loaded_terms`), or read and tokenised now (`build_of` every entity).
    pub fn build(store: &Store) -> Content {
        if let Some(made) = store.take_loaded_terms() {
            return made;
        }
        let all: Vec<EntityIdx> = (0..store.entities.len() as EntityIdx).collect();
        Content::build_of(store, &all)
    }

    /// Read and tokenise the description and body of the entities `idxs` (in parallel; table
    /// entry `k` is entity `idxs[k]`). What `body_text::compared_text` gives each entity is
    /// tokenised in two parts, description then body, straight from the bytes read: no
    /// concatenated copy per entity.
    pub fn build_of(store: &Store, idxs: &[EntityIdx]) -> Content {
        Content::from_chunks(idxs.len(), |range, t| {
            let mut opener = FolderOpener::default();
            for &idx in &idxs[range] {
                t.add(store.entity(idx).description.as_deref().unwrap_or_default());
                if let Some(raw) = body_text::body_bytes(store, idx, &mut opener) {
                    t.add(&raw.text());
                }
                t.end_entity();
            }
        })
    }

    /// The table of `n` texts, `text(i)` giving entity `i`'s.
    pub fn from_texts(n: usize, text: impl Fn(usize) -> String + Sync) -> Content {
        Content::from_chunks(n, |range, t| {
            for i in range {
                t.add(&text(i));
                t.end_entity();
            }
        })
    }

    /// The table of `n` entities, `fill(range, t)` tokenising those of `range` into `t`, in order.
    fn from_chunks(n: usize, fill: impl Fn(std::ops::Range<usize>, &mut Tokeniser) + Sync) -> Content {
        let parts: Vec<Part> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut t = Tokeniser::default();
                fill(c * CHUNK..((c + 1) * CHUNK).min(n), &mut t);
                t.into_part()
            })
            .collect();
        let (words, chunks) = merge(parts);
        Content { words, chunks, at: Vec::new(), len: n }
    }

    /// The table from the loading threads' parts, entity `i` being entity `at[i].1` of part
    /// `at[i].0`.
    pub fn from_parts(parts: Vec<Part>, at: Vec<(u32, u32)>) -> Content {
        let (words, chunks) = merge(parts);
        Content { words, chunks, len: at.len(), at }
    }

    /// Entities in the table.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entity `i`'s chunk and place in it.
    fn place(&self, i: usize) -> (&Chunk, usize) {
        let (c, k) = match self.at.get(i) {
            Some(&(c, k)) => (c as usize, k as usize),
            None => (i / CHUNK, i % CHUNK),
        };
        (&self.chunks[c], k)
    }

    /// The terms of entity `i`, in no particular order.
    pub fn terms(&self, i: usize) -> &[Term] {
        let (Chunk { starts, terms, .. }, k) = self.place(i);
        &terms[starts[k] as usize..starts[k + 1] as usize]
    }

    /// Words in entity `i`'s description and body.
    pub fn length(&self, i: usize) -> u32 {
        let (chunk, k) = self.place(i);
        chunk.lengths[k]
    }
}

/// The parts' vocabularies as one, and their terms numbered in it. Local term numbers become
/// global ones part by part (each part's words looked up once, in a table that compares with
/// `words` instead of keeping every word as its key too; each word moved, not cloned), then the
/// parts' terms are renumbered in place, in parallel.
fn merge(parts: Vec<Part>) -> (Vec<Box<str>>, Vec<Chunk>) {
    let hasher = foldhash::fast::FixedState::default();
    let mut lookup: HashTable<u32> = HashTable::new();
    let mut words: Vec<Box<str>> = Vec::new();
    let (vocabs, chunks): (Vec<_>, Vec<_>) = parts.into_iter().map(|p| (p.vocab, p.terms)).unzip();
    let maps: Vec<Vec<u32>> = vocabs
        .into_iter()
        .map(|vocab| {
            vocab
                .into_iter()
                .map(|w| {
                    let hash = hasher.hash_one(&*w);
                    if let Some(&id) = lookup.find(hash, |&id| words[id as usize] == w) {
                        return id;
                    }
                    let id = words.len() as u32;
                    words.push(w);
                    lookup.insert_unique(hash, id, |&id| hasher.hash_one(&*words[id as usize]));
                    id
                })
                .collect()
        })
        .collect();
    let chunks = chunks
        .into_par_iter()
        .zip(maps)
        .map(|(mut chunk, map)| {
            for t in &mut chunk.terms {
                t.id = map[t.id as usize];
            }
            chunk
        })
        .collect();
    (words, chunks)
}

/// One build task's or loading thread's tokeniser: entities' texts in, one after another, their
/// terms in local numbers out (`into_part`). A word is looked up in a table of term numbers that compares it with
/// the vocabulary itself, so each distinct word is kept once, not also as a map key.
pub struct Tokeniser {
    part: Part,
    hasher: foldhash::fast::FixedState,
    /// Local term numbers of short words, with their packed key inline: a probe compares two
    /// integers instead of following the vocabulary's pointer to the word (`WordKey::Short`).
    short: HashTable<Known>,
    /// The last short word seen in each of `RECENT` slots with its term number, in front of
    /// `short`: most words of a body are common ones, found here with one load from a table
    /// that stays in the first-level cache instead of a chain of loads into a larger one.
    recent: Box<[Known]>,
    /// The other words: (local term number, place of the word in `part.vocab`).
    local: HashTable<(u32, u32)>,
    /// Per local term: what the current entity holds of it; `touched` lists those set.
    terms: Vec<Slot>,
    touched: Vec<u32>,
    /// The current entity's words so far, and whether its text so far ends in fenced code.
    len: u32,
    in_code: bool,
    scratch: String,
    /// Making profiles instead of terms (`Tokeniser::profiling`): the vocabulary then keeps
    /// only the words a short key does not hold, which a probe of `local` compares.
    profiling: bool,
}

/// A short word's packed key (`WordKey::Short`) and its local term number, 24 bytes: as two
/// halves rather than a `u128`, whose alignment would pad it to 32 (the walker threads each
/// hold one per distinct word: docs/benchmarks.md, "Thirty-ninth session").
#[derive(Clone, Copy, Default)]
struct Known {
    key: [u64; 2],
    id: u32,
}

/// One local term: its profile hash when profiling, and its count and places in the current
/// entity (8 bytes).
#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u32,
    /// Occurrences in the current entity, saturating.
    count: u16,
    /// `IN_PROSE` | `IN_CODE` in the current entity.
    places: u8,
    /// Counted at all: every word of a term table; a content word of a profile.
    counted: bool,
}

const _: () = assert!(std::mem::size_of::<Known>() == 24 && std::mem::size_of::<Slot>() == 8);

impl Default for Tokeniser {
    fn default() -> Self {
        Tokeniser {
            part: Part {
                vocab: Vec::new(),
                terms: Chunk { starts: vec![0], terms: Vec::new(), lengths: Vec::new() },
                profiles: Vec::new(),
            },
            hasher: foldhash::fast::FixedState::default(),
            short: HashTable::new(),
            recent: vec![Known::default(); RECENT].into_boxed_slice(),
            local: HashTable::new(),
            terms: Vec::new(),
            touched: Vec::new(),
            len: 0,
            in_code: false,
            scratch: String::new(),
            profiling: false,
        }
    }
}

impl Tokeniser {
    /// A tokeniser that makes each entity's near-duplicate profile (`Part::into_profiles`)
    /// instead of its terms: each distinct word is judged, stemmed and hashed once per thread,
    /// as `near_duplicate::profiles_from` does once per store, and no vocabulary is merged, no
    /// term table kept.
    pub fn profiling() -> Tokeniser {
        Tokeniser { profiling: true, ..Tokeniser::default() }
    }

    /// Add `text` to the current entity: the next lines of its text (a fence opened in one part
    /// stays open into the next, as in the parts joined by a line break).
    pub fn add(&mut self, text: &str) {
        let Tokeniser { part, hasher, short, recent, local, terms, touched, len, in_code, scratch, profiling } = self;
        let profiling = *profiling;
        for line in body_text::lines(text) {
            let t = line.trim_start();
            let fence = t.starts_with("```") || t.starts_with("~~~");
            if fence {
                *in_code = !*in_code;
            }
            let place = match (fence, *in_code) {
                (true, _) => 0,
                (false, true) => IN_CODE,
                (false, false) => IN_PROSE,
            };
            body_text::for_each_key(line, scratch, |key| {
                *len += 1;
                let id = match key {
                    WordKey::Short(key) => {
                        let key = [key as u64, (key >> 64) as u64];
                        // A key is never 0 (words are not empty): an unused slot matches none.
                        let mixed = (key[0] ^ key[1] ^ (key[1] >> 32)).wrapping_mul(MIX);
                        let slot = &mut recent[(mixed >> (64 - RECENT.trailing_zeros())) as usize];
                        if slot.key == key {
                            slot.id
                        } else {
                            let hash = hasher.hash_one(key);
                            let id = match short.find(hash, |k| k.key == key) {
                                Some(k) => k.id,
                                None => {
                                    let packed = u128::from(key[0]) | (u128::from(key[1]) << 64);
                                    let (bytes, n) = WordKey::short_bytes(packed);
                                    let word = std::str::from_utf8(&bytes[..n]).unwrap_or_default();
                                    // A short word is found by its key: a profiling tokeniser
                                    // keeps its hash, not its text.
                                    let id = new_term(terms, &mut part.vocab, profiling, word, false);
                                    short.insert_unique(hash, Known { key, id }, |k| hasher.hash_one(k.key));
                                    id
                                }
                            };
                            *slot = Known { key, id };
                            id
                        }
                    }
                    WordKey::Long(w) => {
                        let hash = hasher.hash_one(w);
                        let vocab = &part.vocab;
                        match local.find(hash, |&(_, at)| &*vocab[at as usize] == w) {
                            Some(&(id, _)) => id,
                            None => {
                                let at = part.vocab.len() as u32;
                                let id = new_term(terms, &mut part.vocab, profiling, w, true);
                                let vocab = &part.vocab;
                                local.insert_unique(hash, (id, at), |&(_, at)| hasher.hash_one(&*vocab[at as usize]));
                                id
                            }
                        }
                    }
                };
                let slot = &mut terms[id as usize];
                if !slot.counted {
                    return;
                }
                if slot.count == 0 {
                    touched.push(id);
                }
                slot.count = slot.count.saturating_add(1);
                slot.places |= place;
            });
        }
    }

    /// Close the current entity: its terms in the order first met, its length.
    pub fn end_entity(&mut self) {
        if self.profiling {
            let mut words = Vec::with_capacity(self.touched.len());
            for id in self.touched.drain(..) {
                let slot = &mut self.terms[id as usize];
                let places = std::mem::take(&mut slot.places);
                slot.count = 0;
                let weight = if places & IN_PROSE != 0 {
                    1.0
                } else if places & IN_CODE != 0 {
                    CODE_WEIGHT
                } else {
                    continue;
                };
                words.push((slot.hash, weight));
            }
            self.part.profiles.push(Profile::of_weighed(words));
            self.len = 0;
            self.in_code = false;
            return;
        }
        for id in self.touched.drain(..) {
            let slot = &mut self.terms[id as usize];
            let (count, places) = (std::mem::take(&mut slot.count), std::mem::take(&mut slot.places));
            self.part.terms.terms.push(Term { id, count, places });
        }
        self.part.terms.starts.push(self.part.terms.terms.len() as u32);
        self.part.terms.lengths.push(std::mem::take(&mut self.len));
        self.in_code = false;
    }

    /// The entities tokenised so far, for `Content::from_parts` or a build task's table.
    pub fn into_part(self) -> Part {
        self.part
    }
}

/// A new local term: its slot, and its word kept in `vocab` where a term table or a probe of
/// `local` (`kept`) needs it.
fn new_term(terms: &mut Vec<Slot>, vocab: &mut Vec<Box<str>>, profiling: bool, word: &str, kept: bool) -> u32 {
    let id = terms.len() as u32;
    let hash = if profiling { profile_hash(word) } else { Some(0) };
    terms.push(Slot { hash: hash.unwrap_or(0), counted: hash.is_some(), ..Slot::default() });
    if kept || !profiling {
        vocab.push(word.into());
    }
    id
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A profiling tokeniser keeps the text of a word no short key holds (longer than
    /// `SHORT_WORD`, or not ASCII) to compare it on its next occurrence: hundreds of such
    /// words, met again in later entities and in fenced code, give each entity the profile its
    /// text gives alone.
    #[test]
    fn a_profiling_tokeniser_gives_each_text_its_own_profile() {
        use crate::store::lint::near_duplicate::profile;
        let long = |i: usize| format!("interoperability{i}x counterrevolutionary{} Größenordnung{i}", i % 7);
        let texts: Vec<String> = (0..300)
            .map(|i| {
                let code = if i % 3 == 0 {
                    format!("\n```rust\nlet {} = naïveté;\n```\n", long(i + 1))
                } else {
                    String::new()
                };
                format!(
                    "Café Übermäßig {} and {} again {}{code}\nPlain closing words here.",
                    long(i),
                    long(i / 2),
                    long(i)
                )
            })
            .collect();
        let mut t = Tokeniser::profiling();
        for text in &texts {
            t.add(text);
            t.end_entity();
        }
        let made = t.into_part().into_profiles();
        assert_eq!(made.len(), texts.len());
        for (text, made) in texts.iter().zip(&made) {
            assert_eq!(made, &profile(text), "{text}");
            assert!(made.len() >= 8, "{text}");
        }
    }

    #[test]
    fn every_word_counted_once_per_entity_with_where_it_occurs() {
        let texts = ["Pillow pillow exif\n```python\nimport pillow\n```\n", "exif only"];
        let c = Content::from_texts(2, |i| texts[i].to_string());
        let word = |i: usize, w: &str| c.terms(i).iter().find(|t| &*c.words[t.id as usize] == w).copied();
        let pillow = word(0, "pillow").unwrap();
        assert_eq!((pillow.count, pillow.places), (3, IN_PROSE | IN_CODE));
        assert_eq!(word(0, "import").unwrap().places, IN_CODE);
        assert_eq!(word(0, "python").unwrap().places, 0, "a fence line's words are neither");
        assert_eq!(word(0, "exif").unwrap().id, word(1, "exif").unwrap().id, "one vocabulary");
        assert_eq!((c.length(0), c.length(1), c.len()), (6, 2, 2));
        assert!(word(1, "pillow").is_none());
    }

    /// Tokenising description and body apart, from the bytes read, gives what tokenising
    /// `compared_text` gave, in every fixture store (fences, CRLF, entries sharing a file).
    #[test]
    fn the_table_of_a_store_is_the_table_of_its_compared_texts() {
        let mut checked = 0;
        for (_, store) in crate::store::fixture_stores::all() {
            let n = store.entities.len();
            let got = Content::build(&store);
            let want = Content::from_texts(n, |i| body_text::compared_text(&store, i as EntityIdx));
            for i in 0..n {
                assert_eq!(named(&got, i), named(&want, i), "{}", store.entity(i as EntityIdx).path);
                assert_eq!(got.length(i), want.length(i));
            }
            checked += n;
        }
        assert!(checked > 100, "{checked}");
    }

    /// Each entity's terms by word, for comparing two tables.
    fn named(c: &Content, i: usize) -> Vec<(String, u16, u8)> {
        let mut t: Vec<(String, u16, u8)> =
            c.terms(i).iter().map(|t| (c.words[t.id as usize].to_string(), t.count, t.places)).collect();
        t.sort();
        t
    }

    /// The fixture stores, and stores whose files test the load's cut of bodies — bytes that
    /// are not UTF-8, a NUL past a file's first 8 KB inside one entry, a body longer than
    /// `BODY_READ_LIMIT` with a character across the cut, CRLF, entries sharing a file, a
    /// symlink out of the root, an unreadable file — written under `dir`: (root, format, why).
    pub(crate) fn stores_cutting_bodies(
        dir: &std::path::Path,
    ) -> Vec<(std::path::PathBuf, crate::store::dialect::DialectKind, String)> {
        use crate::store::read::detect;
        let vault = dir.join("vault");
        std::fs::create_dir_all(vault.join("notes")).unwrap();
        let write = |rel: &str, bytes: &[u8]| std::fs::write(vault.join(rel), bytes).unwrap();
        write("notes/plain.md", b"---\ntitle: Plain\ndescription: Short and Plain\n---\n# Plain\nPillow pillow EXIF\n");
        write("notes/crlf.md", b"---\r\ntitle: Crlf\r\n---\r\nLine one\r\n```\r\ncode Here\r\n```\r\n");
        write("notes/latin1.md", b"---\ntitle: Latin\n---\ncaf\xe9 na\xefve words\n");
        let mut long = b"---\ntitle: Long\n---\n".to_vec();
        let body_start = long.len();
        long.resize(body_start + super::body_text::BODY_READ_LIMIT as usize - 1, b'a');
        long.extend_from_slice("é tail words beyond the cut\n".as_bytes());
        write("notes/long.md", &long);
        let outside = dir.join("outside.md");
        std::fs::write(&outside, "# Outside\nsecret words\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, vault.join("notes/escape.md")).unwrap();
        let home = dir.join("home");
        std::fs::create_dir_all(home.join("memory")).unwrap();
        let mut lt = b"# Long-Term Memory\n\n## Patterns\n\n".to_vec();
        for i in 0..300 {
            lt.extend_from_slice(format!("- 2026-08-{:02}: Entry {i} about restic snapshots\n", i % 28 + 1).as_bytes());
        }
        lt.extend_from_slice(b"- 2026-08-11: Binary \0 entry past the first 8 KB\n- 2026-08-12: After the NUL\n");
        std::fs::write(home.join("memory/long-term.md"), &lt).unwrap();
        std::fs::write(home.join("AGENTS.md"), "# Agents\n").unwrap();

        let mut stores: Vec<(std::path::PathBuf, crate::store::dialect::DialectKind, String)> = Vec::new();
        for (root, _) in crate::store::fixture_stores::all() {
            let found = detect::detect(&root);
            stores.push((found.root, found.kind, found.reason));
        }
        stores.push((vault, crate::store::dialect::vault::KIND, "test".into()));
        let found = detect::detect(&home);
        stores.push((found.root, found.kind, found.reason));
        stores
    }

    /// The table the loader makes while it reads (`Reads::EntitiesAndTerms`) is the table read
    /// back from disk afterwards, entity by entity (`stores_cutting_bodies`).
    #[test]
    fn the_table_made_while_loading_is_the_table_read_afterwards() {
        use crate::store::Reads;
        let dir = tempfile::tempdir().unwrap();
        let stores = stores_cutting_bodies(dir.path());
        let mut checked = 0;
        for (root, kind, reason) in stores {
            let store = Store::load_with(&root, kind, reason, None, Reads::EntitiesAndTerms);
            let made = store.take_loaded_terms().expect("the load made the table");
            assert!(store.take_loaded_terms().is_none(), "the table is taken once");
            let n = store.entities.len();
            let all: Vec<EntityIdx> = (0..n as EntityIdx).collect();
            let read = Content::build_of(&store, &all);
            assert_eq!((made.len(), made.words.len()), (n, read.words.len()), "{}", root.display());
            for i in 0..n {
                assert_eq!(named(&made, i), named(&read, i), "{}", store.entity(i as EntityIdx).path);
                assert_eq!(made.length(i), read.length(i), "{}", store.entity(i as EntityIdx).path);
            }
            checked += n;
        }
        assert!(checked > 400, "{checked}");
    }

    /// A load that was not asked for the table makes none, and a store's refresh drops the one
    /// its load made (the bodies it holds may have changed).
    #[test]
    fn only_an_asked_load_makes_the_table_and_a_refresh_drops_it() {
        use crate::store::Reads;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\nalpha words\n").unwrap();
        let kind = crate::store::dialect::vault::KIND;
        assert!(Store::load(dir.path(), kind, "t".into()).take_loaded_terms().is_none());
        let mut store = Store::load_with(dir.path(), kind, "t".into(), None, Reads::EntitiesAndTerms);
        std::fs::write(dir.path().join("a.md"), "# A\nbeta words\n").unwrap();
        store.refresh(&["a.md"]);
        assert!(store.take_loaded_terms().is_none());
        let c = Content::build(&store);
        assert!(named(&c, 0).iter().any(|(w, _, _)| w == "beta"));
    }

    /// More distinct short words than the tokeniser's recent slots, each met again and again
    /// (words take one another's slots), long words and capitals beside them: each entity's
    /// terms are its words counted one by one.
    #[test]
    fn words_sharing_a_recent_slot_keep_their_own_numbers() {
        let texts: Vec<String> = (0..CHUNK + 50)
            .map(|i| {
                (0..60)
                    .map(|k| match k % 3 {
                        0 => format!("w{} ", (i * 37 + k * 101) % (RECENT * 4)),
                        1 => format!("W{} ", (i + k) % 50),
                        _ => format!("averyveryverylongword{} ", k % 7),
                    })
                    .collect()
            })
            .collect();
        let c = Content::from_texts(texts.len(), |i| texts[i].clone());
        let mut vocabulary = std::collections::BTreeSet::new();
        for (i, text) in texts.iter().enumerate() {
            let mut want: std::collections::BTreeMap<String, u16> = Default::default();
            for w in text.split_whitespace() {
                *want.entry(w.to_lowercase()).or_default() += 1;
                vocabulary.insert(w.to_lowercase());
            }
            let got: std::collections::BTreeMap<String, u16> =
                c.terms(i).iter().map(|t| (c.words[t.id as usize].to_string(), t.count)).collect();
            assert_eq!(got, want, "entity {i}");
        }
        assert_eq!(c.words.len(), vocabulary.len(), "each word numbered once");
    }

    #[test]
    fn tasks_share_one_vocabulary() {
        let texts: Vec<String> = (0..CHUNK * 2 + 3).map(|i| format!("common w{}", i % 7)).collect();
        let c = Content::from_texts(texts.len(), |i| texts[i].clone());
        assert_eq!(c.words.len(), 8);
        let common: Vec<u32> = (0..texts.len())
            .map(|i| c.terms(i).iter().find(|t| &*c.words[t.id as usize] == "common").unwrap().id)
            .collect();
        assert!(common.iter().all(|&id| id == common[0]));
    }
}
