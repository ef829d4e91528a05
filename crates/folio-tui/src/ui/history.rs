//! The history pane: the open entity's versions newest first (commit, uncommitted change, log
//! event; when, who committed it, what changed, who the frontmatter says wrote it) above the
//! selected version compared line by line with the version before it (or the marked one), the
//! changed words within a changed line marked, scrolled to its first change; or, in blame, each
//! line with the version that brought it. Long lines wrap, so an edit at a line's end shows.
//! While the worker reads, the versions found so far, their count in the title.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::app::history::{self, HistoryData, diff::Compared};
use crate::app::model::{Model, Pane};
use crate::markdown::sanitize;
use folio_core::store::history::line_diff::Tag;
use folio_core::store::history::{Source, Version};

fn day(v: &Version) -> String {
    v.when.as_deref().map(|w| w.chars().take(10).collect()).unwrap_or_else(|| "-".into())
}

/// Who a version is credited to: its commit's author (for the uncommitted change, the person
/// folio's journal says made it), an event's actor; `-` when nobody is known.
pub fn credit(v: &Version) -> &str {
    v.author.as_deref().unwrap_or("-")
}

/// `written by AGENT` when the frontmatter names an agent other than the one credited.
pub fn written_by(v: &Version) -> Option<String> {
    v.agent.as_deref().filter(|g| Some(*g) != v.author.as_deref()).map(|g| format!("written by {g}"))
}

/// `1 version`, `2 versions`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The widest credit among the versions, up to 16 columns: the versions list's column for it.
fn credit_width(versions: &[Version]) -> usize {
    versions.iter().map(|v| credit(v).chars().count()).max().unwrap_or(1).clamp(1, 16)
}

/// One row of the versions list (`summarised`: what changed is known; else `…`), its credit
/// in a column `who` wide.
pub fn row_text(v: &Version, summarised: bool, who: usize) -> String {
    let change = if summarised { v.change_line() } else { "…".into() };
    let what = match (&v.source, &v.renamed_from) {
        (Source::Log, _) => format!("{}: {}", v.kind.as_deref().unwrap_or("event"), v.subject),
        (_, Some(from)) => format!("renamed from {from} · {} [{change}]", v.subject),
        _ => format!("{} · {} [{change}]", v.status, v.subject),
    };
    let agent = written_by(v).map(|w| format!(" · {w}")).unwrap_or_default();
    format!("{:8} {} {:who$.who$} {what}{agent}", v.rev, day(v), credit(v))
}

pub fn render(model: &Model, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let view = &model.history;
    let focused = model.focus == Pane::History && model.overlays.is_empty();
    let id = model.preview.as_ref().map(|p| sanitize::line(&p.id)).unwrap_or_default();
    let mut title = if view.blame { format!(" 5 Blame: {id} ") } else { format!(" 5 History: {id} ") };
    if let Some(Ok(d)) = &view.data {
        let h = &d.history;
        let place = match (&h.prefix, h.git) {
            (_, false) => "not in git".to_string(),
            (Some(p), true) if !p.is_empty() => format!("git, in {}", sanitize::line(p)),
            _ => "git".to_string(),
        };
        let shallow = if h.shallow { " · shallow clone" } else { "" };
        let events = h.versions.iter().filter(|v| v.source == Source::Log).count();
        let versions = count(h.versions.len() - events, "version", "versions");
        let found = if !h.complete {
            format!("{versions} so far")
        } else if events > 0 {
            format!("{versions}, {}", count(events, "event", "events"))
        } else {
            versions
        };
        title = format!("{title}· {found} · {place}{shallow} ");
    }
    if view.reading {
        title.push_str("· reading… ");
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.style("border_focus") } else { t.style("border") })
        .title(Span::styled(title, if focused { t.style("accent") } else { t.style("muted") }));
    let inner = block.inner(area);
    block.render(area, buf);
    let data = match &view.data {
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            buf.set_line(inner.x, inner.y, &Line::styled(sanitize::line(e), t.style("error")), inner.width);
            return;
        }
        None => {
            let text = if model.open_entity().is_some() { "reading history…" } else { "open an entity first" };
            buf.set_line(inner.x, inner.y, &Line::styled(text, t.style("muted")), inner.width);
            return;
        }
    };
    if view.blame {
        blame(model, data, inner, buf);
    } else {
        versions(model, data, inner, buf);
    }
}

