//! The cursor over a list shown a page at a time (the graph's neighbours, the lint findings).
use crate::app::action::Action;

/// Where `a` moves a cursor over `len` rows with `page` of them on screen; None: `a` is not a move.
pub fn move_cursor(cursor: usize, a: Action, len: usize, page: usize) -> Option<usize> {
    let last = len.saturating_sub(1);
    Some(match a {
        Action::Down => (cursor + 1).min(last),
        Action::Up => cursor.saturating_sub(1),
        Action::PageDown => (cursor + page).min(last),
        Action::PageUp => cursor.saturating_sub(page),
        Action::HalfPageDown => (cursor + page / 2).min(last),
        Action::HalfPageUp => cursor.saturating_sub(page / 2),
        Action::Top => 0,
        Action::Bottom => last,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_stay_in_the_list() {
        assert_eq!(move_cursor(3, Action::Down, 5, 4), Some(4));
        assert_eq!(move_cursor(4, Action::Down, 5, 4), Some(4));
        assert_eq!(move_cursor(0, Action::Up, 5, 4), Some(0));
        assert_eq!(move_cursor(1, Action::PageDown, 20, 8), Some(9));
        assert_eq!(move_cursor(15, Action::PageDown, 20, 8), Some(19));
        assert_eq!(move_cursor(9, Action::HalfPageUp, 20, 8), Some(5));
        assert_eq!(move_cursor(7, Action::Top, 20, 8), Some(0));
        assert_eq!(move_cursor(7, Action::Bottom, 20, 8), Some(19));
        assert_eq!(move_cursor(0, Action::Bottom, 0, 8), Some(0));
        assert_eq!(move_cursor(2, Action::Open, 20, 8), None);
    }
}
