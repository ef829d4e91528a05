//! The domain through the CLI and the library: loading, the cache, writes and their safety, lint, history, recall.
#[path = "../support/mod.rs"]
mod support;

mod cache;
mod catalogs_curated;
mod concurrency;
mod crash;
mod failure;
mod find_by_content;
mod fuzz_regressions;
mod generator;
mod history_generated;
mod history_git;
mod hostile;
mod lint;
mod lint_fix;
mod lint_ignore;
mod lint_memo;
mod lint_templated;
mod live_reload;
mod log_grows;
mod recall_bounds;
mod relint;
mod robustness;
mod surgical_props;
mod team_git;
mod write_gate_props;
mod writes;
