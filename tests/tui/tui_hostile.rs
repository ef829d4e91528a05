//! The TUI on hostile content, on a real pseudo-terminal: folio opens the hostile corpus
//! (tests/support/hostile.rs), a person walks every entity in the catalog and preview, the recall
//! overlay, the graph pane, the lint panel and the review pane; every byte folio writes to the
//! terminal is parsed with `vte` and must contain only the sequences ratatui and crossterm emit
//! themselves (cursor moves, colours, modes) — none of the content's escapes, controls or bidi
//! characters. The same session, with `FOLIO_FRAME_LOG`, must end normally with bounded output;
//! its frame times are printed, not asserted (CI timing is noise; benches/tui_pty.rs reports them).

use crate::support;
use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use support::tui::pty::{Pty, keys, read_frame_log};

/// Terminal size of the session.
const SIZE: (u16, u16) = (120, 40);
/// At most this many bytes of output are kept (and more than this fails the test).
const KEEP: usize = 64 << 20;

/// One sequence or character in folio's output that did not come from ratatui or crossterm.
#[derive(Debug)]
struct Hazard {
    at: usize,
    what: String,
}

/// Collects what `vte` parses out of the stream and flags everything not in the allowlist.
#[derive(Default)]
struct Scanner {
    hazards: Vec<Hazard>,
    at: usize,
    /// Allowed sequences seen (proof that the stream was parsed, not skipped).
    allowed: usize,
}

impl Scanner {
    fn flag(&mut self, what: String) {
        if self.hazards.len() < 50 {
            self.hazards.push(Hazard { at: self.at, what });
        }
    }
}

/// Private modes crossterm sets and resets: cursor (25), the alternate screen (1049), bracketed
/// paste (2004), mouse reporting (1000, 1002, 1003, 1006, 1015).
const MODES: [u16; 8] = [25, 1049, 2004, 1000, 1002, 1003, 1006, 1015];

