//! Duplicate rules: `duplicate-id` (two files, one concept id or slug, case ignored) and
//! `duplicate-title` (titles equal once case and punctuation are set aside: merge candidates).
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::Hasher;

/// foldhash: the keys are the store's own ids and titles.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use super::Finding;
use crate::store::Store;
use crate::store::model::entity::{Entity, EntityIdx, rule};

/// The two duplicate rules, each with the key it groups entities by.
pub const RULES: [&str; 2] = [rule::DUPLICATE_ID, rule::DUPLICATE_TITLE];

pub fn check(store: &Store, out: &mut Vec<Finding>) {
    // The two rules side by side, their findings in rule order.
    let all = || 0..store.entities.len() as EntityIdx;
    let (mut by_id, by_title) = rayon::join(
        || {
            let mut found = Vec::new();
            check_among(store, RULES[0], all(), &mut found);
            found
        },
        || {
            let mut found = Vec::new();
            check_among(store, RULES[1], all(), &mut found);
            found
        },
    );
    out.append(&mut by_id);
    out.extend(by_title);
}

/// The grouping key of `rule` for an entity; `None` when it has none (an empty title).
pub fn key(rule: &str, e: &Entity) -> Option<String> {
    group_key(rule, e).map(Cow::into_owned)
}

/// `key`, borrowing the entity's id when lower-casing changes nothing (most ids).
fn group_key<'e>(rule: &str, e: &'e Entity) -> Option<Cow<'e, str>> {
    if rule == rule::DUPLICATE_ID {
        // Case-insensitive: `Users.md` and `users.md` are one concept on macOS and Windows.
        let plain = e.id.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase());
        Some(if plain { Cow::Borrowed(e.id.as_str()) } else { Cow::Owned(e.id.to_lowercase()) })
    } else {
        Some(title_key(&e.title)).filter(|k| !k.is_empty()).map(Cow::Owned)
    }
}

/// A hash of `key(rule, e)` computed without allocating (0: no key). Equal keys hash equally;
/// incremental re-linting uses it to find the entities that share a changed entity's key.
pub fn key_hash(rule: &str, e: &Entity) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    let mut any = false;
    if rule == rule::DUPLICATE_ID {
        for c in e.id.chars().flat_map(char::to_lowercase) {
            h.write_u32(c as u32);
        }
        any = true;
    } else {
        let mut gap = false;
        for c in e.title.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() {
                if gap && any {
                    h.write_u32(' ' as u32);
                }
                h.write_u32(c as u32);
                any = true;
                gap = false;
            } else {
                gap = true;
            }
        }
    }
    if !any {
        return 0;
    }
    h.finish().max(1)
}

/// Group the `candidates` (ascending) by `rule`'s key; every entity in a group spanning more
/// than one file gets a finding naming the others. Entities of one file (memory entries) never
/// clash with each other. A group must be wholly among the candidates.
pub fn check_among(
    store: &Store,
    rule: &'static str,
    candidates: impl IntoIterator<Item = EntityIdx>,
    out: &mut Vec<Finding>,
) {
    // Key → its first entity and any others: almost every key is unique, so no list is
    // allocated for it (a `Vec` per key behind SipHash was most of this rule at 100k).
    let mut groups: FastMap<Cow<str>, (EntityIdx, Vec<EntityIdx>)> = FastMap::default();
    let by_id = rule == rule::DUPLICATE_ID;
    for i in candidates {
        // Over every entity (a full lint), the ones ahead load while this one is keyed.
        use crate::store::model::prefetch::entity_ahead;
        if by_id {
            entity_ahead(&store.entities, i as usize, |e| e.id.as_str());
        } else {
            entity_ahead(&store.entities, i as usize, |e| e.title.as_str());
        }
        if let Some(k) = group_key(rule, store.entity(i)) {
            groups.entry(k).and_modify(|(_, more)| more.push(i)).or_insert((i, Vec::new()));
        }
    }
    let mut clashing: Vec<Vec<EntityIdx>> = groups
        .into_values()
        .filter(|(_, more)| !more.is_empty())
        .map(|(first, more)| {
            let mut g = Vec::with_capacity(more.len() + 1);
            g.push(first);
            g.extend(more);
            // One entity per file: the first.
            g.dedup_by_key(|i| store.entity(*i).path.as_str());
            g
        })
        .filter(|g| g.len() > 1)
        .collect();
    clashing.sort();
    for group in clashing {
        for &i in &group {
            let others: Vec<String> =
                group.iter().filter(|&&o| o != i).map(|&o| format!("`{}`", store.entity(o).path)).collect();
            let shown = if others.len() > 3 {
                format!("{} and {} more", others[..3].join(", "), others.len() - 3)
            } else {
                others.join(", ")
            };
            let e = store.entity(i);
            let message = if rule == rule::DUPLICATE_ID {
                format!("concept id `{}` is also the id of {shown}", e.id)
            } else {
                format!("title \"{}\" matches {shown}: a merge candidate", e.title)
            };
            out.push(Finding::on_entity(store, i, rule, e.line, 1, message));
        }
    }
}

