//! Catalogs people wrote: stale only when an entry is wrong, kept current surgically.
//!
//! A catalog on disk that differs from folio's rendering is "generated" when it has the
//! rendering's shape (the same headings and other non-entry lines, the shared entries in the
//! rendering's order, most of their lines byte-identical): it is then regenerated whole, as
//! before. Otherwise it is "curated": it is stale only when an entry the rendering has is
//! missing (compared by link target) or one of its local links no longer resolves, and
//! keeping it current removes, repoints or adds just those entry lines.
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::{CatalogPlan, CatalogState};

/// How a catalog on disk compares with its plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Reconciled {
    pub state: CatalogState,
    /// What the catalog should hold: the plan (generated) or the file surgically updated.
    pub content: String,
    /// Which entries are missing, dead or moved (empty when fresh).
    pub notes: Vec<String>,
}

/// One list item with a link: `* [label](target) ...` (also `-`, `+`, `1.`).
#[derive(Debug, Clone)]
/// Its text borrowed from the catalog: a large catalog would otherwise make several small
/// strings per entry for every comparison, at the load's peak (docs/benchmarks.md,
/// "Catalog figures").
struct Entry<'a> {
    line: usize,
    label: &'a str,
    /// The link target as written.
    raw: &'a str,
    /// Store-relative path it points to (`None` for external links).
    target: Option<String>,
    /// Heading the entry sits under.
    section: &'a str,
}

/// Compare `existing` (the file's bytes) with `plan`; `exists` tells whether a store-relative
/// file is there (on disk, or in a previewed store).
pub fn reconcile(exists: &dyn Fn(&str) -> bool, plan: &CatalogPlan, existing: &[u8]) -> Reconciled {
    if existing == plan.content.as_bytes() {
        return Reconciled { state: CatalogState::Fresh, content: plan.content.clone(), notes: Vec::new() };
    }
    let Ok(text) = std::str::from_utf8(existing) else {
        return regenerate(plan, vec!["not UTF-8; regenerated whole".into()]);
    };
    let dir = crate::store::model::relpath::parent(&plan.path);
    let index_name = crate::store::model::relpath::file_name(&plan.path);
    let want = entries(&plan.content, dir, index_name);
    let have = entries(text, dir, index_name);
    // Sets, not scans: a large folder's catalog holds thousands of entries.
    let have_targets: HashSet<&str> = have.iter().filter_map(|e| e.target.as_deref()).collect();
    let want_targets: HashSet<&str> = want.iter().filter_map(|e| e.target.as_deref()).collect();
    let missing: Vec<&Entry> =
        want.iter().filter(|w| w.target.as_deref().is_some_and(|t| !have_targets.contains(&t))).collect();
    let dead: Vec<&Entry> =
        have.iter().filter(|h| h.target.as_deref().is_some_and(|t| !want_targets.contains(t) && !exists(t))).collect();
    if looks_generated(text, &plan.content, &have, &want) {
        let mut notes = describe(&missing, &dead, &[]);
        if notes.is_empty() {
            notes.push("entries differ from the generated rendering".into());
        }
        return regenerate(plan, notes);
    }
    // A dead entry whose file name a missing entry has was moved: repoint it.
    let mut moved: Vec<(&Entry, &Entry)> = Vec::new();
    let mut added: Vec<&Entry> = Vec::new();
    for m in &missing {
        let name = moved_key(m.target.as_deref().unwrap_or_default(), index_name);
        match dead.iter().find(|d| {
            moved_key(d.target.as_deref().unwrap_or_default(), index_name) == name
                && !moved.iter().any(|(o, _)| o.line == d.line)
        }) {
            Some(d) => moved.push((d, m)),
            None => added.push(m),
        }
    }
    let removed: Vec<&Entry> = dead.iter().copied().filter(|d| !moved.iter().any(|(o, _)| o.line == d.line)).collect();
    let notes = describe(&added, &removed, &moved);
    if notes.is_empty() {
        return Reconciled { state: CatalogState::Fresh, content: text.to_string(), notes };
    }
    let content = surgical(text, &plan.content, &have, &want, &added, &removed, &moved);
    Reconciled { state: CatalogState::Stale, content, notes }
}

