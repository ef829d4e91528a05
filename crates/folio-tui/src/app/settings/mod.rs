//! What a person sets up once and folio remembers: the configuration and keymap files, themes,
//! who reviews, and the catalog's width.
pub mod config;
pub mod keymap;
pub mod reviewer;
pub mod sidebar;
pub mod theme;
