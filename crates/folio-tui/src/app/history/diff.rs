//! The selected version compared with its base (the marked version, else the next older one
//! with content), line by line with the changed words marked, and where the pane's view of it
//! starts: at the first change, a few lines of context above it, whenever another pair of
//! versions is compared; `]` and `[` (next and previous change) jump from change to change.
use unicode_width::UnicodeWidthChar;

use super::{HistoryData, HistoryView};
use folio_core::store::history::Source;
use folio_core::store::history::line_diff::{self, DiffLine};

/// Lines of context shown above a change the view jumps to (fewer in a pane of few rows).
pub const CONTEXT: usize = 3;

/// The comparison's room on screen: its rows, and the columns a line's text wraps at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    pub rows: usize,
    pub width: usize,
}

/// Two versions compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// The selected version's rev and its base's (None: it is the first version).
    pub rev: String,
    pub base: Option<String>,
    pub lines: Vec<DiffLine>,
    /// The index of each change's first line…
    pub changes: Vec<usize>,
    /// …and the line the view starts at to show it: up to `CONTEXT` lines above it, as many as
    /// a third of the rows holds once they wrap.
    pub stops: Vec<usize>,
}

/// The version the selected one is compared with: the marked one, else the next older one
/// with content (None: it is the first).
pub fn base_of(view: &HistoryView, data: &HistoryData) -> Option<usize> {
    let versions = &data.history.versions;
    if let Some(m) =
        view.marked.filter(|&m| m != view.cursor && versions.get(m).is_some_and(|v| v.source != Source::Log))
    {
        return Some(m);
    }
    (view.cursor + 1..versions.len()).find(|&i| versions[i].source != Source::Log)
}

/// Compare what the view selects, unless the comparison held is of the same pair; a new pair
/// opens at its first change.
pub fn sync(view: &mut HistoryView, room: Room) {
    let wanted = match &view.data {
        Some(Ok(d)) if !view.blame && d.history.complete => d
            .history
            .versions
            .get(view.cursor)
            .filter(|v| v.source != Source::Log)
            .map(|v| (d.clone(), v.rev.clone(), base_of(view, d).map(|b| d.history.versions[b].rev.clone()))),
        _ => None,
    };
    let Some((data, rev, base)) = wanted else {
        view.diff = None;
        return;
    };
    if let Some(held) = view.diff.as_ref().filter(|c| c.rev == rev && c.base == base) {
        view.scroll = view.scroll.min(held.last());
        return;
    }
    let find = |r: &str| data.history.versions.iter().find(|v| v.rev == r).map(|v| v.text()).unwrap_or_default();
    let lines = line_diff::lines(&base.as_deref().map(find).unwrap_or_default(), &find(&rev));
    let compared = Compared::new(rev, base, lines, room);
    view.scroll = compared.stops.first().copied().unwrap_or(0);
    view.diff = Some(std::sync::Arc::new(compared));
}

/// Rows a line takes once wrapped at `width` columns.
fn height(line: &DiffLine, width: usize) -> usize {
    rows(&line.text().chars().collect::<Vec<char>>(), width).len().max(1)
}

/// Where text wraps into rows of `width` columns: each row's range of `chars`, broken after the
/// last space that fits (a word longer than a row where it reaches the edge). The view draws
/// the rows; the update counts them.
pub fn rows(chars: &[char], width: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let (mut end, mut used) = (start, 0);
        while end < chars.len() && used + chars[end].width().unwrap_or(0) <= width {
            used += chars[end].width().unwrap_or(0);
            end += 1;
        }
        if end == start {
            end += 1;
        } else if end < chars.len()
            && let Some(space) = (start + 1..end).rev().find(|&i| chars[i - 1] == ' ')
        {
            end = space;
        }
        out.push(start..end);
        start = end;
    }
    out
}

impl Compared {
    pub fn new(rev: String, base: Option<String>, lines: Vec<DiffLine>, room: Room) -> Compared {
        let changes = line_diff::change_starts(&lines);
        let stops = changes
            .iter()
            .map(|&c| {
                let (mut start, mut used) = (c, 0);
                while start > 0 && c - start < CONTEXT {
                    used += height(&lines[start - 1], room.width);
                    if used > room.rows / 3 {
                        break;
                    }
                    start -= 1;
                }
                start
            })
            .collect();
        Compared { rev, base, lines, changes, stops }
    }

    /// The furthest the view scrolls: the last line at the top.
    pub fn last(&self) -> usize {
        self.lines.len().saturating_sub(1)
    }

    /// Where the view starts to show the next change after the one at `scroll` (None: none).
    pub fn next_change(&self, scroll: usize) -> Option<usize> {
        self.stops.iter().copied().find(|&at| at > scroll)
    }

    /// Where the view starts to show the change before the one at `scroll` (None: none).
    pub fn prev_change(&self, scroll: usize) -> Option<usize> {
        self.stops.iter().rev().copied().find(|&at| at < scroll)
    }

    /// Which change (1-based) the view at `scroll` shows first, of how many.
    pub fn change_at(&self, scroll: usize) -> (usize, usize) {
        let shown = self.stops.iter().take_while(|&&at| at <= scroll).count();
        (shown.max(1).min(self.changes.len()), self.changes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compared(old: &str, new: &str) -> Compared {
        Compared::new("b".into(), Some("a".into()), line_diff::lines(old, new), Room { rows: 30, width: 80 })
    }

    #[test]
    fn jumps_from_change_to_change_with_context_above() {
        let old: String = (1..=40).map(|n| format!("{n}\n")).collect();
        let new = old.replace("\n10\n", "\nten\n").replace("\n30\n", "\nthirty\n");
        let c = compared(&old, &new);
        // Line 10 removed then added at rows 9 and 10; line 30 at rows 30 and 31.
        assert_eq!(c.changes, [9, 30]);
        assert_eq!(c.next_change(0), Some(9 - CONTEXT));
        assert_eq!(c.next_change(9 - CONTEXT), Some(30 - CONTEXT));
        assert_eq!(c.next_change(30 - CONTEXT), None);
        assert_eq!(c.prev_change(30 - CONTEXT), Some(9 - CONTEXT));
        assert_eq!(c.prev_change(9 - CONTEXT), None);
        assert_eq!(c.change_at(0), (1, 2));
        assert_eq!(c.change_at(30 - CONTEXT), (2, 2));
        assert_eq!(compared("x\n", "x\n").change_at(0), (0, 0));
        // In a pane of few rows, long lines above a change leave less context.
        let long = "word ".repeat(30);
        let old = format!("{long}\n{long}\n{long}\nold\n");
        let c = Compared::new(
            "b".into(),
            None,
            line_diff::lines(&old, &old.replace("old", "new")),
            Room { rows: 12, width: 50 },
        );
        assert_eq!((c.changes[0], c.stops[0]), (3, 2));
        let chars: Vec<char> = "one two three".chars().collect();
        assert_eq!(rows(&chars, 8), [0..4, 4..8, 8..13]);
        assert_eq!(rows(&chars, 3), [0..3, 3..4, 4..7, 7..8, 8..11, 11..13]);
        assert!(rows(&[], 5).is_empty());
    }
}
