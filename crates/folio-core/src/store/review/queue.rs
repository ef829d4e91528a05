//! The review queue (docs/review.md, "The review queue"): what the dialect marks as awaiting a
//! decision, what changed since its last approval, and what was never reviewed — each item
//! with its reasons, kind, age, author, evidence, lint findings and hidden-content warning.
use serde::Serialize;

pub use super::reason::{ALL, Reason, TIERS};
pub use super::text_facts::{HashChars, TextFacts, complete_facts, complete_facts_here, fingerprint};

use super::diff;
use super::ledger::{Ledger, VerdictRecord, is_approval};
use crate::store::lint::{self, LintConfig};
use crate::store::model::entity::Severity;
use crate::store::model::entity::{EntityIdx, rule};
use crate::store::{Store, lint::ProfileSource};

#[derive(Debug, Clone, Default, Serialize)]
pub struct QueueItem {
    #[serde(skip)]
    pub idx: EntityIdx,
    pub id: String,
    pub title: String,
    pub path: String,
    pub kind: Option<String>,
    pub status: Option<String>,
    pub reasons: Vec<Reason>,
    /// Days since `updated` (or `created`), when the entity dates itself.
    pub age_days: Option<i64>,
    /// Who wrote it (OKF `generated.by`, opendray `provenance.source`, `author`…; `authorship`).
    pub author: Option<String>,
    /// The agent run that wrote it (evolve `trajectory`, a `session_id`…; `authorship`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub sources: usize,
    /// opendray `evidence` counts summed; awareness evidence items.
    pub evidence: u64,
    pub confidence: Option<f64>,
    /// `rule: message` for every lint finding on the entity.
    pub findings: Vec<String>,
    /// Terminal control characters or invisible text: approval needs a second confirmation.
    pub hidden_content: bool,
    /// The inbox tier (1 most urgent … 6 never reviewed), the most urgent of `reasons`.
    pub priority: u8,
    pub hash: String,
    /// Verdicts that conflict (`verdict by who at when`), each reviewer's, when reviewers
    /// decided apart and disagree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<String>,
    /// The hash of the last approved version, when there is one.
    pub approved_hash: Option<String>,
    /// The entity a `near-duplicate` finding pairs this one with (shown side by side, the first
    /// one offered to merge into).
    #[serde(skip)]
    pub duplicate_of: Option<EntityIdx>,
    /// The entity a `possible-contradiction` finding pairs this one with (`C` confirms the pair
    /// as a contradiction, `i` dismisses it).
    #[serde(skip)]
    pub contradiction_with: Option<EntityIdx>,
}

/// Build the queue in order of need (`order`).
pub fn build(store: &Store) -> Vec<QueueItem> {
    build_using(store, &|| lint::near_duplicate::all_profiles(store), &mut Vec::new()).0
}

/// `build` with the near-duplicate profiles and the entities' text facts from elsewhere
/// (folio's cache: `facts[i]`, where still valid, spares reading entity `i`'s file; `facts`
/// is left with every entity's facts as they are now). Returns the queue and how many files
/// were read for their facts.
pub fn build_using(
    store: &Store,
    profiles: ProfileSource,
    facts: &mut Vec<Option<TextFacts>>,
) -> (Vec<QueueItem>, usize) {
    let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
    let report = lint::lint_with(store, &config, profiles);
    build_with_facts(store, &report, facts)
}

/// `build` with the store's lint report already at hand (the TUI keeps one current).
pub fn build_with(store: &Store, report: &lint::Report) -> Vec<QueueItem> {
    build_with_facts(store, report, &mut Vec::new()).0
}

/// `build_with`, the text facts completed from `facts` (see `build_using`).
pub fn build_with_facts(
    store: &Store,
    report: &lint::Report,
    facts: &mut Vec<Option<TextFacts>>,
) -> (Vec<QueueItem>, usize) {
    let read = complete_facts(store, facts, 0..store.entities.len());
    let verdicts = Verdicts::open(store);
    let builder = Builder::new(store, report, &verdicts);
    let mut out: Vec<QueueItem> =
        (0..store.entities.len()).filter_map(|i| builder.item(i as EntityIdx, facts[i].as_ref()?)).collect();
    order(&mut out);
    (out, read)
}

