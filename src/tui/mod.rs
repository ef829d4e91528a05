//! The terminal side: enter and leave raw mode and the alternate screen (also on panic, SIGTERM
//! and SIGHUP), suspend on Ctrl-Z, and the event loop that feeds the app and draws when dirty.
pub mod external_editor;
pub mod screenshots;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

use crate::app::App;
use crate::app::config::{self, ColorChoice};
use crate::app::effects::Source;
use crate::app::event::Event;

/// How long the loop waits for input before looking at worker events again.
const POLL: Duration = Duration::from_millis(30);
/// While loading, redraw this often so the progress counter moves.
const PROGRESS_REDRAW: Duration = Duration::from_millis(100);

/// Open the interactive UI on a store until the person quits.
pub fn run(source: Source, color: ColorChoice) -> anyhow::Result<()> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let colorfgbg = std::env::var("COLORFGBG").ok();
    let settings = config::load(config::config_dir().as_deref(), color, no_color, colorfgbg.as_deref());
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        signal_hook::flag::register(sig, stop.clone())?;
    }
    let mut app = App::new(source, settings, false);
    // ratatui::init also installs a panic hook that restores the terminal first.
    let mut terminal = ratatui::try_init()?;
    let _ = execute!(std::io::stdout(), EnableBracketedPaste);
    let result = event_loop(&mut terminal, &mut app, &stop);
    let _ = execute!(std::io::stdout(), DisableMouseCapture, DisableBracketedPaste);
    ratatui::restore();
    result
}

fn set_mouse(on: bool) {
    let _ = if on {
        execute!(std::io::stdout(), EnableMouseCapture)
    } else {
        execute!(std::io::stdout(), DisableMouseCapture)
    };
}

fn event_loop(terminal: &mut DefaultTerminal, app: &mut App, stop: &AtomicBool) -> anyhow::Result<()> {
    let mut frame_log = std::env::var_os("FOLIO_FRAME_LOG")
        .and_then(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).ok());
    let size = terminal.size()?;
    app.model.size = (size.width, size.height);
    let mut mouse_on = app.model.mouse;
    set_mouse(mouse_on);
    let mut last_draw = Instant::now();
    loop {
        let loading = app.model.store.is_none() && app.model.load_error.is_none();
        if app.dirty || (loading && last_draw.elapsed() >= PROGRESS_REDRAW) {
            let started = Instant::now();
            terminal.draw(|f| crate::ui::draw(&app.model, f.area(), f.buffer_mut()))?;
            if let Some(log) = frame_log.as_mut() {
                let _ = writeln!(log, "{}", started.elapsed().as_micros());
            }
            app.dirty = false;
            last_draw = Instant::now();
        }
        if app.model.quit || stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if app.model.mouse != mouse_on {
            mouse_on = app.model.mouse;
            set_mouse(mouse_on);
        }
        let mut suspend = false;
        // Take every input event that is already waiting before drawing again.
        let mut timeout = app.poll_timeout(POLL);
        while event::poll(timeout)? {
            timeout = Duration::ZERO;
            let ev = match event::read()? {
                event::Event::Key(k) => Event::Key(k),
                event::Event::Mouse(m) => Event::Mouse(m),
                event::Event::Resize(w, h) => Event::Resize(w, h),
                event::Event::Paste(s) => Event::Paste(s),
                _ => continue,
            };
            suspend |= app.handle(ev);
        }
        suspend |= app.drain();
        if app.runner.external_edit.is_some() {
            external_editor::run_in_terminal(terminal, app, mouse_on)?;
            app.dirty = true;
        }
        if suspend {
            suspend_terminal(terminal, mouse_on)?;
            app.dirty = true;
        }
    }
}

/// Ctrl-Z: give the terminal back, stop until `fg`, then take it again and redraw everything.
fn suspend_terminal(terminal: &mut DefaultTerminal, mouse_on: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout();
    let _ = execute!(out, DisableMouseCapture, DisableBracketedPaste, LeaveAlternateScreen);
    disable_raw_mode()?;
    signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
    enable_raw_mode()?;
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    set_mouse(mouse_on);
    terminal.clear()?;
    Ok(())
}
