//! What a person types or clicks that no pane owns: the mouse, typed text (the top overlay's
//! query or the catalog filter), and the help and palette overlays.
pub mod mouse;
pub mod palette;
pub mod text;
