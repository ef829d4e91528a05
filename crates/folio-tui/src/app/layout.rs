//! Where each pane goes for a terminal size. Shared by the views and by `update` (paging and
//! mouse hit-testing need the same geometry the views draw with).
use ratatui::layout::{Constraint, Layout, Rect};

/// Below this size the UI shows the "too small" view instead of a garbled layout.
pub const MIN_WIDTH: u16 = 50;
pub const MIN_HEIGHT: u16 = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Panes {
    pub tree: Rect,
    pub preview: Rect,
    pub status: Rect,
}

/// The panes for `area` with the catalog taking `sidebar` percent of the width (at least 20
/// columns, and never so much that the preview gets fewer than 30).
pub fn panes(area: Rect, sidebar: u16) -> Option<Panes> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let [main, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    let share = (u32::from(area.width) * u32::from(sidebar) / 100) as u16;
    let catalog_width = share.clamp(20, area.width - 30);
    let [tree, preview] = Layout::horizontal([Constraint::Length(catalog_width), Constraint::Min(1)]).areas(main);
    Some(Panes { tree, preview, status })
}

/// The review inbox over `area`: the queue on the left taking `list` percent of the width (at
/// least 24 columns, and never so much that the detail gets fewer than 24), the detail right.
pub fn inbox_split(area: Rect, list: u16) -> (Rect, Rect) {
    let share = (u32::from(area.width) * u32::from(list) / 100) as u16;
    let width = share.clamp(24.min(area.width), area.width.saturating_sub(24).max(24.min(area.width)));
    let [left, right] = Layout::horizontal([Constraint::Length(width), Constraint::Min(1)]).areas(area);
    (left, right)
}

/// Inside the catalog border: the first row is the filter line, the tree rows follow.
pub fn tree_rows(tree: Rect) -> Rect {
    let inner = inner(tree);
    Rect { y: inner.y + 1, height: inner.height.saturating_sub(1), ..inner }
}

/// Inside the preview border (the last column is the scrollbar).
pub fn preview_body(preview: Rect) -> Rect {
    let inner = inner(preview);
    Rect { width: inner.width.saturating_sub(1), ..inner }
}

fn inner(r: Rect) -> Rect {
    Rect { x: r.x + 1, y: r.y + 1, width: r.width.saturating_sub(2), height: r.height.saturating_sub(2) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_refuses_tiny_terminals() {
        assert_eq!(panes(Rect::new(0, 0, 40, 10), 30), None);
        let p = panes(Rect::new(0, 0, 80, 24), 30).unwrap();
        assert_eq!(p.tree, Rect::new(0, 0, 24, 23));
        assert_eq!(p.preview, Rect::new(24, 0, 56, 23));
        assert_eq!(p.status, Rect::new(0, 23, 80, 1));
        assert_eq!(tree_rows(p.tree).height, 20);
        assert_eq!(preview_body(p.preview).width, 53);
    }

    #[test]
    fn the_inbox_list_is_a_share_of_the_width_within_bounds() {
        let (l, r) = inbox_split(Rect::new(0, 0, 160, 44), 40);
        assert_eq!((l.width, r.width), (64, 96));
        assert_eq!(inbox_split(Rect::new(0, 0, 160, 44), 70).0.width, 112);
        assert_eq!(inbox_split(Rect::new(0, 0, 80, 23), 15).0.width, 24, "the list keeps 24 columns");
        assert_eq!(inbox_split(Rect::new(0, 0, 80, 23), 90).1.width, 24, "the detail keeps 24");
    }

    #[test]
    fn the_sidebar_is_a_share_of_the_width_within_bounds() {
        let wide = Rect::new(0, 0, 200, 50);
        assert_eq!(panes(wide, 30).unwrap().tree.width, 60);
        assert_eq!(panes(wide, 50).unwrap().tree.width, 100);
        assert_eq!(panes(Rect::new(0, 0, 60, 20), 70).unwrap().preview.width, 30, "the preview keeps 30 columns");
        assert_eq!(panes(Rect::new(0, 0, 60, 20), 15).unwrap().tree.width, 20, "the tree keeps 20");
    }
}
