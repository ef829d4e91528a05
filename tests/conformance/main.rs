//! Goldens and conformance tables: links, verdicts, migrations and review output byte for byte.
#[path = "../support/mod.rs"]
mod support;

mod aip10_fixtures;
mod awareness_stats;
mod evolve_reference;
mod link_conformance;
mod migrate_golden;
mod okf_reference;
mod okf_writes;
mod review_golden;
mod vault_reference;
mod verdict_conformance;
