//! The entities a merge of one entity is most likely into, offered first by the merge picker:
//! its near-duplicate pair, then every entity whose title lint calls the same
//! (`duplicate-title`: "a merge candidate"), so the detail's word and the picker agree.
use crate::store::Store;
use crate::store::lint::duplicates::title_key;
use crate::store::model::entity::EntityIdx;

/// `near` (the item's near-duplicate, when it has one) first, then the other entities of
/// `from`'s title key in store order; never `from` itself, nor an entity outside the root.
pub fn merge_candidates(store: &Store, from: EntityIdx, near: Option<EntityIdx>) -> Vec<EntityIdx> {
    let mut out: Vec<EntityIdx> = near.filter(|&n| n != from).into_iter().collect();
    let key = title_key(&store.entity(from).title);
    if key.is_empty() {
        return out;
    }
    let path = &store.entity(from).path;
    for (i, e) in store.entities.iter().enumerate() {
        let i = i as EntityIdx;
        // One entity per file, as `duplicate-title` counts them.
        if i == from || &e.path == path || e.escapes_root() || out.contains(&i) {
            continue;
        }
        if title_key(&e.title) == key {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::detect;

    #[test]
    fn a_same_title_pair_is_offered_after_the_near_duplicate() {
        let demo = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo"));
        let found = detect::detect(demo);
        let store = Store::load(&found.root, found.kind, found.reason);
        let find = |id: &str| store.find(id).unwrap();
        let (amounts, money) = (find("conventions/amounts-minor-units"), find("conventions/money-in-minor-units"));
        // "Money amounts in minor units" and "Money Amounts in Minor Units": lint's duplicate-title.
        assert_eq!(merge_candidates(&store, amounts, None), vec![money]);
        assert_eq!(merge_candidates(&store, money, None), vec![amounts]);
        let other = find("apis/refunds-v2");
        assert_eq!(merge_candidates(&store, amounts, Some(other)), vec![other, money], "the near-duplicate first");
        assert_eq!(merge_candidates(&store, amounts, Some(money)), vec![money], "named once");
        assert!(merge_candidates(&store, other, None).is_empty(), "no title twin: nothing offered");
    }
}