fn versions(model: &Model, data: &HistoryData, inner: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let view = &model.history;
    let list = &data.history.versions;
    if list.is_empty() {
        buf.set_line(inner.x, inner.y, &Line::styled("no versions or events", t.style("muted")), inner.width);
        return;
    }
    let [top, bottom] = history::split(inner, list.len());
    let h = usize::from(top.height.max(1));
    let cursor = view.cursor.min(list.len() - 1);
    let first = cursor.saturating_sub(h - 1);
    let who = credit_width(list);
    for (n, v) in list.iter().enumerate().skip(first).take(h) {
        let y = top.y + (n - first) as u16;
        let mark = if view.marked == Some(n) { "* " } else { "  " };
        let style = match v.source {
            _ if n == cursor => t.style("selection"),
            Source::Log => t.style("muted"),
            Source::Worktree => t.style("pending"),
            Source::Commit => t.style("text"),
        };
        let text = sanitize::line(&row_text(v, data.history.complete, who));
        let line = Line::from(vec![Span::styled(mark, t.style("accent")), Span::styled(text, style)]);
        buf.set_line(top.x, y, &line, top.width);
    }
    let selected = &list[cursor];
    let width = usize::from(bottom.width);
    let mut head: Vec<Line> = vec![Line::styled("─".repeat(width), t.style("border"))];
    if selected.source == Source::Log {
        head.push(Line::styled(
            format!("{} · {}", selected.kind.as_deref().unwrap_or("event"), selected.log.as_deref().unwrap_or("")),
            t.style("accent"),
        ));
        head.push(Line::styled(sanitize::line(&selected.subject), t.style("text")));
    } else if let Some(compared) = view.diff.as_deref().filter(|_| data.history.complete) {
        head.push(heading(model, selected, compared));
    } else {
        head.push(Line::styled(format!("{} · reading its content…", selected.rev), t.style("muted")));
    }
    let mut y = bottom.y;
    for l in head.iter().take(usize::from(bottom.height)) {
        buf.set_line(bottom.x, y, l, bottom.width);
        y += 1;
    }
    if let Some(compared) = view.diff.as_deref().filter(|_| selected.source != Source::Log) {
        let rest = Rect::new(bottom.x, y, bottom.width, bottom.bottom().saturating_sub(y));
        comparison(model, compared, view.scroll, rest, buf);
    }
}

/// `base → version · change 1 of 2, line 35 of 57 · who · written by agent`: where the view is
/// comes before the credit, which the list's row also shows, so a narrow pane keeps it.
fn heading(model: &Model, v: &Version, c: &Compared) -> Line<'static> {
    let t = &model.theme;
    let from = c.base.clone().unwrap_or_else(|| "nothing".into());
    let mut spans = vec![Span::styled(format!("{from} → {}", c.rev), t.style("accent"))];
    let where_ = match c.change_at(model.history.scroll) {
        (_, 0) => " · no change".to_string(),
        (i, n) => {
            let shown = c.lines.get(model.history.scroll).and_then(|l| l.new.or(l.old)).unwrap_or(1);
            format!(" · change {i} of {n}, line {shown} of {}", c.lines.iter().filter(|l| l.new.is_some()).count())
        }
    };
    spans.push(Span::styled(where_, t.style("muted")));
    let mut who = format!(" · {}", sanitize::line(credit(v)));
    if let Some(w) = written_by(v) {
        who.push_str(&format!(" · {}", sanitize::line(&w)));
    }
    spans.push(Span::styled(who, t.style("text")));
    Line::from(spans)
}