fn regenerate(plan: &CatalogPlan, notes: Vec<String>) -> Reconciled {
    Reconciled { state: CatalogState::Stale, content: plan.content.clone(), notes }
}

/// What identifies an entry across a move: its file name, or its folder's for a sub-catalog.
fn moved_key<'a>(target: &'a str, index_name: &str) -> &'a str {
    let t = target.strip_suffix(index_name).map(|t| t.trim_end_matches('/')).unwrap_or(target);
    crate::store::model::relpath::file_name(t)
}

fn describe(missing: &[&Entry], dead: &[&Entry], moved: &[(&Entry, &Entry)]) -> Vec<String> {
    let mut notes: Vec<String> = missing.iter().map(|e| format!("missing {}", e.raw)).collect();
    notes.extend(dead.iter().map(|e| format!("dead {}", e.raw)));
    notes.extend(moved.iter().map(|(o, n)| format!("moved {} -> {}", o.raw, n.raw)));
    notes
}

/// Same non-entry lines, shared entries in the same order, most of their lines identical.
fn looks_generated(text: &str, plan: &str, have: &[Entry], want: &[Entry]) -> bool {
    let skeleton = |s: &str, es: &[Entry]| -> Vec<String> {
        let entry_lines: HashSet<usize> = es.iter().map(|e| e.line).collect();
        s.lines().enumerate().filter(|(i, _)| !entry_lines.contains(i)).map(|(_, l)| l.to_string()).collect()
    };
    if skeleton(text, have) != skeleton(plan, want) {
        return false;
    }
    let text_lines: Vec<&str> = text.lines().collect();
    let plan_lines: Vec<&str> = plan.lines().collect();
    let by_target: std::collections::HashMap<&str, &Entry> =
        want.iter().filter_map(|w| w.target.as_deref().map(|t| (t, w))).collect();
    let shared: Vec<(&Entry, &Entry)> =
        have.iter().filter_map(|h| h.target.as_deref().and_then(|t| by_target.get(t)).map(|w| (h, *w))).collect();
    let in_order = shared.windows(2).all(|p| p[0].1.line < p[1].1.line);
    let same = shared.iter().filter(|(h, w)| text_lines[h.line] == plan_lines[w.line]).count();
    in_order && same * 2 > shared.len()
}

/// The file with dead entries removed, moved ones repointed and missing ones inserted.
fn surgical(
    text: &str,
    plan: &str,
    have: &[Entry],
    want: &[Entry],
    added: &[&Entry],
    removed: &[&Entry],
    moved: &[(&Entry, &Entry)],
) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    if lines.last().is_some_and(|l| !l.ends_with('\n')) {
        lines.last_mut().unwrap().push_str(eol);
    }
    let plan_lines: Vec<&str> = plan.lines().collect();
    let marker = have.first().map(|e| list_marker(lines[e.line].trim_end())).unwrap_or("* ".into());
    // Insertions after line index (`None`: at the top), in plan order.
    let mut after: Vec<(Option<usize>, String)> = Vec::new();
    let mut appended = String::new();
    let kept: Vec<&Entry> = have.iter().filter(|h| !removed.iter().any(|r| r.line == h.line)).collect();
    for a in added {
        let line = restyle(plan_lines[a.line], &marker);
        match place(&kept, want, a) {
            Some(pos) => after.push((pos, line)),
            None if section_end(&lines, a.section).is_some() => {
                let (end, needs_blank) = section_end(&lines, a.section).unwrap_or_default();
                let line = if needs_blank { format!("{eol}{line}") } else { line };
                after.push((Some(end), line));
            }
            None => {
                if !appended.is_empty() || lines.last().is_some_and(|l| !l.trim().is_empty()) {
                    appended.push_str(eol);
                }
                if !appended.contains(&format!("{}\n", a.section)) {
                    appended += &format!("{}{eol}{eol}", a.section);
                }
                appended += &format!("{line}{eol}");
            }
        }
    }
    for (old, new) in moved {
        let l = &lines[old.line];
        if let Some(at) = l.find(&format!("]({})", old.raw)) {
            let start = at + 2;
            lines[old.line] = format!("{}{}{}", &l[..start], new.raw, &l[start + old.raw.len()..]);
        }
    }
    let mut out = String::with_capacity(text.len() + 256);
    for (_, line) in after.iter().filter(|(p, _)| p.is_none()) {
        out += &format!("{line}{eol}");
    }
    for (i, l) in lines.iter().enumerate() {
        if !removed.iter().any(|r| r.line == i) {
            out.push_str(l);
        }
        for (_, line) in after.iter().filter(|(p, _)| *p == Some(i)) {
            out += &format!("{line}{eol}");
        }
    }
    out.push_str(&appended);
    // A catalog written without a final newline keeps it that way.
    if !text.is_empty() && !text.ends_with('\n') && out.ends_with(eol) {
        out.truncate(out.len() - eol.len());
    }
    out
}

