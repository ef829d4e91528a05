//! `FOLIO_FRAME_LOG=/path/file`: the terminal loop appends one line per frame, so frame times
//! can be checked under load and on hostile content (benches/tui_pty.rs reads it). When the
//! variable is unset nothing is measured: the loop never calls into this module.
//!
//! Format: a `#` header naming the columns and the wall-clock start, then per frame, tab
//! separated: milliseconds since the loop started (when drawing began); the draw's wall and CPU
//! time in µs; the wall and CPU time spent handling events since the previous frame in µs; the
//! store's state (`loading`, `ready`, `error`); and what triggered the frame (`start`,
//! `progress`, or the events handled, like `key` or `loaded,linted`, with `×N` for repeats).
//! CPU time is the UI thread's own, so it stays meaningful on a busy machine.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub struct FrameLog {
    out: BufWriter<File>,
    start: Instant,
    /// Wall and CPU time spent handling events since the last frame.
    events: (Duration, Duration),
    /// Kinds of the events handled since the last frame, with counts, in order of arrival.
    triggers: Vec<(&'static str, u32)>,
    frames: u64,
}

/// A point in time on both clocks.
#[derive(Clone, Copy)]
pub struct Stamp {
    wall: Instant,
    cpu: Duration,
}

impl Stamp {
    pub fn now() -> Stamp {
        Stamp { wall: Instant::now(), cpu: thread_cpu() }
    }

    /// (wall, CPU) elapsed since this stamp.
    fn elapsed(&self) -> (Duration, Duration) {
        (self.wall.elapsed(), thread_cpu().saturating_sub(self.cpu))
    }
}

/// CPU time of the calling thread.
#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec it is given, which lives on this stack.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if ok { Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32) } else { Duration::ZERO }
}

#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    Duration::ZERO
}

impl FrameLog {
    /// The log named by `FOLIO_FRAME_LOG`, or `None` when it is unset or cannot be opened (the
    /// UI then runs unmeasured: there is no terminal line to say so on).
    pub fn from_env() -> Option<FrameLog> {
        let path = std::env::var_os("FOLIO_FRAME_LOG").filter(|p| !p.is_empty())?;
        let file = std::fs::OpenOptions::new().create(true).append(true).open(&path).ok()?;
        let mut log = FrameLog::new(file);
        let unix_us = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros()).unwrap_or(0);
        let _ = writeln!(
            log.out,
            "# folio frame log · pid {} · start_unix_us {unix_us} · columns: t_ms draw_us draw_cpu_us events_us events_cpu_us state trigger",
            std::process::id()
        );
        Some(log)
    }

    fn new(file: File) -> FrameLog {
        FrameLog {
            out: BufWriter::new(file),
            start: Instant::now(),
            events: (Duration::ZERO, Duration::ZERO),
            triggers: Vec::new(),
            frames: 0,
        }
    }

    /// One event of `kind` was handled, starting at `since`.
    pub fn handled(&mut self, kind: &'static str, since: Stamp) {
        let (wall, cpu) = since.elapsed();
        self.events.0 += wall;
        self.events.1 += cpu;
        match self.triggers.last_mut() {
            Some((k, n)) if *k == kind => *n += 1,
            _ => self.triggers.push((kind, 1)),
        }
    }

    /// A frame was drawn, starting at `since`; `progress` when it was drawn only to move the
    /// loading counter.
    pub fn frame(&mut self, since: Stamp, state: &str, progress: bool) {
        let (draw, draw_cpu) = since.elapsed();
        let trigger = if self.frames == 0 {
            "start".to_string()
        } else if self.triggers.is_empty() {
            if progress { "progress" } else { "redraw" }.to_string()
        } else {
            let parts: Vec<String> =
                self.triggers.iter().map(|(k, n)| if *n > 1 { format!("{k}×{n}") } else { k.to_string() }).collect();
            parts.join(",")
        };
        let t_ms = since.wall.saturating_duration_since(self.start).as_secs_f64() * 1000.0;
        let _ = writeln!(
            self.out,
            "{t_ms:.3}\t{}\t{}\t{}\t{}\t{state}\t{trigger}",
            draw.as_micros(),
            draw_cpu.as_micros(),
            self.events.0.as_micros(),
            self.events.1.as_micros(),
        );
        // Flushed per frame so a reader sees frames as they happen and a crash loses none.
        let _ = self.out.flush();
        self.frames += 1;
        self.events = (Duration::ZERO, Duration::ZERO);
        self.triggers.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_the_events_that_caused_each_frame() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = FrameLog::new(File::create(dir.path().join("frames")).unwrap());
        log.frame(Stamp::now(), "loading", false);
        log.frame(Stamp::now(), "loading", true);
        let busy = Stamp::now();
        let mut x = 0u64;
        // Busy for 2 ms of this thread's CPU (more wall time on a loaded machine).
        while busy.wall.elapsed() < Duration::from_millis(2)
            || (cfg!(unix) && busy.elapsed().1 < Duration::from_millis(2))
        {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        log.handled("loaded", busy);
        log.handled("recall-updated", Stamp::now());
        log.handled("recall-updated", Stamp::now());
        log.frame(Stamp::now(), "ready", false);
        log.frame(Stamp::now(), "ready", false);
        drop(log);
        let text = std::fs::read_to_string(dir.path().join("frames")).unwrap();
        let cols: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(cols.len(), 4);
        let tail = |i: usize| cols[i][5..].to_vec();
        assert_eq!(tail(0), ["loading", "start"]);
        assert_eq!(tail(1), ["loading", "progress"]);
        assert_eq!(tail(2), ["ready", "loaded,recall-updated×2"]);
        assert_eq!(tail(3), ["ready", "redraw"]);
        let us = |i: usize, c: usize| cols[i][c].parse::<u64>().unwrap();
        assert!(us(2, 3) >= 2000, "the busy event's wall time is counted: {:?}", cols[2]);
        #[cfg(unix)]
        assert!(us(2, 4) >= 2000, "and its CPU time: {:?}", cols[2]);
        assert_eq!(us(3, 3), 0, "event time starts again after each frame: {:?}", cols[3]);
        let t: Vec<f64> = cols.iter().map(|c| c[0].parse().unwrap()).collect();
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "times grow: {t:?}");
    }
}
