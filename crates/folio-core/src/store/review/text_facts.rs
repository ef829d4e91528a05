//! What the inbox takes from each entity's own text (`TextFacts`): its hash and what the
//! format reads in its fields, kept in folio's cache beside the snapshot (issue 44), and
//! completed for the entities whose facts are missing or stale.
use serde::Serialize;
use serde_json::Value;

use super::authorship;
use super::reason::Reason;
use crate::store::Store;
use crate::store::dialect::Dialect;
use crate::store::model::entity::{Entity, EntityIdx};
use crate::store::read::frontmatter::Fields;

/// What the queue takes from an entity's own text: its hash, and what the format reads in its
/// fields (its own reasons, whether it is out of the active set or reviewed in its fields, its
/// author, agent run and evidence). Issue 44: folio's cache keeps them beside its snapshot, so
/// the inbox of an unchanged store opens none of its files.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct TextFacts {
    /// SHA-256 of the entity's own text (`Store::read_entity_text`).
    #[serde(with = "crate::store::model::hash_bytes")]
    pub hash: [u8; 32],
    /// `fingerprint` of the entity as parsed when these were taken: the format's rules read the
    /// entity beside its fields, and the same bytes parse otherwise under another clock or
    /// manifest (an AIP-10 `max-age`), so facts are kept only for the entity they were made for.
    pub entity: u64,
    pub inactive: bool,
    // Boxed rather than `Vec`/`String` (the same bytes in the cache): 24 bytes less per entity,
    // 100k of them held at once by `review list`.
    pub reasons: Box<[Reason]>,
    pub reviewed: bool,
    pub author: Option<Box<str>>,
    pub session: Option<Box<str>>,
    pub evidence: u64,
}

impl TextFacts {
    /// Read entity `idx`'s file for its facts; `None` when it cannot be read (it is then left
    /// out of the queue, as an entity whose text cannot be shown or hashed).
    pub fn read(store: &Store, idx: EntityIdx) -> Option<TextFacts> {
        let e = store.entity(idx);
        if e.escapes_root() {
            return None;
        }
        let text = store.read_text(idx).ok()?;
        TextFacts::of(store.dialect.as_ref(), e, &text)
    }

    /// The facts of entity `e` of a store in `dialect`, its file's text being `text` (as
    /// `Store::read_text` reads it); `None` for an entity outside the store's root.
    pub fn of(dialect: &dyn Dialect, e: &Entity, text: &str) -> Option<TextFacts> {
        use sha2::Digest as _;
        if e.escapes_root() {
            return None;
        }
        let own = text.get(e.span.start as usize..e.span.end as usize).unwrap_or(text);
        let f = dialect.fields(e, text);
        let rules = dialect.kind().format().review();
        let spec = dialect.kind().spec();
        Some(TextFacts {
            hash: sha2::Sha256::digest(own.as_bytes()).into(),
            entity: fingerprint(e),
            inactive: rules.inactive(&f),
            reasons: rules.queue_reasons(e, &f).into_boxed_slice(),
            reviewed: rules.reviewed_in_fields(e, &f),
            author: authorship::author(spec, &f).map(String::into_boxed_str),
            session: authorship::session(spec, &f).map(String::into_boxed_str),
            evidence: evidence(&f),
        })
    }

    /// The hash as the inbox and the ledger write it: `sha256:<hex>`.
    pub fn hash_text(&self) -> String {
        self.hash_chars().as_str().to_string()
    }

    /// `hash_text` without allocating (the inbox asks it of every entity).
    pub fn hash_chars(&self) -> HashChars {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 71];
        out[..7].copy_from_slice(b"sha256:");
        for (k, b) in self.hash.iter().enumerate() {
            out[7 + 2 * k] = HEX[usize::from(b >> 4)];
            out[8 + 2 * k] = HEX[usize::from(b & 15)];
        }
        HashChars(out)
    }
}

/// An entity's hash as text (`TextFacts::hash_chars`), on the stack.
pub struct HashChars([u8; 71]);

