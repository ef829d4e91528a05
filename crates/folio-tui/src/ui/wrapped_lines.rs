//! Long lines in the diff dialogs wrap instead of being cut at the dialog's edge: each
//! continuation row starts with `↪ ` in the line's own colour, so a changed URL or a long YAML
//! value is read whole and a wrapped row is never taken for a line of its own.
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::markdown::sanitize;

const MARK: &str = "↪ ";

/// `text` (sanitised) cut into rows of at most `width` columns, the rows after the first
/// carrying the continuation mark.
pub fn rows(text: &str, width: usize) -> Vec<String> {
    let text = sanitize::line(text);
    let width = width.max(4);
    let mut out = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width {
            out.push(std::mem::take(&mut row));
            row.push_str(MARK);
            used = 2;
        }
        row.push(c);
        used += w;
    }
    out.push(row);
    out
}

/// Draw `lines` from `first` into `area`, each wrapped, styled by `style_of`.
pub fn draw(
    lines: &[String],
    first: usize,
    area: Rect,
    buf: &mut Buffer,
    style_of: &dyn Fn(&str) -> Style,
    mark_style: Style,
) {
    let mut y = area.y;
    let bottom = area.y + area.height;
    for line in lines.iter().skip(first) {
        let style = style_of(line);
        for (n, row) in rows(line, area.width as usize).into_iter().enumerate() {
            if y >= bottom {
                return;
            }
            let drawn = match row.strip_prefix(MARK) {
                Some(rest) if n > 0 => {
                    Line::from(vec![Span::styled(MARK, mark_style), Span::styled(rest.to_string(), style)])
                }
                _ => Line::styled(row, style),
            };
            buf.set_line(area.x, y, &drawn, area.width);
            y += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_with_a_mark_and_short_ones_stay() {
        assert_eq!(rows("short", 10), vec!["short"]);
        assert_eq!(rows("+ 0123456789abcdef", 10), vec!["+ 01234567", "↪ 89abcdef"]);
        assert_eq!(rows("", 10), vec![""]);
        // Wide characters never split a column.
        assert_eq!(rows("日本語日本語", 5), vec!["日本", "↪ 語", "↪ 日", "↪ 本", "↪ 語"]);
        // Control characters are shown as stand-ins before wrapping.
        assert!(rows("a\u{1b}[2Jb", 40)[0].contains('␛'));
    }
}