/// The verdicts the queue weighs: folio's ledger and the store's own log.
pub struct Verdicts {
    ledger: Ledger,
    logged: Vec<VerdictRecord>,
}

impl Verdicts {
    pub fn open(store: &Store) -> Verdicts {
        Verdicts { ledger: Ledger::open(store), logged: store.kind().format().review().logged_verdicts(store) }
    }
}

/// What the queue needs of the whole store, gathered once; then each entity's item from its
/// text facts (`item`), so a face can build the queue in batches.
pub struct Builder<'a> {
    store: &'a Store,
    ledger: &'a Ledger,
    latest: std::collections::HashMap<&'a str, &'a VerdictRecord>,
    logged_approval: std::collections::HashMap<&'a str, &'a VerdictRecord>,
    /// Every finding on an entity, grouped by entity in report order: entity `i`'s are
    /// `findings[findings_start[i]..findings_start[i + 1]]` (two tables rather than a list per
    /// entity: 100k lists were ≈ 50 bytes per entity of the inbox's peak, issue 44).
    findings: Vec<&'a lint::Finding>,
    findings_start: Vec<u32>,
    today: time::Date,
}

impl<'a> Builder<'a> {
    pub fn new(store: &'a Store, report: &'a lint::Report, verdicts: &'a Verdicts) -> Builder<'a> {
        // The store's own record of verdicts first; folio's ledger, where it has one, wins.
        let mut latest: std::collections::HashMap<&str, &VerdictRecord> =
            verdicts.logged.iter().map(|r| (r.entity.as_str(), r)).collect();
        latest.extend(verdicts.ledger.latest());
        // Each entity's findings and the store log's newest approval, gathered once: looked up
        // per entity by a scan of all of them, the inbox was quadratic in the store's size.
        let n = store.entities.len();
        let of = |f: &lint::Finding| f.entity.map(|i| i as usize).filter(|&i| i < n);
        let mut findings_start = vec![0u32; n + 1];
        for i in report.findings.iter().filter_map(of) {
            findings_start[i + 1] += 1;
        }
        for i in 0..n {
            findings_start[i + 1] += findings_start[i];
        }
        // Each entity's next free place, then filled in report order.
        let mut next = findings_start.clone();
        let mut findings: Vec<&lint::Finding> = Vec::new();
        if let Some(first) = report.findings.first() {
            findings = vec![first; findings_start[n] as usize];
        }
        for f in &report.findings {
            if let Some(i) = of(f) {
                findings[next[i] as usize] = f;
                next[i] += 1;
            }
        }
        let mut logged_approval = std::collections::HashMap::new();
        for r in verdicts.logged.iter().filter(|r| is_approval(&r.verdict)) {
            logged_approval.insert(r.entity.as_str(), r);
        }
        Builder {
            store,
            ledger: &verdicts.ledger,
            latest,
            logged_approval,
            findings,
            findings_start,
            today: crate::store::write::audit::now().date(),
        }
    }

    /// Entity `idx`'s queue item, given its text facts; `None` when it awaits no decision.
    pub fn item(&self, idx: EntityIdx, facts: &TextFacts) -> Option<QueueItem> {
        let mut item = QueueItem::default();
        self.item_into(idx, facts, &mut item).then_some(item)
    }

    /// `item`, written over `out` (whose text and lists keep their capacity, so a listing that
    /// reuses one item allocates nothing per entity; issue 44); false, with `out` left
    /// unspecified, when the entity awaits no decision.
    pub fn item_into(&self, idx: EntityIdx, facts: &TextFacts, out: &mut QueueItem) -> bool {
        self.decide_into(idx, facts, out) && {
            self.fill(facts, out);
            true
        }
    }

    /// Start loading the entity a little further on in store order, and its date, which
    /// `decide_into` reads of every entity: an inbox of 100k entities waited on each one's
    /// date in turn (docs/benchmarks.md, "Thirty-fourth session").
    #[inline]
    pub fn look_ahead(&self, idx: EntityIdx) {
        crate::store::model::prefetch::entity_ahead(&self.store.entities, idx as usize, |e| {
            e.updated.as_deref().or(e.created.as_deref()).unwrap_or_default()
        });
    }

    /// The part of `item_into` that says whether entity `idx` awaits a decision and where it
    /// goes in the queue: its `idx`, `reasons`, `verdicts`, `priority` and `age_days` (what
    /// `order` and `counts` read), the rest of `out` left as it was. `review list` orders
    /// 100k entities with it and builds each whole item only as it is written (issue 44).
    pub fn decide_into(&self, idx: EntityIdx, facts: &TextFacts, out: &mut QueueItem) -> bool {
        let store = self.store;
        let ledger = self.ledger;
        let i = idx as usize;
        let e = store.entity(idx);
        // Disagreeing verdicts from apart stay in the inbox whatever the veto wrote (a
        // deprecated status, an inactive field): a person settles them, folio does not.
        let conflict = ledger.conflict(&e.id);
        if e.escapes_root() {
            return false;
        }
        let hash = facts.hash_chars();
        let hash = hash.as_str();
        if conflict.is_none() && ledger.vetoed_form(hash) {
            return false;
        }
        let last = self.latest.get(e.id.as_str());
        // Out of the active set stays out — unless someone changed it after a person vetoed
        // or forgot it (a veto that leaves the file in place records the text it wrote).
        let edited_after_veto =
            last.is_some_and(|r| !is_approval(&r.verdict) && r.after.as_ref().is_some_and(|a| a != hash));
        let inactive =
            e.status.as_deref().is_some_and(|s| store.kind().spec().inactive_statuses.contains(&s)) || facts.inactive;
        if inactive && !edited_after_veto && conflict.is_none() {
            return false;
        }
        let hidden = e.problems.iter().any(|p| p.rule == rule::CONTROL_CHARS);
        let reasons = &mut out.reasons;
        reasons.clear();
        if hidden {
            reasons.push(Reason::HiddenContent);
        }
        reasons.extend(facts.reasons.iter().copied());
        let mine =
            || self.findings[self.findings_start[i] as usize..self.findings_start[i + 1] as usize].iter().copied();
        let duplicate_of = mine().find(|x| x.rule == lint::near_duplicate::RULE).and_then(|x| x.other);
        if duplicate_of.is_some() || mine().any(|x| x.rule == lint::near_duplicate::RULE) {
            reasons.push(Reason::NearDuplicate);
        }
        let contradiction_with = mine().find(|x| x.rule == lint::possible_contradiction::RULE).and_then(|x| x.other);
        if contradiction_with.is_some() {
            reasons.push(Reason::PossibleContradiction);
        }
        if mine().any(|x| x.severity == Severity::Error) {
            reasons.push(Reason::LintError);
        }
        let decided_on = |r: &VerdictRecord| r.hash == hash || r.after.as_deref() == Some(hash);
        match last {
            // The store's own fields say a person reviewed it as it stands (OKF `verified`).
            None if facts.reviewed => {}
            None => reasons.push(Reason::NeverReviewed),
            // Changed since the last verdict: since an approval, or since a veto or forget (a
            // reset to `draft` of a never-approved item is not "changed since approval").
            Some(r) if !decided_on(r) && is_approval(&r.verdict) => reasons.push(Reason::ChangedSinceApproval),
            Some(r) if !decided_on(r) => reasons.push(Reason::ChangedSinceVeto),
            // The person decided on exactly this content: nothing the dialect flags re-queues it.
            Some(r) if is_approval(&r.verdict) => reasons.clear(),
            Some(_) => reasons.clear(),
        }
        out.verdicts.clear();
        out.verdicts.extend(conflict.iter().flatten().map(|r| format!("{} by {} at {}", r.verdict, r.by, r.ts)));
        if !out.verdicts.is_empty() {
            reasons.retain(|r| !matches!(r, Reason::ChangedSinceApproval | Reason::ChangedSinceVeto));
            reasons.insert(0, Reason::VerdictConflict);
        }
        if reasons.is_empty() {
            return false;
        }
        out.idx = idx;
        out.priority = priority(&out.reasons);
        out.age_days = e.updated.as_deref().or(e.created.as_deref()).and_then(|d| age(d, self.today));
        true
    }

    /// What `review list` prints of the entity `decide_into` just placed in `placed`, read from
    /// the entity and its facts rather than copied into an item (`fill`): the same values as
    /// the filled item's.
    pub fn line<'s>(&'s self, facts: &'s TextFacts, placed: &'s QueueItem) -> Line<'s> {
        let i = placed.idx as usize;
        let e = self.store.entity(placed.idx);
        Line {
            reasons: &placed.reasons,
            age_days: placed.age_days,
            id: &e.id,
            kind: e.kind.as_deref(),
            author: facts.author.as_deref(),
            sources: e.sources.len(),
            evidence: facts.evidence,
            findings: (self.findings_start[i + 1] - self.findings_start[i]) as usize,
            hidden_content: e.problems.iter().any(|p| p.rule == rule::CONTROL_CHARS),
        }
    }

    /// Every field `review list --json` prints of the entity `decide_into` just placed in
    /// `placed`, borrowed from the entity, its facts and its findings rather than copied into
    /// an item (`fill`): the same values as the filled item's. `hash` is `facts.hash_chars()`.
    pub fn view<'s>(&'s self, facts: &'s TextFacts, placed: &'s QueueItem, hash: &'s str) -> ItemView<'s> {
        let i = placed.idx as usize;
        let e = self.store.entity(placed.idx);
        let approved = self
            .ledger
            .last_approval(&e.id)
            .or_else(|| self.logged_approval.get(e.id.as_str()).copied())
            .map(|r| r.hash.as_str());
        ItemView {
            id: &e.id,
            title: &e.title,
            path: &e.path,
            kind: e.kind.as_deref(),
            status: e.status.as_deref(),
            reasons: &placed.reasons,
            age_days: placed.age_days,
            author: facts.author.as_deref(),
            session: facts.session.as_deref(),
            sources: e.sources.len(),
            evidence: facts.evidence,
            confidence: e.confidence,
            findings: FindingTexts::Parts(
                &self.findings[self.findings_start[i] as usize..self.findings_start[i + 1] as usize],
            ),
            hidden_content: e.problems.iter().any(|p| p.rule == rule::CONTROL_CHARS),
            priority: placed.priority,
            hash,
            verdicts: &placed.verdicts,
            approved_hash: approved,
        }
    }

    /// The rest of `item_into` for the entity `decide_into` just placed in `out`: its text,
    /// findings, authorship and hashes, each written over what `out` held.
    pub fn fill(&self, facts: &TextFacts, out: &mut QueueItem) {
        let i = out.idx as usize;
        let e = self.store.entity(out.idx);
        let hash = facts.hash_chars();
        let hash = hash.as_str();
        let mine =
            || self.findings[self.findings_start[i] as usize..self.findings_start[i + 1] as usize].iter().copied();
        let approved = self
            .ledger
            .last_approval(&e.id)
            .or_else(|| self.logged_approval.get(e.id.as_str()).copied())
            .map(|r| r.hash.as_str());
        // Each finding written over the text the last item left in its place.
        let n = mine().count();
        out.findings.truncate(n);
        for (k, x) in mine().enumerate() {
            use std::fmt::Write as _;
            if k == out.findings.len() {
                out.findings.push(String::new());
            }
            let f = &mut out.findings[k];
            f.clear();
            let _ = write!(f, "{}: {}", x.rule, x.message);
        }
        set(&mut out.id, &e.id);
        set(&mut out.title, &e.title);
        set(&mut out.path, &e.path);
        set_option(&mut out.kind, e.kind.as_deref());
        set_option(&mut out.status, e.status.as_deref());
        set_option(&mut out.author, facts.author.as_deref());
        set_option(&mut out.session, facts.session.as_deref());
        out.sources = e.sources.len();
        out.evidence = facts.evidence;
        out.confidence = e.confidence;
        out.hidden_content = e.problems.iter().any(|p| p.rule == rule::CONTROL_CHARS);
        set(&mut out.hash, hash);
        set_option(&mut out.approved_hash, approved);
        out.duplicate_of = mine().find(|x| x.rule == lint::near_duplicate::RULE).and_then(|x| x.other);
        out.contradiction_with = mine().find(|x| x.rule == lint::possible_contradiction::RULE).and_then(|x| x.other);
    }
}