/// Where a missing entry goes: after its previous sibling in the rendering (or before its
/// next), at its alphabetical place when that sibling's list is alphabetical; `Some(None)`
/// at the top; `None` when the catalog has none of its siblings (appended).
fn place(kept: &[&Entry], want: &[Entry], new: &Entry) -> Option<Option<usize>> {
    let siblings: Vec<&Entry> = want.iter().filter(|w| w.section == new.section && w.line != new.line).collect();
    let present = |w: &Entry| kept.iter().copied().find(|k| k.target.is_some() && k.target == w.target);
    let anchor = siblings
        .iter()
        .rev()
        .filter(|w| w.line < new.line)
        .find_map(|w| present(w))
        .map(|k| (k, true))
        .or_else(|| siblings.iter().filter(|w| w.line > new.line).find_map(|w| present(w)).map(|k| (k, false)))?;
    let block = block_of(kept, anchor.0.line);
    let folded = |s: &str| s.to_lowercase();
    let alphabetical = block.len() >= 2 && block.windows(2).all(|p| folded(p[0].label) <= folded(p[1].label));
    if alphabetical {
        let key = folded(new.label);
        return Some(match block.iter().find(|k| folded(k.label) > key) {
            Some(k) => k.line.checked_sub(1),
            None => Some(block.last().unwrap().line),
        });
    }
    Some(if anchor.1 { Some(anchor.0.line) } else { anchor.0.line.checked_sub(1) })
}

/// The last non-blank line of the section under heading `section`, and whether a blank line
/// must come first; `None` when the catalog has no such heading.
fn section_end(lines: &[String], section: &str) -> Option<(usize, bool)> {
    if section.is_empty() {
        return None;
    }
    let h = lines.iter().position(|l| l.trim_end() == section)?;
    let end = (h + 1..lines.len()).find(|&i| lines[i].trim_start().starts_with('#')).unwrap_or(lines.len());
    let last = (h..end).rev().find(|&i| !lines[i].trim().is_empty()).unwrap_or(h);
    // A bare heading: right under it, after a blank line (the blank that followed it stays
    // between the new list and what comes next).
    Some(if last == h { (h, true) } else { (last, false) })
}

/// The run of consecutive entry lines that holds line `at`.
fn block_of<'a, 'b>(kept: &[&'a Entry<'b>], at: usize) -> Vec<&'a Entry<'b>> {
    let Some(i) = kept.iter().position(|k| k.line == at) else { return Vec::new() };
    let (mut lo, mut hi) = (i, i);
    while lo > 0 && kept[lo - 1].line + 1 == kept[lo].line {
        lo -= 1;
    }
    while hi + 1 < kept.len() && kept[hi].line + 1 == kept[hi + 1].line {
        hi += 1;
    }
    kept[lo..=hi].to_vec()
}

/// The list marker and indentation a line starts with (`* `, `- `, `1. `).
fn list_marker(line: &str) -> String {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let end = body.find(' ').map(|i| i + 1).unwrap_or(0);
    format!("{indent}{}", &body[..end])
}

