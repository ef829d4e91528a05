//! @fyso/awareness-framework homes (`~/.agents`): the curated `memory/long-term.md` read as
//! one entity per entry line, the other markdown files as one entity each, and
//! `memory/events.jsonl` as the store's history.
use std::path::Path;

use super::{Dialect, DialectKind, FileRole, SourceFile, StoreWarning};
use crate::store::model::entity::Entity;
use crate::store::model::history::HistoryEvent;
use crate::store::read::frontmatter::Fields;

mod documents;
pub mod format;
pub mod spec;
pub mod log_writer;
pub mod review;
pub use format::KIND;
pub mod entry_key;
mod events;
mod filing;
mod long_term;

pub use events::EVENTS_PATH;
pub use long_term::{CANDIDATES, CURATED, PRUNED};

pub const LONG_TERM_PATH: &str = "memory/long-term.md";

pub struct Awareness {
    log: events::EventLog,
}

impl Awareness {
    /// Open a home: its event log is read now, so `history` and `warnings` agree.
    pub fn open(root: &Path) -> Self {
        Awareness { log: events::EventLog::read(root) }
    }
}

/// Whether a file holds long-term memory entries (the home's, or a channel's).
fn is_long_term(rel: &str) -> bool {
    documents::channel_inner(rel) == LONG_TERM_PATH
}

impl Dialect for Awareness {
    fn kind(&self) -> DialectKind {
        crate::store::dialect::awareness::KIND
    }

    fn role(&self, rel: &str) -> FileRole {
        if rel.ends_with(".md") {
            FileRole::Entity
        } else if rel.ends_with(".jsonl") {
            FileRole::Log
        } else {
            FileRole::Other
        }
    }

    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        if is_long_term(file.rel) { long_term::parse(file) } else { vec![documents::parse(file)] }
    }

    fn history(&self, _root: &Path) -> Vec<HistoryEvent> {
        self.log.events()
    }

    fn history_len(&self, _root: &Path) -> usize {
        self.log.len()
    }

    fn warnings(&self) -> Vec<StoreWarning> {
        self.log.warnings.clone()
    }

    fn fields(&self, entity: &Entity, text: &str) -> Fields {
        // A long-term entity spans one line, unless it stands for an unreadable file.
        if is_long_term(&entity.path) && entity.span.end as usize != text.len() {
            long_term::entry_fields(entity, text)
        } else {
            documents::metadata(text)
        }
    }
}
