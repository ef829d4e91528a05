//! A table's geometry for a width: how wide each column is drawn and how a cell's text wraps
//! within its column, aligned as the delimiter row asks (`:---:`, `---:`). A long cell wraps
//! onto more rows instead of being cut, so its whole text reads at any width; narrow columns
//! keep their natural width and the wide ones share what is left.
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::doc::Align;

/// The narrowest a column is squeezed to (a column narrower by nature keeps its width): below
/// this, wrapped text is a letter or two a row and reads as noise.
pub const MIN_COLUMN: usize = 4;

/// Columns' widths for cells whose widest text is `natural`, in `avail` cells of the line
/// (3 more per column for `│ ` and ` `): the columns that fit, and whether some on the right
/// were left out (None: not even one column fits).
pub fn widths(natural: &[usize], avail: usize) -> Option<(Vec<usize>, bool)> {
    let natural: Vec<usize> = natural.iter().map(|&w| w.max(1)).collect();
    for keep in (1..=natural.len()).rev() {
        let cols = &natural[..keep];
        let Some(budget) = avail.checked_sub(3 * keep + usize::from(keep < natural.len())) else { continue };
        if let Some(w) = share(cols, budget).filter(|w| w.iter().zip(cols).all(|(&w, &n)| w >= n.min(MIN_COLUMN))) {
            return Some((w, keep < natural.len()));
        }
        if keep == 1 && budget >= 1 {
            return Some((vec![cols[0].min(budget)], keep < natural.len()));
        }
    }
    None
}

/// `budget` cells shared out: each column up to its natural width, the widest capped alike,
/// what rounding leaves given to the capped ones from the left (None: not a cell each).
fn share(natural: &[usize], budget: usize) -> Option<Vec<usize>> {
    if natural.iter().sum::<usize>() <= budget {
        return Some(natural.to_vec());
    }
    if budget < natural.len() {
        return None;
    }
    // The largest cap whose capped widths fit.
    let (mut lo, mut hi) = (1, natural.iter().copied().max().unwrap_or(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if natural.iter().map(|&n| n.min(mid)).sum::<usize>() <= budget { lo = mid } else { hi = mid - 1 }
    }
    let mut w: Vec<usize> = natural.iter().map(|&n| n.min(lo)).collect();
    let mut left = budget - w.iter().sum::<usize>();
    for (c, &n) in natural.iter().enumerate() {
        if left == 0 {
            break;
        }
        if w[c] < n {
            w[c] += 1;
            left -= 1;
        }
    }
    Some(w)
}

/// `text` in rows of at most `width` columns, broken between words, a word longer than the
/// row broken where it reaches the edge.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let need = if row.is_empty() { word.width() } else { row.width() + 1 + word.width() };
        if need <= width {
            if !row.is_empty() {
                row.push(' ');
            }
            row.push_str(word);
            continue;
        }
        if !row.is_empty() {
            rows.push(std::mem::take(&mut row));
        }
        for c in word.chars() {
            // A character wider than the whole column (a wide glyph in a one-letter column).
            let c = if c.width().unwrap_or(0) > width { '…' } else { c };
            if row.width() + c.width().unwrap_or(0) > width && !row.is_empty() {
                rows.push(std::mem::take(&mut row));
            }
            row.push(c);
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows
}

/// `text` padded to `width` columns on the side its alignment leaves empty.
pub fn aligned(text: &str, width: usize, align: Align) -> String {
    let gap = width.saturating_sub(text.width());
    let (left, right) = match align {
        Align::Right => (gap, 0),
        Align::Center => (gap / 2, gap - gap / 2),
        Align::Left | Align::None => (0, gap),
    };
    format!("{}{text}{}", " ".repeat(left), " ".repeat(right))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_columns_keep_their_width_and_wide_ones_share_the_rest() {
        assert_eq!(widths(&[3, 10], 40), Some((vec![3, 10], false)));
        // 30 cells less 6 for the borders: the narrow column keeps 3, the wide one gets 21.
        assert_eq!(widths(&[3, 60], 30), Some((vec![3, 21], false)));
        assert_eq!(widths(&[40, 40, 2], 40), Some((vec![15, 14, 2], false)));
        // Too many columns for four cells each: the right ones are left out, and marked.
        let (w, cut) = widths(&[10; 10], 30).unwrap();
        assert!(cut && w.iter().all(|&w| w >= MIN_COLUMN), "{w:?}");
        assert!(w.iter().sum::<usize>() + 3 * w.len() < 30);
        assert_eq!(widths(&[10], 3), None);
    }

    #[test]
    fn cells_wrap_between_words_and_align() {
        assert_eq!(
            wrap("exponential, jittered, capped at thirty seconds", 14),
            ["exponential,", "jittered,", "capped at", "thirty seconds"]
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
        assert_eq!(wrap("表a", 1), ["…", "a"]);
        assert_eq!(aligned("7", 4, Align::Right), "   7");
        assert_eq!(aligned("ab", 6, Align::Center), "  ab  ");
        assert_eq!(aligned("ab", 4, Align::None), "ab  ");
    }
}
