//! The lint pane: every finding of the store, grouped and filtered, the selected one's context,
//! fixes and ignores. `update` changes the view; `jobs` lint, read context, fix and ignore.
pub mod jobs;
pub mod update;
