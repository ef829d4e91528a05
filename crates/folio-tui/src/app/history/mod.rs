//! The history pane: the open entity's versions (git, the store's log) and the blame of its
//! lines. `update` asks for them and moves through them; `jobs` read them and write a restore.
pub mod jobs;
pub mod update;
