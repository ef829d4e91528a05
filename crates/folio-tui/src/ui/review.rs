//! The review inbox: the queue on the left (why each item is there, kind, age, author, evidence),
//! the selected item on the right (its facts, findings, hidden-content warning, the promotion it
//! asks for, the word diff since its last approval or its whole text, and for a contradiction
//! both entities side by side).
use folio_core::store::model::entity::id_as_shown;
use std::collections::HashSet;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use super::review_badges as badges;
use crate::app::model::Model;
use crate::markdown::sanitize;
use folio_core::store::lint::near_duplicate;
use folio_core::store::read::body_text;
use folio_core::store::review::QueueItem;
use folio_core::store::review::diff::Op;
use folio_core::store::review::group::grouped;

fn framed(model: &Model, area: Rect, title: String, focused: bool, buf: &mut Buffer) -> Rect {
    let t = &model.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.style("border_focus") } else { t.style("border") })
        .title(Span::styled(title, if focused { t.style("accent") } else { t.style("muted") }));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// The reasons spelt out, for the detail pane.
fn reasons(item: &QueueItem) -> String {
    item.reasons.iter().map(|r| format!("{} {}", badges::badge(*r), r.code())).collect::<Vec<_>>().join(" · ")
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let r = &model.review;
    let (left, right) = crate::app::layout::inbox_split(area, r.list_width);
    let visible = r.visible();
    let count = if r.filter.is_empty() {
        format!("{}", visible.len())
    } else {
        format!("{} of {} · {}", visible.len(), r.items.len(), sanitize::line(&r.filter))
    };
    // While the queue is built: how far, and (built while lint ran) that lint's reasons follow.
    let building = match &r.building {
        Some(b) if b.streaming => format!(" · reading {} of {}", b.done, b.total),
        _ if r.provisional => " · lint running".to_string(),
        _ => String::new(),
    };
    let inner = framed(model, left, format!(" Review inbox ({count}){building} "), true, buf);
    if !r.loaded {
        buf.set_line(inner.x, inner.y, &Line::styled("building the queue…", t.style("muted")), inner.width);
    } else if visible.is_empty() {
        buf.set_line(inner.x, inner.y, &Line::styled("Nothing awaits a decision.", t.style("muted")), inner.width);
    }
    // The header: each reason's badge, name and count (the legend), wrapped so none is cut; at
    // most a third of the column, the rest of the legend then left to the detail's `queued`.
    let inner = if r.loaded && !visible.is_empty() && inner.height > 1 {
        let counts = folio_core::store::review::queue::counts(visible.iter().copied());
        let legend = badges::legend(&model.theme, &counts, usize::from(inner.width));
        let room = usize::from(inner.height / 3).max(1);
        let shown = legend.len().min(room);
        for (n, line) in legend.into_iter().take(shown).enumerate() {
            buf.set_line(inner.x, inner.y + n as u16, &line, inner.width);
        }
        Rect { y: inner.y + shown as u16, height: inner.height - shown as u16, ..inner }
    } else {
        inner
    };
    // Rows: the items, each group (when grouped) under a header naming it and its size.
    let mut rows: Vec<Option<usize>> = Vec::with_capacity(visible.len());
    let mut headers: Vec<String> = Vec::new();
    match r.group {
        Some(by) => {
            let mut n = 0;
            for (key, members) in grouped(&visible, by) {
                let size = members.len();
                let noun = if size == 1 { "item" } else { "items" };
                headers.push(format!("{} · {size} {noun}", sanitize::line(&key)));
                rows.push(None);
                rows.extend((n..n + size).map(Some));
                n += size;
            }
        }
        None => rows.extend((0..visible.len()).map(Some)),
    }
    let h = inner.height as usize;
    let at = rows.iter().position(|&x| x == Some(r.cursor)).unwrap_or(0);
    let first = at.saturating_sub(h.saturating_sub(1));
    let header_of = |row: usize| rows[..=row].iter().filter(|x| x.is_none()).count().saturating_sub(1);
    // The badges take one column width, so the titles line up.
    let badge_w = visible.iter().map(|i| badges::width(&i.reasons)).max().unwrap_or(0).min(14);
    for (row, slot) in rows.iter().enumerate().skip(first).take(h) {
        let y = inner.y + (row - first) as u16;
        let Some(n) = *slot else {
            let line = Line::styled(format!("── {}", headers[header_of(row)]), t.style("accent"));
            buf.set_line(inner.x, y, &super::inline::ellipsized(line, inner.width), inner.width);
            continue;
        };
        let item = visible[n];
        let mut spans = Vec::new();
        if item.hidden_content {
            spans.push(Span::styled("⚠ ", t.style("warn")));
        }
        spans.extend(badges::spans(&model.theme, &item.reasons));
        let pad = badge_w.saturating_sub(badges::width(&item.reasons)) + 1;
        spans.push(Span::raw(" ".repeat(pad)));
        // An item is read by its title; the id (a hash key for some formats) follows, dimmed.
        let title = if item.title.trim().is_empty() { item.id.as_str() } else { item.title.as_str() };
        spans.push(Span::styled(sanitize::line(title), t.style("text")));
        if title != item.id {
            spans.push(Span::styled(format!("  {}", sanitize::line(&item.id)), t.style("muted")));
        }
        let line = super::inline::ellipsized(Line::from(spans), inner.width);
        if n == r.cursor {
            let sel = t.style("selection");
            buf.set_style(Rect { y, height: 1, ..inner }, sel);
            buf.set_line(inner.x, y, &line.patch_style(sel), inner.width);
        } else {
            buf.set_line(inner.x, y, &line, inner.width);
        }
    }
    let title = r.selected().map(|i| sanitize::line(&i.path)).unwrap_or_else(|| "detail".into());
    let inner = framed(model, right, format!(" {title} "), false, buf);
    let Some(item) = r.selected() else { return };
    let mut lines = facts(model, item);
    let detail = r.detail.as_ref().filter(|d| d.id == item.id);
    if let Some(p) = detail.and_then(|d| d.promotion.as_ref()) {
        lines.push(Line::from(vec![
            Span::styled("asks for    ", t.style("muted")),
            Span::styled(p.clone(), t.style("accent")),
        ]));
    }
    lines.push(Line::styled("─".repeat(40), t.style("border")));
    let Some(d) = detail else {
        lines.push(Line::styled("reading…", t.style("muted")));
        Paragraph::new(lines).render(inner, buf);
        return;
    };
    let scroll = r.detail_scroll.min(u16::MAX as usize) as u16;
    // Only what can be on screen: every line takes at least a row.
    let rows = usize::from(scroll) + usize::from(inner.height);
    let width = usize::from(inner.width);
    match &d.diff {
        Some(ops) => {
            lines.push(Line::styled(d.heading.clone(), t.style("accent")));
            lines.extend(diff_lines(model, ops, rows, width));
        }
        None => {
            lines.push(Line::styled(d.heading.clone(), t.style("accent")));
            lines.extend(visible_lines(&d.text, rows, width).map(|l| Line::styled(l, t.style("text"))));
        }
    }
    let head = lines.len();
    match &d.other {
        Some((other_id, other_text)) => {
            // A contradiction: this entity and the one it contradicts, side by side.
            let split = (head as u16).saturating_sub(scroll).min(inner.height / 2).max(inner.height.min(4));
            let [top, bottom] = Layout::vertical([Constraint::Length(split), Constraint::Min(1)]).areas(inner);
            Paragraph::new(lines).scroll((scroll, 0)).render(top, buf);
            let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom);
            side(model, a, &item.id, &d.text, buf);
            side(model, b, other_id, other_text, buf);
        }
        None => match &d.duplicate {
            Some(dup) => {
                // A near-duplicate: both texts side by side, the words both say highlighted.
                let split = (head as u16).saturating_sub(scroll).min(inner.height / 2).max(inner.height.min(4));
                let [top, heading, bottom] =
                    Layout::vertical([Constraint::Length(split), Constraint::Length(1), Constraint::Min(1)])
                        .areas(inner);
                Paragraph::new(lines).scroll((scroll, 0)).render(top, buf);
                let what = format!("Near-duplicate of {}: shared words highlighted · m merge into…", dup.id);
                buf.set_line(
                    heading.x,
                    heading.y,
                    &Line::styled(sanitize::line(&what), t.style("accent")),
                    heading.width,
                );
                let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(bottom);
                side_marked(model, a, &item.id, &d.text, &dup.shared, buf);
                side_marked(model, b, &dup.id, &dup.text, &dup.shared, buf);
            }
            None => Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((scroll, 0)).render(inner, buf),
        },
    }
}