/// Characters that must never reach a terminal raw: C1 controls (as UTF-8), bidi embeddings,
/// overrides and isolates, zero-width characters, the BOM.
fn hostile_char(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

impl vte::Perform for Scanner {
    fn print(&mut self, c: char) {
        if hostile_char(c) {
            self.flag(format!("raw U+{:04X}", c as u32));
        }
    }

    fn execute(&mut self, byte: u8) {
        // ratatui positions with CSI H and never writes other C0 controls; raw C1 bytes land here too.
        if !matches!(byte, b'\r' | b'\n') {
            self.flag(format!("control byte {byte:#04x}"));
        }
    }

    fn hook(&mut self, _: &vte::Params, intermediates: &[u8], _: bool, action: char) {
        self.flag(format!("DCS {:?}{action}", String::from_utf8_lossy(intermediates)));
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _: bool) {
        let first = params.first().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
        self.flag(format!("OSC {first}"));
    }

    fn csi_dispatch(&mut self, params: &vte::Params, intermediates: &[u8], ignore: bool, action: char) {
        let values: Vec<u16> = params.iter().flat_map(|p| p.iter().copied()).collect();
        let ok = !ignore
            && match (intermediates, action) {
                // Cursor position and colours/attributes.
                ([], 'H' | 'm') => true,
                // Modes, set and reset.
                ([b'?'], 'h' | 'l') => values.iter().all(|v| MODES.contains(v)),
                _ => false,
            };
        if ok {
            self.allowed += 1;
        } else {
            self.flag(format!("CSI {}{values:?}{action}", String::from_utf8_lossy(intermediates)));
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _: bool, byte: u8) {
        self.flag(format!("ESC {}{}", String::from_utf8_lossy(intermediates), byte as char));
    }
}

/// `bytes` with every `from` replaced by `to`.
fn without(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// Every hazard in a stream of terminal output, and how many allowed sequences it holds. SOS,
/// PM and APC strings (ESC X, ESC ^, ESC _), which vte skips silently, are looked for in the
/// bytes; invalid UTF-8 is a hazard too.
fn scan(bytes: &[u8]) -> (Vec<Hazard>, usize) {
    let mut scanner = Scanner::default();
    let mut parser = vte::Parser::new();
    for (i, chunk) in bytes.chunks(4096).enumerate() {
        scanner.at = i * 4096;
        parser.advance(&mut scanner, chunk);
    }
    let mut found = scanner.hazards;
    for (i, w) in bytes.windows(2).enumerate() {
        if w[0] == 0x1b && matches!(w[1], b'X' | b'^' | b'_') {
            found.push(Hazard { at: i, what: format!("SOS/PM/APC ESC {}", w[1] as char) });
        }
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        found.push(Hazard { at: e.valid_up_to(), what: "invalid UTF-8".into() });
    }
    (found, scanner.allowed)
}

fn hazards(bytes: &[u8]) -> Vec<Hazard> {
    scan(bytes).0
}

fn context(bytes: &[u8], at: usize) -> String {
    let lo = at.saturating_sub(80);
    let hi = (at + 80).min(bytes.len());
    format!("{:?}", String::from_utf8_lossy(&bytes[lo..hi]))
}

#[test]
fn the_scanner_flags_every_content_escape_and_passes_ratatui_output() {
    use support::hostile::{BIDI_AND_ZERO_WIDTH, ESCAPES};
    let found: Vec<String> = hazards(ESCAPES.as_bytes()).into_iter().map(|h| h.what).collect();
    for needle in ["CSI [2]J", "OSC 0", "OSC 52", "OSC 8", "DCS", "control byte 0x9b"] {
        assert!(found.iter().any(|f| f.contains(needle)), "{needle} not flagged in {found:?}");
    }
    // "\x1b[H" alone is a legitimate cursor move; in ESCAPES it follows the flagged clear.
    let bidi: Vec<String> = hazards(BIDI_AND_ZERO_WIDTH.as_bytes()).into_iter().map(|h| h.what).collect();
    for needle in ["U+202E", "U+2066", "U+200B", "U+FEFF"] {
        assert!(bidi.iter().any(|f| f.contains(needle)), "{needle} not flagged in {bidi:?}");
    }
    for (bytes, name) in [
        (&b"a\x07b"[..], "BEL"),
        (b"\x9b31m", "raw C1 byte"),
        (b"\x1b_payload\x1b\\", "APC"),
        (b"\x1b^pm\x1b\\", "PM"),
        (b"\x1b]52;c;ZXZpbA==\x1b\\", "OSC 52 with ST"),
        (b"\x1b7", "ESC 7"),
        (b"\x1b[?1000;9999h", "unknown mode"),
    ] {
        assert!(!hazards(bytes).is_empty(), "{name} must be flagged");
    }
    // What ratatui writes for a frame: modes, cursor moves, colours, text.
    let legit = "\x1b[?1049h\x1b[?25l\x1b[?2004h\x1b[1;1H\x1b[38;5;12m\x1b[48;2;1;2;3mCatalog ␛[2J ⟨U+202E⟩\x1b[0m\r\n\x1b[?1049l";
    let flagged = hazards(legit.as_bytes());
    assert!(flagged.is_empty(), "{flagged:?}");
}

/// How long folio must draw nothing to count as idle: its frames after a key come within a
/// few milliseconds of each other, and a late one is still read by the next key's wait.
const QUIET: Duration = Duration::from_millis(60);

/// Wait until folio has drawn more than `before` frames and then stays idle; the screen.
fn settle(pty: &mut Pty, log: &Path, before: usize) -> String {
    pty.wait_idle(log, before, QUIET, Duration::from_secs(20));
    assert!(pty.running(), "folio ended early; screen:\n{}", pty.screen());
    pty.screen()
}

fn frames(log: &Path) -> usize {
    read_frame_log(log).1.len()
}

fn press(pty: &mut Pty, log: &Path, key: &[u8]) -> String {
    let before = frames(log);
    pty.send(key);
    settle(pty, log, before)
}

/// Type `text` into the open overlay, then settle.
fn type_text(pty: &mut Pty, log: &Path, text: &str) -> String {
    let before = frames(log);
    for c in text.chars() {
        pty.key(c.encode_utf8(&mut [0; 4]).as_bytes(), Duration::from_millis(15));
    }
    settle(pty, log, before)
}

#[test]
fn the_tui_on_hostile_content_writes_only_its_own_sequences_to_the_pty() {
    let h = support::hostile::build();
    let cfg = tempfile::tempdir().unwrap();
    let log = cfg.path().join("frames.log");
    let env: [(&str, &OsStr); 5] = [
        ("FOLIO_CONFIG_DIR", cfg.path().as_os_str()),
        ("XDG_DATA_HOME", cfg.path().as_os_str()),
        ("FOLIO_FRAME_LOG", log.as_os_str()),
        ("FOLIO_NO_CACHE", OsStr::new("1")),
        ("USER", OsStr::new("hostile-e2e")),
    ];
    let args = [h.root.as_os_str(), OsStr::new("--dialect"), OsStr::new("okf")];
    let mut pty = Pty::spawn(Path::new(env!("CARGO_BIN_EXE_folio")), &args, &env, SIZE, KEEP);

    let (screen, loaded) = pty.wait_for("okf · store ·", Duration::from_secs(120));
    assert!(loaded, "the hostile store loads; screen:\n{screen}");
    settle(&mut pty, &log, 0);

    // Every catalog row, each entity previewed as the cursor reaches it.
    let mut seen = String::new();
    let rows = read_catalog_rows(&pty);
    for _ in 0..rows {
        seen.push_str(&press(&mut pty, &log, b"j"));
    }
    // The preview itself, scrolled, on the escapes entity (opened through recall).
    for query in ["pwned", "admin", "Controls", "Table", "Lists"] {
        press(&mut pty, &log, b"/");
        seen.push_str(&type_text(&mut pty, &log, query));
        seen.push_str(&press(&mut pty, &log, keys::DOWN));
        seen.push_str(&press(&mut pty, &log, keys::ENTER));
    }
    press(&mut pty, &log, b"/");
    type_text(&mut pty, &log, "pwned");
    seen.push_str(&press(&mut pty, &log, keys::ENTER));
    press(&mut pty, &log, b"2");
    for key in [keys::PAGE_DOWN, keys::PAGE_DOWN, b"G", b"n", b"n"] {
        seen.push_str(&press(&mut pty, &log, key));
    }
    // The graph pane around it, at depth 1 and 2, walking the neighbours.
    seen.push_str(&press(&mut pty, &log, b"3"));
    for key in [b"j", b"j", b"l", b"j", b"+", b"j", b"-"] {
        seen.push_str(&press(&mut pty, &log, key));
    }
    // The lint panel: every finding's context, grouped by rule and by file.
    seen.push_str(&press(&mut pty, &log, b"4"));
    for _ in 0..60 {
        seen.push_str(&press(&mut pty, &log, b"j"));
    }
    press(&mut pty, &log, b"b");
    for _ in 0..30 {
        seen.push_str(&press(&mut pty, &log, b"j"));
    }
    // The review inbox: each item's detail.
    seen.push_str(&press(&mut pty, &log, b"R"));
    for _ in 0..40 {
        seen.push_str(&press(&mut pty, &log, b"j"));
    }
    press(&mut pty, &log, keys::ESC);
    std::thread::sleep(Duration::from_millis(150));
    press(&mut pty, &log, b"1");
    pty.send(b"q");
    let status = pty.wait_exit(Duration::from_secs(60));
    let raw = pty.raw();
    let total = pty.total();

    let status = status.unwrap_or_else(|| panic!("folio did not quit within 60 s; screen:\n{}", pty.screen()));
    let text = String::from_utf8_lossy(&raw);
    assert!(!text.contains("panicked"), "folio panicked: {}", context(&raw, text.find("panicked").unwrap()));
    assert!(status.success(), "folio exited with {status:?}; screen:\n{}", pty.screen());

    // The hostile content was on screen, made visible rather than obeyed.
    for shown in ["␛[2J", "⟨U+202E⟩", "␇"] {
        assert!(seen.contains(shown), "the screen never showed {shown:?}: the walk missed the hostile entities");
    }

    let (_, frames) = read_frame_log(&log);
    assert!(frames.len() > 100, "the session drew its frames ({})", frames.len());
    // Bounded output: a full redraw of every cell with its own colours on every frame is the most
    // ratatui writes; the 10 MB line or a 5,000-column table must not be written out whole.
    let bound = frames.len() * usize::from(SIZE.0) * usize::from(SIZE.1) * 48;
    assert!(total < KEEP && total < bound, "{total} bytes written for {} frames (bound {bound})", frames.len());

    // folio blanks the alternate screen just before leaving it (tmux keeps its rows otherwise):
    // that one erase, right before the switch back, is folio's own; any other is a leak.
    let raw = without(&raw, b"\x1b[1;1H\x1b[2J\x1b[?1049l", b"\x1b[?1049l");
    let (found, allowed) = scan(&raw);
    assert!(allowed > 1000, "only {allowed} cursor/colour/mode sequences parsed: the capture is not folio's drawing");
    if !found.is_empty() {
        let shown: Vec<String> =
            found.iter().take(10).map(|h| format!("{} at {}: {}", h.what, h.at, context(&raw, h.at))).collect();
        panic!("{} foreign sequence(s) in folio's terminal output:\n{}", found.len(), shown.join("\n"));
    }

    let mut slowest: Vec<&support::tui::pty::Frame> = frames.iter().collect();
    slowest.sort_by(|a, b| b.busy_ms().total_cmp(&a.busy_ms()));
    for f in slowest.iter().take(8) {
        eprintln!(
            "  slow frame at {:.0} ms: {:.1} ms ({:.1} ms CPU) after {}",
            f.t_ms,
            f.busy_ms(),
            f.cpu_ms(),
            f.trigger
        );
    }
    let busiest = slowest[0];
    let cpu = frames.iter().map(|f| f.cpu_ms()).fold(0.0, f64::max);
    eprintln!(
        "hostile TUI session: {} frames, {total} bytes and {allowed} sequences written; slowest frame {:.1} ms wall \
         (events {} µs, draw {} µs, after {}), most CPU in one frame {cpu:.1} ms (debug build)",
        frames.len(),
        busiest.busy_ms(),
        busiest.events_us,
        busiest.draw_us,
        busiest.trigger
    );
}

/// How many rows the catalog title claims ("Catalog (N)"), plus room for its folder rows.
fn read_catalog_rows(pty: &Pty) -> usize {
    let screen = pty.screen();
    let n = screen
        .split("Catalog (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(40);
    (n + 5).min(80)
}
