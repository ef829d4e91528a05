//! The lint-fix and restore confirm dialog (`Overlay::Confirm`): what a fix or a restore of a
//! past version would write, as a coloured
//! unified diff, applied only on a yes. Review verdicts use `confirm` instead.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::model::{Model, Overlay};
use crate::markdown::sanitize;

pub fn rect(area: Rect) -> Rect {
    let w = area.width.saturating_sub(4).min(100);
    let h = area.height.saturating_sub(2);
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let Some(Overlay::Confirm { title, diff, scroll, second, .. }) = model.overlays.last() else { return };
    let t = &model.theme;
    let r = rect(area);
    Clear.render(r, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style("border_focus"))
        .title(Span::styled(format!(" {} ", sanitize::line(title)), t.style("accent")))
        .title_bottom(Span::styled(
            if second.is_some() {
                " y twice: not this store's own file · n cancel · j/k scroll "
            } else {
                " y write · n cancel · j/k scroll "
            },
            t.style("muted"),
        ));
    let inner = block.inner(r);
    block.render(r, buf);
    buf.set_style(inner, t.style("text"));
    let style_of = |text: &str| {
        if text.starts_with("+++") || text.starts_with("---") {
            t.style("accent")
        } else if text.starts_with('+') {
            t.style("task_done")
        } else if text.starts_with('-') {
            t.style("error")
        } else if text.starts_with('⚠') {
            t.style("warn")
        } else if text.starts_with("@@") {
            t.style("muted")
        } else {
            t.style("text")
        }
    };
    super::wrapped_lines::draw(diff, *scroll, inner, buf, &style_of, t.style("muted"));
}
