//! The lint panel in the update loop: cursor, grouping and filters over the latest report,
//! the selected finding's context (read by a worker), jumping to it, and fixes behind a
//! confirm dialog that shows their diff.
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::lint::{self as pane, LintRow};
use crate::app::model::{FindingContext, Mark, Message, Model, Overlay, Pane};
use folio_core::store::Store;
use folio_core::store::lint::Finding;
use folio_core::store::lint::Linted;
use folio_core::store::lint::marks::{RowMarks, of_touched};
use folio_core::store::model::entity::Severity;

pub fn focus(model: &mut Model) -> Vec<Job> {
    model.main = Pane::Lint;
    model.focus = Pane::Lint;
    clamp(model);
    read_context(model)
}

/// Lint the current store: only what changed since the last pass when there is one (a full
/// pass after loading). While a pass runs, another is queued for when it finishes.
pub fn request(model: &mut Model) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    if model.linting {
        model.lint_again = true;
        return Vec::new();
    }
    model.linting = true;
    model.lint_again = false;
    match model.lint_base.clone() {
        Some((base, linted)) => {
            let changed = std::mem::take(&mut model.lint_changes);
            vec![Job::Relint { base, linted, store, changed }]
        }
        None => {
            model.lint_changes.clear();
            vec![Job::Lint(store)]
        }
    }
}

/// A pass over `store` finished: show its report, then catch up if the store (or the
/// config) changed while it ran.
pub fn linted(model: &mut Model, store: Arc<Store>, linted: Linted) -> Vec<Job> {
    let linted = Arc::new(linted);
    model.linting = false;
    let current = model.store.as_ref().is_some_and(|s| Arc::ptr_eq(s, &store));
    // The previous base may be the last hold on an older store version: dropped off the UI
    // thread (100k entities' counts), like a replaced store.
    let previous = model.lint_base.replace((store.clone(), linted.clone()));
    let mut jobs = Vec::new();
    if current {
        jobs.extend(report(model, &linted, previous.as_ref().map(|(_, l)| &**l)));
        // After a full pass (a relint says what it was relinted from, and keeps its state).
        if linted.changed_from().is_none() && !model.lint_again {
            jobs.push(Job::PrepareRelint { store: store.clone(), linted: linted.clone() });
        }
    }
    jobs.extend(previous.map(|(old, _)| Job::Discard(old)));
    if !current || model.lint_again {
        jobs.extend(request(model));
    }
    jobs.extend(crate::app::review::update::lint_finished(model));
    jobs
}

/// A new report for the current store: keep the cursor in range and refresh the context.
/// The lint pass failed: say why; the inbox that waited for it is rebuilt without it.
pub fn lint_failed(model: &mut Model, e: String) -> Vec<Job> {
    model.linting = false;
    // The changes since the last report were handed to the failed pass: start over.
    model.lint_base = None;
    model.message = Some(Message { text: format!("lint: {e}"), warn: true });
    crate::app::review::update::lint_finished(model)
}

/// An ignore was written or removed.
pub fn ignore_changed(model: &mut Model, text: String) -> Vec<Job> {
    model.message = Some(Message { text, warn: false });
    // The config is not watched (it is hidden): re-sort the findings now, and rebuild
    // the inbox's queue (a dismissed possible contradiction leaves its reasons).
    let mut jobs = request(model);
    jobs.extend(crate::app::review::update::on_store_changed(model));
    jobs
}

/// A worker read the lines around the selected finding.
pub fn context_read(model: &mut Model, context: FindingContext) -> Vec<Job> {
    model.lint_view.context = Some(context);
    Vec::new()
}

/// A worker computed the diff of the fixes: show it to confirm. A fix of a file that is not the store's own (only `f` offers one: `F` leaves them out)
/// needs a second `y`, naming whose it is.
pub fn fix_previewed(model: &mut Model, (title, diff, findings): (String, Vec<String>, Vec<Finding>)) -> Vec<Job> {
    let second = model.store.as_deref().and_then(|s| findings.iter().find_map(|f| not_own(s, f)));
    model.overlays.push(Overlay::Confirm { title, diff, scroll: 0, findings, restore: None, second });
    Vec::new()
}

