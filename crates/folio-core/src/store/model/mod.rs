//! The model: what a store is made of (entities, links, the graph) and small value helpers.

pub mod count;
pub mod digest;
pub mod entity;
pub mod graph;
pub mod hash_bytes;
pub mod history;
pub(crate) mod id_index;
pub mod lines;
pub(crate) mod prefetch;
pub mod relpath;
pub mod shared_values;
pub mod timestamp;
