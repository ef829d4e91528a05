//! The terminal side: enter and leave raw mode and the alternate screen (also on panic, SIGTERM
//! and SIGHUP), suspend on Ctrl-Z, and the event loop that feeds the app and draws when dirty.
pub mod external_editor;
pub mod frame_log;
mod hangup_guard;
pub mod screenshots;
pub mod unsaved;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

use crate::app::App;
use crate::app::event::Event;
use crate::app::jobs::Source;
use crate::app::outbox::Bell;
use crate::app::settings::config::{self, ColorChoice};
use frame_log::{FrameLog, Stamp};

/// The longest the loop waits for input: a worker's answer rings it awake sooner (`outbox`), and
/// this bounds how late it sees a signal, a hang-up or a loading progress.
const POLL: Duration = Duration::from_millis(30);
/// The longest the loop handles worker events before drawing again.
const WORKER_BUDGET: Duration = Duration::from_millis(16);
/// While loading, redraw this often so the progress counter moves.
const PROGRESS_REDRAW: Duration = Duration::from_millis(100);
/// At most this many input events per round: a dead tty can report input forever, and the
/// loop must get back to the stop flag and the hang-up check.
const INPUT_BUDGET: usize = 256;

/// Why the loop ended.
enum End {
    /// The person quit.
    Quit,
    /// SIGTERM, SIGHUP or SIGINT (the number): the terminal may still be there.
    Signal(i32),
    /// The terminal is gone (hang-up, read or write error): nothing to restore or write to.
    Gone,
}

/// Open the interactive UI on a store until the person quits.
pub fn run(source: Source, color: ColorChoice) -> anyhow::Result<()> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let colorfgbg = std::env::var("COLORFGBG").ok();
    let settings = config::load(config::config_dir().as_deref(), color, no_color, colorfgbg.as_deref());
    // The signal that asked folio to stop (0: none). SIGINT only arrives outside raw mode
    // (while the loading screen is up before raw mode, or from `kill -INT`).
    let stop = Arc::new(AtomicUsize::new(0));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP, signal_hook::consts::SIGINT] {
        signal_hook::flag::register_usize(sig, stop.clone(), sig as usize)?;
    }
    note_terminals();
    hangup_guard::spawn();
    let mut app = App::new(source, settings, false);
    // ratatui::init also installs a panic hook that restores the terminal first.
    let mut terminal = ratatui::try_init()?;
    let _ = execute!(std::io::stdout(), EnableBracketedPaste);
    let end = event_loop(&mut terminal, &mut app, &stop);
    let gone = matches!(end, Ok(End::Gone)) || end.is_err() && terminal_gone();
    // A folio signalled while suspended (Ctrl-Z, then `kill %1`) runs in the background: the
    // shell owns the terminal, and touching its modes would stop folio again (SIGTTOU).
    if !gone && foreground() {
        let _ = execute!(std::io::stdout(), DisableMouseCapture, DisableBracketedPaste);
        blank_alternate_screen();
        ratatui::restore();
    }
    if !matches!(end, Ok(End::Quit)) {
        // stderr may be the lost terminal: a failed write must not panic.
        use std::io::Write;
        match unsaved::keep(&app) {
            Some(Ok(path)) => {
                let _ = writeln!(std::io::stderr(), "folio: unsaved editor text kept in {}", path.display());
            }
            Some(Err(e)) => {
                let _ = writeln!(std::io::stderr(), "folio: could not keep the unsaved editor text: {e}");
            }
            None => {}
        }
    }
    match end {
        Ok(End::Quit) => Ok(()),
        // Leave now, as after a crash: a busy worker or the file watcher must not keep the
        // process alive, and a confirmed write is finished or rolled back by the journal.
        Ok(End::Signal(sig)) => std::process::exit(128 + sig),
        Ok(End::Gone) => std::process::exit(128 + signal_hook::consts::SIGHUP),
        Err(e) if gone => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "folio: the terminal is gone: {e}");
            std::process::exit(128 + signal_hook::consts::SIGHUP)
        }
        Err(e) => Err(e),
    }
}

/// The signal recorded by the handlers, if any arrived.
fn stopped(stop: &AtomicUsize) -> Option<End> {
    match stop.load(Ordering::Relaxed) {
        0 => None,
        sig => Some(End::Signal(sig as i32)),
    }
}