/// Whose file a finding is when the store does not own it: a subscribed clone's, or one the
/// format never writes (`Format::foreign_source`, `Format::read_only_reason`).
fn not_own(store: &folio_core::store::Store, f: &Finding) -> Option<String> {
    let format = store.kind().format();
    f.path.as_deref().and_then(|p| format.foreign_source(p).or_else(|| format.read_only_reason(p)))
}

/// Show `linted`'s report, which was relinted from `previous` when there is one: recall's lint
/// flags and the catalog's marks are patched by the entities whose findings changed when the
/// ones shown are `previous`'s, else made again over the whole report.
fn report(model: &mut Model, linted: &Linted, previous: Option<&Linted>) -> Vec<Job> {
    let report = linted.report.clone();
    if let Some(store) = model.store.clone() {
        let (flags, marks) = previous.and_then(|p| patched(model, &store, p, linted)).unwrap_or_else(|| {
            let flags = folio_core::recall::lint_flags(&store, &report);
            (flags, folio_core::store::lint::marks::of_report(&store, &report.findings))
        });
        model.lint_marks = Arc::new(marks);
        crate::app::recall::update::flags_changed(model, Arc::new(flags));
    }
    model.lint = Some(report);
    // The pane's rows are made over the whole report: only while it is shown (`focus` keeps the
    // cursor in range when it is shown again).
    if model.main != Pane::Lint {
        model.lint_view.context = None;
        return Vec::new();
    }
    clamp(model);
    read_context(model)
}

/// The lint flags and marks of `linted`, patched from those shown for `previous` (which it was
/// relinted from) by the entities whose findings may have changed; `None` when what is shown is
/// not `previous`'s, entity numbers moved, or a rule became or stopped being store-wide.
fn patched(model: &Model, store: &Store, previous: &Linted, linted: &Linted) -> Option<(Vec<bool>, RowMarks)> {
    let (from, touched) = linted.changed_from()?;
    let shown = model.lint.as_ref()?;
    let n = store.entities.len();
    if from != previous.generation()
        || !Arc::ptr_eq(shown, &previous.report)
        || model.lint_flags.len() != n
        || model.lint_marks.marks.len() != n
    {
        return None;
    }
    let marks = model.lint_marks.patched(
        touched,
        of_touched(&shown.findings, touched),
        of_touched(&linted.report.findings, touched),
    )?;
    let mut flags = model.lint_flags.to_vec();
    for &t in touched {
        flags[t as usize] = false;
    }
    for (i, _, _) in of_touched(&linted.report.findings, touched) {
        flags[i as usize] = true;
    }
    Some((flags, marks))
}

fn rows(model: &Model) -> Vec<LintRow> {
    match (&model.store, &model.lint) {
        (Some(s), Some(r)) => pane::rows(&model.lint_view, s, r),
        _ => Vec::new(),
    }
}

fn clamp(model: &mut Model) {
    let n = rows(model).len();
    model.lint_view.cursor = model.lint_view.cursor.min(n.saturating_sub(1));
}

/// Ask for the lines around the selected finding (when it names a file and a line).
fn read_context(model: &mut Model) -> Vec<Job> {
    let Some(store) = model.store.clone() else { return Vec::new() };
    let Some(f) = pane::selected_finding(model).cloned() else {
        model.lint_view.context = None;
        return Vec::new();
    };
    match f.path {
        Some(path) if model.main == Pane::Lint => {
            if model.lint_view.context.as_ref().is_some_and(|c| c.path == path && c.line == f.line) {
                return Vec::new();
            }
            vec![Job::ReadContext { store, path: path.to_string(), line: f.line }]
        }
        _ => {
            model.lint_view.context = None;
            Vec::new()
        }
    }
}

fn page(model: &Model) -> usize {
    crate::app::layout::panes(Rect::new(0, 0, model.size.0, model.size.1), model.sidebar)
        .map(|p| pane::list_area(p.preview).height as usize)
        .unwrap_or(1)
        .max(1)
}

