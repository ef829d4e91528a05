//! Catalog files (`index.md`, `_index.md`): a pure function of the entities.
//!
//! Generation is deterministic and idempotent; a catalog whose bytes would not change is not
//! rewritten; a file in a catalog's place that is not a catalog is never overwritten.
use std::path::Path;

use crate::store::{Store, read::fsio};

pub mod curated;
pub mod remembered;

/// What a catalog file should hold.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogPlan {
    /// Relative to the store root.
    pub path: String,
    pub content: String,
    /// Set when the file at `path` must not be overwritten (e.g. it holds concept frontmatter).
    pub refuse: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CatalogState {
    Fresh,
    Stale,
    Missing,
    /// A file is there that is not a catalog; regenerating would destroy it.
    Refused(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct CatalogStatus {
    pub path: String,
    pub state: CatalogState,
    /// What the catalog should hold.
    pub expected: String,
    /// Which entries are missing, dead or moved (`curated::reconcile`); empty when fresh.
    pub notes: Vec<String>,
}

/// A catalog file's bytes (None: there is none), or why it cannot be read: a catalog that
/// exists but cannot be read is refused, never taken for a missing one and written over.
pub fn read_catalog(path: &std::path::Path) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{UNREAD}{e}")),
    }
}

/// How the refusal of a catalog that could not be read begins.
pub const UNREAD: &str = "cannot read: ";

/// A catalog refused because it could not be read (a write must not go on without it).
pub fn unread(statuses: &[CatalogStatus]) -> Option<(&str, &str)> {
    statuses.iter().find_map(|s| match &s.state {
        CatalogState::Refused(why) if why.starts_with(UNREAD) => Some((s.path.as_str(), why.as_str())),
        _ => None,
    })
}

/// Compare every catalog the store should have with what is on disk.
pub fn status(store: &Store) -> Vec<CatalogStatus> {
    store.dialect.catalog_status(store)
}

/// Compare the given catalog plans with what is on disk (in parallel: one read per catalog).
pub fn status_of(store: &Store, plans: Vec<CatalogPlan>) -> Vec<CatalogStatus> {
    use rayon::prelude::*;
    plans
        .into_par_iter()
        .map(|mut plan| {
            let file = read_catalog(&store.abs_path(&plan.path)).unwrap_or_else(|why| {
                plan.refuse.get_or_insert(why);
                None
            });
            compare(store, plan, file.as_deref())
        })
        .collect()
}

/// Each catalog's path and state, without what it should hold: the store's largest catalogs
/// are not all kept in memory at once (together they would set the peak memory of
/// `folio stats`: docs/benchmarks.md, "Catalog figures").
pub fn states(store: &Store) -> Vec<(String, CatalogState)> {
    remembered::recalled(store).unwrap_or_else(|| store.dialect.catalog_states(store))
}

/// A plan's content handed over a chunk of whole lines at a time: called with a sink, it
/// calls it with each chunk in order, the same on every call.
pub type Chunks<'a> = &'a dyn Fn(&mut dyn FnMut(&str));

/// `compare(store, plan, file).state` for a plan given as `chunks` (each one or more whole
/// lines; `chunks` calls its argument with each in order, the same on every call) and its
/// `refuse`: rendered whole only when the file is written in another style (`restyled`).
pub fn state_of_chunks(
    store: &Store,
    path: &str,
    refuse: Option<String>,
    chunks: Chunks,
    file: Option<&[u8]>,
) -> CatalogState {
    match (refuse, file) {
        (Some(reason), _) => CatalogState::Refused(reason),
        (None, None) => CatalogState::Missing,
        (None, Some(bytes)) if restyled(bytes) => {
            let mut content = String::new();
            chunks(&mut |c| content.push_str(c));
            compare(store, CatalogPlan { path: path.to_string(), content, refuse: None }, Some(bytes)).state
        }
        (None, Some(bytes)) => curated::streamed_state(&|t| store.file_exists(t), path, chunks, bytes),
    }
}

/// Whether `in_style_of(file, content)` can differ from `content`: the file has a byte-order
/// mark, a CRLF first line or no final newline.
fn restyled(file: &[u8]) -> bool {
    let crlf = memchr::memchr(b'\n', file).is_some_and(|i| i > 0 && file[i - 1] == b'\r');
    file.starts_with("\u{feff}".as_bytes()) || crlf || !(file.is_empty() || file.ends_with(b"\n"))
}

/// How the file at `plan.path` compares with the plan.
pub fn state_of(store: &Store, plan: &CatalogPlan) -> CatalogState {
    let mut plan = plan.clone();
    let file = read_catalog(&store.abs_path(&plan.path)).unwrap_or_else(|why| {
        plan.refuse.get_or_insert(why);
        None
    });
    compare(store, plan, file.as_deref()).state
}

