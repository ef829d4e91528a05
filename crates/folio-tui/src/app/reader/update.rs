//! The preview (reader) in the update loop: opening an entity and reading its body, scrolling,
//! the mark placed on a finding's line or a heading, stepping through and following links, the
//! back/forward history, and copying the entity's id, path or link.
use ratatui::layout::Rect;

use super::jobs::EmbedSource;
use super::lines;
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::layout;
use crate::app::model::{Mark, Message, Model, Overlay, Pane, Preview, Row};
use folio_core::store::Store;
use folio_core::store::model::entity::{EntityIdx, LinkSyntax, Resolution};

/// The reader's actions: scrolling to either end (the catalog's focus moves its cursor instead),
/// stepping through and following links, back and forward, the properties and copying. They
/// work from every pane whose own keys did not take them. None: not the reader's.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    match a {
        Action::Top => scroll_preview_to(model, 0),
        Action::Bottom => scroll_preview_to(model, usize::MAX),
        Action::NextLink => step_link(model, true),
        Action::PrevLink => step_link(model, false),
        Action::FollowLink => return Some(follow_link(model)),
        Action::Back => return Some(history_step(model, true)),
        Action::Forward => return Some(history_step(model, false)),
        Action::YankId | Action::YankPath | Action::YankLink => return Some(yank(model, a)),
        Action::ShowProperties => show_properties(model),
        Action::YankProperty => return Some(yank_property(model)),
        _ => return None,
    }
    Some(Vec::new())
}

pub fn preview_width_height(model: &Model) -> (u16, usize) {
    let area = Rect::new(0, 0, model.size.0, model.size.1);
    match layout::panes(area, model.sidebar) {
        Some(p) => {
            let body = layout::preview_body(p.preview);
            (body.width, body.height as usize)
        }
        None => (40, 1),
    }
}

pub fn scroll_preview_to(model: &mut Model, to: usize) {
    let (w, h) = preview_width_height(model);
    let max = lines::total_lines(model, w).saturating_sub(h);
    if let Some(p) = model.preview.as_mut() {
        p.scroll = to.min(max);
    }
}

/// Scroll the preview to its mark (a finding's line, a section heading) once the body is laid
/// out: the first row holding the marked text.
pub fn place_mark(model: &mut Model) -> Vec<Job> {
    let Some(Preview { mark: Some(mark), body: Some(Ok(_)), .. }) = &model.preview else { return Vec::new() };
    if mark.row.is_some() {
        return Vec::new();
    }
    let (text, anchor) = (mark.text.clone(), mark.anchor);
    let (w, h) = preview_width_height(model);
    let laid = model.laid_body(w);
    let head = model.preview.as_ref().map(|p| lines::header(model, p, w).len()).unwrap_or(0);
    let notice = matches!(&model.preview, Some(Preview { body: Some(Ok(b)), .. }) if b.notice.is_some());
    let found = if anchor {
        let found = crate::markdown::anchors::find(&laid.anchors, &text);
        if found.is_none() {
            let shown = crate::markdown::sanitize::line(&text);
            model.message =
                Some(Message { text: format!("no heading or block #{shown} here: showing the top"), warn: true });
        }
        found
    } else {
        let needle: String = text.trim().trim_start_matches(['#', '-', '*', '>', ' ']).chars().take(40).collect();
        let needle = needle.trim();
        if needle.is_empty() { None } else { laid.lines.iter().position(|l| l.text().contains(needle)) }
    };
    if let Some(p) = model.preview.as_mut()
        && let Some(m) = p.mark.as_mut()
    {
        m.row = Some(found.map(|r| head + usize::from(notice) + r).unwrap_or(head));
    }
    if let Some(row) = found {
        let row = head + usize::from(notice) + row;
        scroll_preview_to(model, row.saturating_sub(h / 3));
    }
    Vec::new()
}

/// Show an entity in the preview; `record` pushes the previous one on the back stack.
pub fn open_entity(model: &mut Model, idx: EntityIdx, record: bool) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let e = store.entity(idx);
    if let Some(prev) = &model.preview {
        if prev.id == e.id && prev.idx.is_some() {
            return Vec::new();
        }
        if record {
            model.back.push(prev.id.clone());
            model.forward.clear();
        }
    }
    // A symlink leading out of the store is never read: say so instead of waiting for a body.
    let body = e.escapes_root().then(|| Err(format!("{}: symlink points outside the store; not read", e.path)));
    model.preview = Some(Preview {
        id: e.id.clone(),
        path: e.path.clone(),
        idx: Some(idx),
        body,
        scroll: 0,
        link: None,
        mark: None,
    });
    model.invalidate_layout();
    let mut jobs = read_body(model, &store, idx);
    jobs.extend(crate::app::update::entity_opened(model));
    jobs
}

pub fn read_body(model: &Model, store: &Store, idx: EntityIdx) -> Vec<Job> {
    let e = store.entity(idx);
    if e.escapes_root() {
        return Vec::new();
    }
    // The notes its links lead to, for `![[note]]` embeds to be read with the body.
    let embeds = e
        .links
        .iter()
        .filter_map(|l| match l.resolution {
            Resolution::Entity(i) if i != idx && l.syntax == LinkSyntax::Wiki => Some((l, store.entity(i))),
            _ => None,
        })
        .filter(|(_, t)| !t.escapes_root())
        .map(|(l, t)| EmbedSource {
            target: l.target().to_string(),
            rel: t.path.clone(),
            abs: store.abs_path(&t.path),
            start: t.body_start.max(t.span.start),
            end: t.span.end,
        })
        .collect();
    vec![Job::ReadBody {
        embeds,
        rel: e.path.clone(),
        abs: store.abs_path(&e.path),
        start: e.body_start.max(e.span.start),
        end: e.span.end,
        limit: model.config.preview_limit_kb * 1024,
        memory: store.dialect.memory_files(),
    }]
}

