//! The storage seam: how a store's entities are read and how a write plan is applied and
//! undone. Every read of an entity's bytes goes through `Storage::read` (`store.storage()`),
//! so a store that is not a folder serves them from where it keeps them. Everything above it (verdicts, merges, moves, fixes, migrations) builds a `Plan`
//! and hands it here; it never touches files itself. A folder store is the journaled
//! changeset engine (`file_storage::FileStorage`); a store that is not a folder (opendray's
//! brain in PostgreSQL) implements the same three calls with a transaction whose optimistic
//! checks are each write's `expected` digest.
//!
//! ```text
//!   verdict / merge / mv / set / fix / migrate ──▶ Plan ──▶ write_gate ──▶ Storage::apply
//!                                                                          ├─ FileStorage: journal, swap, catalogs, log, undo record
//!                                                                          └─ (a database: BEGIN; compare digests; write rows; log; COMMIT)
//!   undo ──────────────────────────────────────────────────────────────────▶ Storage::undo
//! ```
use std::io;

pub use super::changeset::Plan;
use super::changeset::{Applied, WriteError, WriteOptions};

/// Where a store's entities live and how plans reach them.
pub trait Storage {
    /// The bytes of the entity at `rel` (a path relative to the root, or a row's key).
    fn read(&self, rel: &str) -> io::Result<Vec<u8>>;
    /// At most `limit` bytes of the entity at `rel`, and whether it holds more.
    fn read_capped(&self, rel: &str, limit: u64) -> io::Result<(Vec<u8>, bool)> {
        let mut bytes = self.read(rel)?;
        let more = bytes.len() as u64 > limit;
        bytes.truncate(limit as usize);
        Ok((bytes, more))
    }
    /// Apply every write of `plan` or none (a conflict or failure leaves the store as it was),
    /// then record the audit event and what undo needs.
    fn apply(&self, plan: Plan, opts: &WriteOptions) -> Result<Applied, WriteError>;
    /// Revert the newest applied plan, byte-exact, when nothing changed it since.
    fn undo(&self, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError>;
}
