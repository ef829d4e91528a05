//! The interactive app in the Elm shape. The core sits at the top: `model` (the state, plain
//! data), `action` (the vocabulary of keys, help and palette), `event` (input and the answers of
//! jobs), `update` (the only place the model changes; pure, it returns `Job`s) and `jobs` (the
//! runner: work off the UI thread, reporting back as `Event`s); `layout` and `paged_list` are the
//! geometry and paging update shares with the views. Each feature is a folder holding its state,
//! its `update` and its `jobs`: `store`, `catalog`, `reader`, `graph`, `lint`, `history`,
//! `recall`, `review`, and `input` (the mouse, typed text, help and palette). `settings` holds
//! what a person configures (config, keymap, themes, who reviews, the sidebar's width) and
//! `platform` the clipboard and folio's own writes. The views are `crate::ui`, the terminal loop
//! `crate::tui`.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

pub mod action;
pub mod event;
pub mod graph;
pub mod history;
pub mod input;
pub mod jobs;
pub mod layout;
pub mod lint;
pub mod model;
pub mod outbox;
pub mod paged_list;
pub mod platform;
pub mod reader;
pub mod recall;
pub mod review;
pub mod settings;
pub mod store;
pub mod tree;
pub mod update;

use event::Event;
use jobs::{Runner, Source};
use model::Model;
use outbox::{Bell, Outbox};
use settings::config::Settings;

use crate::markdown::highlight::Highlighter;

/// The model plus the machinery that feeds it events.
pub struct App {
    pub model: Model,
    pub runner: Runner,
    tx: Outbox,
    rx: Receiver<Event>,
    /// Rung by every event sent, so the terminal loop wakes for it (none in inline mode).
    bell: Option<Arc<Bell>>,
    /// Something changed since the last frame.
    pub dirty: bool,
    /// A `RecallUpdated` is queued and not yet handled.
    recall_pending: Arc<AtomicBool>,
}

impl App {
    /// `inline`: run jobs in the caller and highlight synchronously (tests, screenshots).
    pub fn new(source: Source, settings: Settings, inline: bool) -> App {
        let (tx, rx) = channel();
        let bell = if inline { None } else { Bell::new().ok().map(Arc::new) };
        let tx = Outbox::new(tx, bell.clone());
        let highlighter = if inline {
            Highlighter::synchronous()
        } else {
            let htx = tx.clone();
            Highlighter::spawn(move || {
                let _ = htx.send(Event::Highlighted);
            })
        };
        let mut model =
            Model::new(source.label(), settings.config, settings.theme, settings.keymap, Arc::new(highlighter));
        if let Some(w) = settings.warnings.first() {
            let more = if settings.warnings.len() > 1 {
                format!(" (+{} more)", settings.warnings.len() - 1)
            } else {
                String::new()
            };
            model.message = Some(model::Message { text: format!("{w}{more}"), warn: true });
        }
        // nucleo notifies on every item injected (100k at load): one queued tick is enough, so
        // a flood of events cannot keep the UI thread ticking for seconds.
        let recall_pending = Arc::new(AtomicBool::new(false));
        let (recall_tx, pending) = (tx.clone(), recall_pending.clone());
        model.recall_notify = Arc::new(move || {
            if !pending.swap(true, Ordering::AcqRel) {
                let _ = recall_tx.send(Event::RecallUpdated);
            }
        });
        model.recall_synchronous = inline;
        // On a terminal (not in-process tests): with $USER unset, the reviewer remembered earlier.
        if !inline {
            model.state_dir = folio_core::store::keep::personal::base_from_env();
            if let Some(width) =
                model.state_dir.as_deref().and_then(|d| settings::sidebar::load(&settings::sidebar::file(d)))
            {
                model.sidebar = width;
            }
            if let Some(width) =
                model.state_dir.as_deref().and_then(|d| settings::sidebar::load(&settings::sidebar::inbox_file(d)))
            {
                model.review.list_width = width;
            }
            model.review.reviewer_file = settings::config::config_dir().map(|d| settings::reviewer::file(&d));
            if model.review.actor == settings::reviewer::UNKNOWN
                && let Some(known) = model.review.reviewer_file.as_deref().and_then(settings::reviewer::load)
            {
                model.review.actor = known;
            }
        }
        let runner = Runner::new(tx.clone(), source, inline);
        let mut app = App { model, runner, tx, rx, bell, dirty: true, recall_pending };
        let jobs = update::init(&mut app.model);
        app.runner.run(jobs);
        app
    }

    /// A sender for events from other threads (input, signals).
    pub fn sender(&self) -> Outbox {
        self.tx.clone()
    }

    /// The bell every sent event rings, for the terminal loop to wait on beside its input.
    pub fn bell(&self) -> Option<Arc<Bell>> {
        self.bell.clone()
    }

    /// Handle one event; returns `true` when the terminal must suspend.
    pub fn handle(&mut self, ev: Event) -> bool {
        if matches!(ev, Event::RecallUpdated) {
            // Cleared before the tick, so news arriving during it queues another one.
            self.recall_pending.store(false, Ordering::Release);
        }
        let jobs = update::event(&mut self.model, ev);
        self.dirty = true;
        self.runner.run(jobs)
    }

    /// Apply an action directly (the palette and tests).
    pub fn act(&mut self, a: action::Action) -> bool {
        let jobs = update::action(&mut self.model, a);
        self.dirty = true;
        self.runner.run(jobs)
    }

    /// How long the terminal loop may wait for input before it handles worker events. Every
    /// answer rings the loop awake (`outbox`), but recall takes in its results (and matches
    /// items that arrived since) only when ticked, so while it is matching the loop looks every
    /// `BUSY_POLL`: a result is drawn within about a millisecond of being ready.
    pub fn poll_timeout(&self, idle: Duration) -> Duration {
        const BUSY_POLL: Duration = Duration::from_millis(1);
        let matching = self.model.recall.as_ref().is_some_and(|e| e.running())
            && self.model.overlays.iter().any(|o| matches!(o, model::Overlay::Recall { .. }));
        if matching { BUSY_POLL.min(idle) } else { idle }
    }

    /// Handle every event already waiting; returns `true` when the terminal must suspend.
    pub fn drain(&mut self) -> bool {
        let mut suspend = false;
        while let Ok(ev) = self.rx.try_recv() {
            suspend |= self.handle(ev);
        }
        suspend
    }

    /// The next event the workers posted, if any (the terminal loop takes them one by one when
    /// it times them for the frame log).
    pub fn pending(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }

    /// Wait up to `timeout` for one event and handle it (and any that follow it).
    pub fn wait(&mut self, timeout: Duration) -> bool {
        match self.rx.recv_timeout(timeout) {
            Ok(ev) => self.handle(ev) | self.drain(),
            Err(_) => false,
        }
    }

    /// Handle events until the store is loaded and nothing is pending (tests).
    pub fn settle(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            self.drain();
            let loaded =
                self.model.store.is_some() || self.model.load_error.is_some() || self.model.store_choice.is_some();
            let reading = matches!(&self.model.preview, Some(p) if p.body.is_none() && p.idx.is_some());
            if (loaded && !reading && !self.model.refreshing) || Instant::now() > deadline {
                return;
            }
            self.wait(Duration::from_millis(20));
        }
    }
}