/// A rendered entry line in the catalog's own list style.
fn restyle(line: &str, marker: &str) -> String {
    let rest = line.trim_start().split_once(' ').map(|(_, r)| r).unwrap_or(line);
    // Numbered lists are not renumbered: a new item takes the bullet of folio's rendering.
    if marker.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
        return line.to_string();
    }
    format!("{marker}{rest}")
}

/// Every list item with a link, with the heading it sits under.
fn entries<'a>(text: &'a str, dir: &str, index_name: &str) -> Vec<Entry<'a>> {
    let mut out = Vec::new();
    let mut section = "";
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        match classify(line, &mut in_fence) {
            Line::Heading => section = line.trim_end(),
            Line::Entry(label, raw) => {
                let target = local_target(dir, raw, index_name).map(Cow::into_owned);
                out.push(Entry { line: i, label, raw, target, section });
            }
            Line::Other => {}
        }
    }
    out
}

/// What one line of a catalog is to `entries`.
enum Line<'a> {
    Heading,
    /// A list item with a link: its label and target as written.
    Entry(&'a str, &'a str),
    Other,
}

/// `line` as `entries` reads it, `in_fence` telling (and updated with) whether a code fence
/// is open: nothing inside a fence is a heading or an entry.
fn classify<'a>(line: &'a str, in_fence: &mut bool) -> Line<'a> {
    let t = line.trim_start();
    if t.starts_with("```") || t.starts_with("~~~") {
        *in_fence = !*in_fence;
        return Line::Other;
    }
    if *in_fence {
        return Line::Other;
    }
    if t.starts_with('#') {
        return Line::Heading;
    }
    match list_item(t).and_then(first_link) {
        Some((label, raw)) => Line::Entry(label, raw),
        None => Line::Other,
    }
}

/// `reconcile(exists, plan, existing).state` for a plan given a chunk of whole lines at a time
/// (`chunks` calls its argument with each, in order), when `existing` is not written in another
/// style than the plan (`catalog::restyled`): the plan is rendered once and never held whole,
/// since a large catalog rendered whole and read back into entries would set the peak memory
/// of `folio stats` (docs/benchmarks.md, "Catalog figures"). The file's entries are read only
/// once the plan departs from it.
pub fn streamed_state(
    exists: &dyn Fn(&str) -> bool,
    path: &str,
    chunks: super::Chunks,
    existing: &[u8],
) -> CatalogState {
    // The plan is UTF-8: a file that is not cannot equal it, and is regenerated.
    let Ok(text) = std::str::from_utf8(existing) else { return CatalogState::Stale };
    let dir = crate::store::model::relpath::parent(path);
    let index_name = crate::store::model::relpath::file_name(path);
    let mut at = 0;
    let mut against: Option<Against> = None;
    chunks(&mut |c| {
        if against.is_none() && existing.get(at..at + c.len()) == Some(c.as_bytes()) {
            at += c.len();
            return;
        }
        // The plan's lines so far are the file's up to here (`at` follows a newline).
        let a = against.get_or_insert_with(|| Against::new(text, dir, index_name, &text[..at]));
        crate::store::model::lines::lines(c).for_each(|line| a.feed(line));
    });
    match against {
        None if at == existing.len() => CatalogState::Fresh,
        None => Against::new(text, dir, index_name, &text[..at]).state(exists),
        Some(a) => a.state(exists),
    }
}

