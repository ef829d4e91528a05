//! Rendering a buffer to SVG, for the screenshots in the README: each run of cells with the
//! same style becomes one background rect and one text element.
use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const CELL_W: f32 = 8.4;
const CELL_H: f32 = 17.0;

/// The terminal's own colours, used where the theme says "default".
#[derive(Debug, Clone, Copy)]
pub struct Canvas {
    pub fg: (u8, u8, u8),
    pub bg: (u8, u8, u8),
}

pub const DARK: Canvas = Canvas { fg: (0xc0, 0xc5, 0xce), bg: (0x2b, 0x30, 0x3b) };
pub const LIGHT: Canvas = Canvas { fg: (0x24, 0x29, 0x2f), bg: (0xff, 0xff, 0xff) };

fn rgb(c: Color, default: (u8, u8, u8)) -> (u8, u8, u8) {
    match c {
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Black => (0, 0, 0),
        Color::Red => (0xcd, 0x31, 0x31),
        Color::Green => (0x0d, 0xbc, 0x79),
        Color::Yellow => (0xe5, 0xe5, 0x10),
        Color::Blue => (0x24, 0x72, 0xc8),
        Color::Magenta => (0xbc, 0x3f, 0xbc),
        Color::Cyan => (0x11, 0xa8, 0xcd),
        Color::Gray => (0xe5, 0xe5, 0xe5),
        Color::DarkGray => (0x66, 0x66, 0x66),
        Color::White => (0xff, 0xff, 0xff),
        Color::LightRed => (0xf1, 0x4c, 0x4c),
        Color::LightGreen => (0x23, 0xd1, 0x8b),
        Color::LightYellow => (0xf5, 0xf5, 0x43),
        Color::LightBlue => (0x3b, 0x8e, 0xea),
        Color::LightMagenta => (0xd6, 0x70, 0xd6),
        Color::LightCyan => (0x29, 0xb8, 0xdb),
        _ => default,
    }
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

pub fn render(buf: &Buffer, canvas: Canvas) -> String {
    let area = buf.area;
    let (w, h) = (area.width as f32 * CELL_W, area.height as f32 * CELL_H);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="14">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="{}"/>"#, hex(canvas.bg));
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let cell = &buf[(area.x + x, area.y + y)];
            let reversed = cell.modifier.contains(Modifier::REVERSED);
            let (mut fg, mut bg) = (rgb(cell.fg, canvas.fg), rgb(cell.bg, canvas.bg));
            if reversed {
                std::mem::swap(&mut fg, &mut bg);
            }
            let start = x;
            let mut text = String::new();
            while x < area.width {
                let c = &buf[(area.x + x, area.y + y)];
                if c.fg != cell.fg || c.bg != cell.bg || c.modifier != cell.modifier {
                    break;
                }
                text.push_str(c.symbol());
                x += 1;
            }
            let (px, py) = (start as f32 * CELL_W, y as f32 * CELL_H);
            let width = (x - start) as f32 * CELL_W;
            if bg != canvas.bg {
                let _ = writeln!(
                    out,
                    r#"<rect x="{px:.1}" y="{py:.0}" width="{width:.1}" height="{CELL_H:.0}" fill="{}"/>"#,
                    hex(bg)
                );
            }
            if !text.trim().is_empty() {
                let mut attrs = String::new();
                if cell.modifier.contains(Modifier::BOLD) {
                    attrs.push_str(r#" font-weight="bold""#);
                }
                if cell.modifier.contains(Modifier::ITALIC) {
                    attrs.push_str(r#" font-style="italic""#);
                }
                if cell.modifier.contains(Modifier::UNDERLINED) {
                    attrs.push_str(r#" text-decoration="underline""#);
                }
                let _ = writeln!(
                    out,
                    r#"<text x="{px:.1}" y="{:.0}" fill="{}" textLength="{width:.1}" xml:space="preserve"{attrs}>{}</text>"#,
                    py + CELL_H - 4.0,
                    hex(fg),
                    escape(&text)
                );
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn runs_become_rects_and_escaped_text() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "a<b", Style::new().fg(Color::Rgb(1, 2, 3)).bg(Color::Rgb(9, 9, 9)));
        let svg = render(&buf, DARK);
        assert!(svg.contains(r##"fill="#090909""##));
        assert!(svg.contains(r##"fill="#010203""##));
        assert!(svg.contains("a&lt;b"));
        assert!(svg.ends_with("</svg>\n"));
    }
}
