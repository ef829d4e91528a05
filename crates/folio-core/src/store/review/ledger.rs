//! The review ledger in the store-local folio state (`review/` under `.folio/` or
//! `.evolve/folio/`): one JSON line per verdict (`verdicts.jsonl`) and the approved texts,
//! content-addressed under `review/approved/` with no `.md` extension, so "changed since
//! approval" and the diff against the last approved version work across sessions and clones.
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::store::write::changeset::Write;
use crate::store::write::journal::Role;
use crate::store::write::state::State;
use crate::store::{Store, model::digest};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictRecord {
    pub entity: String,
    /// approve, veto, forget, promote, merge.
    pub verdict: String,
    /// Digest of the entity's text the verdict is about (after the write for approve).
    pub hash: String,
    pub by: String,
    pub ts: String,
    /// Digest of the entity's text right after a verdict that left it in place but out of the
    /// active set (an OKF veto's `status: deprecated`): a later change to it re-queues it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// The undo record of the changeset that carried the verdict (none for a log-only verdict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changeset: Option<String>,
    /// The decisions on the entity its reviewer had seen (`key`s of the ledger's heads then;
    /// empty: none). Two clones deciding apart both name what they saw, so after a git merge
    /// neither names the other: both stay heads. None: written before folio kept this, read as
    /// following every earlier line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<Vec<String>>,
}

impl VerdictRecord {
    /// What names this decision in a later one's `seen`.
    pub fn key(&self) -> String {
        format!("{} {} {} {}", self.ts, self.by, self.verdict, self.hash)
    }
}

/// foldhash for the tables the inbox asks of every entity: the keys are the ledger's own ids
/// and digests, and SipHash over 100k ids was a twentieth of the brain's `review list`.
type Fast = foldhash::fast::RandomState;

#[derive(Debug, Clone, Default)]
pub struct Ledger {
    dir: PathBuf,
    records: Vec<VerdictRecord>,
    /// Positions in `records` per entity, oldest first, and every vetoed hash: the inbox asks
    /// both of every entity (a scan of every record per entity was quadratic: after a baseline
    /// of 10,000 entities, 10^8 record comparisons per inbox).
    of_entity: HashMap<String, Vec<usize>, Fast>,
    vetoed: HashSet<String, Fast>,
}

impl Ledger {
    pub fn open(store: &Store) -> Ledger {
        Ledger::read(store).unwrap_or_else(|_| Ledger { dir: review_dir(store), ..Ledger::default() })
    }

