//! Markdown for the preview: parse the body into a document model with numbered links
//! (`doc`), lay it out for a width as lines of role-tagged pieces (`layout`), highlight code
//! blocks off the UI thread (`highlight`), and make untrusted text visible-safe (`sanitize`).
//! No terminal code here: roles become colours in the theme.
pub mod anchors;
pub mod doc;
pub mod embeds;
pub mod highlight;
pub mod layout;
pub mod obsidian;
pub mod sanitize;
pub mod table;