/// A title for comparison: case-folded, punctuation and whitespace runs collapsed to one space.
/// ASCII characters are folded a byte at a time, others by `char::to_lowercase`: folding every
/// character that way because a title holds one dash would cost the whole title a decode
/// (docs/benchmarks.md, "Lint figures").
pub fn title_key(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    if title.is_ascii() {
        // The same as below, a byte at a time.
        let mut gap = false;
        for b in title.bytes() {
            if b.is_ascii_alphanumeric() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                out.push(b.to_ascii_lowercase() as char);
                gap = false;
            } else {
                gap = true;
            }
        }
        return out;
    }
    let mut gap = false;
    let mut add = |c: char, out: &mut String| {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
            gap = false;
        } else {
            gap = true;
        }
    };
    for c in title.chars() {
        if c.is_ascii() {
            add(c.to_ascii_lowercase(), &mut out);
        } else {
            for lower in c.to_lowercase() {
                add(lower, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_compare_without_case_or_punctuation() {
        assert_eq!(title_key("  Gross   Margin!"), "gross margin");
        assert_eq!(title_key("gross-margin"), "gross margin");
        assert_eq!(title_key("Gross_Margin (v2)"), "gross margin v2");
        assert_ne!(title_key("Gross Margin"), title_key("Gross Margins"));
        assert_eq!(title_key("—"), "");
        assert_eq!(title_key("ÉTÉ"), "été");
    }

    #[test]
    fn key_hashes_agree_with_keys() {
        let e = |id: &str, title: &str| Entity { id: id.into(), title: title.into(), ..Default::default() };
        let pairs =
            [(e("Users", "Gross  Margin!"), e("users", "gross-margin")), (e("ÉTÉ", "(v2) Été"), e("été", "v2 ÉTÉ"))];
        for r in RULES {
            for (a, b) in &pairs {
                assert_eq!(key(r, a), key(r, b));
                assert_eq!(key_hash(r, a), key_hash(r, b), "{r}");
            }
            assert_ne!(key_hash(r, &pairs[0].0), key_hash(r, &pairs[1].0));
        }
        assert_eq!(key_hash(rule::DUPLICATE_TITLE, &e("x", "—")), 0, "no title key");
        assert_eq!(key(rule::DUPLICATE_TITLE, &e("x", "—")), None);
    }

    /// What `title_key` means, folding every character by `char::to_lowercase`.
    fn title_key_by_chars(title: &str) -> String {
        let mut out = String::new();
        let mut gap = false;
        for c in title.chars().flat_map(char::to_lowercase) {
            if c.is_alphanumeric() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                out.push(c);
                gap = false;
            } else {
                gap = true;
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn the_ascii_fast_path_matches_the_general_one(t in "([ -~]|[éÉßİ\u{212a}—Σ日]|\\PC){0,24}") {
            proptest::prop_assert_eq!(title_key(&t), title_key_by_chars(&t));
        }
    }
}
