//! The recall overlay: the query line, ranked results with matched characters highlighted and
//! kind/status badges, and a preview of the selected result's fields. With an empty query it
//! lists the store's recent queries.
use folio_core::store::model::entity::id_as_shown;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::app::model::{Model, Overlay};
use crate::app::recall::{rect, rows_per_result};
use crate::markdown::sanitize;
use folio_core::recall::Hit;
use folio_core::recall::text::MatchLine;
use folio_core::store::Store;

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let Some(Overlay::Recall { query, cursor }) = model.overlays.last() else { return };
    let t = &model.theme;
    let r = rect(area);
    Clear.render(r, buf);
    let sections = if model.recall_sections { " + sections" } else { "" };
    let bodies = match model.recall.as_ref() {
        Some(e) if e.has_text() => " + bodies",
        _ if model.text_wanted => " (indexing bodies…)",
        _ => "",
    };
    let mode = format!("entities{sections}{bodies}");
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.style("border_focus"))
        .title(Span::styled(format!(" Recall · {mode} "), t.style("accent")));
    let inner = block.inner(r);
    block.render(r, buf);
    buf.set_style(inner, t.style("text"));
    let engine = model.recall.as_ref();
    let (matched, total, running) = engine.map(|e| (e.matched(), e.total(), e.running())).unwrap_or((0, 0, false));
    let count = if query.trim().is_empty() {
        String::new()
    } else {
        format!("  {matched}/{total}{}", if running { " …" } else { "" })
    };
    let prompt = Line::from(vec![
        Span::styled("› ", t.style("accent")),
        Span::styled(sanitize::line(query), t.style("text")),
        Span::styled("▏", t.style("accent")),
        Span::styled(count, t.style("muted")),
    ]);
    buf.set_line(inner.x, inner.y, &prompt, inner.width);
    let body = Rect { y: inner.y + 1, height: inner.height.saturating_sub(1), ..inner };
    let Some(store) = &model.store else {
        buf.set_line(body.x, body.y, &Line::styled("loading…", t.style("muted")), body.width);
        return;
    };
    if query.trim().is_empty() {
        recent(model, body, *cursor, buf);
        return;
    }
    let wide = body.width >= 70;
    let [list, preview] = if wide {
        Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(body)
    } else {
        [body, Rect::default()]
    };
    let Some(engine) = engine else { return };
    if matched == 0 {
        let text = if running { "matching…" } else { "no matches" };
        buf.set_line(list.x, list.y, &Line::styled(text, t.style("muted")), list.width);
        return;
    }
    let per = rows_per_result(model);
    let h = (list.height as usize / per).max(1);
    let first = cursor.saturating_sub(h.saturating_sub(1));
    let results = engine.results(first, h);
    for (n, (hit, indices, text)) in results.iter().enumerate() {
        let y = list.y + (n * per) as u16;
        if y >= list.bottom() {
            break;
        }
        let selected = first + n == *cursor;
        let line = super::inline::ellipsized(result_line(model, store, hit, indices, text), list.width);
        if selected {
            let sel = t.style("selection");
            buf.set_style(Rect { y, height: 1, ..list }, sel);
            buf.set_line(list.x, y, &line.patch_style(sel.remove_modifier(Modifier::BOLD)), list.width);
        } else {
            buf.set_line(list.x, y, &line, list.width);
        }
        if per == 2 && y + 1 < list.bottom() {
            let shown = match (&hit.section, engine.match_lines(hit.idx).first()) {
                (Some(s), _) => {
                    Line::styled(format!("§ {} · line {}", sanitize::line(&s.heading), s.line), t.style("muted"))
                }
                (None, Some(m)) => match_line(model, m, false, list.width.saturating_sub(2) as usize),
                (None, None) => Line::default(),
            };
            let width = list.width.saturating_sub(2);
            buf.set_line(list.x + 2, y + 1, &super::inline::ellipsized(shown, width), width);
        }
    }
    if wide && let Some((hit, _, _)) = results.get(cursor - first) {
        draw_preview(model, store, hit, engine.match_lines(hit.idx), preview, buf);
    }
}

fn recent(model: &Model, area: Rect, cursor: usize, buf: &mut Buffer) {
    let t = &model.theme;
    if model.recall_recent.is_empty() {
        let help = "type to search · kind: tag: status: scope: has:lint has:pending · Ctrl-S sections";
        buf.set_line(area.x, area.y, &Line::styled(help, t.style("muted")), area.width);
        return;
    }
    buf.set_line(area.x, area.y, &Line::styled("recent queries", t.style("muted")), area.width);
    for (n, q) in model.recall_recent.iter().enumerate().take(area.height.saturating_sub(1) as usize) {
        let y = area.y + 1 + n as u16;
        let style = if n == cursor { t.style("selection") } else { t.style("text") };
        if n == cursor {
            buf.set_style(Rect { y, height: 1, ..area }, style);
        }
        buf.set_line(area.x, y, &Line::styled(sanitize::line(q), style), area.width);
    }
}