/// The fields of a queue item that `review list` prints as its line, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line<'s> {
    pub reasons: &'s [Reason],
    pub age_days: Option<i64>,
    pub id: &'s str,
    pub kind: Option<&'s str>,
    pub author: Option<&'s str>,
    pub sources: usize,
    pub evidence: u64,
    /// How many findings the item has.
    pub findings: usize,
    pub hidden_content: bool,
}

/// The fields of a queue item that `review list --json` prints, in its order, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemView<'s> {
    pub id: &'s str,
    pub title: &'s str,
    pub path: &'s str,
    pub kind: Option<&'s str>,
    pub status: Option<&'s str>,
    pub reasons: &'s [Reason],
    pub age_days: Option<i64>,
    pub author: Option<&'s str>,
    pub session: Option<&'s str>,
    pub sources: usize,
    pub evidence: u64,
    pub confidence: Option<f64>,
    pub findings: FindingTexts<'s>,
    pub hidden_content: bool,
    pub priority: u8,
    pub hash: &'s str,
    pub verdicts: &'s [String],
    pub approved_hash: Option<&'s str>,
}

/// An item's findings as `rule: message` texts: the findings themselves (a listing's view,
/// nothing written per finding) or the texts a held item already wrote.
#[derive(Debug, Clone, Copy)]
pub enum FindingTexts<'s> {
    Parts(&'s [&'s lint::Finding]),
    Whole(&'s [String]),
}

