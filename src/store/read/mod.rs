//! Reading: walking a store, frontmatter, link scanning and resolution.

pub mod detect;
pub mod frontmatter;
pub mod fsio;
pub mod hostile;
pub mod link_scan;
pub mod links;
pub mod load;
pub mod readonly;
pub mod resolve;
pub mod simple_yaml;
pub(crate) mod str_table;
pub mod tree;
pub mod yaml_limits;
