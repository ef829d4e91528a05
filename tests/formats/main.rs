//! Each format read from real and fixture stores: its entities, fields, links and catalogs.
#[path = "../support/mod.rs"]
mod support;

mod aip10;
mod awareness;
mod detection;
mod elophanto;
mod evolve;
mod okf;
mod okf_bundles;
mod opendray;
mod vault;