/// How a catalog's bytes (`None`: it could not be read) compare with its plan: a curated
/// catalog is stale only when its entries are wrong, and its expected content is the file
/// surgically updated (`curated`).
pub fn compare(store: &Store, plan: CatalogPlan, file: Option<&[u8]>) -> CatalogStatus {
    let (state, expected, notes) = match (&plan.refuse, file) {
        (Some(reason), _) => (CatalogState::Refused(reason.clone()), plan.content, Vec::new()),
        (None, Some(bytes)) if bytes == plan.content.as_bytes() => (CatalogState::Fresh, plan.content, Vec::new()),
        // Only a file in another style can equal the plan restyled (saves a copy of the plan).
        (None, Some(bytes)) if restyled(bytes) && bytes == in_style_of(bytes, plan.content.clone()).as_bytes() => {
            (CatalogState::Fresh, in_style_of(bytes, plan.content), Vec::new())
        }
        (None, Some(bytes)) => {
            let r = curated::reconcile(&|t| store.file_exists(t), &plan, bytes);
            let content = if r.state == CatalogState::Fresh { r.content } else { in_style_of(bytes, r.content) };
            (r.state, content, r.notes)
        }
        (None, None) => (CatalogState::Missing, plan.content, Vec::new()),
    };
    CatalogStatus { path: plan.path, state, expected, notes }
}

/// A catalog's new `content` written as the file it replaces is written: its line endings
/// (CRLF), its byte-order mark, and whether it ends with a newline. Only the entries change.
fn in_style_of(file: &[u8], content: String) -> String {
    let text = String::from_utf8_lossy(file);
    let bom = text.starts_with('\u{feff}');
    let mut out = crate::store::model::lines::follow_line_endings(text.trim_start_matches('\u{feff}'), content);
    if bom && !out.starts_with('\u{feff}') {
        out.insert(0, '\u{feff}');
    }
    if !text.is_empty() && !text.ends_with('\n') {
        let trimmed = out.trim_end_matches(['\r', '\n']).len();
        out.truncate(trimmed);
    }
    out
}

/// Result of regenerating catalogs.
#[derive(Debug, Default)]
pub struct WriteReport {
    pub written: Vec<String>,
    pub unchanged: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{path}: not a catalog ({reason}); refusing to overwrite it (nothing was written)")]
    Refused { path: String, reason: String },
    #[error("{path}: {err}")]
    Io { path: String, err: std::io::Error },
    /// A catalog place outside the store (issue 16's write gate).
    #[error("{0}")]
    Outside(String),
}

/// Write every stale or missing catalog. Refuses up front, before writing anything, when any
/// catalog's place holds something that is not a catalog.
pub fn write(store: &Store) -> Result<WriteReport, CatalogError> {
    let statuses = writable(status(store))?;
    crate::store::write::write_gate::WriteGate::for_store(store)
        .check_all(statuses.iter().filter(|s| s.state != CatalogState::Fresh).map(|s| s.path.as_str()))
        .map_err(|e| CatalogError::Outside(e.to_string()))?;
    let mut report = WriteReport::default();
    for s in statuses {
        if s.state == CatalogState::Fresh {
            report.unchanged += 1;
            continue;
        }
        write_one(&store.root, &s.path, &s.expected)?;
        report.written.push(s.path);
    }
    Ok(report)
}

/// The statuses, or the first refusal among them.
pub fn writable(statuses: Vec<CatalogStatus>) -> Result<Vec<CatalogStatus>, CatalogError> {
    if let Some(s) = statuses.iter().find(|s| matches!(s.state, CatalogState::Refused(_))) {
        let CatalogState::Refused(reason) = &s.state else { unreachable!() };
        return Err(CatalogError::Refused { path: s.path.clone(), reason: reason.clone() });
    }
    Ok(statuses)
}

/// `folio index` as an ordinary write: one journaled, logged, undoable changeset creating
/// the missing catalogs and updating the stale ones (`None` when all are fresh).
pub fn changeset(store: &Store, statuses: &[CatalogStatus], by: &str) -> Option<super::changeset::Changeset> {
    let stale: Vec<&CatalogStatus> =
        statuses.iter().filter(|s| matches!(s.state, CatalogState::Stale | CatalogState::Missing)).collect();
    if stale.is_empty() {
        return None;
    }
    let event = super::audit::AuditEvent::new(
        "index",
        by,
        format!("brought {} up to date", stale.iter().map(|s| s.path.as_str()).collect::<Vec<_>>().join(", ")),
    );
    let mut cs = super::changeset::Changeset::new(event);
    for s in stale {
        cs = match std::fs::read(store.abs_path(&s.path)) {
            Ok(bytes) => cs.replace(&s.path, crate::store::model::digest::of(&bytes), s.expected.clone()),
            Err(_) => cs.create(&s.path, s.expected.clone()),
        };
    }
    Some(cs)
}

