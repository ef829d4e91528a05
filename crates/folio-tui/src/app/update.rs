//! The only place the model changes. No I/O: anything that touches disk, the clipboard or the
//! terminal is returned as an `Effect`.
//!
//! This file is the top-level dispatch: events, keys (through the keymap) and actions go to the
//! part that owns them — the store's life (`store_events`), the catalog, the reader (preview),
//! typed text, the help and palette overlays, the mouse, and the graph, lint and recall panes;
//! the review inbox and the editors (`super::review`) get the first look at keys and actions.
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, inbox_verbs};
use super::event::Event;
use super::jobs::Effect;
use super::model::{Message, Model, Overlay, Pane};
use super::settings::keymap::{Context, Key, Lookup};
use super::settings::theme::Theme;

use super::catalog::update as catalog;
use super::graph::update as graph;
use super::history::update as history;
use super::input::{mouse, palette, text as text_input};
use super::lint::update as lint;
use super::reader::update as reader;
use super::recall::update as recall;
use super::review::update as review;
use super::store::{choice as store_choice, update as store_events};
use catalog::rebuild;

/// Effects to run when the app starts.
pub fn init(model: &mut Model) -> Vec<Effect> {
    vec![Effect::Load(model.progress.clone(), model.config.cache)]
}

pub fn event(model: &mut Model, ev: Event) -> Vec<Effect> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => key(model, k),
        Event::Key(_) => Vec::new(),
        Event::Mouse(m) if model.mouse => mouse::input(model, m),
        Event::Mouse(_) => Vec::new(),
        Event::Resize(w, h) => {
            model.size = (w, h);
            catalog::clamp_scrolls(model);
            Vec::new()
        }
        Event::Paste(text) if review::paste(model, &text) => Vec::new(),
        Event::Paste(text) => {
            for c in text.chars().filter(|c| !c.is_control()) {
                text_input::type_char(model, c);
            }
            Vec::new()
        }
        Event::Loaded(Ok(loaded)) => store_events::loaded(model, *loaded),
        Event::Loaded(Err(e)) => {
            model.load_error = Some(e);
            Vec::new()
        }
        Event::ChooseStore { what, names } => {
            model.store_choice = Some(crate::app::model::StoreChoice { what, names, selected: 0 });
            Vec::new()
        }
        Event::FilesChanged(paths) => store_events::files_changed(model, paths),
        Event::CacheChecked(paths, at) => store_events::cache_checked(model, paths, at),
        Event::Refreshed(store, report, found) => {
            let mut effects = store_events::refreshed(model, store, report, &found);
            // A write (a restore, an agent's edit) is a new version: read the history again.
            effects.extend(history::reread(model));
            effects
        }
        Event::BodyRead { path, body } => {
            if let Some(p) = model.preview.as_mut().filter(|p| p.path == path) {
                p.body = Some(body);
                model.invalidate_layout();
                catalog::clamp_scrolls(model);
                return reader::place_mark(model);
            }
            Vec::new()
        }
        Event::Highlighted => {
            model.generation += 1;
            Vec::new()
        }
        Event::Review(outcome) => review::outcome(model, outcome),
        Event::Copied(result) => {
            model.message = Some(match result {
                Ok(what) => Message { text: format!("copied {what}"), warn: false },
                Err(e) => Message { text: e, warn: true },
            });
            Vec::new()
        }
        Event::RecallUpdated => {
            recall::tick(model);
            Vec::new()
        }
        Event::TextIndexed(store, text) => {
            recall::text_indexed(model, store, text);
            Vec::new()
        }
        Event::RecallHistory(recent) => {
            model.recall_recent = recent;
            Vec::new()
        }
        Event::Linted(Ok((store, linted))) => lint::linted(model, store, *linted),
        Event::Linted(Err(e)) => {
            model.linting = false;
            // The changes since the last report were handed to the failed pass: start over.
            model.lint_base = None;
            model.message = Some(Message { text: format!("lint: {e}"), warn: true });
            review::lint_finished(model)
        }
        Event::IgnoreChanged(Ok(text)) => {
            model.message = Some(Message { text, warn: false });
            // The config is not watched (it is hidden): re-sort the findings now, and rebuild
            // the inbox's queue (a dismissed possible contradiction leaves its reasons).
            let mut effects = lint::request(model);
            effects.extend(review::on_store_changed(model));
            effects
        }
        Event::IgnoreChanged(Err(e)) => {
            model.message = Some(Message { text: e, warn: true });
            Vec::new()
        }
        Event::HistoryFound { path, id, data } => history::found(model, (path, id), data),
        Event::HistoryRead { path, id, data } => history::read(model, (path, id), data),
        Event::RestorePreview(Ok((title, diff, cs))) => {
            model.overlays.push(Overlay::Confirm { title, diff, scroll: 0, findings: Vec::new(), restore: Some(cs) });
            Vec::new()
        }
        Event::RestorePreview(Err(e)) => {
            model.message = Some(Message { text: e, warn: true });
            Vec::new()
        }
        Event::GraphLaid(laid) => {
            model.graph.laid = Some(laid);
            Vec::new()
        }
        Event::ContextRead(Ok(c)) => {
            model.lint_view.context = Some(c);
            Vec::new()
        }
        Event::ContextRead(Err(e))
        | Event::FixPreview(Err(e))
        | Event::FixesApplied(Err(e))
        | Event::Exported(Err(e)) => {
            model.message = Some(Message { text: e, warn: true });
            Vec::new()
        }
        Event::FixPreview(Ok((title, diff, findings))) => {
            model.overlays.push(Overlay::Confirm { title, diff, scroll: 0, findings, restore: None });
            Vec::new()
        }
        Event::FixesApplied(Ok((text, files, own))) => {
            model.message = Some(Message { text, warn: false });
            model.own_writes.record(own);
            // Reload what was written now rather than waiting for the watcher (there may be none).
            store_events::files_changed(model, files)
        }
        Event::Exported(Ok(text)) => {
            model.message = Some(Message { text, warn: false });
            Vec::new()
        }
    }
}

