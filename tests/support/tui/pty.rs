//! The real binary on a pseudo-terminal: every byte it writes to the terminal is kept (for the
//! raw-bytes checks) and fed to a vt100 screen (to wait for what is shown). Also used by
//! benches/tui_pty.rs through `#[path]`, so it depends on nothing else in tests/.
#![allow(dead_code)]
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// What the reader thread collected.
struct Output {
    raw: Vec<u8>,
    screen: vt100::Parser,
    /// Bytes seen in all, also past `keep` (which bounds the memory a runaway writer can take).
    total: usize,
    keep: usize,
}

pub struct Pty {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Output>>,
    reader: Option<JoinHandle<()>>,
    _master: Box<dyn MasterPty + Send>,
    pub size: (u16, u16),
}

/// Keys as a terminal sends them.
pub mod keys {
    pub const ENTER: &[u8] = b"\r";
    pub const ESC: &[u8] = b"\x1b";
    pub const TAB: &[u8] = b"\t";
    pub const DOWN: &[u8] = b"\x1b[B";
    pub const UP: &[u8] = b"\x1b[A";
    pub const PAGE_DOWN: &[u8] = b"\x1b[6~";
    pub const BACKSPACE: &[u8] = b"\x7f";
    pub const CTRL_D: &[u8] = b"\x04";
    pub const CTRL_U: &[u8] = b"\x15";
}

impl Pty {
    /// Start `exe args` on a fresh pty of `cols`×`rows` with `env` added to this process's
    /// environment; at most `keep` bytes of its output are kept.
    pub fn spawn(exe: &Path, args: &[&OsStr], env: &[(&str, &OsStr)], (cols, rows): (u16, u16), keep: usize) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 })
            .expect("a pseudo-terminal can be opened");
        let mut cmd = CommandBuilder::new(exe);
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        // folio's clock, pinned as in every test (`tui_support::PINNED_NOW`).
        cmd.env("FOLIO_NOW", "2026-11-27T12:00:00Z");
        cmd.cwd(std::env::current_dir().expect("a current directory"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("folio starts on the pty");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = pair.master.take_writer().expect("pty writer");
        let output = Arc::new(Mutex::new(Output {
            raw: Vec::new(),
            screen: vt100::Parser::new(nonzero(rows), nonzero(cols), 0),
            total: 0,
            keep,
        }));
        let sink = output.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            // Ends at EOF or EIO, when the child has exited and the pty is closed.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                let mut out = sink.lock().unwrap();
                out.total += n;
                let room = out.keep.saturating_sub(out.raw.len()).min(n);
                out.raw.extend_from_slice(&buf[..room]);
                out.screen.process(&buf[..n]);
            }
        });
        Pty { child, writer, output, reader: Some(reader), _master: pair.master, size: (cols, rows) }
    }

    /// Type bytes as the terminal would send them.
    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("write to the pty");
        self.writer.flush().expect("flush the pty");
    }

    /// Type `bytes`, then wait `pause` (Esc needs one, or it is read as Alt with the next key).
    pub fn key(&mut self, bytes: &[u8], pause: Duration) {
        self.send(bytes);
        std::thread::sleep(pause);
    }

    /// The screen as text, one line per row.
    pub fn screen(&self) -> String {
        self.output.lock().unwrap().screen.screen().contents()
    }

    /// Wait until the screen shows `needle`, `patience` passes or the process ends; returns the
    /// screen and whether it was found.
    pub fn wait_for(&mut self, needle: &str, patience: Duration) -> (String, bool) {
        let deadline = Instant::now() + patience;
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return (s, true);
            }
            if Instant::now() > deadline || !self.running() {
                return (s, false);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every byte kept so far.
    pub fn raw(&self) -> Vec<u8> {
        self.output.lock().unwrap().raw.clone()
    }

    /// Bytes written in all (kept or not).
    pub fn total(&self) -> usize {
        self.output.lock().unwrap().total
    }

    /// Wait for the process to end; `None` if it is still running after `patience` (then it is
    /// killed). After it ends, the reader has taken all of its output.
    pub fn wait_exit(&mut self, patience: Duration) -> Option<portable_pty::ExitStatus> {
        let deadline = Instant::now() + patience;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for folio") {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(r) = self.reader.take() {
            // The pty's other end closes with the process; give the reader a moment to drain it.
            let until = Instant::now() + Duration::from_secs(5);
            while !r.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
            if r.is_finished() {
                let _ = r.join();
            }
        }
        status
    }

    /// Whether the process is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Wait until the frame log at `log` has more than `after` frames and then no new one for
    /// `quiet` (the UI is idle), or `patience` passes, or the process ends. Returns the number
    /// of frames.
    pub fn wait_idle(&mut self, log: &Path, after: usize, quiet: Duration, patience: Duration) -> usize {
        let deadline = Instant::now() + patience;
        let mut seen = read_frame_log(log).1.len();
        let mut since = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(25));
            let n = read_frame_log(log).1.len();
            if n != seen {
                seen = n;
                since = Instant::now();
            }
            let idle = seen > after && since.elapsed() >= quiet;
            if idle || Instant::now() > deadline || !self.running() {
                return seen;
            }
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }
}

fn nonzero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a terminal has at least one row and column")
}

impl Drop for Pty {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One line of `FOLIO_FRAME_LOG`.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Milliseconds from the loop's start to the start of drawing.
    pub t_ms: f64,
    pub draw_us: u64,
    pub draw_cpu_us: u64,
    pub events_us: u64,
    pub events_cpu_us: u64,
    pub state: String,
    pub trigger: String,
}

impl Frame {
    /// The wall time the UI thread took for this frame: handling what caused it, then drawing.
    pub fn busy_ms(&self) -> f64 {
        (self.draw_us + self.events_us) as f64 / 1000.0
    }

    /// The same in the UI thread's CPU time (what it costs, whatever else the machine runs).
    pub fn cpu_ms(&self) -> f64 {
        (self.draw_cpu_us + self.events_cpu_us) as f64 / 1000.0
    }
}

/// The frames of a frame log and the wall-clock start it names (µs since the Unix epoch).
pub fn read_frame_log(path: &Path) -> (Option<u128>, Vec<Frame>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut start = None;
    let mut frames = Vec::new();
    for line in text.lines() {
        if let Some(header) = line.strip_prefix('#') {
            let mut words = header.split_whitespace();
            while let Some(w) = words.next() {
                if w == "start_unix_us" {
                    start = words.next().and_then(|v| v.parse().ok());
                }
            }
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if let [t, draw, draw_cpu, events, events_cpu, state, trigger] = cols[..] {
            let us = |v: &str| v.parse().unwrap_or(0);
            frames.push(Frame {
                t_ms: t.parse().unwrap_or(f64::NAN),
                draw_us: us(draw),
                draw_cpu_us: us(draw_cpu),
                events_us: us(events),
                events_cpu_us: us(events_cpu),
                state: state.to_string(),
                trigger: trigger.to_string(),
            });
        }
    }
    (start, frames)
}
