//! Lines as `similar::TextDiff::from_lines` cuts them (each keeps its `\n`, `\r\n` or lone `\r`),
//! found by scanning bytes instead of chars, and the lines one version added and removed
//! against another. Both feed a minimal line diff, so the counts equal a full
//! `TextDiff::from_lines` diff's; the common head and tail are skipped before diffing, which
//! makes an appended paragraph cost one comparison of the two texts rather than a diff of them.
use similar::{Algorithm, DiffOp};

/// `text` cut into lines, each with its line ending (the last may have none).
pub fn split(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 32 + 1);
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push(&text[start..=i]);
                start = i + 1;
            }
            b'\r' => {
                let end = if bytes.get(i + 1) == Some(&b'\n') { i + 1 } else { i };
                out.push(&text[start..=end]);
                start = end + 1;
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push(&text[start..]);
    }
    out
}

/// Whether a line starts at byte `i` of `text` (as `split` cuts it).
fn starts_line(text: &[u8], i: usize) -> bool {
    i == 0 || i == text.len() || text[i - 1] == b'\n' || (text[i - 1] == b'\r' && text[i] != b'\n')
}

/// Bytes compared at once before the byte that differs is looked for (a slice comparison is a
/// `memcmp`; a byte loop over two long versions costs more than the diff it saves).
const CHUNK: usize = 256;

/// How many bytes `a` and `b` have in common from their start.
fn same_from_start(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    i + a[i..n].iter().zip(&b[i..n]).take_while(|(x, y)| x == y).count()
}

/// How many bytes `a` and `b` have in common at their end.
fn same_from_end(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut k = 0;
    while k + CHUNK <= n && a[n - k - CHUNK..n - k] == b[n - k - CHUNK..n - k] {
        k += CHUNK;
    }
    k + a[..n - k].iter().rev().zip(b[..n - k].iter().rev()).take_while(|(x, y)| x == y).count()
}

/// The longest run of whole lines both texts start with, in bytes.
fn common_head(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let same = same_from_start(a, b);
    // A position inside the common run starts a line in both or in neither (its neighbours are
    // the same bytes); at the run's end, a `\r` may be followed by `\n` in one text alone.
    (0..=same).rev().find(|&i| starts_line(a, i) && starts_line(b, i)).unwrap_or(0)
}

/// The longest run of whole lines both texts end with, in bytes.
fn common_tail(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let same = same_from_end(a, b);
    (0..=same).rev().find(|&n| starts_line(a, a.len() - n) && starts_line(b, b.len() - n)).unwrap_or(0)
}

/// Lines `new` added and removed against `old`, as a minimal line diff counts them.
pub fn added_removed(old: &str, new: &str) -> (usize, usize) {
    let head = common_head(old, new);
    let (old, new) = (&old[head..], &new[head..]);
    let tail = common_tail(old, new);
    let (old, new) = (&old[..old.len() - tail], &new[..new.len() - tail]);
    if old.is_empty() || new.is_empty() {
        return (split(new).len(), split(old).len());
    }
    let (a, b) = (split(old), split(new));
    let mut counts = (0, 0);
    for op in similar::capture_diff_slices(Algorithm::Myers, &a, &b) {
        match op {
            DiffOp::Insert { new_len, .. } => counts.0 += new_len,
            DiffOp::Delete { old_len, .. } => counts.1 += old_len,
            DiffOp::Replace { old_len, new_len, .. } => {
                counts.0 += new_len;
                counts.1 += old_len;
            }
            DiffOp::Equal { .. } => {}
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use similar::{ChangeTag, TextDiff};

    fn full(old: &str, new: &str) -> (usize, usize) {
        let mut c = (0, 0);
        for ch in TextDiff::from_lines(old, new).iter_all_changes() {
            match ch.tag() {
                ChangeTag::Insert => c.0 += 1,
                ChangeTag::Delete => c.1 += 1,
                ChangeTag::Equal => {}
            }
        }
        c
    }

    #[test]
    fn cuts_lines_as_similar_does() {
        for t in ["", "a", "a\n", "a\r\nb\rc\n\nd", "\r\r\n\n", "é\rü\n", "x\r"] {
            let theirs: Vec<&str> = TextDiff::from_lines(t, "").old_slices().to_vec();
            assert_eq!(split(t), theirs, "{t:?}");
        }
    }

    #[test]
    fn common_bytes_are_counted_across_chunks() {
        let a: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        for cut in [0, 1, 255, 256, 257, 511, 512, 999] {
            let mut b = a.clone();
            b[cut] ^= 0xff;
            assert_eq!(same_from_start(&a, &b), cut);
            assert_eq!(same_from_end(&a, &b), 999 - cut);
        }
        assert_eq!(same_from_start(&a, &a[..700]), 700);
        assert_eq!(same_from_end(&a, &a[300..]), 700);
    }

    #[test]
    fn counts_equal_a_full_diff() {
        let cases = [
            ("", ""),
            ("", "a\n"),
            ("a\n", ""),
            ("a\nb\n", "a\nb\nc\n"),
            ("a\nb", "a\nb\n"),
            ("a\r", "a\r\n"),
            ("a\r\nb\n", "a\rb\n"),
            ("x\nx\n", "x\n"),
            ("one\ntwo\nthree\n", "zero\none\nTWO\nthree\nfour\n"),
            ("---\ntitle: A\n---\nbody\n", "---\ntitle: B\n---\nbody\nmore\n"),
            ("a\nb\nc\nd\n", "d\nc\nb\na\n"),
            ("same\r\nsame\r\n", "same\r\nsame\r\nsame\r\n"),
        ];
        for (a, b) in cases {
            assert_eq!(added_removed(a, b), full(a, b), "{a:?} → {b:?}");
            assert_eq!(added_removed(b, a), full(b, a), "{b:?} → {a:?}");
        }
    }

    #[test]
    fn counts_equal_a_full_diff_on_generated_edits() {
        // Pseudo-random edits of a line list (insertions, deletions, swaps, line endings).
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let words = ["a\n", "b\n", "c\r\n", "d\r", "e", "\n", "f\n"];
        for _ in 0..500 {
            let old: Vec<&str> = (0..next(12)).map(|_| words[next(7) as usize]).collect();
            let mut new = old.clone();
            for _ in 0..next(4) {
                match next(3) {
                    0 => new.insert(next(new.len() as u64 + 1) as usize, words[next(7) as usize]),
                    1 if !new.is_empty() => drop(new.remove(next(new.len() as u64) as usize)),
                    _ => new.push(words[next(7) as usize]),
                }
            }
            let (a, b) = (old.concat(), new.concat());
            assert_eq!(added_removed(&a, &b), full(&a, &b), "{a:?} → {b:?}");
        }
    }
}
