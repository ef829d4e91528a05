//! One-line titles with their inline code shown as code: agents write titles such as
//! "Use `uv run pytest` instead of `python3 -m pytest`", and lists should not show the
//! backticks. Only code spans are read here (a backtick run closed by one of equal length,
//! as CommonMark says); everything else stays as written. Text is sanitised.
use ratatui::style::Style;
use ratatui::text::Span;

use crate::markdown::sanitize;

/// `title` as spans: code spans in `code` style without their backticks, the rest in `text`.
pub fn title_spans(title: &str, text: Style, code: Style) -> Vec<Span<'static>> {
    runs(title)
        .into_iter()
        .filter(|(s, _)| !s.is_empty())
        .map(|(s, is_code)| Span::styled(sanitize::line(s), if is_code { code } else { text }))
        .collect()
}

/// The title without its code spans' backticks (for widths and plain text).
pub fn plain_title(title: &str) -> String {
    runs(title).into_iter().map(|(s, _)| s).collect()
}

/// (piece, is code) in order.
fn runs(title: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut rest = title;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].bytes().take_while(|&b| b == b'`').count();
        let after = open + ticks;
        let close = find_run(&rest[after..], ticks);
        match close {
            Some(at) => {
                out.push((&rest[..open], false));
                let inner = &rest[after..after + at];
                // CommonMark strips one space on each side when both are there.
                let inner = match inner.strip_prefix(' ').and_then(|s| s.strip_suffix(' ')) {
                    Some(s) if !s.trim().is_empty() => s,
                    _ => inner,
                };
                out.push((inner, true));
                rest = &rest[after + at + ticks..];
            }
            None => {
                out.push((&rest[..after], false));
                rest = &rest[after..];
            }
        }
    }
    out.push((rest, false));
    out
}

/// Where a run of exactly `n` backticks starts in `s`.
fn find_run(s: &str, n: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let len = b[i..].iter().take_while(|&&c| c == b'`').count();
            if len == n {
                return Some(i);
            }
            i += len;
        } else {
            i += 1;
        }
    }
    None
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
        assert_eq!(runs("a `b` c"), vec![("a ", false), ("b", true), (" c", false)]);
        assert_eq!(plain_title("``a ` b``"), "a ` b");
        assert_eq!(plain_title("`` `tick` ``"), "`tick`");
    }

    #[test]
    fn unmatched_backticks_stay() {
        assert_eq!(plain_title("a ` b"), "a ` b");
        assert_eq!(plain_title("``a`"), "``a`");
        assert_eq!(plain_title("no code"), "no code");
        assert_eq!(plain_title(""), "");
    }
}
