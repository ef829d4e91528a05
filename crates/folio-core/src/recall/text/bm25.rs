//! Okapi BM25 over the text index: the usual k1 = 1.2, b = 0.75, an entity scoring the sum of
//! its query words' weights (any word may match; more and rarer words rank higher).
use super::index::TextIndex;
use crate::store::model::entity::EntityIdx;

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Every entity's BM25 score and how many of the query words it holds, indexed by entity (0
/// and 0 for one holding none). Each query word is a group of alternatives (a typed prefix and
/// the words it starts; one word alone otherwise): an entity scores the best alternative it
/// holds, once. Dense arrays, not maps: a common word is held by most of the store.
pub fn scores_any(index: &TextIndex, groups: &[Vec<String>]) -> Vec<(f32, usize)> {
    let n = index.len() as f32;
    let average = index.average_length().max(1.0);
    let mut out = vec![(0.0f32, 0usize); index.len()];
    let mut best = vec![0.0f32; index.len()];
    let mut touched: Vec<EntityIdx> = Vec::new();
    for group in groups {
        for w in group {
            let postings = index.postings(w);
            if postings.is_empty() {
                continue;
            }
            let df = postings.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for p in postings {
                let tf = p.count as f32;
                let norm = K1 * (1.0 - B + B * index.length(p.idx) as f32 / average);
                let s = idf * tf * (K1 + 1.0) / (tf + norm);
                let Some(b) = best.get_mut(p.idx as usize) else { continue };
                if *b == 0.0 {
                    touched.push(p.idx);
                }
                *b = b.max(s);
            }
        }
        for idx in touched.drain(..) {
            let e = &mut out[idx as usize];
            e.0 += std::mem::take(&mut best[idx as usize]);
            e.1 += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_occurrences_rarer_words_and_shorter_texts_rank_higher() {
        let texts: Vec<String> = [
            "pillow pillow exif",
            "pillow exif and a great many other words that make this text long",
            "exif only",
            "exif exif",
        ]
        .map(String::from)
        .to_vec();
        let i = TextIndex::from_texts(texts.len(), |s, e| texts[s..e].to_vec());
        let one = |w: &str| vec![w.to_string()];
        let s = scores_any(&i, &[one("pillow"), one("exif")]);
        assert!(s[0].0 > s[1].0, "two occurrences in a short text beat one in a long one");
        assert!(s[1].0 > s[2].0, "the rarer word weighs more");
        assert_eq!((s[0].1, s[2].1), (2, 1));
        assert_eq!(s.len(), 4);
        assert!(scores_any(&i, &[one("absent")]).iter().all(|&(s, held)| s == 0.0 && held == 0));
        // Alternatives count once, at the best: "pillows" adds nothing beside "pillow".
        let alt = scores_any(&i, &[vec!["pillow".into(), "pillows".into()], one("exif")]);
        assert_eq!(alt[0], s[0]);
        let twice = scores_any(&i, &[vec!["pillow".into(), "pillow".into()]]);
        assert_eq!(twice[0].1, 1, "a group is held once");
    }
}