/// The lint pane's actions while it has the focus, and those of its dialogs (the fix or restore
/// confirm, the ignore reason) while one is on top. None: not its own.
pub fn handle(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    match model.overlays.last() {
        Some(Overlay::Confirm { .. }) => confirm_action(model, a),
        Some(Overlay::Reason { .. }) => reason_action(model, a),
        Some(_) => None,
        None => match a {
            Action::Down | Action::Up | Action::PageDown | Action::PageUp => Some(act(model, a)),
            Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom => Some(act(model, a)),
            Action::Open | Action::GroupBy | Action::FilterSeverity | Action::FilterRule => Some(act(model, a)),
            Action::FilterKind | Action::ApplyFix | Action::FixRule => Some(act(model, a)),
            Action::IgnoreFinding | Action::UnignoreFinding | Action::ShowIgnored => Some(act(model, a)),
            Action::ConfirmContradiction => Some(act(model, a)),
            _ => None,
        },
    }
}

fn act(model: &mut Model, a: Action) -> Vec<Job> {
    let (n, page) = (rows(model).len(), page(model));
    let v = &mut model.lint_view;
    if let Some(to) = crate::app::paged_list::move_cursor(v.cursor, a, n, page) {
        v.cursor = to;
        return read_context(model);
    }
    match a {
        Action::GroupBy => {
            v.by_file = !v.by_file;
            v.cursor = 0;
        }
        Action::FilterSeverity => {
            v.severity = match v.severity {
                None => Some(Severity::Error),
                Some(Severity::Error) => Some(Severity::Warn),
                Some(Severity::Warn) => Some(Severity::Info),
                Some(Severity::Info) => None,
            };
            v.cursor = 0;
        }
        Action::FilterRule | Action::FilterKind => {
            let selected = pane::selected_finding(model).cloned();
            let kind = selected
                .as_ref()
                .and_then(|f| f.entity)
                .and_then(|i| model.store.as_ref().and_then(|s| s.entity(i).kind.as_deref().map(String::from)));
            let v = &mut model.lint_view;
            if a == Action::FilterRule {
                v.rule = if v.rule.is_some() { None } else { selected.map(|f| f.rule) };
            } else {
                v.kind = if v.kind.is_some() { None } else { kind };
            }
            v.cursor = 0;
        }
        Action::ShowIgnored => {
            v.show_ignored = !v.show_ignored;
            let shown = if v.show_ignored { "shown" } else { "hidden" };
            let n = model.lint.as_ref().map(|r| r.suppressed.len()).unwrap_or(0);
            model.message = Some(Message {
                text: format!("{} {shown}", folio_core::store::model::count::count(n, "ignored finding")),
                warn: false,
            });
        }
        Action::Open => return jump(model),
        Action::ApplyFix => return preview_fix(model, false),
        Action::FixRule => return preview_fix(model, true),
        Action::IgnoreFinding => return ask_reason(model),
        Action::ConfirmContradiction => return confirm_contradiction(model),
        Action::UnignoreFinding => return unignore(model),
        _ => return Vec::new(),
    }
    clamp(model);
    read_context(model)
}

/// Enter: open the finding's entity in the preview, scrolled to the offending line.
fn jump(model: &mut Model) -> Vec<Job> {
    let Some(f) = pane::selected_finding(model).cloned() else { return Vec::new() };
    let Some(idx) = f.entity else {
        model.message = Some(Message { text: "this finding is not about an entity".into(), warn: true });
        return Vec::new();
    };
    let line_text = model
        .lint_view
        .context
        .as_ref()
        .filter(|c| Some(c.path.as_str()) == f.path.as_deref() && c.line == f.line && f.line >= c.first)
        .and_then(|c| c.lines.get((f.line - c.first) as usize).cloned());
    model.main = Pane::Preview;
    model.focus = Pane::Preview;
    let mut jobs = crate::app::reader::update::open_entity(model, idx, true);
    if let (Some(text), Some(p)) = (line_text, model.preview.as_mut()) {
        p.mark = Some(Mark { text, anchor: false, row: None });
    }
    jobs.extend(crate::app::reader::update::place_mark(model));
    model.message = Some(Message { text: format!("{} (line {}): {}", f.rule, f.line, f.message), warn: false });
    jobs
}

