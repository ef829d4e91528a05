use super::*;

fn index(texts: &[&str]) -> TextIndex {
    let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    TextIndex::from_texts(owned.len(), |s, e| owned[s..e].to_vec())
}

#[test]
fn postings_list_every_entity_with_its_count() {
    let i = index(&["Pillow pillow exif", "exif data", "nothing here"]);
    assert_eq!(i.postings("pillow"), [Posting { idx: 0, count: 2 }]);
    assert_eq!(i.postings("exif"), [Posting { idx: 0, count: 1 }, Posting { idx: 1, count: 1 }]);
    assert_eq!(i.postings("absent"), []);
    assert_eq!((i.df("exif"), i.length(0), i.length(2), i.len()), (2, 3, 2, 3));
    assert!((i.average_length() - 7.0 / 3.0).abs() < 1e-6);
}

#[test]
fn lists_across_build_tasks_stay_in_entity_order() {
    let texts: Vec<String> = (0..CHUNK * 3 + 7).map(|i| format!("common w{} {}", i % 5, "x ".repeat(i % 3))).collect();
    let i = TextIndex::from_texts(texts.len(), |s, e| texts[s..e].to_vec());
    let common = i.postings("common");
    assert_eq!(common.len(), texts.len());
    assert!(common.iter().enumerate().all(|(n, p)| p.idx == n as u32 && p.count == 1));
    let w3: Vec<u32> = i.postings("w3").iter().map(|p| p.idx).collect();
    assert_eq!(w3, (0..texts.len() as u32).filter(|n| n % 5 == 3).collect::<Vec<_>>());
    assert_eq!(i.postings("x").iter().find(|p| p.idx == 2).map(|p| p.count), Some(2));
}

#[test]
fn the_index_from_the_term_table_equals_the_one_from_the_texts() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    w("a.md", "---\ntitle: Pillow and EXIF\ndescription: Read exif\n---\n# Pillow\n\npip install Pillow\n");
    w("b.md", "---\ntitle: Unrelated words\n---\n```python\nimport os\n```\nwords words\n");
    w("c.md", "---\ntitle: Title only\n---\n");
    let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
    let n = store.entities.len();
    let texts: Vec<String> = (0..n).map(|i| weighted_text(&store, i as EntityIdx)).collect();
    let want = TextIndex::from_texts(n, |s, e| texts[s..e].to_vec());
    let got = TextIndex::from_content(&store, &Content::build(&store));
    assert_eq!(got.words.len(), want.words.len());
    for w in want.words.keys() {
        assert_eq!(got.postings(w), want.postings(w), "{w}");
    }
    assert_eq!(got.lengths, want.lengths);
    assert!(got.postings("pillow").iter().any(|p| p.count == 2 + TITLE_BOOST), "title (boosted), heading, body");
}

#[test]
fn the_loads_counts_of_a_querys_words_are_those_read_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &[u8]| std::fs::write(dir.path().join(p), t).unwrap();
    w("a.md", b"---\ntitle: Pillow and EXIF\ndescription: Read exif pillow\n---\n# Pillow\n\npip install Pillow\n");
    w("b.md", b"---\ntitle: Unrelated words\n---\n```python\nimport pillow\n```\nwords words\n");
    w("c.md", b"---\ntitle: Pillow title only\n---\n");
    // Not UTF-8: the load parses a lossy copy, and the body is read again as recall reads it.
    w("d.md", b"---\ntitle: Latin\n---\nPillow \xe9t\xe9 words\r\n");
    w("e.md", b"no frontmatter, pillow pillow PILLOW\r\nwords\r\n");
    let wanted: Vec<String> = ["pillow", "words", "title", "absent"].map(String::from).to_vec();
    let plain = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
    let read_after = TextIndex::of_words_read(&plain, &wanted);
    let counting = crate::store::Reads::EntitiesCountingWords(&wanted);
    let store = Store::load_with(dir.path(), crate::store::dialect::vault::KIND, "test".into(), None, counting);
    let other: Vec<String> = vec!["pillow".into()];
    assert!(store.take_loaded_word_counts(&other).is_none(), "counts of other words are not given out");
    let counted = store.take_loaded_word_counts(&wanted).expect("the load counted the words");
    assert_eq!(counted.len(), 5);
    assert!(counted.iter().any(|c| c.counts.iter().any(|&(slot, n)| slot == 0 && n == 3)), "{counted:?}");
    assert_eq!(TextIndex::of_word_counts(&store, &wanted, counted), read_after);
    assert!(store.take_loaded_word_counts(&wanted).is_none(), "given once");
}

#[test]
fn the_index_of_some_words_holds_the_full_index_lists_of_those_words() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    w("a.md", "---\ntitle: Pillow and EXIF\ndescription: Read exif\n---\n# Pillow\n\npip install Pillow\n");
    w("b.md", "---\ntitle: Unrelated words\n---\n```python\nimport pillow\n```\nwords words\n");
    w("c.md", "---\ntitle: Pillow title only\n---\n");
    let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
    let content = Content::build(&store);
    let full = TextIndex::from_content(&store, &content);
    let wanted: Vec<String> = ["pillow", "words", "title", "absent"].map(String::from).to_vec();
    let some = TextIndex::of_words(&store, &content, &wanted);
    assert_eq!(TextIndex::of_words_read(&store, &wanted), some, "read and counted alike");
    for w in &wanted {
        assert_eq!(some.postings(w), full.postings(w), "{w}");
        assert_eq!(some.df(w), full.df(w), "{w}");
    }
    assert_eq!(some.df("absent"), 0);
    let mut indexed = some.starting_with("");
    indexed.sort();
    assert_eq!(indexed, ["pillow", "title", "words"], "only the words asked for that some entity holds");
    assert_eq!(some.postings("exif"), [], "a word not asked for is not indexed");
    assert_eq!((some.lengths.clone(), some.average), (full.lengths.clone(), full.average));
    let one = |w: &str| vec![w.to_string()];
    let groups = [one("pillow"), one("words"), one("absent")];
    assert_eq!(super::super::bm25::scores_any(&some, &groups), super::super::bm25::scores_any(&full, &groups));
}

#[test]
fn an_update_equals_a_fresh_build_of_the_changed_texts() {
    let old = ["alpha beta", "beta gamma gamma", "delta", "epsilon alpha"];
    // Entity 0 gone, 1 kept (now 2), 2 changed (now 0), 3 kept (now 1), one new (3).
    let new = ["delta zeta", "epsilon alpha", "beta gamma gamma", "omega alpha alpha"];
    let before = index(&old);
    let keep = [None, Some(2), None, Some(1)];
    let fresh: Vec<(EntityIdx, String)> = vec![(0, new[0].into()), (3, new[3].into())];
    let updated = before.update(&keep, &fresh, new.len());
    let rebuilt = index(&new);
    for w in ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "omega"] {
        assert_eq!(updated.postings(w), rebuilt.postings(w), "{w}");
        assert_eq!(updated.df(w), rebuilt.df(w), "{w}");
    }
    assert_eq!(updated.words.len(), rebuilt.words.len(), "words no entity holds are dropped");
    assert_eq!(updated.lengths, rebuilt.lengths);
    assert!((updated.average_length() - rebuilt.average_length()).abs() < 1e-6);
}
