//! Copying to the clipboard: the system clipboard through arboard when a display server is
//! there, else OSC 52 (wrapped for tmux) written to the terminal. Never fatal.
use std::io::Write;

use base64::Engine;

/// Copy `text`; returns how it was copied, or why it could not be.
pub fn copy(text: &str) -> Result<String, String> {
    let has_display = std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if has_display && arboard::Clipboard::new().and_then(|mut cb| cb.set_text(text.to_string())).is_ok() {
        return Ok("clipboard".into());
    }
    let seq = osc52(text, std::env::var_os("TMUX").is_some());
    let mut out = std::io::stdout().lock();
    out.write_all(seq.as_bytes()).and_then(|_| out.flush()).map_err(|e| format!("clipboard unavailable: {e}"))?;
    Ok("OSC 52".into())
}

/// The OSC 52 sequence setting the clipboard; inside tmux it is wrapped in a DCS passthrough
/// (with ESC doubled) so tmux hands it to the outer terminal.
pub fn osc52(text: &str, tmux: bool) -> String {
    let payload = base64::engine::general_purpose::STANDARD.encode(text);
    let seq = format!("\x1b]52;c;{payload}\x07");
    if tmux { format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b")) } else { seq }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_plain_and_tmux() {
        assert_eq!(osc52("hi", false), "\x1b]52;c;aGk=\x07");
        assert_eq!(osc52("hi", true), "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\");
    }
}