/// `i`: ask why the selected finding's rule should be ignored on its entity.
fn ask_reason(model: &mut Model) -> Vec<Job> {
    let Some((f, ignored)) = pane::selected(model) else { return on_header(model, "i ignores") };
    let warn = |model: &mut Model, text: String| model.message = Some(Message { text, warn: true });
    if ignored {
        warn(model, format!("{} is already ignored here (I stops ignoring it)", f.rule));
        return Vec::new();
    }
    let (Some(store), Some(idx)) = (model.store.as_ref(), f.entity) else {
        warn(model, format!("{}: not about an entity; disable the rule in the config instead", f.rule));
        return Vec::new();
    };
    let entity = store.entity(idx).id.clone();
    let other = f.other.map(|o| store.entity(o).id.clone());
    model.overlays.push(Overlay::Reason { rule: f.rule, entity, other, text: String::new() });
    Vec::new()
}

/// A finding's key pressed on a group's header row (or an empty list): say so, not nothing.
fn on_header(model: &mut Model, what: &str) -> Vec<Job> {
    let text = if rows(model).is_empty() {
        format!("{what} a finding; there is none")
    } else {
        format!("{what} a finding; this row is a group's header: j selects its first finding")
    };
    model.message = Some(Message { text, warn: true });
    Vec::new()
}

/// `C` on a possible contradiction: plan writing it as the format's own `contradicts` on both
/// entities; the review's confirm dialog shows the diff before anything is written.
fn confirm_contradiction(model: &mut Model) -> Vec<Job> {
    let Some((f, _)) = pane::selected(model) else { return on_header(model, "C confirms") };
    let (Some(store), Some(a), Some(b)) = (model.store.clone(), f.entity, f.other) else {
        let text = "C confirms a possible-contradiction finding; this is not one".to_string();
        model.message = Some(Message { text, warn: true });
        return Vec::new();
    };
    let by = model.review.actor.clone();
    vec![Job::Review(Box::new(crate::app::review::jobs::ReviewJob::ConfirmContradiction { store, a, b, by }))]
}

/// Keys of the reason prompt: Enter writes the ignore (a reason is required), Esc drops it.
fn reason_action(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    let Some(Overlay::Reason { text, .. }) = model.overlays.last() else { return None };
    match a {
        Action::Open if text.trim().is_empty() => {
            model.message = Some(Message { text: "an ignore needs a reason".into(), warn: true });
            Some(Vec::new())
        }
        Action::Open => {
            let Some(Overlay::Reason { rule, entity, other, text }) = model.overlays.pop() else { return None };
            let store = model.store.clone()?;
            let by = model.review.actor.clone();
            let doing = match &other {
                Some(o) => format!("dismissing {rule} between {entity} and {o}…"),
                None => format!("ignoring {rule} on {entity}…"),
            };
            model.message = Some(Message { text: doing, warn: false });
            Some(vec![Job::Ignore { store, rule, entity, other, reason: text.trim().to_string(), by }])
        }
        Action::Close => {
            model.overlays.pop();
            Some(Vec::new())
        }
        _ => Some(Vec::new()),
    }
}

/// `I` on an ignored finding (shown with `v`): remove its `[[ignore]]` entry.
fn unignore(model: &mut Model) -> Vec<Job> {
    let Some((f, ignored)) = pane::selected(model) else { return on_header(model, "I stops ignoring") };
    let (Some(store), Some(idx)) = (model.store.clone(), f.entity) else { return Vec::new() };
    if !ignored {
        let text = format!("{} is not ignored here (v shows the ignored findings)", f.rule);
        model.message = Some(Message { text, warn: true });
        return Vec::new();
    }
    let entity = store.entity(idx).id.clone();
    vec![Job::Unignore { store, rule: f.rule, entity, by: model.review.actor.clone() }]
}

