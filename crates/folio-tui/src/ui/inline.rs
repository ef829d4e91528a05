//! One-line titles with their inline markdown rendered: agents write titles such as
//! "Use `uv run pytest` instead of `python3 -m pytest`" or "**Never** push to main", and lists
//! should not show the backticks and asterisks. A title that reads as one paragraph of
//! markdown is shown as pulldown-cmark reads it (code spans in the code style, strong bold,
//! emphasis italic); anything else (`# …`, `1. …`) stays as written. Text is sanitised.
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::markdown::doc::{self, Block, Inline, InlineStyle};
use crate::markdown::sanitize;

/// `title` as spans: code spans in `code` style, strong and emphasis as bold and italic, the
/// rest in `text`.
pub fn title_spans(title: &str, text: Style, code: Style) -> Vec<Span<'static>> {
    runs(title)
        .into_iter()
        .filter(|r| !r.text.is_empty())
        .map(|r| {
            let mut style = if r.style.code { code } else { text };
            if r.style.strong {
                style = style.add_modifier(Modifier::BOLD);
            }
            if r.style.emphasis {
                style = style.add_modifier(Modifier::ITALIC);
            }
            Span::styled(sanitize::line(&r.text), style)
        })
        .collect()
}

/// The title as read, without its markup (for widths and plain text).
pub fn plain_title(title: &str) -> String {
    runs(title).into_iter().map(|r| r.text).collect()
}

/// The title's inline runs; the title itself as one run when it is not one plain paragraph.
fn runs(title: &str) -> Vec<Inline> {
    let literal = || vec![Inline { text: title.to_string(), style: InlineStyle::default() }];
    if !title.contains(['`', '*', '_']) {
        return literal();
    }
    match doc::parse(title).blocks.as_slice() {
        [Block::Paragraph(runs)] if runs.iter().all(|r| r.style.link.is_none() && !r.style.embed) => {
            runs.iter().map(|r| Inline { text: r.text.replace('\n', " "), style: r.style }).collect()
        }
        _ => literal(),
    }
}

/// A list row cut to `width` columns ends in `…`, so a cut title is never taken for a whole one.
pub fn ellipsized(line: Line<'static>, width: u16) -> Line<'static> {
    let width = usize::from(width);
    if line.width() <= width || width == 0 {
        return line;
    }
    let style = line.style;
    let mut kept: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let w = span.content.width();
        if used + w < width {
            used += w;
            kept.push(span);
            continue;
        }
        let mut text = String::new();
        for c in span.content.chars() {
            let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + cw >= width {
                break;
            }
            used += cw;
            text.push(c);
        }
        let span_style = span.style;
        if !text.is_empty() {
            kept.push(Span::styled(text, span_style));
        }
        kept.push(Span::styled("…", span_style));
        break;
    }
    Line::from(kept).style(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_lose_their_backticks() {
        assert_eq!(
            plain_title("Use `uv run pytest` instead of `python3 -m pytest` to run tests"),
            "Use uv run pytest instead of python3 -m pytest to run tests"
        );
        let r = runs("a `b` **c** _d_ snake_case_name");
        assert!(r.iter().any(|x| x.text == "b" && x.style.code));
        assert!(r.iter().any(|x| x.text == "c" && x.style.strong));
        assert!(r.iter().any(|x| x.text == "d" && x.style.emphasis));
        assert_eq!(plain_title("a `b` **c** _d_ snake_case_name"), "a b c d snake_case_name");
        assert_eq!(plain_title("# Not a heading here"), "# Not a heading here");
        assert_eq!(plain_title("1. `step` one"), "1. `step` one");
        assert_eq!(plain_title("``a ` b``"), "a ` b");
        assert_eq!(plain_title("`` `tick` ``"), "`tick`");
    }

    #[test]
    fn cut_rows_end_in_an_ellipsis_and_whole_ones_stay() {
        let row = Line::from(vec![Span::raw("  ! "), Span::raw("For uv-managed Python projects")]);
        assert_eq!(ellipsized(row.clone(), 14).to_string(), "  ! For uv-ma…");
        assert_eq!(ellipsized(row.clone(), 14).width(), 14);
        assert_eq!(ellipsized(row.clone(), 34).to_string(), "  ! For uv-managed Python projects");
        assert_eq!(ellipsized(row, 4).to_string(), "  !…");
        assert_eq!(ellipsized(Line::from("日本語"), 4).to_string(), "日…");
    }

    #[test]
    fn unmatched_backticks_stay() {
        assert_eq!(plain_title("a ` b"), "a ` b");
        assert_eq!(plain_title("``a`"), "``a`");
        assert_eq!(plain_title("no code"), "no code");
        assert_eq!(plain_title(""), "");
    }
}