/// A catalog file's entries, and what the plan's lines fed so far say about them: the state
/// `reconcile` would give, kept by the file's entries rather than by the plan's (whose targets
/// would be copied out of each line).
struct Against<'t> {
    dir: &'t str,
    index_name: &'t str,
    /// The line of each of the file's entries (their targets are `first_by_target`'s keys).
    have: Vec<usize>,
    /// Each target's first entry, and after each entry the next with its target: a `String`
    /// and a `Vec` per entry, and SipHash, would be paid for every entry of every catalog a
    /// full load compares (docs/benchmarks.md, "Catalog figures").
    first_by_target: HashMap<Cow<'t, str>, usize, foldhash::fast::RandomState>,
    next_same: Vec<usize>,
    text_lines: Vec<&'t str>,
    /// The file's lines that are not entries (`looks_generated` compares them with the plan's).
    text_skeleton: Vec<&'t str>,
    /// For each entry of the file, the last planned line with its target (the one
    /// `looks_generated` pairs it with) and whether the two lines are the same.
    planned: Vec<Option<(usize, bool)>>,
    missing: bool,
    skeleton_same: bool,
    skeleton_at: usize,
    line: usize,
    in_fence: bool,
}

impl<'t> Against<'t> {
    /// Read `text`'s entries, then feed it the plan's first lines, `fed`.
    fn new(text: &'t str, dir: &'t str, index_name: &'t str, fed: &str) -> Against<'t> {
        // What `entries` reads, keeping only each entry's line and target (an `Entry` per line
        // would be held for the whole comparison, at the peak: docs/benchmarks.md,
        // "Catalog figures").
        let text_lines: Vec<&str> = crate::store::model::lines::lines(text).collect();
        let (mut have, mut text_skeleton) = (Vec::new(), Vec::new());
        let mut first_by_target: HashMap<Cow<'t, str>, usize, _> = HashMap::default();
        let mut next_same: Vec<usize> = Vec::new();
        // The last entry of each target so far, while the chains are made.
        let mut last: Vec<usize> = Vec::new();
        let mut in_fence = false;
        for (i, line) in text_lines.iter().enumerate() {
            match classify(line, &mut in_fence) {
                Line::Entry(_, raw) => {
                    let h = have.len();
                    next_same.push(NONE);
                    last.push(h);
                    if let Some(t) = local_target(dir, raw, index_name) {
                        let first = *first_by_target.entry(t).or_insert(h);
                        if first != h {
                            next_same[last[first]] = h;
                            last[first] = h;
                        }
                    }
                    have.push(i);
                }
                _ => text_skeleton.push(*line),
            }
        }
        let planned = vec![None; have.len()];
        let mut a = Against {
            dir,
            index_name,
            have,
            first_by_target,
            next_same,
            text_lines,
            text_skeleton,
            planned,
            missing: false,
            skeleton_same: true,
            skeleton_at: 0,
            line: 0,
            in_fence: false,
        };
        fed.lines().for_each(|line| a.feed(line));
        a
    }

    /// The plan's next line.
    fn feed(&mut self, line: &str) {
        match classify(line, &mut self.in_fence) {
            Line::Entry(_, raw) => {
                if let Some(t) = local_target(self.dir, raw, self.index_name) {
                    match self.first_by_target.get(t.as_ref()) {
                        None => self.missing = true,
                        Some(&first) => {
                            let mut h = first;
                            while h != NONE {
                                self.planned[h] = Some((self.line, self.text_lines[self.have[h]] == line));
                                h = self.next_same[h];
                            }
                        }
                    }
                }
            }
            _ => {
                self.skeleton_same &= self.text_skeleton.get(self.skeleton_at) == Some(&line);
                self.skeleton_at += 1;
            }
        }
        self.line += 1;
    }

    /// Every line fed: stale when the file has the plan's shape (regenerated whole), or an
    /// entry is missing or dead; fresh otherwise.
    fn state(&self, exists: &dyn Fn(&str) -> bool) -> CatalogState {
        // The file's entries that share a target are planned together, or none of them.
        let dead = self.first_by_target.iter().any(|(t, &h)| self.planned[h].is_none() && !exists(t));
        let generated = self.skeleton_same && self.skeleton_at == self.text_skeleton.len() && {
            let shared: Vec<(usize, bool)> = self.planned.iter().flatten().copied().collect();
            let same = shared.iter().filter(|(_, eq)| *eq).count();
            shared.windows(2).all(|p| p[0].0 < p[1].0) && same * 2 > shared.len()
        };
        if generated || self.missing || dead { CatalogState::Stale } else { CatalogState::Fresh }
    }
}

/// No next entry (`Against::next_same`).
const NONE: usize = usize::MAX;

fn list_item(t: &str) -> Option<&str> {
    for m in ["* ", "- ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(rest);
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| t[digits..].strip_prefix(". ").or_else(|| t[digits..].strip_prefix(") "))).flatten()
}

/// The first inline link `[label](target)` of an item: its label and target as written.
fn first_link(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let open = (0..b.len()).find(|&i| b[i] == b'[' && (i == 0 || b[i - 1] != b'\\'))?;
    let mut depth = 0;
    let mut i = open;
    let close = loop {
        match b.get(i)? {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            _ => {}
        }
        i += 1;
    };
    let rest = s[close + 1..].strip_prefix('(')?;
    let raw = match rest.strip_prefix('<') {
        Some(r) => &r[..r.find('>')?],
        None => &rest[..rest.find(')')?],
    };
    let raw = raw.split_once(' ').map(|(t, _)| t).unwrap_or(raw);
    Some((&s[open + 1..close], raw))
}

/// The store-relative path a catalog link points to; a folder stands for its catalog.
fn local_target<'a>(dir: &str, raw: &'a str, index_name: &str) -> Option<Cow<'a, str>> {
    let path = memchr::memchr(b'#', raw.as_bytes()).map_or(raw, |end| &raw[..end]);
    if path.is_empty() || path.starts_with('/') || has_scheme_slashes(path) || path.starts_with("mailto:") {
        return None;
    }
    // Most targets are plain relative paths: joined as they are, without decoding and
    // splitting them (three allocations per entry of a 100k-line catalog).
    if is_plain_relative(path) {
        let is_dir = memchr::memchr(b'.', crate::store::model::relpath::file_name(path).as_bytes()).is_none();
        return Some(match (dir.is_empty(), is_dir) {
            (true, false) => Cow::Borrowed(path),
            (true, true) => Cow::Owned(format!("{path}/{index_name}")),
            (false, false) => Cow::Owned(format!("{dir}/{path}")),
            (false, true) => Cow::Owned(format!("{dir}/{path}/{index_name}")),
        });
    }
    let decoded = percent_decode(path);
    let mut parts: Vec<&str> = if dir.is_empty() { Vec::new() } else { dir.split('/').collect() };
    for seg in decoded.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    let is_dir = decoded.ends_with('/') || !crate::store::model::relpath::file_name(&joined).contains('.');
    Some(Cow::Owned(if is_dir { format!("{joined}/{index_name}") } else { joined }))
}

