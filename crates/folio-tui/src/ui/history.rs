//! The history pane: the open entity's versions newest first (commit, uncommitted change, log
//! event; when, who, what changed) above the word diff of the selected one against the version
//! before it (or against the marked one), or, in blame, each line with the version that
//! brought it. While the worker reads, the versions found so far, their count in the title.
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::app::history::{HistoryData, HistoryView, LIST_PERCENT};
use crate::app::model::{Model, Pane};
use crate::markdown::sanitize;
use folio_core::store::history::{Source, Version};
use folio_core::store::review::diff;

fn day(v: &Version) -> String {
    v.when.as_deref().map(|w| w.chars().take(10).collect()).unwrap_or_else(|| "-".into())
}

fn who(v: &Version) -> String {
    match (&v.author, &v.agent) {
        (Some(a), Some(g)) if a != g => format!("{a} ({g})"),
        (Some(a), _) => a.clone(),
        (None, Some(g)) => g.clone(),
        (None, None) => "-".into(),
    }
}

/// `1 version`, `2 versions`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One row of the versions list (`summarised`: what changed is known; else `…`).
pub fn row_text(v: &Version, summarised: bool) -> String {
    let change = if summarised { v.change_line() } else { "…".into() };
    let what = match (&v.source, &v.renamed_from) {
        (Source::Log, _) => format!("{}: {}", v.kind.as_deref().unwrap_or("event"), v.subject),
        (_, Some(from)) => format!("renamed from {from} · {} [{change}]", v.subject),
        _ => format!("{} · {} [{change}]", v.status, v.subject),
    };
    format!("{:8} {} {:18.18} {what}", v.rev, day(v), who(v))
}

/// The version the selected one is compared with: the marked one, else the next older one
/// with content (None: it is the first).
pub fn base_of(view: &HistoryView, data: &HistoryData) -> Option<usize> {
    let versions = &data.history.versions;
    if let Some(m) = view.marked.filter(|&m| m != view.cursor && versions[m].source != Source::Log) {
        return Some(m);
    }
    (view.cursor + 1..versions.len()).find(|&i| versions[i].source != Source::Log)
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
    let [top, bottom] = Layout::vertical([Constraint::Percentage(LIST_PERCENT), Constraint::Min(1)]).areas::<2>(inner);
    let h = usize::from(top.height.max(1));
    let cursor = view.cursor.min(list.len() - 1);
    let first = cursor.saturating_sub(h - 1);
    for (n, v) in list.iter().enumerate().skip(first).take(h) {
        let y = top.y + (n - first) as u16;
        let mark = if view.marked == Some(n) { "* " } else { "  " };
        let style = match v.source {
            _ if n == cursor => t.style("selection"),
            Source::Log => t.style("muted"),
            Source::Worktree => t.style("pending"),
            Source::Commit => t.style("text"),
        };
        let text = sanitize::line(&row_text(v, data.history.complete));
        let line = Line::from(vec![Span::styled(mark, t.style("accent")), Span::styled(text, style)]);
        buf.set_line(top.x, y, &line, top.width);
    }
    let selected = &list[cursor];
    let rows = usize::from(bottom.height.saturating_sub(2));
    let width = usize::from(bottom.width);
    let mut lines: Vec<Line> = vec![Line::styled("─".repeat(width), t.style("border"))];
    if selected.source == Source::Log {
        lines.push(Line::styled(
            format!("{} · {}", selected.kind.as_deref().unwrap_or("event"), selected.log.as_deref().unwrap_or("")),
            t.style("accent"),
        ));
        lines.push(Line::styled(sanitize::line(&selected.subject), t.style("text")));
    } else if !data.history.complete {
        lines.push(Line::styled(format!("{} · reading its content…", selected.rev), t.style("muted")));
    } else {
        let base = base_of(view, data);
        let from = base.map(|b| list[b].rev.clone()).unwrap_or_else(|| "nothing".into());
        lines.push(Line::styled(format!("{from} → {}", selected.rev), t.style("accent")));
        let old = base.map(|b| list[b].text()).unwrap_or_default();
        let ops = diff::words(&old, &selected.text());
        lines.extend(super::review::diff_lines(model, &ops, rows, width));
    }
    for (n, l) in lines.iter().take(usize::from(bottom.height)).enumerate() {
        buf.set_line(bottom.x, bottom.y + n as u16, l, bottom.width);
    }
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
    for (n, l) in data.blame.iter().skip(first).take(usize::from(inner.height)).enumerate() {
        let v = &data.history.versions[l.version];
        let who = v.author.as_deref().or(v.agent.as_deref()).unwrap_or("not committed");
        let line = Line::from(vec![
            Span::styled(format!("{:8} ", v.rev), t.style("accent")),
            Span::styled(format!("{:12.12} {} ", sanitize::line(who), day(v)), t.style("muted")),
            Span::styled(format!("{:4}│ ", l.number), t.style("border")),
            Span::styled(sanitize::line(&l.text), t.style("text")),
        ]);
        buf.set_line(inner.x, inner.y + n as u16, &line, inner.width);
    }
}