/// `f` / `F`: compute the diff of the selected finding's fix (or of its whole rule) to confirm.
fn preview_fix(model: &mut Model, whole_rule: bool) -> Vec<Job> {
    let (Some(store), Some(report)) = (model.store.clone(), model.lint.clone()) else { return Vec::new() };
    let what = if whole_rule { "F fixes every finding of the rule of" } else { "f fixes" };
    let Some(f) = pane::selected_finding(model).cloned() else { return on_header(model, what) };
    let mut findings: Vec<_> = if whole_rule {
        report.findings.iter().filter(|x| x.rule == f.rule && x.fix.is_some()).cloned().collect()
    } else {
        vec![f.clone()]
    };
    if findings.iter().all(|x| x.fix.is_none()) {
        model.message = Some(Message { text: format!("{}: no safe fix", f.rule), warn: true });
        return Vec::new();
    }
    // A bulk fix writes only the store's own files: someone else's (a subscribed clone) and
    // files the format never writes are left out, and the dialog's title says whose they are.
    let foreign = |x: &Finding| not_own(&store, x);
    let mut left_out: Vec<String> = Vec::new();
    if whole_rule {
        findings.retain(|x| match foreign(x) {
            Some(whose) => {
                if !left_out.contains(&whose) {
                    left_out.push(whose);
                }
                false
            }
            None => true,
        });
        if findings.is_empty() {
            let text = format!(
                "F leaves out files that are not the store's own ({}): f fixes one at a time",
                left_out.join("; ")
            );
            model.message = Some(Message { text, warn: true });
            return Vec::new();
        }
    }
    let n = findings.len();
    let title = if whole_rule {
        let noun = if n == 1 { "finding" } else { "findings" };
        let files: std::collections::BTreeSet<&str> = findings.iter().filter_map(|x| x.path.as_deref()).collect();
        let in_files = if files.len() == 1 { "1 file".to_string() } else { format!("{} files", files.len()) };
        format!("Fix {n} {noun} of {} in {in_files} of this store's own?", f.rule)
    } else {
        let path = f.path.clone().unwrap_or_default();
        match foreign(&f) {
            Some(whose) => format!("Fix {} in {path}? ⚠ {whose}", f.rule),
            None => format!("Fix {} in {path}?", f.rule),
        }
    };
    let notes = if let (false, Some(whose)) = (whole_rule, foreign(&f)) {
        // The title may be cut at the dialog's width: the body says whose it is too.
        vec![format!("⚠ not this store's own file: {whose}"), String::new()]
    } else if left_out.is_empty() {
        Vec::new()
    } else {
        let mut notes =
            vec!["⚠ left out, not this store's own files (f fixes one at a time, after saying whose):".to_string()];
        notes.extend(left_out.iter().map(|w| format!("⚠   {w}")));
        notes.push(String::new());
        notes
    };
    vec![Job::PreviewFix { store, title, findings, notes }]
}

/// Keys of the confirm dialog: scroll, or write on yes.
fn confirm_action(model: &mut Model, a: Action) -> Option<Vec<Job>> {
    let Some(Overlay::Confirm { scroll, diff, .. }) = model.overlays.last_mut() else { return None };
    match a {
        Action::Down => *scroll = (*scroll + 1).min(diff.len().saturating_sub(1)),
        Action::Up => *scroll = scroll.saturating_sub(1),
        Action::PageDown => *scroll = (*scroll + 10).min(diff.len().saturating_sub(1)),
        Action::PageUp => *scroll = scroll.saturating_sub(10),
        Action::Confirm => {
            if let Some(Overlay::Confirm { second: second @ Some(_), .. }) = model.overlays.last_mut() {
                let whose = second.take().unwrap_or_default();
                let text = format!("⚠ y again to write it anyway (n cancels): {whose}");
                model.message = Some(Message { text, warn: true });
                return Some(Vec::new());
            }
            let Some(Overlay::Confirm { findings, restore, .. }) = model.overlays.pop() else { return None };
            let store = model.store.clone()?;
            if let Some(cs) = restore {
                model.message = Some(Message { text: "restoring…".into(), warn: false });
                return Some(vec![Job::ApplyRestore { store, cs }]);
            }
            model.message = Some(Message { text: "writing fixes…".into(), warn: false });
            return Some(vec![Job::ApplyFix { store, findings }]);
        }
        _ => return None,
    }
    Some(Vec::new())
}
