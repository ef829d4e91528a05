//! The only place the model changes. No I/O: anything that touches disk, the clipboard or the
//! terminal is returned as a `Job`.
//!
//! This file is the top-level dispatch. Events go to the part that owns them (the store's life,
//! the reader, review, the lint, graph, history and recall panes); keys go through review's
//! typed keys, typed text and the keymap to become actions; an action goes to the first part
//! that takes it (`action`); what none takes is the app's own (`app_wide`).
use ratatui::crossterm::event::{KeyEvent, KeyEventKind};

use super::action::{Action, inbox_verbs};
use super::event::Event;
use super::jobs::Job;
use super::model::{Message, Model, Overlay, Pane};
use super::settings::keymap::{Context, Key, Lookup};
use super::settings::theme::Theme;

use super::graph::update as graph;
use super::history::update as history;
use super::input::{mouse, palette, text as text_input};
use super::lint::update as lint;
use super::reader::update as reader;
use super::recall::update as recall;
use super::review::update as review;
use super::store::{choice as store_choice, update as store_events};
use super::tree::update as tree;

/// Jobs to run when the app starts.
pub fn init(model: &mut Model) -> Vec<Job> {
    vec![Job::Load(model.progress.clone(), model.config.cache)]
}

pub fn event(model: &mut Model, ev: Event) -> Vec<Job> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => key(model, k),
        Event::Key(_) => Vec::new(),
        Event::Mouse(m) if model.mouse => mouse::input(model, m),
        Event::Mouse(_) => Vec::new(),
        Event::Resize(w, h) => {
            model.size = (w, h);
            tree::clamp_scrolls(model);
            Vec::new()
        }
        Event::Paste(text) => {
            if !review::paste(model, &text) {
                text_input::paste(model, &text);
            }
            tree::refilter(model)
        }
        Event::Loaded(Ok(loaded)) => store_events::loaded(model, *loaded),
        Event::Loaded(Err(e)) => store_events::load_failed(model, e),
        Event::ChooseStore { what, names } => store_choice::offer(model, what, names),
        Event::FilesChanged(paths) => store_events::files_changed(model, paths),
        Event::CacheChecked(paths, at, earlier) => store_events::cache_checked(model, paths, at, earlier),
        Event::Refreshed(store, report, found, tree) => {
            let mut jobs = store_events::refreshed(model, store, report, &found, tree);
            // A write (a restore, an agent's edit) is a new version: read the history again.
            jobs.extend(history::reread(model));
            jobs
        }
        Event::TreeBuilt(store, built) => tree::built_tree(model, &store, *built),
        Event::BodyRead { path, body } => {
            if let Some(p) = model.preview.as_mut().filter(|p| p.path == path) {
                p.body = Some(body);
                model.invalidate_layout();
                tree::clamp_scrolls(model);
                return reader::place_mark(model);
            }
            Vec::new()
        }
        Event::Highlighted => {
            model.generation += 1;
            Vec::new()
        }
        Event::Review(outcome) => review::outcome(model, outcome),
        Event::Copied(Ok(what)) => say(model, format!("copied {what}"), false),
        Event::RecallUpdated => recall::tick(model),
        Event::TextIndexed(store, text) => {
            recall::text_indexed(model, store, text);
            Vec::new()
        }
        Event::RecallHistory(recent) => recall::history_loaded(model, recent),
        Event::Linted(Ok((store, linted))) => lint::linted(model, store, *linted),
        Event::Linted(Err(e)) => lint::lint_failed(model, e),
        Event::IgnoreChanged(Ok(text)) => lint::ignore_changed(model, text),
        Event::HistoryFound { asked, data } => history::found(model, asked, data),
        Event::HistoryRead { asked, data } => history::read(model, asked, data),
        Event::RestorePreview(Ok(preview)) => history::restore_previewed(model, preview),
        Event::GraphLaid(laid) => graph::laid(model, laid),
        Event::ContextRead(Ok(c)) => lint::context_read(model, c),
        Event::FixPreview(Ok(preview)) => lint::fix_previewed(model, preview),
        Event::FixesApplied(Ok(written)) => store_events::written(model, written),
        Event::Exported(Ok(text)) => say(model, text, false),
        Event::Copied(Err(e))
        | Event::IgnoreChanged(Err(e))
        | Event::RestorePreview(Err(e))
        | Event::ContextRead(Err(e))
        | Event::FixPreview(Err(e))
        | Event::FixesApplied(Err(e))
        | Event::Exported(Err(e)) => say(model, e, true),
    }
}

/// Show a message in the status bar.
fn say(model: &mut Model, text: String, warn: bool) -> Vec<Job> {
    model.message = Some(Message { text, warn });
    Vec::new()
}

fn key(model: &mut Model, k: KeyEvent) -> Vec<Job> {
    model.message = None;
    if let Some(jobs) = review::intercept_key(model, k) {
        return jobs;
    }
    if text_input::intercept_key(model, &k) {
        return tree::refilter(model);
    }
    model.pending_keys.push(Key::from_event(&k));
    let contexts = model.contexts();
    match model.keymap.lookup(&contexts, &model.pending_keys) {
        Lookup::Action(a) => {
            model.pending_keys.clear();
            action(model, a)
        }
        Lookup::Prefix => Vec::new(),
        Lookup::None => {
            let was_sequence = model.pending_keys.len() > 1;
            model.pending_keys.clear();
            if was_sequence {
                // An unfinished sequence followed by an unbound key: try the key on its own.
                return key(model, k);
            }
            Vec::new()
        }
    }
}