impl FindingTexts<'_> {
    pub fn len(&self) -> usize {
        match self {
            FindingTexts::Parts(f) => f.len(),
            FindingTexts::Whole(t) => t.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands each finding's text to `each` as the pieces it is made of, in order (joined, they
    /// are the item's `findings` text).
    pub fn try_each<E>(&self, mut each: impl FnMut(&[&str]) -> Result<(), E>) -> Result<(), E> {
        match self {
            FindingTexts::Parts(f) => f.iter().try_for_each(|x| each(&[x.rule, ": ", &x.message])),
            FindingTexts::Whole(t) => t.iter().try_for_each(|x| each(&[x])),
        }
    }
}

/// Two lists of findings are equal when their texts are.
impl PartialEq for FindingTexts<'_> {
    fn eq(&self, other: &Self) -> bool {
        let texts = |f: &Self| {
            let mut out = Vec::new();
            let _ = f.try_each(|p| {
                out.push(p.concat());
                Ok::<_, ()>(())
            });
            out
        };
        texts(self) == texts(other)
    }
}

impl QueueItem {
    /// The item's `ItemView`.
    pub fn view(&self) -> ItemView<'_> {
        ItemView {
            id: &self.id,
            title: &self.title,
            path: &self.path,
            kind: self.kind.as_deref(),
            status: self.status.as_deref(),
            reasons: &self.reasons,
            age_days: self.age_days,
            author: self.author.as_deref(),
            session: self.session.as_deref(),
            sources: self.sources,
            evidence: self.evidence,
            confidence: self.confidence,
            findings: FindingTexts::Whole(&self.findings),
            hidden_content: self.hidden_content,
            priority: self.priority,
            hash: &self.hash,
            verdicts: &self.verdicts,
            approved_hash: self.approved_hash.as_deref(),
        }
    }

    /// The item's `Line`.
    pub fn line(&self) -> Line<'_> {
        Line {
            reasons: &self.reasons,
            age_days: self.age_days,
            id: &self.id,
            kind: self.kind.as_deref(),
            author: self.author.as_deref(),
            sources: self.sources,
            evidence: self.evidence,
            findings: self.findings.len(),
            hidden_content: self.hidden_content,
        }
    }
}

