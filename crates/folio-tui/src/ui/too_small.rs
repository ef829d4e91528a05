//! Shown instead of the panes when the terminal is too small to lay them out.
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::app::model::Model;

use crate::app::layout::{MIN_HEIGHT, MIN_WIDTH};

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let lines = vec![
        Line::styled("Terminal too small", t.style("warn")),
        Line::styled(format!("{}×{} — folio needs {MIN_WIDTH}×{MIN_HEIGHT}", area.width, area.height), t.style("text")),
        Line::styled("Enlarge the window, or press q to quit.", t.style("muted")),
    ];
    let top = area.height.saturating_sub(lines.len() as u16) / 2;
    let rect = Rect { y: area.y + top, height: area.height - top, ..area };
    Paragraph::new(lines).alignment(Alignment::Center).wrap(Wrap { trim: true }).render(rect, buf);
}
