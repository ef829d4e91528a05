//! The README screenshots: the demo store rendered by the real views into an off-screen buffer
//! and written as SVG, dark and light. `cargo run --example screenshots` regenerates them and
//! `tests/tui_screenshots.rs` fails when they are out of date.
use std::path::{Path, PathBuf};
use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::app::App;
use crate::app::config::{self, ColorChoice};
use crate::app::effects::Source;
use crate::app::event::Event;
use crate::app::theme::Theme;
use crate::ui::svg;

pub const SIZE: (u16, u16) = (120, 32);

/// The demo store as shipped in the repository (the one embedded in the binary).
pub fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo")
}

/// `(file name, SVG)` for each screenshot.
pub fn render_all() -> Vec<(&'static str, String)> {
    [("dark.svg", "dark", svg::DARK), ("light.svg", "light", svg::LIGHT)]
        .into_iter()
        .map(|(file, theme, canvas)| (file, svg::render(&frame(theme), canvas)))
        .collect()
}

fn frame(theme: &str) -> Buffer {
    let mut settings = config::load(None, ColorChoice::Always, false, None);
    settings.theme = Theme::builtin(theme).unwrap_or_else(Theme::dark);
    settings.config.watch = false;
    let source = Source { path: Some(demo_dir()), ..Source::default() };
    let mut app = App::new(source, settings, true);
    app.handle(Event::Resize(SIZE.0, SIZE.1));
    app.settle(Duration::from_secs(10));
    let mut buf = Buffer::empty(Rect::new(0, 0, SIZE.0, SIZE.1));
    crate::ui::draw(&app.model, buf.area, &mut buf);
    buf
}