/// `to` made `from`, in the capacity it has.
fn set(to: &mut String, from: &str) {
    to.clear();
    to.push_str(from);
}

/// `set` for an optional text: `None` drops what `to` held, `Some` reuses it.
fn set_option(to: &mut Option<String>, from: Option<&str>) {
    match (to.as_mut(), from) {
        (Some(t), Some(f)) => set(t, f),
        (_, f) => *to = f.map(String::from),
    }
}

/// By need: the most urgent tier first, each tier newest first, store order among equals.
pub fn order(items: &mut [QueueItem]) {
    items.sort_by_key(|i| (i.priority, i.age_days.unwrap_or(i64::MAX)));
}

/// Merge `batch` (in `order`) into `items` (in `order`), as `order` would place them had they
/// been one list with `items` first: a queue built in batches of entities in store order ends
/// as the queue built at once.
pub fn merge(items: &mut Vec<QueueItem>, batch: Vec<QueueItem>) {
    if batch.is_empty() {
        return;
    }
    if items.is_empty() {
        *items = batch;
        return;
    }
    items.extend(batch);
    // Two sorted runs: the stable sort merges them in one pass.
    order(items);
}

/// How many items carry each reason, in tier order, reasons no item has left out.
pub fn counts<'a>(items: impl IntoIterator<Item = &'a QueueItem>) -> Vec<(Reason, usize)> {
    let mut n = [0usize; ALL.len()];
    for i in items {
        for r in &i.reasons {
            if let Some(k) = ALL.iter().position(|x| x == r) {
                n[k] += 1;
            }
        }
    }
    ALL.into_iter().zip(n).filter(|(_, c)| *c > 0).collect()
}

