//! The catalog pane: the store's entities as a tree (grouped, filtered, sorted), its cursor and
//! scroll. `update` moves through it and opens the selected entity in the reader.
pub mod built;
pub mod update;
