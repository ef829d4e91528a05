//! The command line itself: arguments, completions, the demo, the docs' links, the house rules.
#[path = "../support/mod.rs"]
mod support;

mod architecture;
mod cli_args;
mod completions;
mod demo;
mod docs_links;
