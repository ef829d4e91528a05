//! Where the app meets the system beyond the store: the clipboard, and folio's own writes told
//! apart from the watcher's echo of them.
pub mod clipboard;
pub mod own_writes;