/// One side of a near-duplicate pair: words whose stem both texts hold are highlighted.
fn side_marked(model: &Model, area: Rect, id: &str, text: &str, shared: &HashSet<String>, buf: &mut Buffer) {
    let inner = framed(model, area, format!(" {} ", sanitize::line(id)), false, buf);
    let (plain, hl) = (model.theme.style("text"), model.theme.style("marker").add_modifier(Modifier::BOLD));
    let lines: Vec<Line> = visible_lines(text, usize::from(inner.height), usize::from(inner.width))
        .map(|l| {
            let mut spans = Vec::new();
            let mut at = 0;
            for (start, w) in body_text::words(&l) {
                let end = start + word_bytes(&l[start..]);
                if near_duplicate::is_content(&w) && shared.contains(near_duplicate::stem(&w)) {
                    spans.push(Span::styled(l[at..start].to_string(), plain));
                    spans.push(Span::styled(l[start..end].to_string(), hl));
                    at = end;
                }
            }
            spans.push(Span::styled(l[at..].to_string(), plain));
            Line::from(spans)
        })
        .collect();
    Paragraph::new(lines).wrap(Wrap { trim: false }).render(inner, buf);
}

/// Bytes of the word starting `text` (as `body_text::words` cut it).
fn word_bytes(text: &str) -> usize {
    text.char_indices().find(|(_, c)| !c.is_alphanumeric()).map_or(text.len(), |(i, _)| i)
}

