//! folio: review and curate the knowledge AI agents write as markdown.
//!
//! The domain is the `folio-core` crate (no terminal code), the terminal face `folio-tui`;
//! this crate is the `folio` binary's command line. Their modules are re-exported here so a
//! test, bench or fuzz target names one path for each thing.
pub mod cli;

pub use folio_core::{demo, recall, store};
pub use folio_tui::{app, markdown, tui, ui};