/// Badges, then the haystack with the matched characters emphasised.
fn result_line(model: &Model, store: &Store, hit: &Hit, indices: &[u32], text: &str) -> Line<'static> {
    let t = &model.theme;
    let e = store.entity(hit.idx);
    let mut spans = Vec::new();
    if let Some(k) = &e.kind {
        spans.push(Span::styled(format!("[{}] ", sanitize::line(k)), t.style("tag")));
    }
    if let Some(s) = &e.status {
        let style = if e.is_pending() { t.style("pending") } else { t.style("muted") };
        spans.push(Span::styled(format!("{} ", sanitize::line(s)), style));
    }
    // The catalog's lint mark: `!` a warning or error of its own, a dim `·` infos only.
    match model.lint_marks.get(hit.idx) {
        folio_core::store::lint::marks::Mark::Issue => spans.push(Span::styled("! ", t.style("warn"))),
        folio_core::store::lint::marks::Mark::Note => spans.push(Span::styled("· ", t.style("muted"))),
        folio_core::store::lint::marks::Mark::None => {}
    }
    let hl = t.style("marker").add_modifier(Modifier::BOLD);
    let plain = t.style("text");
    let mut run = String::new();
    let mut run_hl = false;
    let flush = |run: &mut String, on: bool, spans: &mut Vec<Span<'static>>| {
        if !run.is_empty() {
            spans.push(Span::styled(sanitize::line(run), if on { hl } else { plain }));
            run.clear();
        }
    };
    let mut next = indices.iter().peekable();
    for (k, c) in text.chars().enumerate() {
        let on = next.peek().is_some_and(|&&i| i as usize == k);
        if on {
            next.next();
        }
        if on != run_hl {
            flush(&mut run, run_hl, &mut spans);
            run_hl = on;
        }
        run.push(c);
    }
    flush(&mut run, run_hl, &mut spans);
    // The folder, dimmed: two pages of one title are told apart (as in the graph pane).
    let folder = folio_core::store::model::relpath::parent(&e.path);
    if !folder.is_empty() && !text.contains(folder) {
        spans.push(Span::styled(format!("  {}/", sanitize::line(folder)), t.style("muted")));
    }
    Line::from(spans)
}

/// One matching body line, its query words highlighted; with `numbered`, its file line first.
/// A line wider than `width` whose first word would fall off is shown from shortly before it.
fn match_line(model: &Model, m: &MatchLine, numbered: bool, width: usize) -> Line<'static> {
    let t = &model.theme;
    let hl = t.style("marker").add_modifier(Modifier::BOLD);
    let plain = t.style("muted");
    let mut spans = Vec::new();
    if numbered {
        spans.push(Span::styled(format!("{:>4} ", m.line), t.style("muted")));
    }
    let text = m.text.trim_end();
    let lead = text.len() - text.trim_start().len();
    let mut at = lead;
    let room = width.saturating_sub(if numbered { 5 } else { 0 });
    if let Some(first) = m.marks.first()
        && text[lead..first.end.min(text.len()).max(lead)].chars().count() > room
    {
        // Keep a few words of context before the first match.
        let before = text[..first.start.min(text.len())].char_indices().rev().nth(room / 4).map_or(lead, |(i, _)| i);
        let before = before.max(lead);
        // From a word's start, not its middle.
        at = text[before..first.start].find(' ').map_or(before, |s| before + s + 1);
        spans.push(Span::styled("…", plain));
    }
    for r in &m.marks {
        let (start, end) = (r.start.min(text.len()), r.end.min(text.len()));
        if start < at {
            continue;
        }
        spans.push(Span::styled(sanitize::line(&text[at..start]), plain));
        spans.push(Span::styled(sanitize::line(&text[start..end]), hl));
        at = end;
    }
    spans.push(Span::styled(sanitize::line(&text[at..]), plain));
    Line::from(spans)
}

fn draw_preview(model: &Model, store: &Store, hit: &Hit, matches: &[MatchLine], area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let e = store.entity(hit.idx);
    let mut lines = vec![Line::from(super::inline::title_spans(&e.title, t.style("title"), t.style("code")))];
    let mut field = |k: &str, v: String, s: Style| {
        if !v.is_empty() {
            lines.push(Line::from(vec![
                Span::styled(format!("{k:<9}"), t.style("muted")),
                Span::styled(sanitize::line(&v), s),
            ]));
        }
    };
    field("id", id_as_shown(&e.id).into_owned(), t.style("text"));
    field("path", e.path.clone(), t.style("text"));
    field("kind", e.kind.as_deref().unwrap_or_default().to_string(), t.style("accent"));
    field("status", e.status.as_deref().unwrap_or_default().to_string(), t.style("text"));
    field("tags", e.tags.iter().map(|x| format!("#{x}")).collect::<Vec<_>>().join(" "), t.style("tag"));
    if let Some(s) = &hit.section {
        field("section", format!("{} (line {})", s.heading, s.line), t.style("heading"));
    }
    let links = format!("{} out · {} back", e.links.len() + e.edges.len(), store.backlinks[hit.idx as usize].len());
    field("links", links, t.style("muted"));
    lines.push(Line::default());
    if !matches.is_empty() {
        lines.push(Line::styled("in the body", t.style("muted")));
        let width = area.width.saturating_sub(2);
        lines.extend(
            matches.iter().map(|m| super::inline::ellipsized(match_line(model, m, true, usize::from(width)), width)),
        );
        lines.push(Line::default());
    }
    if let Some(d) = &e.description {
        for chunk in wrap(&sanitize::line(d), area.width.saturating_sub(2) as usize) {
            lines.push(Line::styled(chunk, t.style("muted")));
        }
    }
    for (n, line) in lines.into_iter().enumerate().take(area.height as usize) {
        buf.set_line(area.x + 1, area.y + n as u16, &line, area.width.saturating_sub(1));
    }
}

/// Greedy word wrap by characters (descriptions are short, one line of fields each).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for word in text.split_whitespace() {
        let last = out.last_mut().expect("never empty");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width.max(8) {
            out.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    out
}
