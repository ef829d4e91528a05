//! opendray's live brain on a private PostgreSQL.
#[path = "../support/mod.rs"]
mod support;

mod lint_memo_pg;
mod opendray_invariants;
mod opendray_pg;
mod opendray_pg_commit;
mod opendray_pg_connection;
mod opendray_pg_direct;
mod opendray_pg_ids;
mod opendray_pg_lean_list;
mod opendray_pg_library;
mod opendray_pg_part;
mod opendray_pg_part_veto;
mod opendray_pg_provenance;
mod opendray_pg_quiet;
mod opendray_pg_restricted;
mod opendray_pg_review;
mod opendray_pg_snapshot;
mod opendray_pg_timestamps;
mod opendray_pg_tui;