/// `path.contains("://")`, by memchr to each `:` (the standard library builds a substring
/// searcher per call, and this is asked of every catalog entry).
fn has_scheme_slashes(path: &str) -> bool {
    let b = path.as_bytes();
    memchr::memchr_iter(b':', b).any(|i| b[i + 1..].starts_with(b"//"))
}

/// Whether `path` needs neither decoding nor walking: no `%`, and no empty, `.` or `..`
/// segment between its slashes.
fn is_plain_relative(path: &str) -> bool {
    let b = path.as_bytes();
    if memchr::memchr(b'%', b).is_some() {
        return false;
    }
    let mut start = 0;
    memchr::memchr_iter(b'/', b).chain([b.len()]).all(|end| {
        let segment = &b[start..end];
        start = end + 1;
        !matches!(segment, b"" | b"." | b"..")
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_and_schemes_are_told_as_the_string_tests_tell_them() {
        for p in [
            "", "/", "a", "a/b.md", "a//b", "./a", "a/.", "a/..", "..", "a/../b", "a/", "a%20b", ".a/b", "a..b/c",
            "x://y", "a:b://c", "a:/b", "c:",
        ] {
            let plain = !p.contains('%') && p.split('/').all(|s| !matches!(s, "" | "." | ".."));
            assert_eq!(is_plain_relative(p), plain, "{p:?}");
            assert_eq!(has_scheme_slashes(p), p.contains("://"), "{p:?}");
        }
    }

    fn plan(path: &str, content: &str) -> CatalogPlan {
        CatalogPlan { path: path.into(), content: content.into(), refuse: None }
    }

    #[test]
    fn curated_order_and_wording_are_fresh_when_every_entry_is_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "x").unwrap();
        std::fs::write(dir.path().join("b.md"), "x").unwrap();
        let p = plan(crate::store::dialect::okf::spec::CATALOG, "# T\n\n* [A](a.md) - long a\n* [B](b.md) - long b\n");
        let r = reconcile(
            &|t| dir.path().join(t).exists(),
            &p,
            b"# Mine\n\nIntro.\n\n- [Bee](b.md) - short\n- [Ay](a.md) - short\n",
        );
        assert_eq!(r.state, CatalogState::Fresh, "{:?}", r.notes);
    }

    #[test]
    fn curated_gains_and_loses_exactly_one_line_each() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "x").unwrap();
        std::fs::write(dir.path().join("c.md"), "x").unwrap();
        let p = plan(crate::store::dialect::okf::spec::CATALOG, "# T\n\n* [A](a.md) - long a\n* [C](c.md) - long c\n");
        let r = reconcile(
            &|t| dir.path().join(t).exists(),
            &p,
            b"# Mine\n\n- [Ay](a.md) - short\n- [Gone](gone.md) - bye\n\nOutro.\n",
        );
        assert_eq!(r.state, CatalogState::Stale);
        assert_eq!(r.content, "# Mine\n\n- [Ay](a.md) - short\n- [C](c.md) - long c\n\nOutro.\n");
        assert_eq!(r.notes, vec!["missing c.md".to_string(), "dead gone.md".to_string()]);
    }

    #[test]
    fn moved_entry_is_repointed_in_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("new")).unwrap();
        std::fs::write(dir.path().join("new/a.md"), "x").unwrap();
        let p = plan(crate::store::dialect::okf::spec::CATALOG, "# T\n\n* [A](new/a.md) - long a\n");
        let r = reconcile(&|t| dir.path().join(t).exists(), &p, b"Mine:\n\n1. [Ay](old/a.md) - mine\n");
        assert_eq!(r.content, "Mine:\n\n1. [Ay](new/a.md) - mine\n");
        assert_eq!(r.notes, vec!["moved old/a.md -> new/a.md".to_string()]);
    }

    #[test]
    fn alphabetical_list_takes_the_new_entry_in_its_place() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.md", "b.md", "c.md"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let p = plan(crate::store::dialect::okf::spec::CATALOG, "# T\n\n* [A](a.md)\n* [B](b.md)\n* [C](c.md)\n");
        let r = reconcile(&|t| dir.path().join(t).exists(), &p, b"# Mine\n\n- [a](a.md) mine\n- [c](c.md) mine\n");
        assert_eq!(r.content, "# Mine\n\n- [a](a.md) mine\n- [B](b.md)\n- [c](c.md) mine\n");
    }

    #[test]
    fn a_first_entry_goes_under_its_existing_heading() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "x").unwrap();
        let p = plan(crate::store::dialect::okf::spec::CATALOG, "# T\n\n* [A](a.md) - a\n");
        let r = reconcile(&|t| dir.path().join(t).exists(), &p, b"Intro.\n\n# T\n\n# Notes\n\nMine.\n");
        assert_eq!(r.content, "Intro.\n\n# T\n\n* [A](a.md) - a\n\n# Notes\n\nMine.\n");
    }

    #[test]
    fn generated_shape_is_regenerated_whole() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.md", "b.md", "c.md"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let p = plan(
            crate::store::dialect::okf::spec::CATALOG,
            "# T\n\n* [A](a.md) - a\n* [B](b.md) - b\n* [C](c.md) - new c\n",
        );
        let r = reconcile(
            &|t| dir.path().join(t).exists(),
            &p,
            b"# T\n\n* [A](a.md) - a\n* [B](b.md) - b\n* [C](c.md) - old c\n",
        );
        assert_eq!((r.state, r.content), (CatalogState::Stale, p.content.clone()));
    }
}