fn side(model: &Model, area: Rect, id: &str, text: &str, buf: &mut Buffer) {
    let inner = framed(model, area, format!(" {} ", sanitize::line(id)), false, buf);
    let rows = usize::from(inner.height);
    let lines: Vec<Line> = visible_lines(text, rows, usize::from(inner.width))
        .map(|l| Line::styled(l, model.theme.style("text")))
        .collect();
    Paragraph::new(lines).wrap(Wrap { trim: false }).render(inner, buf);
}

/// Why the item is queued and what backs it.
fn facts(model: &Model, item: &QueueItem) -> Vec<Line<'static>> {
    let t = &model.theme;
    let mut out = vec![Line::from(super::inline::title_spans(&item.title, t.style("title"), t.style("code")))];
    let mut field = |key: &str, value: String, style: Style| {
        if !value.is_empty() {
            out.push(Line::from(vec![
                Span::styled(format!("{key:<12}"), t.style("muted")),
                Span::styled(sanitize::line(&value), style),
            ]));
        }
    };
    field("id", id_as_shown(&item.id).into_owned(), t.style("text"));
    field("queued", reasons(item), t.style("pending"));
    field("kind", item.kind.clone().unwrap_or_default(), t.style("accent"));
    field("status", item.status.clone().unwrap_or_default(), t.style("text"));
    field("age", item.age_days.map(age).unwrap_or_default(), t.style("text"));
    field("author", item.author.clone().unwrap_or_default(), t.style("text"));
    let confidence = item.confidence.map(|c| format!(" · confidence {c:.2}")).unwrap_or_default();
    field("evidence", format!("{} · sources {}{confidence}", item.evidence, item.sources), t.style("text"));
    // Reviewers who decided apart and disagree: both verdicts, folio picks neither.
    for v in &item.verdicts {
        out.push(Line::from(vec![
            Span::styled("⚠ conflict  ", t.style("warn").add_modifier(Modifier::BOLD)),
            Span::styled(sanitize::line(v), t.style("text")),
        ]));
    }
    for f in &item.findings {
        out.push(Line::from(vec![
            Span::styled("⚠ ", t.style("warn")),
            Span::styled(sanitize::line(f), t.style("text")),
        ]));
    }
    if item.hidden_content {
        out.push(Line::styled(
            "⚠ hidden control characters: approving needs a second confirmation".to_string(),
            t.style("warn").add_modifier(Modifier::BOLD),
        ));
    }
    out
}

