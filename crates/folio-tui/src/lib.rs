//! folio's terminal face: `app` is the Elm-style model, actions and update; `ui` the views;
//! `markdown` lays a note out for the terminal; `tui` runs the terminal loop. Every read and
//! write goes through `folio_core`.
pub mod app;
pub mod markdown;
pub mod tui;
pub mod ui;