/// `hidden-content 1 · draft 3 · never-reviewed 30`: the header line of the inbox.
pub fn counts_line<'a>(items: impl IntoIterator<Item = &'a QueueItem>) -> String {
    counts_text(&counts(items))
}

/// `counts_line` from the counts (`counts`).
pub fn counts_text(counts: &[(Reason, usize)]) -> String {
    counts.iter().map(|(r, c)| format!("{} {c}", r.code())).collect::<Vec<_>>().join(" · ")
}

/// An item's tier: the most urgent of its reasons.
pub fn priority(reasons: &[Reason]) -> u8 {
    reasons.iter().map(|r| r.tier()).min().unwrap_or(TIERS)
}

/// Whole days from a `YYYY-MM-DD…` date to today.
fn age(date: &str, today: time::Date) -> Option<i64> {
    let d = date.get(..10)?;
    let day = match ymd(d.as_bytes()) {
        // `YYYY-MM-DD` in digits, the usual case, read without the parser (the inbox ages
        // 100k entities twice, issue 44); the calendar check is the same one.
        Some((y, m, dd)) => time::Date::from_calendar_date(y, time::Month::try_from(m).ok()?, dd).ok()?,
        None => {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            time::Date::parse(d, &format).ok()?
        }
    };
    Some((today - day).whole_days())
}

/// (year, month, day) of ten bytes `YYYY-MM-DD`, each a decimal digit but the dashes.
fn ymd(b: &[u8]) -> Option<(i32, u8, u8)> {
    let digits = |r: std::ops::Range<usize>| {
        b.get(r)?.iter().try_fold(0u32, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    Some((digits(0..4)? as i32, digits(5..7)? as u8, digits(8..10)? as u8))
}

/// An item's change since its last approval: (approved text, word diff), or None when it
/// never had one (the pane then shows the whole text).
pub fn since_approval(store: &Store, item: &QueueItem) -> Option<(String, Vec<(diff::Op, String)>)> {
    let old = Ledger::open(store).approved_text(item.approved_hash.as_deref()?)?;
    let now = store.read_entity_text(item.idx).ok()?;
    let ops = diff::words(&old, &now);
    Some((old, ops))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_in_whole_days() {
        let today = time::macros::date!(2026 - 03 - 31);
        assert_eq!(age("2026-03-01T10:00:00Z", today), Some(30));
        assert_eq!(age("soon", today), None);
    }

    /// The digits-only fast path of `age` answers as the date parser does, invalid dates too.
    #[test]
    fn age_reads_dates_as_the_parser_does() {
        let today = time::macros::date!(2026 - 03 - 31);
        let parsed = |d: &str| {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            time::Date::parse(d.get(..10)?, &format).ok().map(|day| (today - day).whole_days())
        };
        for d in [
            "2026-03-01",
            "2024-02-29",
            "2023-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-04-31",
            "0000-01-01",
            "9999-12-31",
            "2026-3-01x",
            "2026/03/01",
            "+202-03-01",
            "2026-03-01T10:00:00Z",
            "２０２６-03-01",
        ] {
            assert_eq!(age(d, today), parsed(d), "{d:?}");
        }
    }
}
