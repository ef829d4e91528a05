//! The reader (the preview pane): the open entity's properties, body and links, scrolled as
//! one column; `update` opens entities, scrolls, follows links and copies.
pub mod jobs;
pub mod lines;
pub mod properties;
pub mod update;
