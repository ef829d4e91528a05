//! folio's domain: a store of agent-written markdown (or opendray's database) read into one
//! model, linted, reviewed and written all-or-nothing. No terminal code: the compiler keeps
//! ratatui and crossterm out of this crate (docs/ARCHITECTURE.md).
//!
//! `store` is the model and everything done to it; `recall` is the fuzzy and full-text
//! matcher the CLI and the terminal share; `demo` is the store bundled in the binary.
pub mod demo;
pub mod recall;
pub mod store;