impl HashChars {
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever written into it.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// What of a parsed entity the format's queue rules may read beside its fields, hashed: its
/// id, place, status, kind, confidence and the rules of its problems.
pub fn fingerprint(e: &crate::store::model::entity::Entity) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    // A fixed seed: the fingerprint is kept in the cache and compared on the next run (of the
    // same build: the cache's header names it).
    let mut h = foldhash::fast::FixedState::with_seed(0x51_6f_6c_69_6f).build_hasher();
    (&e.id, &e.path, e.span.start, e.span.end).hash(&mut h);
    (e.status.as_deref(), e.kind.as_deref(), e.confidence.map(f64::to_bits)).hash(&mut h);
    let mut rules: Vec<&str> = e.problems.iter().map(|p| p.rule).collect();
    rules.sort_unstable();
    rules.dedup();
    rules.hash(&mut h);
    h.finish()
}

/// Fill in the facts of the entities in `range` that `facts` lacks or that no longer describe
/// their entity (`fingerprint`), reading their files in parallel. `facts` grows to the store's
/// size. Returns how many files were read.
pub fn complete_facts(store: &Store, facts: &mut Vec<Option<TextFacts>>, range: std::ops::Range<usize>) -> usize {
    use rayon::prelude::*;
    facts.resize(store.entities.len(), None);
    let range = range.start.min(facts.len())..range.end.min(facts.len());
    let start = range.start;
    // Past a few reads, a store held in memory is asked for every text at once (a database's
    // snapshot read whole) rather than looked up one by one. By one thread, without a lock:
    // the hold itself runs on rayon, whose thread may pick up another of these reads while it
    // waits (a lock taken again by its own thread would never be let go); the other threads
    // read one by one meanwhile, as `Store::read_text` always may.
    let reads = std::sync::atomic::AtomicUsize::new(0);
    let asked = std::sync::atomic::AtomicBool::new(false);
    let before_read = || {
        use std::sync::atomic::Ordering::Relaxed;
        if reads.fetch_add(1, Relaxed) >= BULK_AFTER && !asked.swap(true, Relaxed) {
            store.hold_texts();
        }
    };
    facts[range].par_iter_mut().enumerate().map(|(k, slot)| complete_one(store, slot, start + k, &before_read)).sum()
}

/// How many texts `complete_facts` reads one by one before it has the store hold them all.
const BULK_AFTER: usize = 32;

/// `complete_facts` on the calling thread. For a few hundred entities while the rayon pool is
/// busy (the TUI's lint pass tokenising every file): a parallel read would wait behind the
/// whole pass, seconds at 100k, where reading them here takes milliseconds (issue 44).
pub fn complete_facts_here(store: &Store, facts: &mut Vec<Option<TextFacts>>, range: std::ops::Range<usize>) -> usize {
    facts.resize(store.entities.len(), None);
    let range = range.start.min(facts.len())..range.end.min(facts.len());
    let start = range.start;
    facts[range].iter_mut().enumerate().map(|(k, slot)| complete_one(store, slot, start + k, &|| ())).sum()
}

/// Entity `i`'s facts in `slot` made current; 1 when its file was read.
fn complete_one(store: &Store, slot: &mut Option<TextFacts>, i: usize, before_read: &(dyn Fn() + Sync)) -> usize {
    let idx = i as EntityIdx;
    let e = store.entity(idx);
    if e.escapes_root() {
        *slot = None;
        return 0;
    }
    if slot.as_ref().is_some_and(|f| f.entity == fingerprint(e)) {
        return 0;
    }
    before_read();
    *slot = TextFacts::read(store, idx);
    1
}

/// The evidence count a format records in its fields (a map of counts, a list, a number).
fn evidence(f: &Fields) -> u64 {
    match f.get("evidence") {
        Some(Value::Object(m)) => m.values().filter_map(Value::as_u64).sum(),
        Some(Value::Array(a)) => a.len() as u64,
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn authors_and_evidence() {
        let f: Fields = serde_json::from_value(json!({
            "generated": {"by": "agent:scout"},
            "evidence": {"applied": 9, "ok": 9, "fail": 0}
        }))
        .unwrap();
        let okf = crate::store::dialect::okf::KIND.spec();
        assert_eq!(authorship::author(okf, &f).as_deref(), Some("agent:scout"));
        assert_eq!(evidence(&f), 18);
    }
}