pub fn step_link(model: &mut Model, forward: bool) {
    let (w, h) = preview_width_height(model);
    let laid = model.laid_body(w);
    let head = model.preview.as_ref().map(|p| lines::header(model, p, w).len()).unwrap_or(0);
    let notice = matches!(&model.preview, Some(Preview { body: Some(Ok(b)), .. }) if b.notice.is_some());
    let Some(p) = model.preview.as_mut() else { return };
    let n = laid.link_rows.len();
    if n == 0 {
        return;
    }
    let next = match (p.link, forward) {
        (None, true) => 0,
        (None, false) => n - 1,
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
    };
    p.link = Some(next);
    // Scroll so the selected link is on screen.
    if let Some(row) = laid.link_rows[next] {
        let row = head + usize::from(notice) + row;
        if row < p.scroll || row >= p.scroll + h {
            p.scroll = row.saturating_sub(h / 3);
        }
    }
    model.focus = Pane::Preview;
}

pub fn follow_link(model: &mut Model) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let Some(Preview { body: Some(Ok(body)), link: Some(l), .. }) = &model.preview else { return Vec::new() };
    let Some(target) = body.doc.links.get(*l).map(|d| d.target.clone()) else { return Vec::new() };
    let resolution = model
        .open_entity()
        .and_then(|i| store.entity(i).links.iter().find(|x| x.target() == target).map(|x| x.resolution.clone()));
    let shown = crate::markdown::sanitize::line(&target);
    let fragment = target.split_once('#').map(|(_, f)| f.to_string()).filter(|f| !f.trim().is_empty());
    let (text, warn) = match resolution {
        Some(Resolution::Entity(i)) => {
            let mut jobs = open_entity(model, i, true);
            if let Some(fragment) = fragment {
                jobs.extend(go_to_anchor(model, fragment));
            }
            return jobs;
        }
        Some(Resolution::Anchor) if fragment.is_some() => {
            return go_to_anchor(model, fragment.unwrap_or_default());
        }
        Some(Resolution::External) => (format!("external link {shown} (not opened)"), false),
        Some(Resolution::File(f)) => {
            (format!("{} is a file, not an entity", crate::markdown::sanitize::line(&f)), false)
        }
        Some(Resolution::Anchor) => (format!("anchor {shown} in this document"), false),
        Some(Resolution::Escapes) => (format!("{shown} leaves the store; not followed"), true),
        Some(Resolution::Broken) | Some(Resolution::Pending) | None => (format!("broken link: {shown}"), true),
    };
    model.message = Some(Message { text, warn });
    Vec::new()
}

/// Scroll the open preview to the heading or block a link's fragment names, now if its body
/// is laid out, else when it arrives.
fn go_to_anchor(model: &mut Model, fragment: String) -> Vec<Job> {
    if let Some(p) = model.preview.as_mut() {
        p.mark = Some(Mark { text: fragment, anchor: true, row: None });
    }
    place_mark(model)
}

pub fn history_step(model: &mut Model, back: bool) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let (from, to) = if back { (&mut model.back, &mut model.forward) } else { (&mut model.forward, &mut model.back) };
    let Some(id) = from.pop() else { return Vec::new() };
    if let Some(cur) = &model.preview {
        to.push(cur.id.clone());
    }
    match store.find(&id) {
        Some(i) => open_entity(model, i, false),
        None => {
            model.message = Some(Message { text: format!("{id} no longer exists"), warn: true });
            Vec::new()
        }
    }
}

/// `K`: the open entity's properties, each whole.
pub fn show_properties(model: &mut Model) {
    if model.open_entity().is_none() {
        model.message = Some(Message { text: "no properties: open an entity first".into(), warn: true });
        return;
    }
    model.overlays.push(Overlay::Properties { cursor: 0 });
}

/// `y` over the properties: copy the selected one's value, whole.
pub fn yank_property(model: &mut Model) -> Vec<Job> {
    let Some(Overlay::Properties { cursor }) = model.overlays.last() else { return Vec::new() };
    let Some(p) = crate::app::reader::properties::of_open_entity(model).into_iter().nth(*cursor) else {
        return Vec::new();
    };
    let what = format!(
        "{} {}",
        p.label,
        crate::markdown::sanitize::line(&crate::app::reader::properties::shortened(&p.value, 40))
    );
    vec![Job::Copy { text: p.value, what }]
}

pub fn yank(model: &mut Model, a: Action) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let idx = match (model.focus, model.selected_row(), model.open_entity()) {
        (Pane::Tree, Some(Row::Entity { idx, .. }), _) => *idx,
        (_, _, Some(i)) => i,
        (_, Some(Row::Entity { idx, .. }), None) => *idx,
        _ => {
            model.message = Some(Message { text: "nothing to copy: select an entity".into(), warn: true });
            return Vec::new();
        }
    };
    let e = store.entity(idx);
    let (text, what) = match a {
        Action::YankPath => (store.abs_path(&e.path).display().to_string(), "path"),
        Action::YankLink => (format!("[[{}]]", e.id), "link"),
        _ => (e.id.clone(), "id"),
    };
    let what = format!("{what} {}", crate::markdown::sanitize::line(&text));
    vec![Job::Copy { text, what }]
}
