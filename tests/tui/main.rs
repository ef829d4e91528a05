//! The terminal UI, in-process on a test backend and end to end in tmux and on a pty.
#[path = "../support/mod.rs"]
mod support;

mod tui_e2e;
mod tui_find_by_content;
mod tui_flow;
mod tui_hangup;
mod tui_history;
mod tui_history_e2e;
mod tui_history_snapshots;
mod tui_hostile;
mod tui_inbox_day;
mod tui_lint_ignore;
mod tui_markers_e2e;
mod tui_pane_snapshots;
mod tui_panes;
mod tui_review;
mod tui_review_clear;
mod tui_review_e2e;
mod tui_review_impact;
mod tui_review_keys;
mod tui_robustness;
mod tui_screenshots;
mod tui_snapshots;
mod tui_tables_e2e;
