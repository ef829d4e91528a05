//! Dialogs over the screen: the confirm dialog (what a change will do: files, links
//! repointed, the log line, the diff), one-line prompts, and the merge-target picker.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::model::Model;
use crate::markdown::sanitize;

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width.saturating_sub(2));
    let h = height.min(area.height.saturating_sub(2));
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

fn frame(model: &Model, rect: Rect, title: String, buf: &mut Buffer) -> Rect {
    let t = &model.theme;
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style("border_focus"))
        .title(Span::styled(sanitize::line(&title), t.style("accent")));
    let inner = block.inner(rect);
    block.render(rect, buf);
    buf.set_style(inner, t.style("text"));
    inner
}

fn diff_style(model: &Model, line: &str) -> ratatui::style::Style {
    let t = &model.theme;
    if line.starts_with('+') && !line.starts_with("+++") {
        t.style("accent")
    } else if line.starts_with('-') && !line.starts_with("---") {
        t.style("link_broken")
    } else if line.starts_with('⚠') {
        t.style("warn")
    } else {
        t.style("text")
    }
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let r = &model.review;
    if let Some(c) = &r.confirm {
        let rect = centered(area, 100, area.height.saturating_sub(2));
        let inner = frame(model, rect, format!(" {} ", c.title), buf);
        let body = Rect { height: inner.height.saturating_sub(1), ..inner };
        let style_of = |line: &str| diff_style(model, line);
        super::wrapped_lines::draw(&c.lines, c.scroll, body, buf, &style_of, t.style("muted"));
        let keys = if matches!(c.pending, crate::app::review::Pending::Nothing) {
            "Esc close · j/k scroll"
        } else {
            "y apply · n/Esc cancel · j/k scroll"
        };
        buf.set_line(
            inner.x,
            inner.y + inner.height.saturating_sub(1),
            &Line::styled(keys, t.style("muted")),
            inner.width,
        );
        return;
    }
    if let Some(p) = &r.prompt {
        let rect = centered(area, 72, 3);
        let inner = frame(model, rect, format!(" {} ", p.label()), buf);
        let line = Line::from(vec![
            Span::styled(sanitize::line(&p.text), t.style("text")),
            Span::styled("▏", t.style("accent")),
        ]);
        buf.set_line(inner.x, inner.y, &line, inner.width);
        return;
    }
    if let (Some(p), Some(store)) = (&r.picker, &model.store) {
        let rect = centered(area, 72, 16);
        let from = store.entity(p.from);
        let name = if from.title.trim().is_empty() || from.title == from.id {
            from.id.clone()
        } else {
            format!("{} ({})", from.title, from.id)
        };
        let inner = frame(model, rect, format!(" Merge {name} into… "), buf);
        let prompt = Line::from(vec![
            Span::styled("target: ", t.style("muted")),
            Span::styled(sanitize::line(&p.query), t.style("accent")),
            Span::styled("▏", t.style("accent")),
        ]);
        buf.set_line(inner.x, inner.y, &prompt, inner.width);
        for (n, &idx) in p.hits.iter().enumerate().take(inner.height.saturating_sub(1) as usize) {
            let e = store.entity(idx);
            let y = inner.y + 1 + n as u16;
            let line = Line::from(vec![
                Span::styled(sanitize::line(&e.title), t.style("text")),
                Span::styled(format!("  {}", sanitize::line(&e.id)), t.style("muted")),
            ]);
            if n == p.cursor {
                let sel = t.style("selection");
                buf.set_style(Rect { y, height: 1, ..inner }, sel);
                buf.set_line(inner.x, y, &line.patch_style(sel), inner.width);
            } else {
                buf.set_line(inner.x, y, &line, inner.width);
            }
        }
    }
}
