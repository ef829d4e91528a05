//! The review inbox and verdicts: order, baselines, authors, impact, surgical edits.
#[path = "../support/mod.rs"]
mod support;

mod cli_reviewer;
mod review_baseline;
mod review_by_author;
mod review_cached_facts;
mod review_flow;
mod review_foreign_fields;
mod review_git_authors;
mod review_impact;
mod review_kept_listing;
mod review_order;
mod review_overlaid;
mod review_queue_states;
mod review_stubs;
mod review_surgical;
mod verdict_styles;
