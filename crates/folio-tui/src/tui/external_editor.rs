//! `E`: edit an entity in $VISUAL / $EDITOR. The entity's text goes to a temp copy (never the
//! store file itself), the terminal is handed over to the editor and taken back afterwards,
//! and the edited text returns to the app, which saves it through the conflict-checked
//! changeset path.
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

use crate::app::App;
use crate::app::event::Event;
use crate::app::review::jobs::{EditSeed, Outcome};

/// The editor to run: the override, else $VISUAL, else $EDITOR, else `vi`.
pub fn editor_command(over: Option<&str>) -> String {
    over.map(str::to_string)
        .or_else(|| std::env::var("VISUAL").ok().filter(|v| !v.trim().is_empty()))
        .or_else(|| std::env::var("EDITOR").ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".into())
}

/// Run `command` on a temp copy of the entity's text; Some(new text) when it changed.
/// The command may carry arguments (`code --wait`): it runs through `sh` with the file as `$1`.
pub fn edit(seed: &EditSeed, command: &str) -> Result<Option<String>, String> {
    edit_until(seed, command, || false)
}

/// `edit`, ending the editor with SIGHUP when `stop_now` says folio was signalled or lost its
/// terminal (SIGTERM or SIGHUP sent to folio alone must end the editor too).
fn edit_until(seed: &EditSeed, command: &str, stop_now: impl Fn() -> bool) -> Result<Option<String>, String> {
    let original = seed.entity_text();
    let name = seed.path.rsplit('/').next().unwrap_or("entity.md").to_string();
    let dir = tempfile::Builder::new()
        .prefix("folio-edit-")
        .tempdir()
        .map_err(|e| format!("{}: temp copy: {e}", seed.path))?;
    let copy = dir.path().join(&name);
    std::fs::write(&copy, original).map_err(|e| format!("{}: temp copy: {e}", seed.path))?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{command} \"$1\""))
        .arg("folio-editor")
        .arg(&copy)
        .spawn()
        .map_err(|e| format!("{}: cannot run the editor `{command}`: {e}", seed.path))?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if stop_now() => {
                // SAFETY: a signal to our own child, whose pid we still hold (not yet reaped).
                unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
                let _ = child.wait();
                return Err(format!("{}: folio was stopped while the editor ran; nothing was written", seed.path));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("{}: waiting for the editor `{command}`: {e}", seed.path)),
        }
    };
    if !status.success() {
        return Err(format!("{}: the editor `{command}` failed ({status}); nothing was written", seed.path));
    }
    let bytes = std::fs::read(&copy).map_err(|e| format!("{}: reading the edited copy: {e}", seed.path))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: the edit is not valid UTF-8; nothing was written", seed.path))?;
    Ok((text != original).then_some(text))
}

/// Run a pending $EDITOR session without a terminal (tests) and hand the result to the app.
pub fn run_pending(app: &mut App) {
    if let Some((seed, command)) = app.runner.external_edit.take() {
        let result = edit(&seed, &editor_command(command.as_deref()));
        app.handle(Event::Review(Outcome::ExternalDone { seed, result }));
    }
}

/// Run a pending $EDITOR session: leave the alternate screen and raw mode, run the editor,
/// then take the terminal back and redraw everything.
/// Some(end) when folio was stopped or lost its terminal while the editor ran.
pub(super) fn run_in_terminal(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    mouse_on: bool,
    stop: &AtomicUsize,
) -> anyhow::Result<Option<super::End>> {
    let Some((seed, command)) = app.runner.external_edit.take() else { return Ok(None) };
    let mut out = std::io::stdout();
    let _ = execute!(out, DisableMouseCapture, DisableBracketedPaste);
    super::blank_alternate_screen();
    let _ = execute!(out, LeaveAlternateScreen);
    disable_raw_mode()?;
    let result = edit_until(&seed, &editor_command(command.as_deref()), || {
        stop.load(Ordering::Relaxed) != 0 || super::terminal_gone()
    });
    if super::terminal_gone() {
        return Ok(Some(super::End::Gone));
    }
    if let Some(end) = super::stopped(stop) {
        return Ok(Some(end));
    }
    enable_raw_mode()?;
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    super::set_mouse(mouse_on);
    terminal.clear()?;
    app.handle(Event::Review(Outcome::ExternalDone { seed, result }));
    Ok(None)
}
