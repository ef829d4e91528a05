//! A count with its noun, singular or plural as the number asks (`1 catalog`, `2 links`), so
//! previews, summaries and log lines never say `link(s)`.

/// `n` and `noun`, with `s` added unless `n` is one.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_every_other_count_plural() {
        assert_eq!(count(0, "link"), "0 links");
        assert_eq!(count(1, "catalog"), "1 catalog");
        assert_eq!(count(2, "inbound reference"), "2 inbound references");
    }
}
