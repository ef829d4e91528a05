//! Keeping a loaded store current: the cache, refresh after changes on disk, the watcher.

pub mod cache;
pub mod personal;
pub mod refresh;
pub mod watch;
