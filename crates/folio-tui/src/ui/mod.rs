//! Pure views: each draws a part of the screen from `&Model` into a buffer. Nothing here
//! changes state or touches the system.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::app::layout;
use crate::app::model::{Model, Pane};

pub mod confirm;
pub mod editor;
pub mod fix_confirm;
pub mod graph;
pub mod history;
pub mod inline;
pub mod lint;
pub mod popup;
pub mod preview;
pub mod properties;
pub mod recall;
pub mod review;
pub mod review_badges;
pub mod statusbar;
pub mod svg;
pub mod too_small;
pub mod tree;
pub mod wrapped_lines;

/// Draw the whole screen.
pub fn draw(model: &Model, area: Rect, buf: &mut Buffer) {
    buf.set_style(area, model.theme.style("text"));
    let Some(p) = layout::panes(area, model.sidebar) else {
        too_small::render(model, area, buf);
        return;
    };
    let main = p.tree.union(p.preview);
    if model.review.open {
        review::render(model, main, buf);
    } else {
        tree::render(model, p.tree, buf);
        match model.main {
            Pane::Graph => graph::render(model, p.preview, buf),
            Pane::Lint => lint::render(model, p.preview, buf),
            Pane::History => history::render(model, p.preview, buf),
            _ => preview::render(model, p.preview, buf),
        }
    }
    popup::render(model, area, buf);
    editor::render(model, main, buf);
    confirm::render(model, area, buf);
    // Last: a long message takes rows above the bar, over whatever is drawn there.
    statusbar::render(model, p.status, buf);
}
