//! Writing: plans (changesets), the write gate, journal and undo, surgical edits, catalogs, audit.

pub mod audit;
pub mod catalog;
pub mod catalog_writes;
pub mod changeset;
pub mod changeset_lines;
pub mod edit;
pub mod failpoint;
pub mod fault;
pub mod file_storage;
pub mod fs_ops;
pub mod journal;
pub mod log_swap;
pub mod overlaid;
pub mod overlay;
pub mod preview;
pub mod repoint;
pub mod state;
pub mod storage;
pub mod swap;
pub mod team;
pub mod undo;
pub mod write_gate;
pub mod write_lock;
