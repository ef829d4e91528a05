//! Every write killed or failed at every file-system step, on the real binary.
#[path = "../support/mod.rs"]
mod support;

mod faults;