/// The first `rows` lines of `text`, each cut to what `rows` rows of `width` can show, made
/// safe: a 10 MB line or a 50,000-line table is not sanitised and wrapped whole on every frame.
fn visible_lines(text: &str, rows: usize, width: usize) -> impl Iterator<Item = String> + '_ {
    let cap = rows.saturating_mul(width.max(1));
    text.lines().take(rows).map(move |l| sanitize::line(cut(l, cap)))
}

/// At most `chars` characters of `s`.
fn cut(s: &str, chars: usize) -> &str {
    s.char_indices().nth(chars).map_or(s, |(i, _)| &s[..i])
}

/// The word diff as lines (up to `rows` of them, cut as `visible_lines` does): removed words
/// struck through, added words highlighted.
pub fn diff_lines(model: &Model, ops: &[(Op, String)], rows: usize, width: usize) -> Vec<Line<'static>> {
    let t = &model.theme;
    let cap = rows.saturating_mul(width.max(1));
    let mut lines = vec![Line::default()];
    let mut in_line = 0usize;
    for (op, text) in ops {
        if lines.len() > rows {
            break;
        }
        let style = match op {
            Op::Same => t.style("text"),
            Op::Removed => t.style("link_broken").add_modifier(Modifier::CROSSED_OUT),
            Op::Added => t.style("accent").add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        };
        let mut parts = text.split('\n').peekable();
        while let Some(part) = parts.next() {
            let part = cut(part, cap.saturating_sub(in_line));
            if !part.is_empty() {
                in_line += part.chars().count();
                lines.last_mut().expect("never empty").spans.push(Span::styled(sanitize::line(part), style));
            }
            if parts.peek().is_some() {
                lines.push(Line::default());
                in_line = 0;
                if lines.len() > rows {
                    break;
                }
            }
        }
    }
    lines
}

/// An item's age in days; a date ahead of today (an agent's clock, a planned date) says so
/// rather than showing a negative age.
fn age(days: i64) -> String {
    let n = days.unsigned_abs();
    let unit = if n == 1 { "day" } else { "days" };
    if days < 0 { format!("dated {n} {unit} ahead of today") } else { format!("{n} {unit}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_fits_the_pane_is_built() {
        let text = format!("{}\n{}", "a".repeat(10 << 20), "|\n".repeat(50_000));
        let lines: Vec<String> = visible_lines(&text, 4, 10).collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].len(), 40, "a long line is cut to what 4 rows of 10 can show");
        assert_eq!(lines[1], "|");
        assert_eq!(visible_lines("\u{1b}[2Jx", 1, 80).next().unwrap(), "␛[2Jx", "still sanitised");
        assert_eq!(cut("héllo", 2), "hé");
    }

    #[test]
    fn ages_ahead_of_today_are_not_negative() {
        assert_eq!(age(0), "0 days");
        assert_eq!(age(1), "1 day");
        assert_eq!(age(30), "30 days");
        assert_eq!(age(-1), "dated 1 day ahead of today");
        assert_eq!(age(-30), "dated 30 days ahead of today");
    }
}
