//! Two versions compared line by line, the words that changed within a changed line marked (the
//! history pane's diff): every line of both versions in order, each kept, removed or added, with
//! its numbers in the old and new version, so the pane can open at the first change and jump
//! from change to change. `similar`'s inline diff pairs a removed line with the added one that
//! replaced it and marks the words that differ.
use std::time::{Duration, Instant};

use similar::{ChangeTag, TextDiff};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Same,
    Removed,
    Added,
}

/// One line of the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub tag: Tag,
    /// 1-based numbers in the older and newer version (None where the line is not in it).
    pub old: Option<usize>,
    pub new: Option<usize>,
    /// The line without its ending, in runs: `true` marks the words that changed.
    pub parts: Vec<(bool, String)>,
}

impl DiffLine {
    pub fn text(&self) -> String {
        self.parts.iter().map(|(_, t)| t.as_str()).collect()
    }
}

/// How long the comparison may take before `similar` settles for a coarser one: the pane
/// compares on the UI thread as the selection moves, and two large rewrites of a long file
/// must not freeze it.
const DEADLINE: Duration = Duration::from_millis(300);

/// `old` → `new`, every line of both.
pub fn lines(old: &str, new: &str) -> Vec<DiffLine> {
    let deadline = Instant::now() + DEADLINE;
    let diff = TextDiff::configure().deadline(deadline).diff_lines(old, new);
    let mut out = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_inline_changes_deadline(op, Some(deadline)) {
            let tag = match change.tag() {
                ChangeTag::Equal => Tag::Same,
                ChangeTag::Delete => Tag::Removed,
                ChangeTag::Insert => Tag::Added,
            };
            let mut parts: Vec<(bool, String)> = Vec::new();
            for (marked, value) in change.iter_strings_lossy() {
                let value = value.trim_end_matches(['\n', '\r']);
                if value.is_empty() {
                    continue;
                }
                match parts.last_mut() {
                    Some((m, t)) if *m == marked => t.push_str(value),
                    _ => parts.push((marked, value.to_string())),
                }
            }
            out.push(DiffLine {
                tag,
                old: change.old_index().map(|i| i + 1),
                new: change.new_index().map(|i| i + 1),
                parts,
            });
        }
    }
    out
}

/// The index of each changed run's first line (where `]` and `[` jump to).
pub fn change_starts(lines: &[DiffLine]) -> Vec<usize> {
    (0..lines.len()).filter(|&i| lines[i].tag != Tag::Same && (i == 0 || lines[i - 1].tag == Tag::Same)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_in_order_with_the_changed_words_marked() {
        let old = "a\nrun at 01:00 daily\nc\n";
        let new = "a\nrun at 02:30 daily\nc\nd";
        let got = lines(old, new);
        let tags: Vec<Tag> = got.iter().map(|l| l.tag).collect();
        assert_eq!(tags, [Tag::Same, Tag::Removed, Tag::Added, Tag::Same, Tag::Added]);
        assert_eq!((got[1].old, got[1].new), (Some(2), None));
        assert_eq!((got[2].old, got[2].new), (None, Some(2)));
        assert_eq!(got[2].text(), "run at 02:30 daily");
        let marked: Vec<&str> = got[2].parts.iter().filter(|(m, _)| *m).map(|(_, t)| t.as_str()).collect();
        assert_eq!(marked, ["02:30"]);
        assert_eq!(got[4].text(), "d");
        assert_eq!(change_starts(&got), [1, 4]);
        assert!(change_starts(&lines("x\n", "x\n")).is_empty());
    }
}