fn key(model: &mut Model, k: KeyEvent) -> Vec<Effect> {
    model.message = None;
    if let Some(effects) = review::intercept_key(model, k) {
        return effects;
    }
    let pressed = Key::from_event(&k);
    let typing = model.review.confirm.is_none()
        && (model.filtering
            || model
                .overlays
                .last()
                .is_some_and(|o| !matches!(o, Overlay::Confirm { .. } | Overlay::Properties { .. })));
    if typing && model.pending_keys.is_empty() && !k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
        match k.code {
            KeyCode::Char(c) => {
                text_input::type_char(model, c);
                return Vec::new();
            }
            KeyCode::Backspace => {
                text_input::erase_char(model);
                return Vec::new();
            }
            KeyCode::Enter | KeyCode::Esc if model.filtering && model.overlays.is_empty() => {
                model.filtering = false;
                if k.code == KeyCode::Esc {
                    model.filter.query.clear();
                    rebuild(model, catalog::selection_key(model));
                }
                return Vec::new();
            }
            _ => {}
        }
    }
    model.pending_keys.push(pressed);
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

/// Apply one action.
pub fn action(model: &mut Model, a: Action) -> Vec<Effect> {
    if model.store_choice.is_some() {
        return store_choice::act(model, a);
    }
    // The editor and the review's confirm dialog come first (and the inbox when it is open);
    // otherwise the lint-fix confirm (`Overlay::Confirm`) handles `confirm`/`close`.
    if let Some(effects) = review::action(model, a) {
        return effects;
    }
    match model.overlays.last() {
        Some(Overlay::Recall { .. }) => {
            if let Some(effects) = recall::act(model, a) {
                return effects;
            }
        }
        Some(Overlay::Confirm { .. }) => {
            if let Some(effects) = lint::confirm_action(model, a) {
                return effects;
            }
        }
        Some(Overlay::Reason { .. }) => {
            if let Some(effects) = lint::reason_action(model, a) {
                return effects;
            }
        }
        _ => {}
    }
    if model.overlays.is_empty() {
        match (model.focus, a) {
            (Pane::Graph, Action::Down | Action::Up | Action::PageDown | Action::PageUp)
            | (Pane::Graph, Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom)
            | (Pane::Graph, Action::Open | Action::SwitchSide | Action::DepthUp | Action::DepthDown)
            | (Pane::Graph, Action::ExportGraph) => return graph::act(model, a),
            (Pane::Lint, Action::Down | Action::Up | Action::PageDown | Action::PageUp)
            | (Pane::Lint, Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom)
            | (Pane::Lint, Action::Open | Action::GroupBy | Action::FilterSeverity | Action::FilterRule)
            | (Pane::Lint, Action::FilterKind | Action::ApplyFix | Action::FixRule)
            | (Pane::Lint, Action::IgnoreFinding | Action::UnignoreFinding | Action::ShowIgnored)
            | (Pane::Lint, Action::ConfirmContradiction) => {
                return lint::act(model, a);
            }
            (Pane::History, Action::Down | Action::Up | Action::PageDown | Action::PageUp)
            | (Pane::History, Action::HalfPageDown | Action::HalfPageUp | Action::Top | Action::Bottom)
            | (Pane::History, Action::MarkVersion | Action::Blame | Action::RestoreVersion) => {
                return history::act(model, a);
            }
            _ => {}
        }
    }
    if !model.overlays.is_empty() && palette::overlay_action(model, a) {
        return match a {
            Action::Open => palette::run_palette_choice(model),
            _ => Vec::new(),
        };
    }
    match a {
        Action::Quit => model.quit = true,
        Action::Suspend => return vec![Effect::Suspend],
        Action::FocusNext | Action::FocusPrev => {
            model.focus = if model.focus == Pane::Catalog { model.main } else { Pane::Catalog }
        }
        Action::FocusCatalog => model.focus = Pane::Catalog,
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
        | Action::RestoreVersion => {}
        Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::HalfPageUp | Action::HalfPageDown => {
            return catalog::move_by(model, a);
        }
        Action::Top => match model.focus {
            Pane::Catalog => return catalog::select_row(model, 0),
            _ => reader::scroll_preview_to(model, 0),
        },
        Action::Bottom => match model.focus {
            Pane::Catalog => return catalog::select_row(model, model.rows.len().saturating_sub(1)),
            _ => reader::scroll_preview_to(model, usize::MAX),
        },
        Action::Expand => catalog::set_group_open(model, true),
        Action::Collapse => catalog::set_group_open(model, false),
        Action::Open => return catalog::open_selected(model),
        Action::NextLink => reader::step_link(model, true),
        Action::PrevLink => reader::step_link(model, false),
        Action::FollowLink => return reader::follow_link(model),
        Action::Back => return reader::history_step(model, true),
        Action::Forward => return reader::history_step(model, false),
        Action::Filter => {
            model.focus = Pane::Catalog;
            model.filtering = true;
        }
        Action::ClearFilter => {
            model.filter.query.clear();
            rebuild(model, catalog::selection_key(model));
        }
        Action::CycleSort => {
            model.filter.sort = model.filter.sort.next();
            rebuild(model, catalog::selection_key(model));
            model.message = Some(Message { text: format!("sorted by {}", model.filter.sort.name()), warn: false });
        }
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
        Action::YankId | Action::YankPath | Action::YankLink => return reader::yank(model, a),
        Action::ShowProperties => reader::show_properties(model),
        Action::SidebarWider | Action::SidebarNarrower => {
            let step = crate::app::settings::sidebar::STEP;
            let to = if a == Action::SidebarWider { model.sidebar + step } else { model.sidebar.saturating_sub(step) };
            return mouse::set_sidebar(model, to);
        }
        Action::YankProperty => return reader::yank_property(model),
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
        // The review pane and the editors handle these (`review::action`; `confirm` also the lint-fix
        // dialog); elsewhere they do nothing.
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
        | Action::Noop => {}
    }
    Vec::new()
}
