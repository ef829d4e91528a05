//! Driving the real app without a terminal: inline effects, the real keymap, TestBackend.
#![allow(dead_code)]
pub mod inbox;
pub mod pty;
pub mod tmux;

use std::path::{Path, PathBuf};
use std::time::Duration;

use folio::app::App;
use folio::app::event::Event;
use folio::app::jobs::Source;
use folio::app::settings::config::{self, ColorChoice};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub use super::PINNED_NOW;

/// Pin folio's clock in this test process.
pub fn pin_clock() {
    folio::store::model::timestamp::pin(folio::store::model::timestamp::parse_instant(PINNED_NOW).unwrap());
}

/// An app on `path` with default settings and the given theme, loaded and settled.
pub fn app_on(path: &Path, theme: &str, size: (u16, u16)) -> App {
    pin_clock();
    let mut settings = config::load(None, ColorChoice::Always, false, None);
    settings.theme = folio::app::settings::theme::Theme::builtin(theme).expect("builtin theme");
    let source = Source { path: Some(path.to_path_buf()), ..Source::default() };
    let mut app = App::new(source, settings, true);
    app.handle(Event::Resize(size.0, size.1));
    app.settle(Duration::from_secs(10));
    app
}

/// Press keys written like the keymap: "j", "<Enter>", "<C-d>", "gg" is two presses.
pub fn press(app: &mut App, keys: &[&str]) {
    for k in keys {
        let key = folio::app::settings::keymap::Key::parse(k).unwrap_or_else(|| panic!("bad key {k}"));
        let mut mods = KeyModifiers::empty();
        if key.ctrl {
            mods |= KeyModifiers::CONTROL;
        }
        if key.alt {
            mods |= KeyModifiers::ALT;
        }
        let code = if key.shift && key.code == KeyCode::Tab { KeyCode::BackTab } else { key.code };
        if key.shift {
            mods |= KeyModifiers::SHIFT;
        }
        app.handle(Event::Key(KeyEvent::new(code, mods)));
        app.settle(Duration::from_secs(10));
    }
}

/// Type text one character at a time.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle(Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::empty())));
    }
    app.settle(Duration::from_secs(10));
}

pub fn render(app: &App) -> Buffer {
    let (w, h) = app.model.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| folio::ui::draw(&app.model, f.area(), f.buffer_mut())).unwrap();
    terminal.backend().buffer().clone()
}

/// The buffer as plain lines (trailing spaces kept, so widths are checkable).
pub fn text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        for x in 0..area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The status bar as one line, a long message's rows joined back: the bar wraps a message
/// wider than itself onto the rows above it, each continuation marked `↪ ` after the mode's
/// width, a row broken after a space or where the screen's `width` ends (narrow characters
/// only; a row that ends short of the width ended at a space).
pub fn status_line(screen: &str, width: usize) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let continued = |l: &str| l.trim_start().starts_with("↪ ") && l.starts_with(' ');
    let mut first = lines.len().saturating_sub(1);
    while first > 0 && continued(lines[first]) {
        first -= 1;
    }
    let mut out = String::new();
    for (n, line) in lines[first..].iter().enumerate() {
        let (text, room) = if n == 0 {
            (line.to_string(), width)
        } else {
            let indent = line.chars().count() - line.trim_start().chars().count();
            (line.trim_start().strip_prefix("↪ ").unwrap().to_string(), width - indent - 2)
        };
        let text = text.trim_end();
        out.push_str(text);
        if first + n + 1 < lines.len() && text.chars().count() < room {
            out.push(' ');
        }
    }
    out
}

#[allow(unused_imports)] // each test binary uses some of them
pub use super::{corpus, corpus_or_skip, fixture};

/// A scratch copy of `src` that takes writes (the corpora are read-only); keep the TempDir.
pub fn scratch(src: &Path) -> (tempfile::TempDir, PathBuf) {
    fn copy(src: &Path, dst: &Path) {
        std::fs::create_dir_all(dst).unwrap();
        for entry in std::fs::read_dir(src).unwrap() {
            let entry = entry.unwrap();
            let to = dst.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &to);
            } else {
                std::fs::copy(entry.path(), &to).unwrap();
                let mut perms = std::fs::metadata(&to).unwrap().permissions();
                #[allow(clippy::permissions_set_readonly_false)]
                perms.set_readonly(false);
                std::fs::set_permissions(&to, perms).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(src.file_name().unwrap());
    copy(src, &dst);
    (dir, dst)
}

pub fn write(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A small vault with the hard cases: a draft, a broken link, an escape sequence, a table,
/// code, a task list. Lives in a fixed-name folder so the status bar text is stable.
pub fn tricky_vault() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tricky-vault");
    write(
        &root,
        "notes/alpha.md",
        "---\ntitle: Alpha\ntype: note\nstatus: draft\ntags: [core, review]\nconfidence: 0.4\n---\n# Alpha\n\nAlpha links to [[beta]] and to [[missing-page]].\n\n- [x] parsed\n- [ ] reviewed\n\n| key | value |\n|-----|-------|\n| a | 1 |\n\n```rust\nfn main() { println!(\"hi\"); }\n```\n\n> quoted *text*\n",
    );
    write(&root, "notes/beta.md", "---\ntitle: Beta\ntype: note\n---\n# Beta\n\nBack to [alpha](alpha.md).\n");
    write(&root, "evil.md", "# Evil\n\nclear screen \x1b[2J here and bell \x07 there.\n");
    (dir, root)
}
