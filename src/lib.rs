//! folio: review and curate the knowledge AI agents write as markdown.
//!
//! `store` is the domain (no terminal code); `recall` is the fuzzy matcher shared by the
//! CLI and the TUI; `cli` is the headless face.
pub mod app;
pub mod cli;
#[doc(hidden)]
pub mod r#gen;
pub mod markdown;
pub mod recall;
pub mod store;
pub mod tui;
pub mod ui;