/// Wait up to `timeout` for input (or a hang-up, or a signal) on stdin when it is a terminal, or
/// for the bell a worker rings with each answer (answered here, so the next ring wakes again).
fn wait_for_input(timeout: Duration, bell: Option<&Bell>) {
    // SAFETY: isatty on the process's own stdin.
    let tty = unsafe { libc::isatty(0) } == 1;
    // poll ignores an entry whose descriptor is negative: stdin when it is not a terminal, the
    // bell when the app has none.
    let mut fds = [
        libc::pollfd { fd: if tty { 0 } else { -1 }, events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: bell.map_or(-1, Bell::fd), events: libc::POLLIN, revents: 0 },
    ];
    let ms = if tty { timeout } else { timeout.min(POLL) }.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: two valid pollfds in one array; EINTR (a signal) just ends the wait early.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    if let Some(bell) = bell
        && n > 0
        && fds[1].revents & libc::POLLIN != 0
    {
        bell.answer();
    }
}

/// Whether stdin and stdout were terminals when the UI started.
static WAS_TTY: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

/// Remember which of stdin and stdout are terminals, for `terminal_gone`.
fn note_terminals() {
    for (fd, was) in WAS_TTY.iter().enumerate() {
        // SAFETY: isatty on the process's own standard descriptors.
        was.store(unsafe { libc::isatty(fd as i32) } == 1, Ordering::Relaxed);
    }
}

/// True when the terminal has hung up: poll on stdin or stdout (whichever is a tty) reports
/// POLLHUP/POLLERR, one that was a terminal is not any more (a hung-up tty answers EIO to
/// isatty's ioctl), or neither is a terminal.
pub(crate) fn terminal_gone() -> bool {
    let mut any_tty = false;
    for fd in [0, 1] {
        // SAFETY: isatty and poll on the process's own standard descriptors, no pointers kept.
        if unsafe { libc::isatty(fd) } != 1 {
            if WAS_TTY[fd as usize].load(Ordering::Relaxed) {
                return true;
            }
            continue;
        }
        any_tty = true;
        let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, zero timeout.
        let n = unsafe { libc::poll(&mut pfd, 1, 0) };
        if n > 0 && pfd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return true;
        }
    }
    !any_tty
}

/// True when folio's process group owns the terminal (or there is no terminal to own).
fn foreground() -> bool {
    // SAFETY: tcgetpgrp and getpgrp on the process's own stdin and group.
    let (tty, own) = unsafe { (libc::tcgetpgrp(0), libc::getpgrp()) };
    tty < 0 || tty == own
}

fn set_mouse(on: bool) {
    let _ = if on {
        execute!(std::io::stdout(), EnableMouseCapture)
    } else {
        execute!(std::io::stdout(), DisableMouseCapture)
    };
}