fn write_one(root: &Path, rel: &str, content: &str) -> Result<(), CatalogError> {
    fsio::write_atomic(&root.join(rel), content.as_bytes())
        .map_err(|err| CatalogError::Io { path: rel.to_string(), err })
}

/// One catalog line's description: a single line, no trailing blanks.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_one_line(&mut out, s, |_| None);
    out
}

/// Append `s` as `one_line` would, with `escape` applied to every byte: catalogs are written
/// straight into one buffer (a `String` per field and `str::replace` per escape was most of
/// the cost of planning a 100k catalog).
pub fn push_one_line(out: &mut String, s: &str, escape: impl Fn(u8) -> Option<&'static str> + Copy) {
    // Already one line: as is, without the Unicode whitespace splitter, which was most of the
    // cost of a catalog line.
    if is_one_line(s) {
        push_escaped(out, s, escape);
        return;
    }
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_escaped(out, word, escape);
    }
}

/// Whether `one_line(s)` is `s` itself: no ASCII control character, single spaces inside, none
/// at the ends, and no other character that is white space (NBSP, em space…).
pub fn is_one_line(s: &str) -> bool {
    let b = s.as_bytes();
    // Bytes of other characters pass here; they are looked at below only when there are some.
    let printable = b.iter().fold(true, |ok, &c| ok & (c >= 0x20) & (c != 0x7f));
    // Byte pairs, by a fold that vectorises: `memmem::find` builds a searcher per call, and
    // this runs for every catalog line (docs/benchmarks.md, "Catalog figures").
    let double_space = b.iter().zip(b.iter().skip(1)).fold(false, |any, (&x, &y)| any | (x == b' ') & (y == b' '));
    let blanks_ok = printable && !s.starts_with(' ') && !s.ends_with(' ') && !double_space;
    // A shortened description ends in `…`: taken as not one line, it went word by word through
    // the Unicode splitter, which then dominated rendering a large wiki's catalog lines.
    // Characters are decoded only from the first one beyond ASCII (most text is ASCII up to the
    // final `…`).
    blanks_ok
        && (s.is_ascii() || {
            let first = b.iter().position(|c| !c.is_ascii()).unwrap_or(0);
            !s[first..].chars().any(|c| !c.is_ascii() && c.is_whitespace())
        })
}

/// Append `s` with every byte for which `escape` gives a replacement replaced by it (only
/// ASCII bytes may be escaped, so every cut falls on a character boundary).
pub fn push_escaped(out: &mut String, s: &str, escape: impl Fn(u8) -> Option<&'static str>) {
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        if let Some(with) = escape(b) {
            debug_assert!(b.is_ascii());
            out.push_str(&s[start..i]);
            out.push_str(with);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escape_brackets(b: u8) -> Option<&'static str> {
        match b {
            b'[' => Some("\\["),
            b']' => Some("\\]"),
            _ => None,
        }
    }

    /// The straightforward form the buffer writers replace.
    fn reference(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ").replace('[', "\\[").replace(']', "\\]")
    }

    #[test]
    fn one_line_collapses_every_kind_of_blank() {
        assert_eq!(one_line("  a \t b\n\nc\u{a0}d\u{2003} "), "a b c d");
        assert_eq!(one_line("plain words"), "plain words");
        assert_eq!(one_line(""), "");
        let mut out = String::new();
        push_one_line(&mut out, " [x]  y ", escape_brackets);
        assert_eq!(out, "\\[x\\] y");
    }

    proptest! {
        #[test]
        fn push_one_line_matches_split_and_join(s in "[ a-z\\[\\]\t\n\u{a0}\u{2003}é…\u{85}\u{1}\u{7f}]{0,24}") {
            let mut out = String::from(">");
            push_one_line(&mut out, &s, escape_brackets);
            prop_assert_eq!(&out[1..], reference(&s));
            // Exact but for ASCII controls that are not blanks, which it leaves to `one_line`.
            let controls = s.bytes().any(|c| c == 1 || c == 0x7f);
            prop_assert!(if controls { !is_one_line(&s) } else { is_one_line(&s) == (one_line(&s) == s) }, "{:?}", s);
        }
    }
}