    /// `open` for a write, which must not take a ledger it could not read for an empty one.
    pub fn read(store: &Store) -> io::Result<Ledger> {
        let dir = review_dir(store);
        let text = match std::fs::read(dir.join("verdicts.jsonl")) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e),
        };
        // A damaged line is skipped, not fatal: the worst outcome is an item back in the queue.
        let records = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        Ok(Ledger { dir, ..Ledger::default() }.with(records))
    }

    /// This ledger holding `records` (in file order) instead of its own.
    fn with(mut self, records: Vec<VerdictRecord>) -> Ledger {
        self.records.clear();
        self.of_entity.clear();
        self.vetoed.clear();
        for r in records {
            self.push(r);
        }
        self
    }

    fn push(&mut self, r: VerdictRecord) {
        self.of_entity.entry(r.entity.clone()).or_default().push(self.records.len());
        if r.verdict == "veto" {
            self.vetoed.insert(r.hash.clone());
        }
        self.records.push(r);
    }

    /// The records on `entity`, oldest first.
    fn of(&self, entity: &str) -> impl DoubleEndedIterator<Item = &VerdictRecord> {
        self.of_entity.get(entity).into_iter().flatten().map(|&i| &self.records[i])
    }

    pub fn records(&self) -> &[VerdictRecord] {
        &self.records
    }

    /// The newest verdict on each entity.
    pub fn latest(&self) -> HashMap<&str, &VerdictRecord> {
        self.records.iter().map(|r| (r.entity.as_str(), r)).collect()
    }

    /// The decisions on `entity` no later decision has seen: one, unless reviewers decided
    /// apart (in two clones merged through git).
    pub fn heads(&self, entity: &str) -> Vec<&VerdictRecord> {
        let mine: Vec<&VerdictRecord> = self.of(entity).collect();
        let mut seen = std::collections::HashSet::new();
        for (i, r) in mine.iter().enumerate() {
            match &r.seen {
                Some(saw) => seen.extend(saw.iter().cloned()),
                // An older line follows every line before it.
                None => seen.extend(mine[..i].iter().map(|p| p.key())),
            }
        }
        let mut heads: Vec<&VerdictRecord> = mine.into_iter().filter(|r| !seen.contains(&r.key())).collect();
        heads.dedup_by_key(|r| r.key());
        heads
    }

    /// Reviewers who decided apart and disagree (one approved, one vetoed): every such head,
    /// for the inbox to show side by side rather than pick one.
    pub fn conflict(&self, entity: &str) -> Option<Vec<&VerdictRecord>> {
        // Two heads at least: most entities have no decision, or one.
        if self.of_entity.get(entity).is_none_or(|at| at.len() < 2) {
            return None;
        }
        let heads = self.heads(entity);
        let approved = heads.iter().any(|r| is_approval(&r.verdict));
        let vetoed = heads.iter().any(|r| r.verdict == "veto");
        (approved && vetoed).then_some(heads)
    }

    /// The newest approval of `entity`.
    pub fn last_approval(&self, entity: &str) -> Option<&VerdictRecord> {
        self.of(entity).rev().find(|r| is_approval(&r.verdict))
    }

    /// Whether this exact content was vetoed before (it is never proposed again as is).
    pub fn vetoed_form(&self, hash: &str) -> bool {
        self.vetoed.contains(hash)
    }

    /// The text that was approved under `hash`, if kept.
    pub fn approved_text(&self, hash: &str) -> Option<String> {
        let bytes = std::fs::read(self.dir.join("approved").join(digest::hex(hash))).ok()?;
        (digest::of(&bytes) == hash).then(|| String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The writes that append `verdicts`, approvals keeping their text as a snapshot: a create
    /// of each approved text not kept yet and one write of `verdicts.jsonl` with the new lines
    /// after the old ones. They go into the changeset that carries the verdicts.
    pub fn writes(&self, store: &Store, verdicts: Vec<(VerdictRecord, Option<String>)>) -> io::Result<Vec<Write>> {
        let rel = |p: &std::path::Path| crate::store::model::relpath::from_root(&store.root, p);
        let ledger = self.dir.join("verdicts.jsonl");
        let old = match std::fs::read(&ledger) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let mut lines = old.clone().unwrap_or_default();
        if !lines.is_empty() && !lines.ends_with(b"\n") {
            lines.push(b'\n');
        }
        let mut out = Vec::new();
        for (r, text) in verdicts {
            if let Some(text) = text {
                let d = digest::of(text.as_bytes());
                let p = self.dir.join("approved").join(digest::hex(&d));
                let path = rel(&p);
                if !p.exists() && !out.iter().any(|w: &Write| w.path == path) {
                    out.push(Write { path, expected: None, after: Some(text.into_bytes()), role: Role::Ledger });
                }
            }
            lines.extend_from_slice(serde_json::to_string(&r)?.as_bytes());
            lines.push(b'\n');
        }
        let expected = old.as_deref().map(digest::of);
        out.push(Write { path: rel(&ledger), expected, after: Some(lines), role: Role::Ledger });
        Ok(out)
    }
}

fn review_dir(store: &Store) -> PathBuf {
    State::for_store(&store.root, store.kind()).verdicts_path().parent().map(PathBuf::from).unwrap_or_default()
}

/// The verdict a baseline records (`review::baseline`): an approval of the text as it stood.
pub const BASELINE: &str = "baseline";

pub fn is_approval(verdict: &str) -> bool {
    matches!(verdict, "approve" | "promote" | "merge" | BASELINE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::changeset_lines::without_changeset;

    fn rec(entity: &str, verdict: &str, hash: &str, cs: Option<&str>) -> VerdictRecord {
        VerdictRecord {
            entity: entity.into(),
            verdict: verdict.into(),
            hash: hash.into(),
            by: "human:t".into(),
            ts: "2026-01-01T00:00:00Z".into(),
            after: None,
            changeset: cs.map(String::from),
            seen: None,
        }
    }

    #[test]
    fn records_snapshots_and_undone_changesets() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "---\ntype: T\n---\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::okf::KIND, "test".into());
        let l = Ledger::open(&store);
        let text = "approved text".to_string();
        let h = digest::of(text.as_bytes());
        let writes = l
            .writes(
                &store,
                vec![
                    (rec("a", "approve", &h, Some("c1")), Some(text.clone())),
                    (rec("b", "veto", "sha256:x", Some("c2")), None),
                ],
            )
            .unwrap();
        assert_eq!(writes.len(), 2, "the approved text and the ledger");
        assert!(writes.iter().all(|w| w.role == Role::Ledger));
        for w in writes {
            let p = dir.path().join(&w.path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, w.after.unwrap()).unwrap();
        }
        let l = Ledger::open(&store);
        assert_eq!(l.records().len(), 2);
        assert_eq!(l.last_approval("a").unwrap().hash, h);
        assert_eq!(l.approved_text(&h).as_deref(), Some("approved text"));
        assert!(l.vetoed_form("sha256:x"));
        let ledger = dir.path().join(".folio/review/verdicts.jsonl");
        let mut text = std::fs::read(&ledger).unwrap();
        text.extend_from_slice(b"not json, kept as it is\n");
        std::fs::write(&ledger, &text).unwrap();
        assert!(without_changeset(&ledger, "c9").unwrap().is_none());
        let w = without_changeset(&ledger, "c2").unwrap().unwrap();
        assert_eq!(w.path, ledger);
        assert_eq!(w.expected, digest::of(&text));
        let kept = String::from_utf8(w.bytes.clone()).unwrap();
        assert!(kept.starts_with("{\"entity\":\"a\"") && kept.ends_with("}\nnot json, kept as it is\n"), "{kept}");
        std::fs::write(&ledger, &w.bytes).unwrap();
        let l = Ledger::open(&store);
        assert!(!l.vetoed_form("sha256:x"));
        assert_eq!(l.records().len(), 1);
        assert!(
            !dir.path().join(".folio/review/approved").read_dir().unwrap().any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".md"))
        );
    }

    #[test]
    fn decisions_made_apart_that_disagree_are_a_conflict_until_one_follows_both() {
        let mut a = rec("x", "approve", "sha256:a", None);
        a.seen = Some(Vec::new());
        let mut b = rec("x", "veto", "sha256:o", None);
        b.by = "human:bob".into();
        b.seen = Some(Vec::new());
        let l = Ledger::default().with(vec![a.clone(), b.clone()]);
        let heads: Vec<String> = l.conflict("x").unwrap().iter().map(|r| r.by.clone()).collect();
        assert_eq!(heads, ["human:t", "human:bob"]);
        // Lines from before `seen` existed follow every earlier line: no conflict.
        let (mut a0, mut b0) = (a.clone(), b.clone());
        a0.seen = None;
        b0.seen = None;
        let l = Ledger::default().with(vec![a0, b0]);
        assert!(l.conflict("x").is_none());
        // A decision that saw both settles it.
        let mut c = rec("x", "veto", "sha256:a", None);
        c.ts = "2026-01-02T00:00:00Z".into();
        c.seen = Some(vec![a.key(), b.key()]);
        let l = Ledger::default().with(vec![a, b, c]);
        assert!(l.conflict("x").is_none());
        assert_eq!(l.heads("x").len(), 1);
    }
}
