//! Reading: walking a store, frontmatter, link scanning and resolution, bodies as words.

pub mod body_text;
pub mod content;
pub mod content_words;
pub mod detect;
pub mod frontmatter;
pub mod fsio;
pub mod hostile;
pub mod link_scan;
pub mod links;
pub mod load;
pub mod query_words;
pub mod readonly;
pub mod relink;
pub mod resolve;
pub(crate) mod str_table;
pub mod tree;
pub mod walk;