/// The comparison from line `first`, each line with its old and new numbers, long lines wrapped.
fn comparison(model: &Model, c: &Compared, first: usize, area: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let mut rows: Vec<Line> = Vec::new();
    let room = usize::from(area.height);
    for l in c.lines.iter().skip(first) {
        if rows.len() >= room {
            break;
        }
        let (sign, base) = match l.tag {
            Tag::Same => (" ", t.style("text")),
            Tag::Removed => ("-", t.style("error").remove_modifier(Modifier::BOLD)),
            Tag::Added => ("+", t.style("code")),
        };
        let marked = base.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        let num = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
        let gutter = format!("{:>4} {:>4} {sign} ", num(l.old), num(l.new));
        let runs: Vec<(Style, String)> =
            l.parts.iter().map(|(m, text)| (if *m { marked } else { base }, sanitize::line(text))).collect();
        let gutter_style = if l.tag == Tag::Same { t.style("muted") } else { base };
        rows.extend(wrapped(&gutter, gutter_style, &runs, usize::from(area.width), t.style("muted")));
    }
    for (n, row) in rows.iter().take(room).enumerate() {
        buf.set_line(area.x, area.y + n as u16, row, area.width);
    }
}

/// A line after its `gutter`, cut into rows of `width` columns between words (a word longer
/// than a row where it reaches the edge): the rows after the first carry a blank gutter ending
/// in `↪`, so a wrapped row is never taken for a line of its own.
fn wrapped(
    gutter: &str,
    gutter_style: Style,
    runs: &[(Style, String)],
    width: usize,
    mark: Style,
) -> Vec<Line<'static>> {
    let lead = gutter.chars().count();
    let room = width.saturating_sub(lead).max(1);
    let cont = format!("{}↪ ", " ".repeat(lead.saturating_sub(2)));
    let chars: Vec<(char, Style)> = runs.iter().flat_map(|(st, text)| text.chars().map(move |c| (c, *st))).collect();
    let plain: Vec<char> = chars.iter().map(|(c, _)| *c).collect();
    let mut rows = vec![Line::from(Span::styled(gutter.to_string(), gutter_style))];
    for (n, range) in history::diff::rows(&plain, room).into_iter().enumerate() {
        if n > 0 {
            rows.push(Line::from(Span::styled(cont.clone(), mark)));
        }
        let row = rows.last_mut().expect("never empty");
        for (c, st) in &chars[range] {
            // The first span is the gutter or the mark: the text never joins it.
            let joins = row.spans.len() > 1 && row.spans.last().is_some_and(|s| s.style == *st);
            match row.spans.last_mut() {
                Some(span) if joins => span.content.to_mut().push(*c),
                _ => row.spans.push(Span::styled(c.to_string(), *st)),
            }
        }
    }
    rows
}

fn blame(model: &Model, data: &HistoryData, inner: Rect, buf: &mut Buffer) {
    let t = &model.theme;
    let view = &model.history;
    if data.blame.is_empty() {
        let text = if data.history.complete { "no lines to blame" } else { "blaming once every version is read…" };
        buf.set_line(inner.x, inner.y, &Line::styled(text, t.style("muted")), inner.width);
        return;
    }
    let first = view.cursor.min(data.blame.len() - 1);
    let room = usize::from(inner.height);
    // A narrow pane leaves the day out, so the lines keep room to read.
    let dated = inner.width >= 90;
    let mut rows: Vec<Line> = Vec::new();
    for l in data.blame.iter().skip(first) {
        if rows.len() >= room {
            break;
        }
        let v = &data.history.versions[l.version];
        let who = v.author.as_deref().unwrap_or("not committed");
        let mut line = Line::from(vec![
            Span::styled(format!("{:8} ", v.rev), t.style("accent")),
            Span::styled(
                if dated {
                    format!("{:12.12} {} ", sanitize::line(who), day(v))
                } else {
                    format!("{:8.8} ", sanitize::line(who))
                },
                t.style("muted"),
            ),
            Span::styled(format!("{:4}│ ", l.number), t.style("border")),
        ]);
        let gutter: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let runs = [(t.style("text"), sanitize::line(&l.text))];
        let mut wrapped = wrapped(&gutter, Style::default(), &runs, usize::from(inner.width), t.style("muted"));
        // The first row keeps the gutter's own colours.
        wrapped[0].spans.remove(0);
        line.spans.append(&mut wrapped[0].spans);
        rows.push(line);
        rows.extend(wrapped.into_iter().skip(1));
    }
    for (n, row) in rows.iter().take(room).enumerate() {
        buf.set_line(inner.x, inner.y + n as u16, row, inner.width);
    }
}
