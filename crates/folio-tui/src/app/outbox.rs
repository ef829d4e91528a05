//! How workers answer the UI thread: an event on the channel, and a bell that wakes a terminal
//! loop waiting for input. Without the bell the loop saw an answer only when its input wait
//! timed out, so each step of a chain of background answers (a verdict written, relinted, the
//! queue recomputed, the next item's detail) waited up to a poll interval before the next
//! began (docs/benchmarks.md, "The terminal loop wakes for answers").
use std::io::{PipeReader, PipeWriter, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use super::event::Event;

/// A pipe with at most one byte in it: rung by any thread, answered by the terminal loop, whose
/// poll on the read end wakes when it is rung.
pub struct Bell {
    /// True from a ring until the loop answers it: a byte is in the pipe, or about to be.
    rung: AtomicBool,
    reader: PipeReader,
    writer: PipeWriter,
}

impl Bell {
    pub fn new() -> std::io::Result<Bell> {
        let (reader, writer) = std::io::pipe()?;
        Ok(Bell { rung: AtomicBool::new(false), reader, writer })
    }

    /// Wake the loop, if it has not been woken since it last answered. Only the first ring
    /// writes, so the pipe never fills and a ring never blocks.
    pub fn ring(&self) {
        if !self.rung.swap(true, Ordering::AcqRel) {
            let _ = (&self.writer).write(&[1]);
        }
    }

    /// Take the ring, once the read end polled readable. Called before the loop takes the
    /// channel's events, so an event sent after this rings again and one sent before it is
    /// taken now.
    pub fn answer(&self) {
        let _ = (&self.reader).read(&mut [0u8; 1]);
        self.rung.store(false, Ordering::Release);
    }

    /// The read end, for poll.
    pub fn fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.reader.as_raw_fd()
    }
}

/// The app that would take the event has ended.
#[derive(Debug)]
pub struct Gone;

/// The workers' side of the channel: every event sent rings the bell, when there is one (not in
/// tests, which take events as they come).
#[derive(Clone)]
pub struct Outbox {
    tx: Sender<Event>,
    bell: Option<Arc<Bell>>,
}

impl Outbox {
    pub fn new(tx: Sender<Event>, bell: Option<Arc<Bell>>) -> Outbox {
        Outbox { tx, bell }
    }

    /// Send `ev`; `Err` when the app is gone (the event is dropped with it).
    pub fn send(&self, ev: Event) -> Result<(), Gone> {
        self.tx.send(ev).map_err(|_| Gone)?;
        if let Some(bell) = &self.bell {
            bell.ring();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the bell's read end has a byte waiting, without waiting.
    fn readable(bell: &Bell) -> bool {
        let mut pfd = libc::pollfd { fd: bell.fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, zero timeout.
        unsafe { libc::poll(&mut pfd, 1, 0) == 1 }
    }

    #[test]
    fn a_send_wakes_the_loop_once_until_it_answers() {
        let bell = Arc::new(Bell::new().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        let outbox = Outbox::new(tx, Some(bell.clone()));
        assert!(!readable(&bell));
        outbox.send(Event::Highlighted).unwrap();
        outbox.send(Event::Highlighted).unwrap();
        assert!(readable(&bell), "a send does not wake the loop");
        bell.answer();
        assert!(!readable(&bell), "two sends left more than one byte in the pipe");
        assert_eq!(rx.try_iter().count(), 2);
        // After the answer, the next send wakes it again.
        outbox.send(Event::Highlighted).unwrap();
        assert!(readable(&bell), "a send after an answer does not wake the loop");
    }

    #[test]
    fn a_flood_of_sends_never_blocks_the_sender() {
        let bell = Arc::new(Bell::new().unwrap());
        let (tx, _rx) = std::sync::mpsc::channel();
        let outbox = Outbox::new(tx, Some(bell.clone()));
        // More than a pipe holds (64 KiB on Linux), unanswered: a byte per send would block.
        for _ in 0..100_000 {
            outbox.send(Event::Highlighted).unwrap();
        }
        assert!(readable(&bell));
    }
}
