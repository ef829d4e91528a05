//! The graph pane: the open entity's link neighbourhood, drawn as a canvas beside its backlinks
//! and outbound links. `update` moves and re-centres; `jobs` write its export.
pub mod jobs;
pub mod neighbourhood;
pub mod update;
