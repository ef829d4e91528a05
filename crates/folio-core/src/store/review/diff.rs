//! Word-level diff between an entity's last approved text and its text now (what the review
//! pane colours, and what `folio review show` prints as `[-old-]{+new+}`).
use similar::{ChangeTag, TextDiff};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Same,
    Removed,
    Added,
}

/// Runs of words (with their whitespace), each kept, removed or added.
pub fn words(old: &str, new: &str) -> Vec<(Op, String)> {
    let diff = TextDiff::from_words(old, new);
    let mut out: Vec<(Op, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        let op = match change.tag() {
            ChangeTag::Equal => Op::Same,
            ChangeTag::Delete => Op::Removed,
            ChangeTag::Insert => Op::Added,
        };
        match out.last_mut() {
            Some((last, text)) if *last == op => text.push_str(change.value()),
            _ => out.push((op, change.value().to_string())),
        }
    }
    out
}

/// The diff as plain text: `[-removed-]` and `{+added+}` inline.
pub fn render(ops: &[(Op, String)]) -> String {
    ops.iter()
        .map(|(op, t)| match op {
            Op::Same => t.clone(),
            Op::Removed => format!("[-{t}-]"),
            Op::Added => format!("{{+{t}+}}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_changed_words_only() {
        let ops = words("run the nightly backup at 01:00\n", "run the nightly backup at 02:30\n");
        assert_eq!(render(&ops), "run the nightly backup at [-01:00-]{+02:30+}\n");
        assert_eq!(ops.iter().filter(|(o, _)| *o != Op::Same).count(), 2);
        assert_eq!(words("same", "same"), vec![(Op::Same, "same".to_string())]);
    }
}
