//! Which version brought each line of the newest content, as `git blame` does: the versions
//! with content, oldest first, each diffed by lines against the versions it was made from (each
//! parent commit's content, the first parent first; for the file on disk, HEAD's); a line kept
//! from one of them keeps its version there, a line no parent had belongs to this version. The
//! versions follow the file through renames, so blame does too. Without git (no parents known)
//! each version is diffed against the one before it.
use std::borrow::Cow;
use std::collections::HashMap;

use similar::{Algorithm, DiffOp};

use super::{History, Source};

/// One line of the newest content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based.
    pub number: usize,
    /// Without its line ending.
    pub text: String,
    /// Index into `History::versions` of the version that introduced it.
    pub version: usize,
}

/// Owners of `new`'s lines that `old` (with `old_owners`) also has, filled where still unknown.
fn take_from(old: &[&str], old_owners: &[usize], new: &[&str], owners: &mut [Option<usize>]) {
    for op in similar::capture_diff_slices(Algorithm::Myers, old, new) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                if owners[new_index + k].is_none() {
                    owners[new_index + k] = old_owners.get(old_index + k).copied();
                }
            }
        }
    }
}

/// The newest content's lines, each with its version (empty when no version has content).
pub fn blame(h: &History) -> Vec<Line> {
    let chain: Vec<usize> = (0..h.versions.len()).rev().filter(|&i| h.versions[i].source != Source::Log).collect();
    // Each version's text, borrowed from its bytes when they are UTF-8 (a deletion's is empty:
    // a file added back is all new again, as in git).
    let texts: Vec<Cow<str>> = chain
        .iter()
        .map(|&i| h.versions[i].bytes.as_deref().map(String::from_utf8_lossy).unwrap_or_default())
        .collect();
    // How many later versions take lines from each object: its lines are kept until the last
    // of them is blamed, not for the whole walk (1,001 versions of a 2,000-line file otherwise
    // hold every version's lines at once).
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for &i in &chain {
        for id in h.versions[i].parents.iter().flatten().flatten() {
            *uses.entry(id.as_str()).or_default() += 1;
        }
    }
    // The blamed lines of the objects still to be taken from: (lines, owners).
    let mut by_object: HashMap<&str, (Vec<&str>, Vec<usize>)> = HashMap::new();
    let mut prev: (Vec<&str>, Vec<usize>) = (Vec::new(), Vec::new());
    for (&i, text) in chain.iter().zip(&texts) {
        let v = &h.versions[i];
        // Lines as git cuts them: at `\n` alone.
        let new: Vec<&str> = text.split_inclusive('\n').collect();
        let mut owners: Vec<Option<usize>> = vec![None; new.len()];
        match &v.parents {
            Some(parents) => {
                for id in parents.iter().flatten() {
                    let id = id.as_str();
                    if let Some((old, old_owners)) = by_object.get(id) {
                        take_from(old, old_owners, &new, &mut owners);
                    }
                    if let Some(n) = uses.get_mut(id) {
                        *n -= 1;
                        if *n == 0 {
                            by_object.remove(id);
                        }
                    }
                }
            }
            None => take_from(&prev.0, &prev.1, &new, &mut owners),
        }
        let owners: Vec<usize> = owners.into_iter().map(|o| o.unwrap_or(i)).collect();
        if let Some(id) = v.object.as_deref().filter(|id| uses.get(id).is_some_and(|&n| n > 0)) {
            by_object.insert(id, (new.clone(), owners.clone()));
        }
        prev = (new, owners);
    }
    let Some(&newest) = chain.last() else { return Vec::new() };
    if !h.versions[newest].has_content() {
        return Vec::new();
    }
    prev.0
        .into_iter()
        .zip(prev.1)
        .enumerate()
        .map(|(n, (t, version))| Line { number: n + 1, text: without_ending(t).to_string(), version })
        .collect()
}

/// A line without its `\n` or `\r\n`.
fn without_ending(t: &str) -> &str {
    t.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::history::Version;

    fn v(rev: &str, source: Source, text: Option<&str>) -> Version {
        Version {
            rev: rev.into(),
            source,
            commit: None,
            when: None,
            unix: None,
            author: None,
            email: None,
            agent: None,
            path: None,
            status: String::new(),
            kind: None,
            log: None,
            line: None,
            renamed_from: None,
            subject: String::new(),
            fields_changed: Vec::new(),
            lines_added: 0,
            lines_removed: 0,
            bytes: text.map(|t| t.as_bytes().to_vec()),
            object: None,
            parents: None,
        }
    }

    #[test]
    fn each_line_belongs_to_the_version_that_brought_it() {
        let h = History {
            id: "a".into(),
            path: "a.md".into(),
            git: true,
            prefix: None,
            shallow: false,
            complete: true,
            versions: vec![
                v("c3", Source::Commit, Some("one\nTWO\nthree\nfour\n")),
                v("log.md:1", Source::Log, None),
                v("c2", Source::Commit, Some("one\ntwo\nthree\n")),
                v("c1", Source::Commit, Some("one\ntwo\n")),
            ],
        };
        let got: Vec<(usize, String, usize)> = blame(&h).into_iter().map(|l| (l.number, l.text, l.version)).collect();
        assert_eq!(got, [(1, "one".into(), 3), (2, "TWO".into(), 0), (3, "three".into(), 2), (4, "four".into(), 0)]);
    }

    #[test]
    fn a_file_added_back_after_a_deletion_is_new_again() {
        let mut h = History {
            id: "a".into(),
            path: "a.md".into(),
            git: true,
            prefix: None,
            shallow: false,
            complete: true,
            versions: vec![
                v("c3", Source::Commit, Some("one\n")),
                v("c2", Source::Commit, None),
                v("c1", Source::Commit, Some("one\n")),
            ],
        };
        assert_eq!(blame(&h)[0].version, 0);
        h.versions.remove(0);
        assert!(blame(&h).is_empty(), "a deleted file has no lines to blame");
    }
}