fn event_loop(terminal: &mut DefaultTerminal, app: &mut App, stop: &AtomicUsize) -> anyhow::Result<End> {
    let mut frame_log = FrameLog::from_env();
    let size = terminal.size()?;
    app.model.size = (size.width, size.height);
    let mut mouse_on = app.model.mouse;
    set_mouse(mouse_on);
    let mut last_draw = Instant::now();
    let mut backlog = false;
    let bell = app.bell();
    loop {
        let loading = app.model.store.is_none() && app.model.load_error.is_none() && app.model.store_choice.is_none();
        let progress = loading && last_draw.elapsed() >= PROGRESS_REDRAW;
        if app.dirty || progress {
            let started = frame_log.as_ref().map(|_| Stamp::now());
            terminal.draw(|f| crate::ui::draw(&app.model, f.area(), f.buffer_mut()))?;
            if let (Some(log), Some(started)) = (frame_log.as_mut(), started) {
                let state = match (&app.model.store, &app.model.load_error) {
                    (Some(_), _) => "ready",
                    (None, Some(_)) => "error",
                    (None, None) => "loading",
                };
                log.frame(started, state, !app.dirty);
            }
            app.dirty = false;
            last_draw = Instant::now();
        }
        if app.model.quit {
            return Ok(End::Quit);
        }
        if let Some(end) = stopped(stop) {
            return Ok(end);
        }
        if terminal_gone() {
            return Ok(End::Gone);
        }
        if app.model.mouse != mouse_on {
            mouse_on = app.model.mouse;
            set_mouse(mouse_on);
        }
        let mut suspend = false;
        // Take every input event that is already waiting before drawing again; do not wait for
        // input when worker events were left over from the last round.
        let mut timeout = if backlog { Duration::ZERO } else { app.poll_timeout(POLL) };
        // A read or poll error means the terminal is gone; the budget and the stop flag keep a
        // dead tty that reports events forever from holding the loop here.
        let mut budget = INPUT_BUDGET;
        while budget > 0 {
            // crossterm's poll reads a hung-up tty in a loop that never returns (read gives 0
            // bytes forever), so look for the hang-up first and wait for input ourselves.
            if terminal_gone() {
                return Ok(End::Gone);
            }
            match event::poll(Duration::ZERO) {
                Ok(true) => {}
                Ok(false) if timeout.is_zero() => break,
                Ok(false) => {
                    wait_for_input(timeout, bell.as_deref());
                    timeout = Duration::ZERO;
                    continue;
                }
                Err(_) => return Ok(End::Gone),
            }
            budget -= 1;
            timeout = Duration::ZERO;
            if let Some(end) = stopped(stop) {
                return Ok(end);
            }
            let Ok(read) = event::read() else { return Ok(End::Gone) };
            let ev = match read {
                event::Event::Key(k) => Event::Key(k),
                event::Event::Mouse(m) => Event::Mouse(m),
                event::Event::Resize(w, h) => Event::Resize(w, h),
                event::Event::Paste(s) => Event::Paste(s),
                _ => continue,
            };
            suspend |= handle(app, frame_log.as_mut(), ev);
        }
        // Worker events, for one frame's budget at most: events that cause more events (recall
        // ticks while the matcher runs) must not keep the loop from drawing.
        let budget = Instant::now() + WORKER_BUDGET;
        backlog = false;
        while let Some(ev) = app.pending() {
            suspend |= handle(app, frame_log.as_mut(), ev);
            if Instant::now() >= budget {
                backlog = true;
                break;
            }
        }
        if app.runner.external_edit.is_some() {
            if let Some(end) = external_editor::run_in_terminal(terminal, app, mouse_on, stop)? {
                return Ok(end);
            }
            app.dirty = true;
        }
        if suspend {
            if let Some(end) = suspend_terminal(terminal, mouse_on, stop)? {
                return Ok(end);
            }
            app.dirty = true;
        }
    }
}

/// Handle one event, timed when there is a frame log; `true` when the terminal must suspend.
fn handle(app: &mut App, log: Option<&mut FrameLog>, ev: Event) -> bool {
    let Some(log) = log else { return app.handle(ev) };
    let (kind, started) = (ev.kind(), Stamp::now());
    let suspend = app.handle(ev);
    log.handled(kind, started);
    suspend
}

/// Blank the alternate screen just before leaving it. tmux 3.3a, after the window grew while
/// an application was on the alternate screen, leaves rows of that screen on the main one
/// when it is left; a blank alternate screen leaves nothing behind (tests/tui/tui_e2e.rs).
pub(crate) fn blank_alternate_screen() {
    use ratatui::crossterm::cursor::MoveTo;
    use ratatui::crossterm::terminal::{Clear, ClearType};
    let _ = execute!(std::io::stdout(), MoveTo(0, 0), Clear(ClearType::All));
}

/// Ctrl-Z: give the terminal back, stop until `fg`, then take it again and redraw everything.
/// A signal or hang-up while stopped (delivered with SIGCONT) ends folio without taking the
/// terminal again.
fn suspend_terminal(terminal: &mut DefaultTerminal, mouse_on: bool, stop: &AtomicUsize) -> anyhow::Result<Option<End>> {
    let mut out = std::io::stdout();
    let _ = execute!(out, DisableMouseCapture, DisableBracketedPaste);
    blank_alternate_screen();
    let _ = execute!(out, LeaveAlternateScreen);
    disable_raw_mode()?;
    signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
    // Continued in the background (`bg`, or a dying shell's SIGHUP + SIGCONT): taking the
    // terminal's modes back from there would stop folio again (SIGTTOU), so wait to be in
    // the foreground, watching for a stop signal and a hang-up meanwhile.
    loop {
        if let Some(end) = stopped(stop) {
            return Ok(Some(end));
        }
        if terminal_gone() {
            return Ok(Some(End::Gone));
        }
        if foreground() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    enable_raw_mode()?;
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    set_mouse(mouse_on);
    terminal.clear()?;
    Ok(None)
}