/// Apply one action: the first part that takes it, in the order the screen stacks them. The
/// editor and review's dialogs first (and the inbox when it is open); then the top overlay's
/// owner; then, with no overlay, the focused pane's own keys, or the help and palette lists;
/// then the catalog's and the reader's actions, which work from every pane; then the app's own.
pub fn action(model: &mut Model, a: Action) -> Vec<Job> {
    if model.store_choice.is_some() {
        return store_choice::handle(model, a);
    }
    review::handle(model, a)
        .or_else(|| match model.overlays.last() {
            Some(Overlay::Recall { .. }) => recall::handle(model, a),
            Some(Overlay::Confirm { .. } | Overlay::Reason { .. }) => lint::handle(model, a),
            _ => None,
        })
        .or_else(|| match (model.overlays.last(), model.focus) {
            (Some(_), _) => palette::handle(model, a),
            (None, Pane::Graph) => graph::handle(model, a),
            (None, Pane::Lint) => lint::handle(model, a),
            (None, Pane::History) => history::handle(model, a),
            (None, Pane::Tree | Pane::Preview) => None,
        })
        .or_else(|| tree::handle(model, a))
        .or_else(|| reader::handle(model, a))
        .unwrap_or_else(|| app_wide(model, a))
}

/// The open entity changed (a catalog row, a link followed, a neighbour or finding opened):
/// the panes that show it follow — the graph re-centres, the history is read for it.
pub fn entity_opened(model: &mut Model) -> Vec<Job> {
    let mut jobs = graph::centre_moved(model);
    jobs.extend(history::entity_changed(model));
    jobs
}

/// What an action does wherever it is pressed: quit, focus, the overlays, the sidebar, the
/// mouse, the theme. Every other action was offered to its owner first.
fn app_wide(model: &mut Model, a: Action) -> Vec<Job> {
    match a {
        Action::Quit => model.quit = true,
        Action::Suspend => return vec![Job::Suspend],
        Action::FocusNext | Action::FocusPrev => {
            model.focus = if model.focus == Pane::Tree { model.main } else { Pane::Tree }
        }
        Action::FocusCatalog => model.focus = Pane::Tree,
        Action::FocusPreview => {
            model.focus = Pane::Preview;
            model.main = Pane::Preview;
        }
        Action::FocusGraph => return graph::focus(model),
        Action::FocusLint => return lint::focus(model),
        Action::FocusHistory => return history::focus(model, false),
        Action::Blame => return history::focus(model, true),
        Action::Recall => return recall::open(model),
        Action::RecallSections => {
            model.recall_sections = !model.recall_sections;
            let on = if model.recall_sections { "on" } else { "off" };
            model.message = Some(Message { text: format!("recall over body sections {on}"), warn: false });
        }
        // A pane's own keys (the graph's, lint's, history's), the catalog's and the reader's: taken
        // before when they apply, else nothing.
        Action::SwitchSide
        | Action::DepthUp
        | Action::DepthDown
        | Action::ExportGraph
        | Action::GroupBy
        | Action::FilterSeverity
        | Action::FilterRule
        | Action::FilterKind
        | Action::ApplyFix
        | Action::FixRule
        | Action::IgnoreFinding
        | Action::UnignoreFinding
        | Action::ShowIgnored
        | Action::ConfirmContradiction
        | Action::MarkVersion
        | Action::RestoreVersion
        | Action::DiffDown
        | Action::DiffUp
        | Action::DiffPageDown
        | Action::DiffPageUp
        | Action::DiffHalfPageDown
        | Action::DiffHalfPageUp
        | Action::NextChange
        | Action::PrevChange
        | Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::HalfPageUp
        | Action::HalfPageDown
        | Action::Top
        | Action::Bottom
        | Action::Expand
        | Action::Collapse
        | Action::Open
        | Action::Filter
        | Action::ClearFilter
        | Action::CycleSort
        | Action::NextLink
        | Action::PrevLink
        | Action::FollowLink
        | Action::Back
        | Action::Forward
        | Action::YankId
        | Action::YankPath
        | Action::YankLink
        | Action::ShowProperties
        | Action::YankProperty => {}
        Action::Help => {
            let context = if model.review.open { Context::Review } else { model.focus.context() };
            model.overlays.push(Overlay::Help { context, filter: String::new(), cursor: 0 })
        }
        Action::Palette => model.overlays.push(Overlay::Palette { query: String::new(), cursor: 0 }),
        Action::Close => {
            if model.overlays.pop().is_none() && model.filtering {
                model.filtering = false;
            }
        }
        Action::SidebarWider | Action::SidebarNarrower => {
            let step = crate::app::settings::sidebar::STEP;
            let to = if a == Action::SidebarWider { model.sidebar + step } else { model.sidebar.saturating_sub(step) };
            return mouse::set_sidebar(model, to);
        }
        Action::ToggleMouse => {
            model.mouse = !model.mouse;
            let state = if model.mouse { "on" } else { "off" };
            model.message = Some(Message { text: format!("mouse {state}"), warn: false });
        }
        Action::CycleTheme => {
            let next = match model.theme.name.as_str() {
                "dark" => "light",
                "light" => "mono",
                _ => "dark",
            };
            model.theme = Theme::builtin(next).unwrap_or_else(Theme::dark);
            model.invalidate_layout();
            model.message = Some(Message { text: format!("theme {next}"), warn: false });
        }
        // Review and the editors take these (`review::handle`; `confirm` also the fix and restore
        // dialogs); elsewhere they do nothing.
        inbox_verbs!()
        | Action::Review
        | Action::Undo
        | Action::Edit
        | Action::EditExternal
        | Action::Save
        | Action::NextField
        | Action::PrevField
        | Action::Confirm
        | Action::LeaveStubs
        | Action::NextSection
        | Action::Noop => {}
    }
    Vec::new()
}
