//! The lint panel: every finding of the store grouped by rule or by file with counts per
//! severity, the active filters, and the selected finding's lines with its span highlighted.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::app::lint::{LintRow, list_area, rows, selected_finding};
use crate::app::model::{Model, Pane};
use crate::markdown::sanitize;
use folio_core::store::lint::Finding;
use folio_core::store::model::entity::Severity;

fn severity_span(model: &Model, s: Severity) -> Span<'static> {
    let t = &model.theme;
    match s {
        Severity::Error => Span::styled("E ", t.style("error")),
        Severity::Warn => Span::styled("W ", t.style("warn")),
        Severity::Info => Span::styled("I ", t.style("muted")),
    }
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let focused = model.focus == Pane::Lint && model.overlays.is_empty();
    let view = &model.lint_view;
    let title = match &model.lint {
        Some(r) => {
            let s = r.summary();
            let ignored = match r.suppressed.len() {
                0 => String::new(),
                n => format!(" · {n} ignored"),
            };
            let n =
                |count: usize, noun: &str| if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") };
            format!(
                " 4 Lint: {} · {} · {} · {} fixable{ignored} ",
                n(s.errors, "error"),
                n(s.warnings, "warning"),
                n(s.infos, "info"),
                s.fixable
            )
        }
        None => " 4 Lint ".to_string(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.style("border_focus") } else { t.style("border") })
        .title(Span::styled(title, if focused { t.style("accent") } else { t.style("muted") }));
    let inner = block.inner(area);
    block.render(area, buf);
    let (Some(store), Some(report)) = (&model.store, &model.lint) else {
        let text = if model.linting || model.store.is_some() { "linting…" } else { "no store loaded" };
        buf.set_line(inner.x, inner.y, &Line::styled(text, t.style("muted")), inner.width);
        return;
    };
    let filters = format!(
        "by {} · severity {} · rule {} · kind {}",
        if view.by_file { "file" } else { "rule" },
        view.severity.map(Severity::name).unwrap_or("all"),
        view.rule.unwrap_or("all"),
        view.kind.as_deref().map(sanitize::line).unwrap_or_else(|| "all".into()),
    );
    buf.set_line(inner.x, inner.y, &Line::styled(filters, t.style("muted")), inner.width);
    let list = list_area(area);
    let rows = rows(view, store, report);
    if rows.is_empty() {
        let text = if !report.findings.is_empty() {
            "no finding matches the filters".to_string()
        } else if report.suppressed.is_empty() {
            "no findings: the store is clean".to_string()
        } else {
            format!("no findings ({} ignored: v shows them)", report.suppressed.len())
        };
        buf.set_line(list.x, list.y, &Line::styled(text, t.style("muted")), list.width);
        return;
    }
    let h = list.height as usize;
    let cursor = view.cursor.min(rows.len() - 1);
    let first = cursor.saturating_sub(h.saturating_sub(1));
    for (n, row) in rows.iter().enumerate().skip(first).take(h) {
        let y = list.y + (n - first) as u16;
        let line = match row {
            LintRow::Group { label, count } => Line::from(vec![
                Span::styled(sanitize::line(label), t.style("accent")),
                Span::styled(format!(" {count}"), t.style("muted")),
            ]),
            LintRow::Finding(i) => finding_line(model, &report.findings[*i]),
            LintRow::Ignored(i) => {
                let s = &report.suppressed[*i];
                let mut line = finding_line(model, &s.finding).patch_style(t.style("muted"));
                line.spans.push(Span::styled(format!(" — ignored: {}", sanitize::line(&s.reason)), t.style("muted")));
                line
            }
        };
        let line = super::inline::ellipsized(line, list.width);
        if n == cursor {
            let sel = if focused { t.style("selection") } else { t.style("selection").patch(t.style("muted")) };
            buf.set_style(Rect { y, height: 1, ..list }, sel);
            buf.set_line(list.x, y, &line.patch_style(sel), list.width);
        } else {
            buf.set_line(list.x, y, &line, list.width);
        }
    }
    let context = Rect { y: list.bottom(), height: inner.bottom().saturating_sub(list.bottom()), ..list };
    if context.height > 0 {
        draw_context(model, context, buf);
    }
}

fn finding_line(model: &Model, f: &Finding) -> Line<'static> {
    let t = &model.theme;
    let place =
        if model.lint_view.by_file { f.rule.to_string() } else { f.path.as_deref().unwrap_or_default().to_string() };
    let pos = if f.line > 0 { format!(":{}", f.line) } else { String::new() };
    let mut spans = vec![
        Span::raw("  "),
        severity_span(model, f.severity),
        Span::styled(format!("{}{pos} ", sanitize::line(&place)), t.style("muted")),
        Span::styled(sanitize::line(&f.message), t.style("text")),
    ];
    if f.fix.is_some() {
        spans.push(Span::styled(" [fix]", t.style("accent")));
    }
    Line::from(spans)
}

/// The selected finding's lines, numbered, its line marked and the span from its column to
/// the end of the word highlighted.
fn draw_context(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    buf.set_line(area.x, area.y, &Line::styled("─".repeat(area.width as usize), t.style("border")), area.width);
    let Some(c) = &model.lint_view.context else { return };
    let col = selected_finding(model).map(|f| f.col).unwrap_or(0);
    for (n, text) in c.lines.iter().enumerate().take(area.height.saturating_sub(1) as usize) {
        let number = c.first + n as u32;
        let y = area.y + 1 + n as u16;
        let text = sanitize::line(text);
        let mut spans = vec![Span::styled(format!("{number:>5} │ "), t.style("muted"))];
        if number == c.line {
            spans[0] = Span::styled(format!("{number:>5}▶│ "), t.style("warn"));
            let chars: Vec<char> = text.chars().collect();
            let start = (col.max(1) as usize - 1).min(chars.len());
            let end = if col == 0 {
                chars.len()
            } else {
                (start..chars.len())
                    .find(|&k| chars[k].is_whitespace())
                    .unwrap_or(chars.len())
                    .max(start + 1)
                    .min(chars.len())
            };
            let (start, end) = if col == 0 { (0, chars.len()) } else { (start, end) };
            spans.push(Span::styled(chars[..start].iter().collect::<String>(), t.style("text")));
            spans.push(Span::styled(
                chars[start..end].iter().collect::<String>(),
                t.style("selection").patch(t.style("warn")),
            ));
            spans.push(Span::styled(chars[end..].iter().collect::<String>(), t.style("text")));
        } else {
            spans.push(Span::styled(text, t.style("text")));
        }
        buf.set_line(area.x, y, &Line::from(spans), area.width);
    }
}
