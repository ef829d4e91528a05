//! The README screenshots: the demo store rendered by the real views into an off-screen buffer
//! and written as SVG, dark and light. `cargo run --example screenshots` regenerates them and
//! `tests/tui/tui_screenshots.rs` fails when they are out of date.
use std::path::{Path, PathBuf};
use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use crate::app::App;
use crate::app::event::Event;
use crate::app::jobs::Source;
use crate::app::settings::config::{self, ColorChoice};
use crate::app::settings::theme::Theme;
use crate::ui::svg;

pub const SIZE: (u16, u16) = (120, 32);

/// The demo store as shipped in the repository (the one embedded in the binary).
pub fn demo_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("demo")
}

/// A small Obsidian vault with a callout, embeds, a highlight, tasks and a long property.
pub fn vault_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/obsidian-vault")
}

/// `(file name, SVG)` for each screenshot.
pub fn render_all() -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = [("dark.svg", "dark", svg::DARK), ("light.svg", "light", svg::LIGHT)]
        .into_iter()
        .map(|(file, theme, canvas)| (file, svg::render(&frame(&demo_dir(), theme, &[]), canvas)))
        .collect();
    // The vault's catalog lists `wiki/`, its incident, then Hot Cache: go down to it and open it.
    let keys = [KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Enter];
    out.push(("vault.svg", svg::render(&frame(&vault_dir(), "dark", &keys), svg::DARK)));
    out
}

fn frame(store: &Path, theme: &str, keys: &[KeyCode]) -> Buffer {
    let mut settings = config::load(None, ColorChoice::Always, false, None);
    settings.theme = Theme::builtin(theme).unwrap_or_else(Theme::dark);
    settings.config.watch = false;
    let source = Source { path: Some(store.to_path_buf()), ..Source::default() };
    let mut app = App::new(source, settings, true);
    app.handle(Event::Resize(SIZE.0, SIZE.1));
    app.settle(Duration::from_secs(10));
    for &code in keys {
        app.handle(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        app.settle(Duration::from_secs(10));
    }
    let mut buf = Buffer::empty(Rect::new(0, 0, SIZE.0, SIZE.1));
    crate::ui::draw(&app.model, buf.area, &mut buf);
    buf
}
